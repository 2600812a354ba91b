// A small WebDriver client over fetch, for tauri-driver (which forwards to
// WebKitWebDriver). Only what the end-to-end tests use.
export const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

export class Session {
  constructor(base, id) {
    this.base = base;
    this.id = id;
  }

  /** Starts the app (`args` go to it) in a new session. */
  static async start(base, application, { args = [] } = {}) {
    const body = { capabilities: { alwaysMatch: { 'tauri:options': { application, args } } } };
    const res = await call(base, 'POST', '/session', body);
    return new Session(base, res.sessionId ?? res.value?.sessionId);
  }

  async cmd(method, path, body) {
    return (await call(this.base, method, `/session/${this.id}${path}`, body)).value;
  }

  async find(css, { timeout = 10000 } = {}) {
    const until = Date.now() + timeout;
    for (;;) {
      try {
        const el = await this.cmd('POST', '/element', { using: 'css selector', value: css });
        return el[ELEMENT];
      } catch (e) {
        if (Date.now() > until) throw new Error(`no element ${css}: ${e.message}`);
        await sleep(150);
      }
    }
  }

  /** Runs `script` (which returns a DOM element) and returns its reference. */
  async execEl(script, args = []) {
    const v = await this.exec(script, args);
    if (v === null || typeof v !== 'object' || !(ELEMENT in v))
      throw new Error(`script returned no element: ${script}`);
    return v[ELEMENT];
  }

  setTimeouts(t) {
    return this.cmd('POST', '/timeouts', t);
  }

  async findAll(css) {
    const els = await this.cmd('POST', '/elements', { using: 'css selector', value: css });
    return els.map((e) => e[ELEMENT]);
  }

  /** Waits until an element matching `css` contains `text` (a string, or a RegExp to test). */
  async waitText(css, text, { timeout = 15000 } = {}) {
    const until = Date.now() + timeout;
    let last = '';
    for (;;) {
      for (const el of await this.findAll(css).catch(() => [])) {
        last = await this.text(el).catch(() => '');
        if (text instanceof RegExp ? text.test(last) : last.includes(text)) return el;
      }
      if (Date.now() > until)
        throw new Error(
          `no ${css} with text ${text instanceof RegExp ? text : JSON.stringify(text)} (last: ${JSON.stringify(last)})`,
        );
      await sleep(200);
    }
  }

  text(el) {
    return this.cmd('GET', `/element/${el}/text`);
  }

  click(el) {
    return this.cmd('POST', `/element/${el}/click`, {});
  }

  async type(el, value) {
    await this.cmd('POST', `/element/${el}/clear`, {});
    return this.cmd('POST', `/element/${el}/value`, { text: value });
  }

  /** Types `value` into the element as it is (no clear first); \uE000 releases held modifiers. */
  keys(el, value) {
    return this.cmd('POST', `/element/${el}/value`, { text: value });
  }

  attr(el, name) {
    return this.cmd('GET', `/element/${el}/attribute/${name}`);
  }

  exec(script, args = []) {
    return this.cmd('POST', '/execute/sync', { script, args });
  }

  execAsync(script, args = []) {
    return this.cmd('POST', '/execute/async', { script, args });
  }

  /** Switches into an iframe element (and `parent()` back). */
  frame(el) {
    return this.cmd('POST', '/frame', { id: { [ELEMENT]: el } });
  }

  parent() {
    return this.cmd('POST', '/frame/parent', {});
  }

  /** Back to the top-level document, from any frame depth. */
  top() {
    return this.cmd('POST', '/frame', { id: null });
  }

  end() {
    return call(this.base, 'DELETE', `/session/${this.id}`).catch(() => {});
  }
}

// No WebDriver command the tests send takes long (waits are client-side
// loops), so one that has not answered in this time never will: fail it
// rather than wait for fetch's own five minutes.
const REQUEST_TIMEOUT_MS = 60_000;

async function call(base, method, path, body) {
  const res = await fetch(base + path, {
    method,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) {
    const v = json.value ?? {};
    throw new Error(`${method} ${path}: ${v.error ?? res.status} ${v.message ?? ''}`.trim());
  }
  return json;
}

export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}
