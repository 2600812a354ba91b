// The conversation map in the sidebar: a click on a node brings that node's
// workspace back; the Workspace tab's Compare… shows what differs between
// any two nodes.

import { EDITED_FILE } from './edits.mjs';
import {
  assert,
  clickButton,
  clickIn,
  cliPaths,
  eq,
  jumpOnMap,
  log,
  openTab,
  ref,
  s,
  scrollIntoView,
  shot,
  waitEl,
  waitFor,
  workspaceIs,
} from '../lib.mjs';

/** Picks the option of the select labelled `label` in the compare panel whose text matches `re`; returns its text. */
async function pick(label, re) {
  const option = await waitEl(
    `for (const l of document.querySelectorAll('section[aria-label="Compare two steps"] label.compare-pick'))
       if (l.querySelector('.field-label')?.textContent === arguments[0])
         for (const o of l.querySelectorAll('option')) if (new RegExp(arguments[1]).test(o.textContent)) return o;
     return null;`,
    [label, re.source],
    `a "${label}" option matching ${re}`,
  );
  const text = await s.text(option);
  await s.click(option);
  await waitFor(() => s.exec(`return arguments[0].selected;`, [ref(option)]), `"${text}" to be selected as ${label}`);
  return text;
}

/** Registers these steps, in order. */
export function register(step) {
  step('Conversation map: a click on the first step brings its workspace back; Compare… two steps', async () => {
    await openTab('workspace');
    await jumpOnMap('Step 1: write_file,');
    await workspaceIs(['hello.txt']);
    const labels = await s.exec(
      `return [...document.querySelectorAll('section[aria-label="Conversation map"] g[role=button]')].map((g) => g.getAttribute('aria-label'));`,
    );
    log(`map nodes: ${labels.join(' | ')}`);
    eq(JSON.stringify(cliPaths()), '["hello.txt"]', 'the CLI workspace after the jump');
    await shot('map-jump-first-step');

    await clickButton('#panel-workspace .header-actions', 'Compare…');
    const panel = await s.find('section[aria-label="Compare two steps"]');
    const from = await pick('From', /^Step 1 · write_file · /);
    const to = await pick('To', / · edit: 1 changed · /);
    log(`compare: ${from} → ${to}`);
    await s.waitText('section[aria-label="Compare two steps"] .compare-summary', '1 added.');
    const diff = await s.text(await s.find('section[aria-label="Compare two steps"] ul[aria-label="Differences"]'));
    assert(
      diff.toLowerCase().includes(`added ${EDITED_FILE}`),
      `the comparison does not list ${EDITED_FILE} as added: ${diff}`,
    );
    assert(!diff.includes('hello.txt'), `the comparison lists hello.txt, which both have: ${diff}`);
    await scrollIntoView(panel);
    await shot('compare-nodes');
    await clickIn(panel, 'Close');
  });
}
