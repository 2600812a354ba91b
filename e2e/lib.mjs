// What the end-to-end steps share: the environment scripts/e2e.sh sets, the
// WebDriver session, assertions and screenshots, the CLI, drag and drop
// (a GTK drag source and xdotool), and helpers for the app's views. The
// steps are in e2e/steps/, the run in e2e/run.mjs.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ELEMENT, sleep } from './webdriver.mjs';

export { sleep };

export const HERE = dirname(fileURLToPath(import.meta.url));
export const DRIVER = 'http://127.0.0.1:4444';
export const STEP_TIMEOUT_MS = 180_000;

const env = (name) => {
  const v = process.env[name];
  if (!v) {
    console.error(`e2e: ${name} is not set (run scripts/e2e.sh)`);
    process.exit(2);
  }
  return v;
};
export const APP = env('E2E_APP');
export const DATA_DIR = env('E2E_DATA_DIR');
export const CLI = env('E2E_CLI');
export const FIXTURES = env('E2E_FIXTURES');
export const SHOTS = env('E2E_SHOTS');
export const APP_LOG = process.env.E2E_APP_LOG ?? null;

// ---------------------------------------------------------------------------
// Plumbing

/** The WebDriver session (a live binding: set once by run.mjs). */
export let s;
export function setSession(session) {
  s = session;
}
let shotNo = 0;

export const log = (...a) => console.log('   ', ...a);

export function assert(cond, message) {
  if (!cond) throw new Error(message);
}

export function eq(actual, expected, what) {
  assert(actual === expected, `${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/** The next screenshot's file: $E2E_SHOTS/NN-name.png. */
function shotFile(name) {
  shotNo += 1;
  return join(SHOTS, `${String(shotNo).padStart(2, '0')}-${name}.png`);
}

/**
 * A screenshot of the app's window, from the X server (see xshot.py for why
 * not WebDriver's): what the person sees, native dialogs over it included.
 */
export async function shot(name) {
  const file = shotFile(name);
  const geometry = appWindowGeometry();
  xshot(file, geometry);
  log(`screenshot ${file}${geometry ? '' : ' (the whole screen: no app window found)'}`);
  return file;
}

/** A screenshot of the whole X screen: dialogs that open beside the window. */
export function screenShot(name) {
  const file = shotFile(name);
  xshot(file, null);
  log(`screenshot ${file} (the whole screen)`);
  return file;
}

function xshot(file, geometry) {
  const area = geometry ? [geometry.X, geometry.Y, geometry.WIDTH, geometry.HEIGHT].map(String) : [];
  execFileSync('/usr/bin/python3', [join(HERE, 'xshot.py'), file, ...area], { encoding: 'utf8', timeout: 30000 });
}

/** The app window's {X, Y, WIDTH, HEIGHT} on the screen, or null. */
function appWindowGeometry() {
  try {
    const id = xdotool('search', '--onlyvisible', '--name', '^Atelier$').split('\n')[0];
    const shell = xdotool('getwindowgeometry', '--shell', id);
    const g = Object.fromEntries(
      shell
        .split('\n')
        .map((l) => l.split('='))
        .map(([k, v]) => [k, Number(v)]),
    );
    return g.WIDTH > 0 && g.HEIGHT > 0 ? g : null;
  } catch {
    return null;
  }
}

export function cli(...args) {
  return execFileSync(CLI, ['--data-dir', DATA_DIR, ...args], { encoding: 'utf8' });
}

/** The chat the app is working in (the most recently updated). */
export function chatIdNow() {
  const chats = JSON.parse(cli('chat', 'list', '--json'));
  chats.sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  return chats[0].id;
}

export function installedIds() {
  return JSON.parse(cli('toolset', 'list', '--json')).map((t) => t.id);
}

/** The paths of the current workspace of the chat, as the CLI lists them. */
export function cliPaths() {
  return JSON.parse(cli('workspace', 'ls', chatIdNow(), '--json')).map((f) => f.path);
}

export function xdotool(...args) {
  return execFileSync('xdotool', args.map(String), { encoding: 'utf8' }).trim();
}

export const ref = (el) => ({ [ELEMENT]: el });

/** Clicks a button under `scope` whose text (trimmed) is `label`. */
export async function clickButton(scope, label) {
  const el = await waitEl(
    `for (const b of document.querySelectorAll(arguments[0] + ' button'))
       if (b.textContent.trim() === arguments[1] && !b.disabled) return b;
     return null;`,
    [scope, label],
    `a button "${label}" in ${scope}`,
  );
  await s.click(el);
}

/** Clicks the enabled button labelled `label` inside the element `el`. */
export async function clickIn(el, label) {
  const b = await waitEl(
    `for (const b of arguments[0].querySelectorAll('button'))
       if (b.textContent.trim() === arguments[1] && !b.disabled) return b;
     return null;`,
    [ref(el), label],
    `a button "${label}"`,
  );
  await s.click(b);
}

/** Polls a script until it returns an element. */
export async function waitEl(script, args, what, timeout = 15000) {
  const until = Date.now() + timeout;
  for (;;) {
    const v = await s.exec(script, args).catch(() => null);
    if (v !== null && typeof v === 'object' && ELEMENT in v) return v[ELEMENT];
    if (Date.now() > until) throw new Error(`not found: ${what}`);
    await sleep(150);
  }
}

/** Polls until `fn` returns a truthy value. */
export async function waitFor(fn, what, timeout = 15000) {
  const until = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${last ? ` (${last.message})` : ''}`);
    await sleep(200);
  }
}

// ---------------------------------------------------------------------------
// Drag and drop: a GTK drag source (e2e/drag_source.py) and xdotool.

function appWindow() {
  const ids = xdotool('search', '--onlyvisible', '--name', '^Atelier$').split('\n').filter(Boolean);
  assert(ids.length > 0, 'the Atelier window was not found with xdotool');
  const geo = Object.fromEntries(
    xdotool('getwindowgeometry', '--shell', ids[0])
      .split('\n')
      .map((l) => l.split('='))
      .map(([k, v]) => [k, Number(v)]),
  );
  return geo; // X, Y, WIDTH, HEIGHT, SCREEN, WINDOW
}

/** Drags `file` from a file-manager-like window and drops it on the toolset manager. */
export async function dropFile(file, { hoverShot = null, onto = 'toolset-manager', hint = 'Drop to review' } = {}) {
  assert(existsSync(file), `fixture missing: ${file}`);
  const win = appWindow();
  const target = await s.exec(`
    const r = document.querySelector('[data-testid=${onto}]').getBoundingClientRect();
    return { x: Math.round(r.left + r.width / 2), y: Math.round(r.top + Math.min(r.height / 2, 240)) };`);
  const to = { x: win.X + target.x, y: win.Y + target.y };
  // The source sits right of the app's window (the screen is 1280 wide, the window 1200).
  const from = { x: 1215, y: 720 };
  const src = spawn('/usr/bin/python3', [join(HERE, 'drag_source.py'), file, from.x - 15, from.y - 20], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  src.stdout.on('data', (d) => (out += d));
  const exited = new Promise((r) => src.on('exit', r));
  try {
    await waitFor(() => out.includes('ready'), 'the drag source window', 10000);
    await sleep(300);
    xdotool('mousemove', from.x, from.y);
    await sleep(100);
    xdotool('mousedown', 1);
    await sleep(100);
    const n = 20;
    for (let i = 1; i <= n; i++) {
      xdotool(
        'mousemove',
        Math.round(from.x + ((to.x - from.x) * i) / n),
        Math.round(from.y + ((to.y - from.y) * i) / n),
      );
      await sleep(40);
    }
    await sleep(400);
    if (hoverShot) {
      await s.waitText('.drop-hint', hint, { timeout: 5000 });
      await shot(hoverShot);
    }
    xdotool('mouseup', 1);
    await waitFor(() => out.includes('drag-end'), 'the end of the drag', 10000);
  } finally {
    await Promise.race([exited, sleep(3000)]);
    if (src.exitCode === null) src.kill();
  }
}

// ---------------------------------------------------------------------------
// UI helpers

export async function openTab(id) {
  await s.click(await s.find(`#tab-${id}`));
  await waitFor(async () => (await s.attr(await s.find(`#tab-${id}`), 'aria-selected')) === 'true', `tab ${id}`);
}

/** The Chat tab's tool list, shown (hidden by default once a model is set up). */
export async function showToolList() {
  if (!(await s.exec(`return document.getElementById('tool-list')?.hidden === true;`))) return;
  await s.click(await s.find('#panel-tools button.tools-show'));
  await waitFor(
    () => s.exec(`return document.getElementById('tool-list')?.hidden === false;`),
    'the tool list to show',
  );
}

export async function pickTool(toolId) {
  await showToolList();
  const item = await waitEl(
    `for (const b of document.querySelectorAll('#panel-tools button.picker-item'))
       if (b.querySelector('.picker-item-id')?.textContent === arguments[0]) return b;
     return null;`,
    [toolId],
    `the picker item ${toolId}`,
  );
  await s.click(item);
  await s.waitText('form.tool-runner .panel-header', toolId);
}

/** The runner form's field whose label is `name`. */
export function field(name) {
  return waitEl(
    `for (const l of document.querySelectorAll('form.tool-runner label.field-label'))
       if (l.textContent.replace(/\\s*\\*\\s*$/, '').trim() === arguments[0]) return document.getElementById(l.htmlFor);
     return null;`,
    [name],
    `the form field ${name}`,
  );
}

/** The finished call cards of `toolId` (a running call's live card has the same label, and `.call-live`). */
export const cardsOf = (toolId) =>
  s.findAll(`#panel-tools article.call-card:not(.call-live)[aria-label="Call of ${toolId}"]`);

/** The live card of a call of `toolId` that has not ended yet. */
export const liveCard = (toolId) =>
  waitEl(
    `return document.querySelector('#panel-tools article.call-card.call-live[aria-label="Call of ' + arguments[0] + '"]');`,
    [toolId],
    `the live card of ${toolId}`,
  );

/** A call card's status badge. */
export const badgeOf = (card) =>
  s.exec(`return arguments[0].querySelector('.call-header .badge')?.textContent ?? '';`, [ref(card)]);

/** Clicks Run and returns the new call card of `toolId` once it has finished. */
/**
 * Clicks the runner form's Run button: "Run", or "Run as a new branch" when
 * the chat is at an older step (`branching` says which it must be).
 */
export async function clickRun({ branching = null } = {}) {
  const button = await waitEl(
    `const b = document.querySelector('form.tool-runner .panel-actions button[type=submit]');
     return b && !b.disabled && /^Run( as a new branch)?$/.test(b.textContent.trim()) ? b : null;`,
    [],
    'the enabled Run button of the runner form',
  );
  const label = (await s.text(button)).trim();
  if (branching !== null) {
    const want = branching ? 'Run as a new branch' : 'Run';
    assert(label === want, `the Run button says "${label}", not "${want}"`);
  }
  await s.click(button);
}

export async function runAndWait(toolId, { timeout = 60000, branching = null } = {}) {
  const before = (await cardsOf(toolId)).length;
  await clickRun({ branching });
  const card = await waitFor(
    async () => {
      const cards = await cardsOf(toolId);
      return cards.length > before ? cards[cards.length - 1] : null;
    },
    `a new call card of ${toolId}`,
    timeout,
  );
  const status = await waitFor(
    async () => {
      const t = await badgeOf(card);
      return /running|pending|awaiting/.test(t) ? null : t;
    },
    `the end of the ${toolId} call`,
    timeout,
  );
  if (status !== 'success') {
    const body = await s.text(card).catch(() => '');
    throw new Error(`${toolId} ended with status "${status}": ${body.slice(0, 600)}`);
  }
  return card;
}

export async function scrollIntoView(el, block = 'start') {
  await s.exec(`arguments[0].scrollIntoView({ block: arguments[1] });`, [ref(el), block]);
  await sleep(200);
}

/** The iframe of the last call card of `toolId`, checked, with the frame switched into. */
export async function enterReport(card) {
  const frame = await waitEl(
    `return arguments[0].querySelector('iframe.sandboxed-frame');`,
    [ref(card)],
    'the html renderer iframe',
    30000,
  );
  await scrollIntoView(card);
  const sandbox = await s.attr(frame, 'sandbox');
  const src = await s.attr(frame, 'src');
  eq(sandbox, 'allow-scripts', 'the iframe sandbox attribute');
  assert(
    /^atelier-render:\/\/localhost\/[0-9a-f]{32}\/index\.html$/.test(src),
    `the iframe src is not an atelier-render URL with a token: ${src}`,
  );
  const srcdoc = await s.exec(`return arguments[0].hasAttribute('srcdoc');`, [ref(frame)]);
  eq(srcdoc, false, 'the iframe has a srcdoc attribute');
  log(`iframe sandbox="${sandbox}" src=${src}`);
  await s.frame(frame);
  return { frame, src };
}

/** The workspace file tree once it shows `path`: each file row carries its full
 *  path in `data-path` (a row's text is only the name; rows are virtualized, so
 *  only files in open folders and in view are in the DOM). */
export function fileList(path) {
  return waitEl(
    `const tree = document.querySelector('#panel-workspace [aria-label="Workspace files"]');
     return tree && [...tree.querySelectorAll('[data-path]')].some((p) => p.dataset.path === arguments[0]) ? tree : null;`,
    [path],
    `${path} in the workspace file list`,
  );
}

/** The workspace's listed paths, once the list shows `want` (all present). */
export async function workspacePaths(want) {
  await openTab('workspace');
  for (const p of want) await fileList(p);
  return s.exec(
    `return [...document.querySelectorAll('#panel-workspace [aria-label="Workspace files"] [data-path]')].map((p) => p.dataset.path);`,
  );
}

export const branchItems = () => s.findAll('#panel-tools ol[aria-label="Active branch"] > li');

/** Clicks the conversation map's node whose label starts with `label` ("Step 1: write_file,") and waits until it is the current node. */
export async function jumpOnMap(label) {
  const node = await waitEl(
    `for (const g of document.querySelectorAll('section[aria-label="Conversation map"] g[role=button][data-node-id]'))
       if (g.getAttribute('aria-label').startsWith(arguments[0])) return g;
     return null;`,
    [label],
    `the map node "${label}…"`,
  );
  const id = await s.attr(node, 'data-node-id');
  // WebDriver finds no box to click on the <g> itself: its shape, drawn on top.
  await s.click(await waitEl(`return arguments[0].querySelector('.map-shape');`, [ref(node)], 'its shape'));
  await waitFor(
    () =>
      s.exec(
        `return document.querySelector('section[aria-label="Conversation map"] g[data-node-id="' + arguments[0] + '"]')?.getAttribute('aria-current') === 'step';`,
        [id],
      ),
    `the map node "${label}…" to be the current one`,
  );
  return id;
}

/** The workspace tab's listed paths once they are exactly `want` (sorted). */
export function workspaceIs(want) {
  const sorted = JSON.stringify([...want].sort());
  return waitFor(
    async () => JSON.stringify((await workspacePaths(want)).sort()) === sorted,
    `the workspace to list exactly ${sorted}`,
  );
}
