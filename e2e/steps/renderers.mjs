// Calls and their renderers: write_file in the code renderer, the CSV
// report in a sandboxed iframe (which cannot reach the app IPC, and shows a
// </script> payload literally), and a PNG from the workspace.

import { existsSync, readFileSync } from 'node:fs';
import {
  APP_LOG,
  assert,
  cardsOf,
  cli,
  clickButton,
  enterReport,
  eq,
  field,
  installedIds,
  log,
  openTab,
  pickTool,
  ref,
  runAndWait,
  s,
  scrollIntoView,
  shot,
  sleep,
  waitEl,
} from '../lib.mjs';

// The script payload of the "</script> in the data" step: if it ever ran, it would set both.
const PAYLOAD = '</script><script>window.__pwned=1;document.title="pwned"</script><!--';

const HELLO = ['Hello from the end-to-end lane', 'second line: <b>not bold</b>'];

/** Registers these steps, in order. */
export function register(step) {
  step('run write_file from the picker through its form; the code renderer shows the file', async () => {
    await openTab('tools');
    await pickTool('write_file');
    await s.type(await field('path'), 'hello.txt');
    // \uE006 is the Return key: a real newline in the textarea.
    await s.type(await field('content'), HELLO.join('\uE006'));
    const card = await runAndWait('write_file');
    const view = await s.waitText(
      `#panel-tools article.call-card[aria-label="Call of write_file"] .code-renderer`,
      HELLO[1],
    );
    const text = await s.text(view);
    assert(text.includes('hello.txt'), `the code renderer does not name hello.txt: ${text}`);
    for (const line of HELLO) assert(text.includes(line), `the code renderer lacks "${line}": ${text}`);
    const lines = await s.exec(`return [...arguments[0].querySelectorAll('.cm-line')].map((l) => l.textContent);`, [
      ref(card),
    ]);
    assert(lines[0] === HELLO[0] && lines[1] === HELLO[1], `the editor's lines are ${JSON.stringify(lines)}`);
    await scrollIntoView(card);
    await shot('write-file-code-renderer');
  });

  step('CSV Report: make_sample, then analyze_csv renders in a sandboxed iframe', async () => {
    await pickTool('csv-report:make_sample');
    const sample = await runAndWait('csv-report:make_sample');
    await s.waitText(
      `#panel-tools article.call-card[aria-label="Call of csv-report:make_sample"] .code-renderer`,
      'month,region,units,revenue',
    );
    await scrollIntoView(sample);
    await shot('make-sample');
    await pickTool('csv-report:analyze_csv');
    await s.type(await field('path'), 'sales.csv');
    const card = await runAndWait('csv-report:analyze_csv');
    await enterReport(card);
    await s.waitText('#title', 'sales.csv');
    await s.waitText('#summary', '6 rows, 4 columns');
    const names = await s.exec(`return [...document.querySelectorAll('#columns .card h2')].map((h) => h.textContent);`);
    eq(JSON.stringify(names), JSON.stringify(['month', 'region', 'units', 'revenue']), 'the report columns');
    const bars = await s.exec(`return document.querySelectorAll('#columns svg rect').length;`);
    assert(bars > 0, 'the report drew no histogram bars');
    await s.top();
  });

  step('a script in the iframe cannot reach the app IPC', async () => {
    const card = (await cardsOf('csv-report:analyze_csv')).at(-1);
    assert(card, 'no analyze_csv call card (step 5 failed?)');
    await enterReport(card);
    const globals = await s.exec(`
      let parentDoc = 'readable';
      try { void window.parent.document.title; } catch (e) { parentDoc = 'blocked: ' + e.name; }
      let parentInternals = 'readable';
      try { void window.parent.__TAURI_INTERNALS__; } catch (e) { parentInternals = 'blocked: ' + e.name; }
      return {
        internals: typeof window.__TAURI_INTERNALS__,
        tauri: typeof window.__TAURI__,
        ipc: typeof window.ipc,
        webkitIpc: typeof window.webkit?.messageHandlers?.ipc?.postMessage,
        origin: String(window.origin),
        parentDoc,
        parentInternals,
      };`);
    log(`inside the iframe: ${JSON.stringify(globals)}`);
    eq(globals.internals, 'undefined', 'typeof window.__TAURI_INTERNALS__ in the iframe');
    eq(globals.tauri, 'undefined', 'typeof window.__TAURI__ in the iframe');
    eq(globals.ipc, 'undefined', 'typeof window.ipc in the iframe');
    eq(globals.origin, 'null', 'the iframe origin (opaque)');
    assert(globals.parentDoc.startsWith('blocked'), `the iframe can read the app document: ${globals.parentDoc}`);
    assert(globals.parentInternals.startsWith('blocked'), `the iframe can read the app's __TAURI_INTERNALS__`);

    // Forged invokes through WebKit's message handler, shaped like Tauri's
    // postMessage IPC (scripts/ipc-protocol.js): without a key, with a wrong
    // key, and as the other commands the report could try.
    const forged = await s.exec(`
      const h = window.webkit?.messageHandlers?.ipc;
      if (!h) return 'no window.webkit.messageHandlers.ipc';
      const send = (m) => h.postMessage(JSON.stringify(m));
      const base = { cmd: 'uninstall_toolset', callback: 4242, error: 4243, options: {}, payload: { id: 'csv-report' } };
      send(base);
      send({ ...base, __TAURI_INVOKE_KEY__: 'forged-key' });
      send({ ...base, __TAURI_INVOKE_KEY__: '' });
      send({ ...base, cmd: 'enable_toolset', payload: { id: 'csv-report', enabled: false } });
      h.postMessage({ ...base }); // a non-string message
      return 'sent 5 messages';`);
    log(`webkit.messageHandlers.ipc: ${forged}`);

    await s.setTimeouts({ script: 20000 });
    const fetches = await s.execAsync(`
      const done = arguments[arguments.length - 1];
      const violations = [];
      document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective + ' ' + e.blockedURI));
      const body = JSON.stringify({ id: 'csv-report' });
      const headers = { 'Content-Type': 'application/json', 'Tauri-Callback': '1', 'Tauri-Error': '2', 'Tauri-Invoke-Key': 'forged-key' };
      const attempt = (url) => fetch(url, { method: 'POST', body, headers }).then(
        (r) => 'resolved ' + r.status, (e) => 'rejected ' + e.name + ': ' + e.message);
      Promise.all([
        attempt('ipc://localhost/uninstall_toolset'),
        attempt('http://ipc.localhost/uninstall_toolset'),
      ]).then((r) => setTimeout(() => done({ results: r, violations }), 300));`);
    log(`fetches: ${JSON.stringify(fetches)}`);
    for (const r of fetches.results) assert(r.startsWith('rejected'), `a fetch to the IPC was not rejected: ${r}`);
    assert(
      fetches.violations.some((v) => v.startsWith('connect-src')),
      `no connect-src CSP violation was reported: ${JSON.stringify(fetches.violations)}`,
    );

    await s.top();
    await sleep(1500);
    const ids = installedIds();
    assert(ids.includes('csv-report'), `csv-report is gone after the forged invokes: ${ids}`);
    const csv = JSON.parse(cli('toolset', 'list', '--json')).find((t) => t.id === 'csv-report');
    eq(csv.enabled, true, 'csv-report enabled (CLI)');
    if (APP_LOG && existsSync(APP_LOG)) {
      // Tauri logs each message it refuses for a wrong key (with the real key:
      // not printed here). Informational: proof the forgeries reached the handler.
      const refused = readFileSync(APP_LOG, 'utf8')
        .split('\n')
        .filter((l) => l.includes('__TAURI_INVOKE_KEY__ expected'));
      log(`the app logged ${refused.length} refused invoke(s) (wrong __TAURI_INVOKE_KEY__)`);
    }
    // A fresh list from the app: reload the page, then read the toolset list.
    await s.exec('location.reload();');
    await sleep(500);
    // The reloaded page opens on Chat: wait for it, then go to Toolsets.
    await waitEl(`return document.querySelector('#tab-toolsets');`, [], 'the reloaded app', 30000);
    await openTab('toolsets');
    const list = await s.waitText('ul[aria-label="Installed toolsets"]', 'CSV Report', { timeout: 30000 });
    const row = await waitEl(
      `return document.querySelector('li.toolset-row[aria-label="CSV Report"] input[role=switch]');`,
      [],
      'the CSV Report switch',
    );
    eq(await s.exec('return arguments[0].checked;', [ref(row)]), true, 'CSV Report enabled (UI)');
    assert((await s.text(list)).includes('Word Tools'), 'the list lost Word Tools');
    await shot('ipc-forgery-still-installed');
  });

  step('</script> in the data does not break out of the report', async () => {
    await openTab('tools');
    await pickTool('write_file');
    await clickButton('form.tool-runner .segmented', 'Raw JSON');
    const csv = `name,"${PAYLOAD.replace(/"/g, '""')}"\nalpha,"${PAYLOAD.replace(/"/g, '""')}"\nbeta,2\n`;
    await s.type(
      await s.find('form.tool-runner textarea[aria-label="Arguments as JSON"]'),
      JSON.stringify({ path: 'evil.csv', content: csv }),
    );
    await runAndWait('write_file');
    await pickTool('csv-report:analyze_csv');
    await s.type(await field('path'), 'evil.csv');
    const card = await runAndWait('csv-report:analyze_csv');
    await enterReport(card);
    await s.waitText('#summary', '2 rows, 2 columns');
    const inside = await s.exec(`return {
      title: document.title,
      pwned: typeof window.__pwned,
      scripts: document.scripts.length,
      names: [...document.querySelectorAll('#columns .card h2')].map((h) => h.textContent),
      dataHasPayload: JSON.stringify(window.__TOOL_DATA__).includes('</script><script>'),
    };`);
    log(`inside the iframe: ${JSON.stringify(inside)}`);
    eq(inside.title, 'CSV report', 'document.title inside the iframe');
    eq(inside.pwned, 'undefined', 'typeof window.__pwned (set by the payload)');
    eq(inside.scripts, 2, 'the number of <script> elements (injected data + the artifact)');
    eq(JSON.stringify(inside.names), JSON.stringify(['name', PAYLOAD]), 'the column names, shown literally');
    eq(inside.dataHasPayload, true, 'window.__TOOL_DATA__ carries the payload verbatim');
    await s.top();
    eq(await s.exec('return document.title'), 'Atelier', 'the app window title');
    await shot('script-breakout-literal');
  });

  step('chart_column writes a PNG that the image renderer shows from the workspace', async () => {
    await openTab('tools');
    await pickTool('csv-report:chart_column');
    const card = await runAndWait('csv-report:chart_column');
    const img = await waitEl(
      `const i = arguments[0].querySelector('img.image-renderer');
       return i && i.complete && i.naturalWidth > 0 ? i : null;`,
      [ref(card)],
      'a decoded chart image',
      30000,
    );
    const info = await s.exec(
      `const i = arguments[0]; return { src: i.getAttribute('src'), alt: i.alt, w: i.naturalWidth, h: i.naturalHeight };`,
      [ref(img)],
    );
    log(`image: ${JSON.stringify(info)}`);
    assert(
      /^atelier-render:\/\/localhost\/[0-9a-f]{32}\/sales-revenue\.png$/.test(info.src),
      `the image src: ${info.src}`,
    );
    eq(`${info.w}x${info.h}`, '480x240', 'the decoded PNG size');
    eq(info.alt, 'revenue by row of sales.csv (max 3190.25)', 'the alt text from $return.alt');
    await s.exec(`arguments[0].scrollIntoView({ block: 'center' });`, [ref(img)]);
    await sleep(200);
    await shot('image-renderer-png');
  });
}
