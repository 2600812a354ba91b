// Editing a file in a call's code renderer: the draft's diff in a dialog,
// then Save records it as a new edit node after that call (a new branch,
// since the chat went on from there), with the change in its step.

import {
  assert,
  branchItems,
  chatIdNow,
  cli,
  clickButton,
  clickIn,
  eq,
  log,
  openTab,
  ref,
  s,
  scrollIntoView,
  shot,
  sleep,
  waitEl,
  waitFor,
} from '../lib.mjs';

/** The line typed into branch.txt (the export step looks for it in the ZIP). */
export const EDITED_LINE = 'added in the editor by the end-to-end lane';
export const EDITED_FILE = 'branch.txt';

/** Registers these steps, in order. */
export function register(step) {
  step('Edit in the code renderer: Save… shows the diff, then a new edit step with that change', async () => {
    await openTab('tools');
    // The write_file call that made branch.txt, on the active branch.
    const card = await waitEl(
      `for (const c of document.querySelectorAll('#panel-tools article.call-card:not(.call-live)[aria-label="Call of write_file"]'))
         if (c.querySelector('.code-renderer .renderer-path')?.textContent === arguments[0]) return c;
       return null;`,
      [EDITED_FILE],
      `the write_file card of ${EDITED_FILE}`,
    );
    const editor = await waitEl(
      `return arguments[0].querySelector('.cm-content[contenteditable=true]');`,
      [ref(card)],
      'its editor',
    );
    await scrollIntoView(card, 'center');
    await s.click(editor);
    // Ctrl+End (then release Ctrl), Return, and the new line.
    await s.keys(editor, '\uE009\uE010\uE000');
    await s.keys(editor, `\uE006${EDITED_LINE}`);
    const lines = await waitFor(async () => {
      const l = await s.exec(`return [...arguments[0].querySelectorAll('.cm-line')].map((l) => l.textContent);`, [
        ref(card),
      ]);
      return l.at(-1) === EDITED_LINE ? l : null;
    }, 'the typed line at the end of the editor');
    log(`editor lines: ${JSON.stringify(lines)}`);
    await s.waitText('#panel-tools article.call-card .renderer-bar', 'Not saved yet.');
    await clickIn(card, 'Save…');

    await s.waitText('.modal[role=alertdialog]', `Save ${EDITED_FILE}?`);
    // The core computes the diff: it arrives a moment after the dialog.
    const dialog = await s.waitText('.modal[role=alertdialog]', '+1 −0 lines');
    const added = await s.exec(
      `return [...arguments[0].querySelectorAll('[aria-label=Changes] pre.diff-view .diff-add')].map((l) => l.textContent.trim());`,
      [ref(dialog)],
    );
    assert(
      added.length === 1 && added[0] === `+${EDITED_LINE}`,
      `the dialog's added lines are ${JSON.stringify(added)}`,
    );
    await shot('save-edit-diff');
    await clickButton('.modal[role=alertdialog] .modal-actions', 'Save');

    await s.waitText('#panel-tools article.call-card .code-renderer', 'Saved as a new edit step after this call');
    // The branch now ends with the edit, after the write_file call.
    const item = await waitFor(async () => {
      const last = (await branchItems()).at(-1);
      const t = last ? await s.text(last) : '';
      return t.includes('Workspace edit: 1 changed') ? last : null;
    }, 'the edit step "Workspace edit: 1 changed" at the end of the active branch');
    const summary = await waitEl(
      `return arguments[0].querySelector('details.step-changes > summary');`,
      [ref(item)],
      'its "Files changed by this step"',
    );
    eq((await s.text(summary)).trim(), 'Files changed by this step', 'the summary of the step changes');
    await s.click(summary);
    const changes = await waitEl(
      `const d = arguments[0].querySelector('details.step-changes .node-changes');
       return d && [...d.querySelectorAll('.diff-add')].some((l) => l.textContent.includes(arguments[1])) ? d : null;`,
      [ref(item), EDITED_LINE],
      'the step changes with the added line',
    );
    const changed = await s.text(changes);
    // ("changed" is upper case on screen: text-transform.)
    assert(
      changed.toLowerCase().includes(`changed ${EDITED_FILE}`),
      `the step changes do not name ${EDITED_FILE}: ${changed}`,
    );
    await scrollIntoView(item, 'center');
    await sleep(200);
    await shot('edit-node-changes');

    const cat = cli('workspace', 'cat', chatIdNow(), EDITED_FILE);
    assert(cat.includes(EDITED_LINE), `the CLI's ${EDITED_FILE} lacks the new line: ${JSON.stringify(cat)}`);
  });
}
