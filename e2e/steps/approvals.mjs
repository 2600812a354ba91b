// Confirmations inline, and Cancel: a tool that asks first (App Builder's
// run_command) shows a live card at the end of the branch that waits for
// Approve or Deny; once running it shows the output as it comes, and Cancel
// stops it, keeping what it had already changed.

import {
  assert,
  badgeOf,
  cardsOf,
  clickIn,
  clickRun,
  cli,
  cliPaths,
  eq,
  field,
  liveCard,
  log,
  openTab,
  pickTool,
  ref,
  s,
  scrollIntoView,
  shot,
  waitEl,
  waitFor,
} from '../lib.mjs';

const TOOL = 'app-builder:run_command';
const COMMAND = 'echo ticking; touch ran.txt; sleep 60';

/** Waits until the live card of TOOL (read again each time) has the badge `status`. */
function liveWith(status, timeout = 30000) {
  return waitFor(
    async () => {
      const card = await liveCard(TOOL);
      return (await badgeOf(card)) === status ? card : null;
    },
    `the live card of ${TOOL} to say "${status}"`,
    timeout,
  );
}

/** Waits for a finished card of TOOL after `before` of them, with the badge `status`; no live card is left. */
async function finishedWith(before, status) {
  const card = await waitFor(
    async () => {
      const cards = await cardsOf(TOOL);
      return cards.length > before ? cards[cards.length - 1] : null;
    },
    `a finished card of ${TOOL}`,
    30000,
  );
  const badge = await waitFor(async () => badgeOf(card), 'its badge');
  eq(badge, status, `the badge of the finished ${TOOL} card`);
  await waitFor(
    async () => (await s.findAll('#panel-tools article.call-card.call-live')).length === 0,
    'the live card to go away',
  );
  return card;
}

async function run() {
  await s.type(await field('command'), COMMAND);
  const before = (await cardsOf(TOOL)).length;
  await clickRun();
  const live = await liveWith('waiting for approval');
  const group = await waitEl(
    `return arguments[0].querySelector('[role=group][aria-label=Approval]');`,
    [ref(live)],
    'the Approval group',
  );
  const args = await s.text(
    await waitEl(`return arguments[0].querySelector('.call-args pre');`, [ref(live)], 'the open arguments'),
  );
  assert(args.includes(COMMAND), `the waiting card does not show the command: ${args}`);
  await s.waitText('form.tool-runner', 'Waiting for your approval in the call below.');
  return { before, live, group };
}

/** Registers these steps, in order. */
export function register(step) {
  step(
    'Confirmations inline: Deny runs nothing; Approve shows the output live, and Cancel keeps what was done',
    async () => {
      await openTab('tools');
      await pickTool(TOOL);

      // Deny: the call is recorded as denied and nothing ran.
      let { before, live, group } = await run();
      await scrollIntoView(live, 'center');
      await shot('approval-waiting');
      await clickIn(group, 'Deny');
      await finishedWith(before, 'denied');
      const afterDeny = cliPaths();
      assert(!afterDeny.includes('ran.txt'), `ran.txt exists after Deny: ${afterDeny}`);

      // Approve: it runs, the output comes in live; Cancel stops it.
      ({ before, group } = await run());
      await clickIn(group, 'Approve');
      live = await liveWith('running');
      const out = await waitEl(
        `const p = arguments[0].querySelector('section[aria-label=Running] pre.live-output[aria-label="Output so far"]');
       return p && p.textContent.includes('ticking') ? p : null;`,
        [ref(live)],
        'the live output with "ticking"',
        30000,
      );
      log(`live output: ${JSON.stringify(await s.text(out))}`);
      await scrollIntoView(live, 'center');
      await shot('run-command-live-output');
      await clickIn(live, 'Cancel');
      const cancelled = await finishedWith(before, 'cancelled');
      const paths = cliPaths();
      assert(paths.includes('ran.txt'), `ran.txt (made before the cancel) is not in the workspace: ${paths}`);
      await scrollIntoView(cancelled, 'center');
      await shot('run-command-cancelled');
    },
  );

  step('Allow for this chat: the next call of the tool here runs without a question', async () => {
    let { before, group } = await run();
    await clickIn(group, 'Allow for this chat');
    let live = await liveWith('running');
    await clickIn(live, 'Cancel');
    await finishedWith(before, 'cancelled');

    before = (await cardsOf(TOOL)).length;
    await s.type(await field('command'), COMMAND);
    await clickRun();
    live = await liveWith('running');
    await clickIn(live, 'Cancel');
    await finishedWith(before, 'cancelled');
    const policy = JSON.parse(cli('tool', 'policy', TOOL, '--json'));
    eq(policy.policy, 'default', 'the tool policy (an allowance is per chat, not a policy)');
  });

  step("a tool's confirmation policy is chosen in its run form", async () => {
    const details = await waitEl(
      `return document.querySelector('form.tool-runner details.tool-policy');`,
      [],
      'the Confirmation disclosure',
    );
    await s.click(await waitEl(`return arguments[0].querySelector('summary');`, [ref(details)], 'its summary'));
    const option = (value) =>
      waitEl(
        `return arguments[0].querySelector('select option[value="' + arguments[1] + '"]');`,
        [ref(details), value],
        `the "${value}" option`,
      );
    await s.click(await option('allow'));
    await waitFor(
      async () => JSON.parse(cli('tool', 'policy', TOOL, '--json')).policy === 'allow',
      'the CLI to see the policy "allow"',
    );
    await shot('tool-policy');
    await s.click(await option('default'));
    await waitFor(
      async () => JSON.parse(cli('tool', 'policy', TOOL, '--json')).policy === 'default',
      'the policy back to "default"',
    );
  });
}
