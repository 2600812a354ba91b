// Accessibility in the real webview: axe-core (the UI's pinned dev
// dependency) is injected into the app's page and run on the main views —
// the chat the chat steps left (answers, tool cards), the shortcuts dialog,
// Toolsets, Workspace, Settings — and fails on any serious or critical
// violation, colour contrast included (WebKit paints, so axe can measure it;
// jsdom in the Vitest check cannot). Tool pages in frames are the tools'
// own and are not audited. Then the keyboard: the skip link moves the
// focus to the open section, and a map step's focus ring (screenshots).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HERE, assert, eq, log, openTab, s, shot, waitFor } from '../lib.mjs';

const AXE = readFileSync(join(HERE, '../ui/node_modules/axe-core/axe.min.js'), 'utf8');

/** axe's serious and critical violations on the page as it is now, one line each. */
async function violations() {
  if (!(await s.exec('return typeof window.axe === "object";'))) {
    await s.exec(`${AXE}\nreturn typeof window.axe;`);
  }
  const found = await s.execAsync(
    `const done = arguments[arguments.length - 1];
     window.axe
       .run(document, { iframes: false, resultTypes: ['violations'] })
       .then((r) => done(r.violations
         .filter((v) => v.impact === 'serious' || v.impact === 'critical')
         .flatMap((v) => v.nodes.map((n) => v.id + ': ' + n.target.join(' ') + ' — ' + n.failureSummary.replace(/\\s+/g, ' ')))))
       .catch((e) => done(['axe failed: ' + e]));`,
  );
  return found;
}

async function audit(view) {
  const found = await violations();
  log(`${view}: ${found.length} serious or critical`);
  assert(found.length === 0, `axe in ${view}:\n  ${found.join('\n  ')}`);
}

/** Registers these steps, in order. */
export function register(step) {
  step('Accessibility: axe finds no serious or critical violation, contrast included, on the main views', async () => {
    await openTab('tools');
    await waitFor(
      () => s.exec(`return document.querySelectorAll('#panel-tools article.message').length > 0;`),
      'a chat',
    );
    await audit('the chat');
    await s.click(await s.find('button[aria-label="Keyboard shortcuts"]'));
    await waitFor(() => s.exec(`return !!document.querySelector('[role=dialog]');`), 'the shortcuts');
    await audit('the shortcuts dialog');
    await s.exec(`document.querySelector('[role=dialog] .modal-actions button').click();`);
    for (const tab of ['toolsets', 'workspace', 'settings']) {
      await openTab(tab);
      await waitFor(
        () => s.exec(`return !document.querySelector('#panel-${tab} [role=status].loading');`),
        `${tab} loaded`,
      );
      await audit(tab);
    }
    await openTab('tools');
  });

  step('Accessibility: the skip link puts the focus on the open section; a map step shows its focus ring', async () => {
    await s.exec(`document.activeElement?.blur(); window.focus();`);
    await s.exec(`document.querySelector('.skip-link').focus();`);
    await shot('a11y-skip-link');
    const skip = await s.exec(`return document.activeElement?.className;`);
    assert(skip === 'skip-link', `the skip link does not take the focus (${skip})`);
    await s.exec(`document.querySelector('.skip-link').click();`);
    eq(await s.exec(`return document.activeElement?.id;`), 'main', 'the focus after the skip link');
    // A step of the map, focused from the keyboard's side: its ring.
    await s.exec(`document.querySelector('.map-node[tabindex="0"]')?.focus();`);
    await shot('a11y-map-focus');
  });
}
