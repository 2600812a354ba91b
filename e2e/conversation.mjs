// Helpers for the conversation view (the chat with a model), after the DOM
// contract the UI keeps: messages are `article.message[data-role][data-id]`
// in `section[aria-label="Conversation"]`, a streaming answer has
// `aria-busy="true"`, per-message buttons are named by aria-label, sibling
// arrows are `nav.siblings`, the composer is `form[aria-label="Message
// composer"]`. Used by steps/chat.mjs.

import { ELEMENT } from './webdriver.mjs';
import { assert, ref, s, sleep, waitEl, waitFor } from './lib.mjs';

export const CONV = '#panel-tools section[aria-label="Conversation"]';
export const COMPOSER = '#panel-tools form[aria-label="Message composer"]';

/** The messages shown, in order: role, id, busy, text of the body. */
export function messages() {
  return s.exec(
    `return [...document.querySelectorAll(arguments[0] + ' article.message')].map((m) => ({
       role: m.dataset.role,
       id: m.dataset.id ?? null,
       busy: m.getAttribute('aria-busy') === 'true',
       text: (m.querySelector('.message-body')?.textContent ?? '').trim(),
     }));`,
    [CONV],
  );
}

/** The message element whose data-id is `id`. */
export const messageEl = (id) =>
  waitEl(
    `return document.querySelector(arguments[0] + ' article.message[data-id="' + arguments[1] + '"]');`,
    [CONV, id],
    `the message ${id}`,
  );

/** Moves the pointer over `el` (per-message buttons may show on hover only). */
export async function hover(el) {
  await s.cmd('POST', '/actions', {
    actions: [
      {
        type: 'pointer',
        id: 'mouse',
        parameters: { pointerType: 'mouse' },
        actions: [{ type: 'pointerMove', duration: 0, origin: { [ELEMENT]: el }, x: 0, y: 0 }],
      },
    ],
  });
  await sleep(150);
}

/** Clicks the button named (aria-label) `label` of the message `id`. */
export async function messageButton(id, label) {
  const msg = await messageEl(id);
  await s.exec(`arguments[0].scrollIntoView({ block: 'center' });`, [ref(msg)]);
  await hover(msg);
  const b = await waitEl(
    `return arguments[0].querySelector('button[aria-label="' + arguments[1] + '"]');`,
    [ref(msg), label],
    `the button "${label}" of the message ${id}`,
  );
  await s.click(b);
}

/** The composer's submit button once it says `label` (Send or Stop) and is enabled. */
export const composerButton = (label) =>
  waitEl(
    `for (const b of document.querySelectorAll(arguments[0] + ' button'))
       if (b.textContent.trim() === arguments[1] && !b.disabled) return b;
     return null;`,
    [COMPOSER, label],
    `the composer's ${label} button`,
  );

/** Types `text` into the composer and clicks Send. */
export async function send(text) {
  const box = await s.find(`${COMPOSER} textarea[aria-label="Message"]`);
  await s.type(box, text);
  await s.click(await composerButton('Send'));
}

/** Waits until nothing streams and the composer offers Send again (the run is over). */
export async function waitIdle(what = 'the run to end', timeout = 60000) {
  await waitFor(
    () =>
      s.exec(
        `const busy = document.querySelector(arguments[0] + ' article.message[aria-busy="true"]');
         const stop = [...document.querySelectorAll(arguments[1] + ' button')].some((b) => b.textContent.trim() === 'Stop');
         return busy === null && !stop;`,
        [CONV, COMPOSER],
      ),
    what,
    timeout,
  );
}

/** Waits for an assistant message whose text includes `text`; returns it (a `messages()` item). */
export async function waitAnswer(text, timeout = 60000) {
  return waitFor(
    async () => (await messages()).find((m) => m.role === 'assistant' && m.text.includes(text)) ?? null,
    `an answer saying "${text}"`,
    timeout,
  );
}

/** The sibling arrows' count text (`1/2`) at the message `id`, or null when it has none. */
export function siblingsAt(id) {
  return s.exec(
    `const m = document.querySelector(arguments[0] + ' article.message[data-id="' + arguments[1] + '"]');
     const nav = m?.querySelector('nav.siblings[aria-label="Branches here"]');
     return nav ? nav.querySelector('.siblings-count')?.textContent.trim() ?? nav.textContent.trim() : null;`,
    [CONV, id],
  );
}

/**
 * Waits until the arrows at message `id` show `count`: they come from the
 * tree, which the app reads again after a run ends, so they may follow the
 * run's last event by a moment.
 */
export async function waitSiblings(id, count, what) {
  let shown = null;
  await waitFor(async () => (shown = await siblingsAt(id)) === count, what, 10000).catch(() => {
    throw new Error(`${what}: expected "${count}", got ${JSON.stringify(shown)}`);
  });
}

/** Clicks Previous/Next branch on the first sibling arrows showing `count` (e.g. `2/2`). */
export async function stepBranch(count, button) {
  const b = await waitEl(
    `for (const n of document.querySelectorAll(arguments[0] + ' nav.siblings[aria-label="Branches here"]')) {
       const c = n.querySelector('.siblings-count')?.textContent.trim() ?? '';
       if (c === arguments[1]) return n.querySelector('button[aria-label="' + arguments[2] + '"]');
     }
     return null;`,
    [CONV, count, button],
    `the "${button}" button of the arrows at ${count}`,
  );
  await s.click(b);
}

/** Chooses `value` in the select `css` by clicking its option, as a person does. */
export async function choose(css, value) {
  const select = await s.find(css);
  await s.click(select);
  const option = await waitEl(
    `return [...arguments[0].options].find((o) => o.value === arguments[1]) ?? null;`,
    [ref(select), value],
    `the option ${value} of ${css}`,
  );
  await s.click(option);
  await waitFor(
    async () => (await s.exec(`return arguments[0].value;`, [ref(select)])) === value,
    `${css} to be ${value}`,
  );
}

/** The text of the message `id`, after it stops changing (streamed in full). */
export async function settledText(id) {
  let last = null;
  for (let i = 0; i < 20; i++) {
    const now = (await messages()).find((m) => m.id === id)?.text ?? null;
    if (now !== null && now === last) return now;
    last = now;
    await sleep(250);
  }
  assert(false, `the text of the message ${id} kept changing`);
}

/**
 * Runs `fn` on the element `css` finds, again on a fresh one if it went
 * stale meanwhile (a live view replaced by the saved one re-renders).
 */
export async function onFresh(css, fn) {
  for (let i = 0; ; i++) {
    try {
      return await fn(await s.find(css));
    } catch (e) {
      if (i >= 5 || !/stale element/.test(e.message)) throw e;
      await sleep(300);
    }
  }
}
