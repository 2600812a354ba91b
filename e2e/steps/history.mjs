// Going back in history is said where the person looks: after the map's
// jump to step 1 (the previous step), the Tools tab says which step is shown
// and that the next run branches (banner and Run button), and the Workspace
// header says chat · branch · step. Reads only: the chat stays where it is.

import { assert, log, openTab, s, scrollIntoView, shot, waitEl } from '../lib.mjs';

/** Registers these steps, in order. */
export function register(step) {
  step('History: an older step is said above the calls, on Run, and in the Workspace header', async () => {
    await openTab('workspace');
    const where = await waitEl(
      `const p = document.querySelector('#panel-workspace [aria-label="Where you are"]');
       return p && /step 1 of \\d+/.test(p.textContent) ? p : null;`,
      [],
      'the Workspace header to say "step 1 of N"',
    );
    const header = await s.text(where);
    log(`workspace header: ${header}`);
    assert(/^.+ · where \d+ branches start · step 1 of \d+\s*Return to latest$/.test(header), `header: ${header}`);
    await shot('history-workspace-header');

    await openTab('tools');
    const banner = await waitEl(
      `for (const b of document.querySelectorAll('#panel-tools .history-banner'))
         if (/Viewing step 1 of \\d+/.test(b.textContent)) return b;
       return null;`,
      [],
      'the banner "Viewing step 1 of N" above the calls',
    );
    const text = await s.text(banner);
    log(`banner: ${text}`);
    assert(text.includes('the next run starts a new branch'), `banner: ${text}`);
    assert(text.includes('Return to latest'), `banner without its way back: ${text}`);
    const run = await s.findAll('#panel-tools form.tool-runner button[type=submit]');
    if (run.length > 0) {
      const label = (await s.text(run[0])).trim();
      assert(label === 'Run as a new branch', `the Run button says "${label}"`);
    }
    await scrollIntoView(banner, 'center');
    await shot('history-banner');
  });
}
