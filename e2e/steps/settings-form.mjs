// A toolset's settings and secrets: a bundle with `user_config` (a required
// string, an optional number, a sensitive string) and an MCP server holding a
// plain-text secret, installed through the consent form — where no keychain
// answers (this lane's session bus has none), the form's button allows the
// file fallback — then its Settings in the toolset manager, the Settings
// page's secrets section, and (last, so the earlier chat steps keep their
// calls) a tool that receives the settings.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  APP_LOG,
  DATA_DIR,
  FIXTURES,
  HERE,
  assert,
  cli,
  clickButton,
  dropFile,
  eq,
  installedIds,
  log,
  openTab,
  pickTool,
  ref,
  runAndWait,
  s,
  scrollIntoView,
  shot,
  waitEl,
  waitFor,
} from '../lib.mjs';

const ID = 'weather-settings';
const CITY = 'Oslo';
const API_KEY = 'sk-e2e-setting-91c2';
// The plain-text value in the fixture's server env.
const PLAIN = 'ft-e2e-plain-7f3a';
const CONSENT = 'section.consent';

/** The consent form's (or a settings form's) field labelled `title`, under `scope`. */
function settingInput(scope, title) {
  return waitEl(
    `for (const l of document.querySelectorAll(arguments[0] + ' label.field-label'))
       if (l.textContent.replace(/\\s*\\*\\s*$/, '').trim() === arguments[1]) return document.getElementById(l.htmlFor);
     return null;`,
    [scope, title],
    `the setting "${title}" in ${scope}`,
  );
}

const value = (el) => s.exec('return arguments[0].value;', [ref(el)]);

/** Files under `dir` (but `skip`) whose bytes contain `needle`. */
function filesHolding(dir, needle, skip) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (p === skip) continue;
    const st = statSync(p);
    if (st.isDirectory()) found.push(...filesHolding(p, needle, skip));
    else if (st.isFile() && readFileSync(p).includes(needle)) found.push(p);
  }
  return found;
}

const config = () => JSON.parse(cli('toolset', 'config', ID, '--json'));
const fieldOf = (c, key) => c.fields.find((f) => f.key === key);

/** Registers the install, the manager's Settings and the Settings page's secrets, in order. */
export function register(step) {
  step('install a toolset with settings through the consent form, allowing the secrets file on the way', async () => {
    const zip = join(FIXTURES, `${ID}.zip`);
    cli('toolset', 'pack', join(HERE, 'fixtures', ID), '-o', zip);
    await dropFile(zip);
    await s.waitText(CONSENT, 'Before you install');
    const form = await s.waitText(`${CONSENT} section[aria-label="Settings"]`, 'Days ahead');
    const formText = await s.text(form);
    for (const want of [
      'City',
      'Where the forecast is for.',
      'Days ahead',
      'From 1 to 14.',
      'API key',
      'Your key for the weather service.',
    ]) {
      assert(formText.includes(want), `the settings form does not show "${want}": ${formText}`);
    }
    eq(await s.attr(await settingInput(CONSENT, 'API key'), 'type'), 'password', 'the API key input type');
    eq(await s.attr(await settingInput(CONSENT, 'Days ahead'), 'type'), 'number', 'the Days ahead input type');
    await s.waitText(CONSENT, 'Fill in the required setting City to install.');
    const install = await waitEl(
      `for (const b of document.querySelectorAll('section.consent .form-actions button'))
         if (b.textContent.trim() === 'Install') return b;
       return null;`,
      [],
      'the Install button',
    );
    eq(await s.exec('return arguments[0].disabled;', [ref(install)]), true, 'Install before City is filled');

    const secrets = await s.waitText(`${CONSENT} section[aria-label="Secrets"]`, 'This bundle contains 1 secret value');
    let text = await s.text(secrets);
    assert(text.includes('forecast: env FORECAST_TOKEN'), `the secret value is not named: ${text}`);
    assert(!text.includes(PLAIN), 'the consent step shows a secret value');
    const env = await s.text(await s.find(`${CONSENT} section[aria-label="Environment variables"]`));
    assert(env.includes('Let it read $NO_AT_BRIDGE from your environment'), `no checkbox for $NO_AT_BRIDGE: ${env}`);
    assert(env.includes(`$FORECAST_REGION not set`), `no note for $FORECAST_REGION: ${env}`);
    eq(
      await s.attr(await s.find(`${CONSENT} input[aria-label="Value of FORECAST_REGION"]`), 'type'),
      'password',
      'the field for $FORECAST_REGION',
    );
    await scrollIntoView(form);
    await shot('settings-consent');

    if (text.includes('No keychain is reachable')) {
      log(`no keychain: ${text.replace(/\n/g, ' | ')}`);
      await shot('settings-consent-no-keychain');
      await clickButton(`${CONSENT} section[aria-label="Secrets"]`, 'Keep secrets in a file only I can read');
      const after = await s.waitText(`${CONSENT} section[aria-label="Secrets"]`, 'a file only you can read.');
      text = await s.text(after);
      assert(!text.includes('No keychain is reachable on this computer'), `still no store: ${text}`);
    } else {
      log(`a keychain answers here, so the file fallback is not offered: ${text.replace(/\n/g, ' | ')}`);
    }

    await s.type(await settingInput(CONSENT, 'City'), CITY);
    await s.type(await settingInput(CONSENT, 'Days ahead'), '5');
    await s.type(await settingInput(CONSENT, 'API key'), API_KEY);
    const tick = await waitEl(
      `for (const l of document.querySelectorAll('section.consent section[aria-label="Environment variables"] label'))
         if (l.textContent.includes('$NO_AT_BRIDGE')) return l.querySelector('input');
       return null;`,
      [],
      'the $NO_AT_BRIDGE checkbox',
    );
    await s.click(tick);
    await waitFor(() => s.exec('return !arguments[0].disabled;', [ref(install)]), 'Install to be enabled');
    await scrollIntoView(install, 'end');
    await shot('settings-consent-filled');
    await clickButton(`${CONSENT} .form-actions`, 'Install');
    await s.waitText('section[aria-label="Installed"]', /Weather Settings\s+installed\s+0\.1\.0: 1 tool\b/, {
      timeout: 30000,
    });
    assert(installedIds().includes(ID), `the CLI does not list ${ID}`);
    // Its MCP server is started once to list its tools: a variable of its
    // env is set nowhere, and the result says it could not start, and why.
    await s.waitText('section[aria-label="Installed"] ul[aria-label="Its MCP servers"]', 'forecast could not start', {
      timeout: 30000,
    });
    await shot('settings-installed');
    await clickButton('section[aria-label="Installed"]', 'Done');

    const c = config();
    eq(fieldOf(c, 'city').value, CITY, 'the stored City');
    eq(fieldOf(c, 'days').value, 5, 'the stored Days ahead');
    eq(fieldOf(c, 'api_key').is_set, true, 'the API key is set');
    eq(JSON.stringify(c.missing), '[]', 'the missing settings');
    const status = JSON.parse(cli('secrets', 'status', '--json'));
    log(`secrets: store ${status.store}, ${status.count} stored, keychain ${status.keychain}`);
    assert(status.count >= 2, `the API key and the plain-text token are not both stored: ${JSON.stringify(status)}`);
    const secretsFile = join(DATA_DIR, 'secrets.json');
    for (const needle of [API_KEY, PLAIN]) {
      const holders = filesHolding(DATA_DIR, needle, secretsFile);
      eq(JSON.stringify(holders), '[]', `files of the data dir holding ${needle} (but secrets.json)`);
      assert(!readFileSync(APP_LOG, 'utf8').includes(needle), `the app log holds ${needle}`);
    }
  });

  step("the toolset's Settings show the stored values (the key only as set), and a change saves", async () => {
    const row = await s.waitText('ul[aria-label="Installed toolsets"] > li', 'Weather Settings');
    await scrollIntoView(row);
    await clickButton('li[aria-label="Weather Settings"] .row-actions', 'Details');
    const scope = 'form[aria-label="Settings of Weather Settings"]';
    const form = await s.waitText(scope, 'API key');
    eq(await value(await settingInput(scope, 'City')), CITY, 'City in the Settings');
    eq(await value(await settingInput(scope, 'Days ahead')), '5', 'Days ahead in the Settings');
    const key = await s.find(`${scope} [data-key="api_key"]`);
    eq(await s.text(await s.find(`${scope} [data-key="api_key"] .badge`)), 'set', "the API key's badge");
    const keyText = await s.text(key);
    assert(keyText.includes('Replace') && !keyText.includes(API_KEY), `the API key: ${keyText}`);
    eq(await s.exec('return arguments[0].querySelector("input");', [ref(key)]), null, 'an input for the stored key');
    const allowed = await s.waitText(
      'li[aria-label="Weather Settings"] section[aria-label="Variables it may read"]',
      '$NO_AT_BRIDGE',
    );
    log(`allowed: ${(await s.text(allowed)).replace(/\n/g, ' ')}`);
    await scrollIntoView(form);
    await shot('toolset-settings');

    await s.type(await settingInput(scope, 'Days ahead'), '7');
    await clickButton(`${scope} .settings-actions`, 'Save');
    await s.waitText(`${scope} .settings-actions`, 'Saved.');
    eq(fieldOf(config(), 'days').value, 7, 'Days ahead after Save');
    await shot('toolset-settings-saved');
    await clickButton('li[aria-label="Weather Settings"] .row-actions', 'Hide details');
  });

  step('Settings: the secrets section says where secrets go and how many are stored', async () => {
    await openTab('settings');
    const facts = await s.waitText('#panel-settings dl[aria-label="Secret store"]', 'Stored');
    const text = await s.text(facts);
    const status = JSON.parse(cli('secrets', 'status', '--json'));
    assert(text.includes(`${status.count} secrets`), `the count (${status.count}) is not shown: ${text}`);
    assert(
      text.includes(status.keychain ? 'reachable' : 'not reachable'),
      `the keychain's state is not shown: ${text}`,
    );
    const box = await waitEl(
      `for (const l of document.querySelectorAll('#panel-settings label.check-row'))
         if (l.textContent.includes('keep secrets in a file only I can read')) return l.querySelector('input');
       return null;`,
      [],
      'the file fallback checkbox',
    );
    eq(await s.exec('return arguments[0].checked;', [ref(box)]), status.file_allowed, 'the file fallback checkbox');
    await scrollIntoView(facts);
    await shot('settings-secrets');
    await openTab('toolsets');
  });
}

/** Registers the last step: a tool of the toolset receives its settings. */
export function registerRun(step) {
  step('a tool of the toolset receives its settings (the key as set, never its value)', async () => {
    await openTab('tools');
    await pickTool(`${ID}:settings_seen`);
    const card = await runAndWait(`${ID}:settings_seen`);
    // The result renderer loads after the status shows ("Loading…" first).
    const text = await waitFor(async () => {
      const t = await s.text(card);
      return t.includes('"api_key_set"') ? t : null;
    }, 'the result in the call card').catch(() => s.text(card));
    for (const want of ['"city"', CITY, '"days"', '7', '"api_key_set"', 'true']) {
      assert(text.includes(want), `the call's result lacks ${want}: ${text.slice(0, 600)}`);
    }
    assert(!text.includes(API_KEY), 'the call card shows the key');
    await scrollIntoView(card);
    await shot('settings-seen-by-tool');
  });
}
