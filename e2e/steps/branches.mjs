// Branches: branch from an earlier call, run there, switch with the arrows.

import {
  assert,
  branchItems,
  clickIn,
  eq,
  field,
  openTab,
  pickTool,
  ref,
  runAndWait,
  s,
  scrollIntoView,
  shot,
  waitEl,
  waitFor,
  workspacePaths,
} from '../lib.mjs';

/** Registers these steps, in order. */
export function register(step) {
  step('Branches: branch from the first call, run there, switch back and forth with the arrows', async () => {
    await openTab('tools');
    const first = (await branchItems())[0];
    assert(first, 'the active branch is empty');
    await clickIn(first, 'Branch from here');
    await waitFor(async () => (await branchItems()).length === 1, 'the branch to end at the first call');
    let paths = await workspacePaths(['hello.txt']);
    eq(JSON.stringify(paths), '["hello.txt"]', 'the workspace right after the first call');

    await openTab('tools');
    await pickTool('write_file');
    await s.type(await field('path'), 'branch.txt');
    await s.type(await field('content'), 'made on a branch');
    // Back at step 1 of a longer branch: the Run button says the run branches.
    await runAndWait('write_file', { branching: true });
    const second = (await branchItems())[1];
    const arrows = await waitEl(
      `return arguments[0].querySelector('[aria-label="Other versions of this step"]');`,
      [ref(second)],
      'the sibling arrows',
    );
    eq((await s.text(arrows)).replace(/\s+/g, ''), '‹2/2›', 'the new branch is the second version of step 2');
    await scrollIntoView(second);
    await shot('branch-new');
    paths = await workspacePaths(['hello.txt', 'branch.txt']);
    assert(!paths.includes('sales.csv'), `the branch still lists sales.csv: ${paths}`);

    await openTab('tools');
    await clickIn((await branchItems())[1], '‹');
    await waitFor(async () => (await branchItems()).length > 2, 'the first branch back');
    paths = await workspacePaths(['sales.csv', 'dropped-notes.md']);
    assert(!paths.includes('branch.txt'), `the first branch lists branch.txt: ${paths}`);
    await shot('branch-switched-back');

    await openTab('tools');
    await clickIn((await branchItems())[1], '›');
    await waitFor(async () => (await branchItems()).length === 2, 'the second branch again');
    paths = await workspacePaths(['branch.txt']);
    assert(!paths.includes('sales.csv'), `switching forth again still lists sales.csv: ${paths}`);
  });
}
