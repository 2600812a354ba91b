// The chat measurements of the UI benchmark (e2e/bench-ui.mjs runs them in
// the real app; scripts/bench-ui.sh seeds the chats with `atelier-bench
// ui-seed-chat` and starts nothing else: the model is the scripted server
// of e2e/llm-server.mjs, in this process).
//
// 1. A 20,000-token answer streamed at 500 tokens/s into "Bench: streaming".
//    - Frames: requestAnimationFrame intervals while the tokens arrive,
//      against the same page idle just before (goal ≤ 1.5×).
//    - Latency: every 25th token is a marker word (`m00042`). For each, the
//      server's send time, the time the page received it (the channel's
//      callback, wrapped in Tauri's callback table before the run starts:
//      the first JavaScript that sees the event) and the time it was
//      painted: the first task after a MutationObserver saw it in the
//      conversation (the run store applies events in an animation frame and
//      React commits there, so that frame's paint comes before the task);
//      the next animation frame is printed too, as an upper bound. Painted −
//      sent against received − sent (goal ≤ 1.5×). The page's clock is
//      put on Date.now(), the clock the server's times are on. Both start at the server's write, which comes before the
//      core's emit by the HTTP hop and the core's parsing (`atelier-bench
//      chat` measures that share: well under a millisecond), so the ratio
//      is a little kinder than core → page would be; the difference
//      painted − received is printed too, in ms.
//      A second reference, the floor of any page that paints in frames: a
//      bare text node outside React, set by the same channel callback when
//      a marker arrives, timed the same way (the first task after the next
//      frame's rendering). Painted against it shows what the app adds.
// 2. Switching between two 200-message branches ("Bench: two long
//    branches"): a click on the sibling arrows at the first message, until
//    the answer after it is the other branch's (and the first one's is
//    gone), against the core's checkout of the same two leaves.

import { ELEMENT, sleep } from './webdriver.mjs';

/** Tokens in the long answer, their rate, and how often a marker comes. */
export const STREAM_TOKENS = 20_000;
export const STREAM_RATE = 500;
const MARK_EVERY = 25;

const WORDS = (
  'the data shows a steady rise in every region while the costs stay flat and ' +
  'each quarter adds a little more to the total than the one before it so the ' +
  'forecast holds for now'
).split(' ');

/**
 * The long answer as tokens: paragraphs of prose with a marker word every
 * MARK_EVERY tokens, a heading every 1,000 tokens and a code block every
 * 2,500, as a model's long report would have. Returns the tokens and, per
 * marker number, its token index.
 */
export function longAnswer(n = STREAM_TOKENS) {
  const tokens = [];
  const markers = [];
  let w = 0;
  while (tokens.length < n) {
    const i = tokens.length;
    if (i % MARK_EVERY === 0) {
      markers.push(i);
      tokens.push(` m${String(markers.length - 1).padStart(5, '0')}`);
    } else if (i % 2500 === 1250) {
      tokens.push(
        '\n\n```js\n',
        'const',
        ' total',
        ' =',
        ' rows',
        '.reduce',
        '((a,',
        ' r)',
        ' =>',
        ' a',
        ' +',
        ' r.amount,',
        ' 0);',
        '\n```\n\n',
      );
    } else if (i % 1000 === 500) {
      tokens.push('\n\n## ', 'Section', ` ${i / 1000 + 0.5}`, '\n\n');
    } else if (i % 120 === 60) {
      tokens.push('.\n\n', 'Then');
    } else {
      tokens.push(` ${WORDS[w++ % WORDS.length]}`);
    }
  }
  return { tokens: tokens.slice(0, n), markers };
}

/** Installs the page's recorders: the channel hook, the DOM observer, the frame loop. */
const INSTALL = `
  const B = (window.__bench = { recv: {}, dom: {}, paint: {}, next: {}, bare: {}, frames: [], recording: true });
  // The reference page: a bare text node, outside React, set by the same
  // channel callback the moment a marker arrives.
  const bareBox = document.createElement('div');
  bareBox.style.cssText = 'position:fixed;right:4px;bottom:4px;font:10px monospace;pointer-events:none;z-index:2147483647';
  B.bareText = document.createTextNode('');
  bareBox.append(B.bareText);
  document.body.append(bareBox);
  // performance.now() against Date.now(), the one clock the server shares:
  // the mean difference over ~30 ms of samples (Date.now() floors to the ms,
  // as in the server, so that half-millisecond cancels).
  let sum = 0, n = 0;
  for (const end = Date.now() + 30; Date.now() < end; n++) sum += performance.timeOrigin + performance.now() - Date.now();
  const offset = sum / n;
  const wall = () => performance.timeOrigin + performance.now() - offset;
  const cbs = window.__TAURI_INTERNALS__.callbacks;
  if (!cbs.__benchWrapped) {
    const set = cbs.set.bind(cbs);
    cbs.set = (id, fn) =>
      set(id, (data) => {
        const m = data && data.message;
        if (m && m.type === 'text_delta' && window.__bench) {
          const now = wall();
          const B = window.__bench;
          for (const x of m.text.matchAll(/m(\\d{5})/g)) {
            if (x[1] in B.recv) continue;
            B.recv[x[1]] = now;
            // Painted in the next frame's rendering: the first task after it.
            B.bareText.data = 'm' + x[1];
            requestAnimationFrame(() => setTimeout(() => { B.bare[x[1]] = wall(); }, 0));
          }
        }
        return fn(data);
      });
    cbs.__benchWrapped = true;
  }
  let pending = [];
  const mo = new MutationObserver((records) => {
    const now = wall();
    for (const r of records) {
      const text = r.type === 'characterData' ? r.target.data : [...r.addedNodes].map((n) => n.textContent).join(' ');
      for (const x of text.slice(-2000).matchAll(/m(\\d{5})/g)) {
        if (!(x[1] in B.dom)) {
          B.dom[x[1]] = now;
          pending.push(x[1]);
        }
      }
    }
    if (pending.length > 0) {
      const these = pending;
      pending = [];
      // The first task after the DOM change: the frame's rendering (style,
      // layout, paint) comes before it when the change was made in the
      // frame's animation callbacks, as the run store's flush makes it.
      setTimeout(() => {
        const t = wall();
        for (const k of these) B.paint[k] = t;
      }, 0);
      // The next frame: an upper bound, whichever way the change was made.
      requestAnimationFrame(() => {
        const t = wall();
        for (const k of these) B.next[k] = t;
      });
    }
  });
  mo.observe(document.querySelector('#panel-tools') ?? document.body, { childList: true, subtree: true, characterData: true });
  B.stop = () => mo.disconnect();
  let last = null;
  const tick = (t) => {
    if (!B.recording) return;
    const w = performance.timeOrigin + t;
    if (last !== null) B.frames.push([w, w - last]);
    last = w;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
`;

const stat = (v) => {
  const s = [...v].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { n: s.length, mean: s.reduce((a, b) => a + b, 0) / s.length, median: at(0.5), p95: at(0.95), max: s.at(-1) };
};

/** Polls `script` in the page until it returns something truthy. */
export async function until(s, script, args, what, timeout = 60000) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await s.exec(script, args).catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The streaming measurement; `llm` is the running LlmServer, `open(title)` opens a chat. */
export async function benchStream(s, llm, open, title) {
  await open(title);
  await until(
    s,
    `return document.querySelector('#panel-tools form[aria-label="Message composer"] textarea[aria-label="Message"]') !== null;`,
    [],
    'the composer',
  );
  await sleep(1500);
  const { tokens, markers } = longAnswer();
  await s.exec(INSTALL);
  // The page idle, with the same recorders on.
  await sleep(6000);
  const idle = (await s.exec(`const f = window.__bench.frames; window.__bench.frames = []; return f;`)).map(
    (f) => f[1],
  );
  llm.queue({ tokens, rate: STREAM_RATE });
  const box = await s.find('#panel-tools form[aria-label="Message composer"] textarea[aria-label="Message"]');
  await s.type(box, 'Write the long report, please.');
  const send = await until(
    s,
    `for (const b of document.querySelectorAll('#panel-tools form[aria-label="Message composer"] button'))
       if (b.textContent.trim() === 'Send' && !b.disabled) return b;
     return null;`,
    [],
    'the Send button',
  );
  await s.click(send[ELEMENT]);
  const seconds = STREAM_TOKENS / STREAM_RATE;
  await until(
    s,
    `return document.querySelector('#panel-tools article.message[aria-busy="true"][data-role="assistant"]') !== null;`,
    [],
    'the answer to start streaming',
  );
  await until(
    s,
    `return document.querySelector('#panel-tools article.message[aria-busy="true"]') === null;`,
    [],
    'the stream to end',
    (seconds + 120) * 1000,
  );
  await sleep(500);
  const page = await s.exec(`
    const B = window.__bench;
    B.recording = false;
    B.stop();
    B.bareText.parentNode.remove();
    return { recv: B.recv, dom: B.dom, paint: B.paint, next: B.next, bare: B.bare, frames: B.frames };`);
  const sent = llm.sent;
  const first = sent[0]?.at ?? 0;
  const last = sent.at(-1)?.at ?? 0;
  const during = page.frames.filter(([w]) => w >= first && w <= last).map((f) => f[1]);
  const recvLat = [];
  const paintLat = [];
  const nextLat = [];
  const bareLat = [];
  let missed = 0;
  for (const [k, index] of markers.entries()) {
    const key = String(k).padStart(5, '0');
    const at = sent[index]?.at;
    if (at === undefined || !(key in page.recv) || !(key in page.paint) || !(key in page.next) || !(key in page.bare)) {
      missed += 1;
      continue;
    }
    recvLat.push(page.recv[key] - at);
    paintLat.push(page.paint[key] - at);
    nextLat.push(page.next[key] - at);
    bareLat.push(page.bare[key] - at);
  }
  const added = paintLat.map((p, i) => p - recvLat[i]);
  return {
    idle: stat(idle),
    during: stat(during),
    recv: stat(recvLat),
    paint: stat(paintLat),
    nextFrame: stat(nextLat),
    bare: stat(bareLat),
    added: stat(added),
    markers: markers.length,
    missed,
    streamedSeconds: (last - first) / 1000,
    tokens: sent.length,
  };
}

/** One switch at the first message's arrows (`button`), until the answer after it starts with `want`. */
const SWITCH = `
  const [button, want, gone, done] = arguments;
  const conv = document.querySelector('#panel-tools section[aria-label="Conversation"]');
  const answers = () => [...conv.querySelectorAll('article.message[data-role="assistant"] .message-body')].map((b) => b.textContent);
  const shown = () => {
    const a = answers();
    return a.some((t) => t.startsWith(want)) && !a.some((t) => t.startsWith(gone));
  };
  let nav = null;
  for (const n of conv.querySelectorAll('nav.siblings[aria-label="Branches here"]')) nav = nav ?? n;
  const b = nav?.querySelector('button[aria-label="' + button + '"]');
  if (!b || b.disabled) return done({ error: 'no enabled ' + button + ' button at the first message' });
  const t0 = performance.now();
  const mo = new MutationObserver(() => {
    if (shown()) {
      mo.disconnect();
      done({ ms: performance.now() - t0 });
    }
  });
  mo.observe(conv, { childList: true, subtree: true, characterData: true });
  b.click();
  setTimeout(() => { mo.disconnect(); done({ error: 'the answer after the first message did not become ' + want + ' within 60 s' }); }, 60000);
`;

/** The branch switch measurement: medians of `runs` switches each way. */
export async function benchBranches(s, open, title, runs) {
  await open(title);
  const scroller = `document.querySelector('#panel-tools section[aria-label="Conversation"]')`;
  await until(
    s,
    `return ${scroller} !== null && ${scroller}.querySelector('article.message') !== null;`,
    [],
    'the long conversation',
  );
  // The branch point (the first message) in view: the list starts at the end.
  for (let i = 0; i < 40; i++) {
    const top = await s.exec(`
      const c = ${scroller};
      let p = c;
      while (p && !(p.scrollHeight > p.clientHeight && /auto|scroll/.test(getComputedStyle(p).overflowY))) p = p.parentElement;
      if (p) p.scrollTop = 0;
      return c.querySelector('nav.siblings[aria-label="Branches here"]') !== null;`);
    if (top) break;
    await sleep(250);
  }
  await until(
    s,
    `return [...${scroller}.querySelectorAll('article.message[data-role="assistant"] .message-body')].some((b) => b.textContent.startsWith('Branch a, answer 1:'));`,
    [],
    "branch a's first answer",
  );
  await sleep(1000);
  const times = { b: [], a: [] };
  for (let i = 0; i < runs; i++) {
    for (const [button, want, gone, key] of [
      ['Next branch', 'Branch b, answer 1:', 'Branch a, answer 1:', 'b'],
      ['Previous branch', 'Branch a, answer 1:', 'Branch b, answer 1:', 'a'],
    ]) {
      const r = await s.execAsync(SWITCH, [button, want, gone]);
      if (r.error) throw new Error(r.error);
      times[key].push(r.ms);
      await sleep(400);
    }
  }
  return times;
}
