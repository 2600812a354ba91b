// The end-to-end lane: the real desktop app (debug build) under Xvfb, driven
// through tauri-driver + WebKitWebDriver. `scripts/e2e.sh` builds the app,
// prepares a fresh data dir and the fixture bundles, and runs this inside
// xvfb-run; run it through that script.
//
// Each step is something a user would notice; each saves screenshots to
// $E2E_SHOTS/NN-name.png. A failed step is reported and the next ones still
// run (they may fail as a consequence); the exit code is 1 if any failed.
// The steps run in one app session, in the order registered below, and build
// on each other (the chat and its workspace carry over from step to step).
//
// Layout:
//   run.mjs        this file: the step registry and the run
//   lib.mjs        environment, the session `s`, assertions, screenshots, the
//                  CLI, drag and drop, and helpers for the app's views
//   webdriver.mjs  a small WebDriver client
//   steps/*.mjs    the steps by theme, each file's `register(step)` adds its
//                  steps in order
//   conversation.mjs helpers for the chat view; llm-server.mjs the scripted
//                  OpenAI-compatible model the chat steps start on loopback
//   drag_source.py a GTK window to drag files from; xshot.py the screenshots,
//                  taken from the X server (WebDriver's hang with the app's
//                  no-GPU renderer, and cannot see native dialogs)
//
// Environment (all set by scripts/e2e.sh):
//   E2E_APP       an executable that execs atelier-app with ATELIER_DATA_DIR set
//   E2E_DATA_DIR  that data dir (also read with the CLI)
//   E2E_CLI       target/debug/atelier
//   E2E_FIXTURES  a folder with word-tools.zip (valid), broken-tools.zip and
//                 dropped-notes.md (dropped onto the workspace); Export ZIP… writes
//                 export.zip there, and the settings steps pack
//                 e2e/fixtures/weather-settings into weather-settings.zip
//   E2E_SHOTS     where screenshots go
//   E2E_APP_LOG   the app's stderr (printed on failure)
//   E2E_STEPS     optional: a comma list of step groups to run (see below)

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { APP, APP_LOG, DRIVER, SHOTS, STEP_TIMEOUT_MS, log, s, setSession, shot, sleep } from './lib.mjs';
import { Session } from './webdriver.mjs';
import * as a11y from './steps/a11y.mjs';
import * as approvals from './steps/approvals.mjs';
import * as branches from './steps/branches.mjs';
import * as chat from './steps/chat.mjs';
import * as dark from './steps/dark.mjs';
import * as edits from './steps/edits.mjs';
import * as exportZip from './steps/export.mjs';
import * as history from './steps/history.mjs';
import * as layout from './steps/layout.mjs';
import * as map from './steps/map.mjs';
import * as mcp from './steps/mcp.mjs';
import * as navigation from './steps/navigation.mjs';
import * as renderers from './steps/renderers.mjs';
import * as settingsForm from './steps/settings-form.mjs';
import * as settings from './steps/settings.mjs';
import * as toolsets from './steps/toolsets.mjs';
import * as workspace from './steps/workspace.mjs';

// ---------------------------------------------------------------------------
// The steps, in the order they run

const steps = [];
let group = '';
const step = (name, fn) => steps.push({ group, name, fn });
/** Registers a module's steps under its group name (E2E_STEPS picks groups). */
const add = (name, register) => {
  group = name;
  register(step);
};

add('toolsets', toolsets.register); // 1-3
add('settings-form', settingsForm.register); // 4-6
add('renderers', renderers.register); // 7-11
add('settings', settings.register); // 12
add('workspace', workspace.register); // 13
add('branches', branches.register); // 14
add('approvals', approvals.register); // 15
add('edits', edits.register); // 16
add('map', map.register); // 17
add('history', history.register); // 17b (reads what the map's jump left)
add('export', exportZip.register); // 18
add('settings-form', settingsForm.registerRun); // 19 (a call of its own, after the chat steps)
add('layout', layout.register); // 20 (adds 20 chats)
add('mcp', mcp.register); // 21-22 (an MCP server added in Settings, its tool run by hand)
add('chat', chat.register); // a scripted model: stream, tools, branches, fork, stop, MCP, errors
add('a11y', a11y.register); // axe on the main views (contrast too) and the skip link
add('navigation', navigation.register); // the window refuses to leave the app
add('dark', dark.register); // restarts the app with the dark look: must stay last

// E2E_STEPS=toolsets,mcp,chat runs only those groups, in the order above
// (to iterate on some steps: the groups they build on must be listed too).
const only = (process.env.E2E_STEPS ?? '').split(',').filter(Boolean);
const unknown = only.filter((g) => !steps.some((st) => st.group === g));
if (unknown.length > 0) {
  console.error(`e2e: E2E_STEPS names unknown groups: ${unknown.join(', ')}`);
  process.exit(2);
}
if (only.length > 0) steps.splice(0, steps.length, ...steps.filter((st) => only.includes(st.group)));

// ---------------------------------------------------------------------------
// The run

async function waitDriver() {
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(`${DRIVER}/status`)).ok) return;
    } catch {
      // not up yet
    }
    await sleep(100);
  }
  throw new Error('tauri-driver did not answer on port 4444');
}

async function main() {
  rmSync(SHOTS, { recursive: true, force: true });
  mkdirSync(SHOTS, { recursive: true });
  const driverLog = join(dirname(SHOTS), 'e2e-driver.log');
  const driver = spawn('tauri-driver', ['--port', '4444'], { stdio: ['ignore', 'pipe', 'pipe'] });
  // Interrupted (Ctrl-C, a CI timeout): close the session (which ends the
  // app) and stop the driver, so no WebKitWebDriver keeps port 4445.
  const abort = async (why) => {
    console.error(`\ne2e: ${why}: stopping`);
    if (s) await Promise.race([s.end(), sleep(5000)]);
    driver.kill();
    process.exit(1);
  };
  process.once('SIGINT', () => void abort('interrupted'));
  process.once('SIGTERM', () => void abort('terminated'));
  let driverOut = '';
  driver.stdout.on('data', (d) => (driverOut += d));
  driver.stderr.on('data', (d) => (driverOut += d));
  const results = [];
  try {
    await waitDriver();
    setSession(await Session.start(DRIVER, APP));
    // The webview keeps its storage outside the data dir (the tool list's
    // remembered Show/Hide): a run starts from none, as a new install does.
    await s.exec('localStorage.clear(); location.reload();');
    for (const [i, st] of steps.entries()) {
      const label = `${i + 1}. ${st.name}`;
      console.log(`\n── ${label}`);
      const t0 = Date.now();
      try {
        await Promise.race([
          st.fn(),
          sleep(STEP_TIMEOUT_MS).then(() => {
            throw new Error(`the step took longer than ${STEP_TIMEOUT_MS / 1000} s`);
          }),
        ]);
        results.push({ label, ok: true, ms: Date.now() - t0 });
        console.log(`   PASS (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      } catch (e) {
        results.push({ label, ok: false, ms: Date.now() - t0, error: e.message });
        console.log(`   FAIL: ${e.message}`);
        await shot(`step${i + 1}-failed`).catch((err) => log(`(no screenshot: ${err.message})`));
      }
    }
  } finally {
    if (s) await s.end();
    driver.kill();
    await sleep(300);
    writeFileSync(driverLog, driverOut);
  }

  console.log('\n── summary');
  for (const r of results) console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.label}${r.ok ? '' : `\n      ${r.error}`}`);
  const failed = results.filter((r) => !r.ok).length + (steps.length - results.length);
  console.log(`\n${steps.length - failed}/${steps.length} steps passed; screenshots in ${SHOTS}`);
  if (failed > 0 && APP_LOG && existsSync(APP_LOG)) {
    const lines = readFileSync(APP_LOG, 'utf8').trimEnd().split('\n');
    console.log(`\n── last lines of ${APP_LOG}\n${lines.slice(-30).join('\n')}`);
  }
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`e2e: ${e.stack ?? e}`);
    process.exit(1);
  },
);
