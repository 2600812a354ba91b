// Toolsets: the first screen on a fresh data dir (Chat), the bundled
// toolsets, importing a ZIP by drag and drop through the consent step, and a
// broken ZIP that cannot be installed.

import { join } from 'node:path';
import {
  FIXTURES,
  assert,
  cli,
  clickButton,
  dropFile,
  eq,
  installedIds,
  log,
  openTab,
  ref,
  s,
  shot,
  waitEl,
  waitFor,
} from '../lib.mjs';

/** Registers these steps, in order. */
export function register(step) {
  step('start on a fresh data dir: the app opens on Chat; the example toolsets are listed', async () => {
    await waitFor(
      async () => (await s.attr(await s.find('#tab-tools'), 'aria-selected')) === 'true',
      'the Chat tab, selected at start',
      30000,
    );
    await waitEl(`return document.querySelector('#panel-tools textarea[aria-label="Message"]');`, [], 'the composer');
    await shot('start-chat');
    await openTab('toolsets');
    const list = await s.waitText('ul[aria-label="Installed toolsets"]', 'App Builder', { timeout: 30000 });
    const text = await s.text(list);
    assert(text.includes('CSV Report'), `CSV Report is not listed: ${text}`);
    eq(await s.exec('return document.title'), 'Atelier', 'the window title');
    await shot('start-toolsets');
  });

  step('import a toolset ZIP by drag and drop, through the consent step', async () => {
    await dropFile(join(FIXTURES, 'word-tools.zip'), { hoverShot: 'drag-over' });
    const consent = await s.waitText('section.consent', 'Before you install');
    const text = await s.text(consent);
    for (const want of [
      'Word Tools',
      '0.1.0',
      'word-tools.zip',
      'Python entry points (1)',
      'word-tools:word_count',
      'tools.words:word_count',
      'Let the Assistant use its tools',
    ]) {
      assert(text.includes(want), `the consent panel does not show "${want}": ${text}`);
    }
    assert(!installedIds().includes('word-tools'), 'word-tools was installed before consent');
    await shot('consent');
    await clickButton('section.consent', 'Install');
    await s.waitText('section[aria-label="Installed"]', /Word Tools\s+installed\s+0\.1\.0: 1 tool\b/, {
      timeout: 30000,
    });
    await s.waitText('ul[aria-label="Installed toolsets"]', 'Word Tools');
    assert(installedIds().includes('word-tools'), 'the CLI does not list word-tools after the install');
    const assistant = JSON.parse(cli('agent', 'show', 'assistant', '--json'));
    assert(
      assistant.toolsets.includes('word-tools'),
      `the checked "Let the Assistant use its tools" did not allow it: ${JSON.stringify(assistant.toolsets)}`,
    );
    await shot('installed');
    await clickButton('section[aria-label="Installed"]', 'Done');
  });

  step('a broken ZIP lists its problems with file:line:col and offers no Install', async () => {
    await dropFile(join(FIXTURES, 'broken-tools.zip'));
    const consent = await s.waitText('section.consent', 'can’t be installed');
    const problems = await s.text(await s.find('section.consent ul[aria-label="Problems"]'));
    assert(
      /toolset\.yaml:\d+:\d+ version: .*semantic version/.test(problems),
      `no located version problem in: ${problems}`,
    );
    assert(
      /toolset\.yaml:\d+:\d+ tools\[0\]\.entrypoint: .*tools\/missing\.py/.test(problems),
      `no located entrypoint problem in: ${problems}`,
    );
    const labels = await s.exec(
      `return [...arguments[0].querySelectorAll('button')].map((b) => b.textContent.trim());`,
      [ref(consent)],
    );
    assert(!labels.some((l) => /^(Install|Reinstall|Upgrade)$/.test(l)), `an install button is offered: ${labels}`);
    log(`problems: ${problems.replace(/\n/g, ' | ')}`);
    await shot('broken-bundle');
    assert(!installedIds().includes('broken-tools'), 'broken-tools got installed');
    await clickButton('section.consent', 'Close');
  });
}
