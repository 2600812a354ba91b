// The Workspace tab: a file dropped onto it becomes an upload node.

import { join } from 'node:path';
import { FIXTURES, assert, chatIdNow, cli, dropFile, fileList, openTab, ref, s, shot, waitEl } from '../lib.mjs';

/** Registers these steps, in order. */
export function register(step) {
  step('Workspace: a dropped file becomes an upload step and shows in the browser', async () => {
    await openTab('workspace');
    await fileList('sales.csv');
    await dropFile(join(FIXTURES, 'dropped-notes.md'), {
      onto: 'workspace-view',
      hint: 'Drop to add',
      hoverShot: 'workspace-drag-over',
    });
    await s.waitText('#panel-workspace', 'Added as a new upload step: 1 new');
    const list = await fileList('dropped-notes.md');
    const item = await waitEl(
      `for (const b of arguments[0].querySelectorAll('.file-item')) if (b.dataset.path === 'dropped-notes.md') return b; return null;`,
      [ref(list)],
      'the dropped file in the list',
    );
    const marked = await s.exec(`return arguments[0].classList.contains('file-item-changed');`, [ref(item)]);
    assert(marked, 'the dropped file is not marked as changed by the last step');
    await s.click(item);
    await s.waitText('#panel-workspace .file-view', 'Dropped in by the end-to-end lane');
    await s.waitText('#panel-workspace', 'this step: an upload');
    const files = JSON.parse(cli('workspace', 'ls', chatIdNow(), '--json')).map((f) => f.path);
    assert(files.includes('dropped-notes.md'), `the CLI does not list the dropped file: ${files}`);
    await shot('workspace-upload');
  });
}
