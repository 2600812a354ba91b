// The desktop app's UI benchmarks, in the real app (release build) under
// Xvfb through tauri-driver; `scripts/bench-ui.sh` seeds the data dir,
// measures the core-only reference, and runs this. Two measurements, each
// printed with its reference and ratio:
//
// 1. A branch switch in a 10,000-file workspace: with the Workspace tab
//    shown, a click on the other leaf in the conversation map, until the
//    file tree shows that branch (its marker folder in, the other's out).
//    Timed inside the page (performance.now() around a dispatched click and
//    a MutationObserver), so WebDriver's round trips are not counted.
//    Reference: the core's checkout of the same switch (BENCH_CORE_MS).
// 2. Scrolling a 2,000-call chat: the Chat tab's conversation scrolled 40 px
//    per frame for 3 s; the requestAnimationFrame intervals, against the
//    same scroll attempted on an empty chat.
//
// 3-4. The chat (e2e/bench-chat.mjs): a 20,000-token answer streamed at 500
//    tokens/s (frame intervals against the page idle; token painted against
//    token received), and a switch between two 200-message branches against
//    the core's checkout of the same leaves.
//
// Environment: BENCH_APP (executable that starts atelier-app on the seeded
// data dir), BENCH_SEED (the seed JSON), BENCH_CORE (the checkout JSON),
// BENCH_SEED_CHAT (ui-seed-chat's JSON), BENCH_CORE_BRANCHES and
// BENCH_CORE_BRANCHES_READ (checkout and checkout-read JSON of the two long
// branches), BENCH_LLM_PORT (where the scripted model
// listens: the seeded provider's URL), BENCH_RUNS (switches per direction,
// default 9), BENCH_DRIVER (tauri-driver's URL).

import { readFileSync } from 'node:fs';
import { Session, ELEMENT, sleep } from './webdriver.mjs';
import { STREAM_RATE, STREAM_TOKENS, benchBranches, benchStream, until } from './bench-chat.mjs';
import { startLlmServer } from './llm-server.mjs';

const DRIVER = process.env.BENCH_DRIVER ?? 'http://127.0.0.1:4454';
const ONLY = process.env.BENCH_ONLY ?? '';
const seedChat = JSON.parse(readFileSync(process.env.BENCH_SEED_CHAT, 'utf8'));
const coreBranches = JSON.parse(readFileSync(process.env.BENCH_CORE_BRANCHES, 'utf8'));
const coreBranchesRead = JSON.parse(readFileSync(process.env.BENCH_CORE_BRANCHES_READ, 'utf8'));
const RUNS = Number(process.env.BENCH_RUNS ?? 9);

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const pct = (v, p) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((p / 100) * v.length))];
const ms = (x) => x.toFixed(1).padStart(8);

async function waitDriver() {
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(`${DRIVER}/status`)).ok) return;
    } catch {
      // not up yet
    }
    await sleep(100);
  }
  throw new Error(`tauri-driver did not answer at ${DRIVER}`);
}

async function openChat(s, title) {
  const el = await until(
    s,
    `for (const b of document.querySelectorAll('.chat-title')) if (b.textContent.trim() === arguments[0]) return b; return null;`,
    [title],
    `the chat "${title}" in the sidebar`,
  );
  await s.click(el[ELEMENT]);
}

async function openTab(s, id) {
  await s.click(await s.find(`#tab-${id}`));
}

/** One switch: click the map node `to`, until the tree shows `want` and not `gone`. */
const SWITCH = `
  const [to, want, gone, done] = arguments;
  const tree = () => document.querySelector('#panel-workspace [aria-label="Workspace files"]');
  const shown = () => {
    const t = tree();
    return t !== null && t.querySelector('[data-folder="' + want + '"]') !== null && t.querySelector('[data-folder="' + gone + '"]') === null;
  };
  const node = document.querySelector('.conversation-map [data-node-id="' + to + '"]');
  if (node === null) return done({ error: 'no map node ' + to });
  const t0 = performance.now();
  const mo = new MutationObserver(() => {
    if (shown()) {
      mo.disconnect();
      done({ ms: performance.now() - t0 });
    }
  });
  mo.observe(document.getElementById('root') ?? document.body, { childList: true, subtree: true, attributes: true });
  node.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  setTimeout(() => { mo.disconnect(); done({ error: 'the tree did not show ' + want + ' within 60 s' }); }, 60000);
`;

/** rAF intervals while the main pane scrolls 40 px per frame for `frames` frames. */
const SCROLL = `
  const [frames, done] = arguments;
  // The conversation scrolls in its own pane in the Chat tab.
  const main = document.querySelector('#panel-tools .chat-scroll') ?? document.querySelector('main.main');
  main.scrollTop = 0;
  const deltas = [];
  let last = null;
  const tick = (t) => {
    if (last !== null) deltas.push(t - last);
    last = t;
    main.scrollTop += 40;
    if (deltas.length < frames) requestAnimationFrame(tick);
    else done({ deltas, scrolled: main.scrollTop, height: main.scrollHeight });
  };
  requestAnimationFrame(tick);
`;

/** 1-2: the 10,000-file branch switch and the 2,000-call scroll (BENCH_ONLY=chat skips them). */
async function workspaceBench(s) {
  const seed = JSON.parse(readFileSync(process.env.BENCH_SEED, 'utf8'));
  const core = JSON.parse(readFileSync(process.env.BENCH_CORE, 'utf8'));
  // 1. Branch switch.
  const sw = seed.switch;
  await openChat(s, sw.title);
  await openTab(s, 'workspace');
  await until(
    s,
    `return document.querySelector('#panel-workspace [data-folder="branch-a"]') !== null;`,
    [],
    'branch a in the tree',
  );
  await until(
    s,
    `return document.querySelector('.conversation-map [data-node-id="${sw.b}"]') !== null;`,
    [],
    'the map',
  );
  const times = { b: [], a: [] };
  for (let i = 0; i < RUNS; i++) {
    for (const [to, want, gone, key] of [
      [sw.b, 'branch-b', 'branch-a', 'b'],
      [sw.a, 'branch-a', 'branch-b', 'a'],
    ]) {
      const r = await s.execAsync(SWITCH, [to, want, gone]);
      if (r.error) throw new Error(r.error);
      times[key].push(r.ms);
      // Let the other views (map, branch list) finish reading before the next click.
      await sleep(400);
    }
  }
  const appMs = median([...times.b, ...times.a]);
  const coreMs = median([core.to_ms, core.back_ms]);

  // 2. Scrolling.
  const scroll = async (title, hasCalls) => {
    await openChat(s, title);
    await openTab(s, 'tools');
    if (hasCalls) {
      await until(
        s,
        `return document.querySelectorAll('#panel-tools ol[aria-label="Active branch"] > li').length > 0;`,
        [],
        'the calls of ' + title,
      );
    }
    await sleep(1500);
    await s.execAsync(SCROLL, [30]); // warm: the renderers' code loaded
    const r = await s.execAsync(SCROLL, [180]);
    return r;
  };
  const long = await scroll(seed.long.title, true);
  const empty = await scroll(seed.empty.title, false);
  return { seed, core, times, appMs, coreMs, long, empty };
}

async function main() {
  await waitDriver();
  const s = await Session.start(DRIVER, process.env.BENCH_APP);
  try {
    await s.cmd('POST', '/timeouts', { script: 120000 });
    await until(s, `return document.querySelector('.chat-title') !== null;`, [], 'the chat list');

    const ws = ONLY === 'chat' ? null : await workspaceBench(s);

    // 3. The streamed answer, from the scripted model the seeded provider points at.
    const llm = await startLlmServer(Number(process.env.BENCH_LLM_PORT));
    const open = async (title) => {
      await openChat(s, title);
      await openTab(s, 'tools');
    };
    let stream;
    try {
      stream = await benchStream(s, llm, open, seedChat.stream.title);
    } finally {
      await llm.close();
    }
    // 4. Two 200-message branches.
    const branches = await benchBranches(s, open, seedChat.branches.title, RUNS);
    const branchMs = median([...branches.b, ...branches.a]);
    const branchCoreMs = median([coreBranches.to_ms, coreBranches.back_ms]);

    console.log('\n| measurement | ours (ms) | reference | ref (ms) | ratio | target |');
    console.log('|---|---:|---|---:|---:|---|');
    const row = (what, ours, ref, theirs, target) => {
      const ratio = ours / theirs;
      console.log(
        `| ${what} | ${ms(ours)} | ${ref} | ${ms(theirs)} | ${ratio.toFixed(2)} | ≤ ${target} ${ratio <= target ? '✓' : '✗'} |`,
      );
    };
    if (ws !== null) {
      row(
        `branch switch, ${ws.seed.switch.files.toLocaleString()} files (${ws.seed.switch.changed} differ), click → tree updated, median of ${2 * RUNS}`,
        ws.appMs,
        'core checkout alone',
        ws.coreMs,
        1.5,
      );
      row(
        `scroll ${ws.seed.long.calls.toLocaleString()} calls: mean frame interval`,
        mean(ws.long.deltas),
        'empty chat',
        mean(ws.empty.deltas),
        2,
      );
      row(
        `scroll ${ws.seed.long.calls.toLocaleString()} calls: p95 frame interval`,
        pct(ws.long.deltas, 95),
        'empty chat',
        pct(ws.empty.deltas, 95),
        2,
      );
    }
    row(
      `stream ${STREAM_TOKENS.toLocaleString()} tokens at ${STREAM_RATE}/s: mean frame interval`,
      stream.during.mean,
      'the page idle',
      stream.idle.mean,
      1.5,
    );
    row(
      `stream ${STREAM_TOKENS.toLocaleString()} tokens at ${STREAM_RATE}/s: p95 frame interval`,
      stream.during.p95,
      'the page idle',
      stream.idle.p95,
      1.5,
    );
    row('stream: token sent → painted, median', stream.paint.median, 'sent → received', stream.recv.median, 1.5);
    row('stream: token sent → painted, mean', stream.paint.mean, 'sent → received', stream.recv.mean, 1.5);
    row(
      'stream: token sent → painted, median',
      stream.paint.median,
      'a bare text node, sent → painted',
      stream.bare.median,
      1.5,
    );
    row(
      'stream: token sent → painted, mean',
      stream.paint.mean,
      'a bare text node, sent → painted',
      stream.bare.mean,
      1.5,
    );
    row(
      'stream: token sent → next frame (upper bound), median',
      stream.nextFrame.median,
      'sent → received',
      stream.recv.median,
      1.5,
    );
    row(
      `switch between two ${seedChat.branches.messages}-message branches, click → other branch shown, median of ${2 * RUNS}`,
      branchMs,
      'core checkout alone',
      branchCoreMs,
      1.5,
    );
    row(
      `switch between two ${seedChat.branches.messages}-message branches (as above)`,
      branchMs,
      'core checkout + the tree read',
      median([coreBranchesRead.to_ms, coreBranchesRead.back_ms]),
      1.5,
    );
    console.log(
      `\nstream: ${stream.tokens} tokens in ${stream.streamedSeconds.toFixed(1)} s; frames during ${stream.during.n} ` +
        `(max ${stream.during.max.toFixed(1)} ms), idle ${stream.idle.n} (max ${stream.idle.max.toFixed(1)} ms); ` +
        `markers ${stream.markers - stream.missed}/${stream.markers} timed; received p95 ${stream.recv.p95.toFixed(1)} ms, ` +
        `painted p95 ${stream.paint.p95.toFixed(1)} ms; painted − received: median ${stream.added.median.toFixed(1)} ms, ` +
        `p95 ${stream.added.p95.toFixed(1)} ms`,
    );
    console.log(
      `branch switch samples (ms): to b ${branches.b.map((x) => x.toFixed(0)).join(' ')}; to a ${branches.a.map((x) => x.toFixed(0)).join(' ')}; ` +
        `core: to b ${coreBranches.to_ms.toFixed(1)}, back ${coreBranches.back_ms.toFixed(1)}`,
    );
    if (ws !== null) {
      console.log(
        `\nswitch samples (ms): to b ${ws.times.b.map((x) => x.toFixed(0)).join(' ')}; to a ${ws.times.a.map((x) => x.toFixed(0)).join(' ')}; ` +
          `core: to b ${ws.core.to_ms.toFixed(1)}, back ${ws.core.back_ms.toFixed(1)}`,
      );
      console.log(
        `scroll: long chat ${ws.long.deltas.length} frames, scrolled to ${ws.long.scrolled} of ${ws.long.height} px, max ${Math.max(...ws.long.deltas).toFixed(1)} ms; ` +
          `empty chat max ${Math.max(...ws.empty.deltas).toFixed(1)} ms`,
      );
    }
  } finally {
    await s.end();
  }
}

function mean(v) {
  return v.reduce((a, b) => a + b, 0) / v.length;
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`bench-ui: ${e.stack ?? e}`);
    process.exit(1);
  },
);
