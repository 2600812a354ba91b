// The window never leaves the app (src-tauri/src/navigation.rs): a page
// setting the window's location — as "Open Link" from the context menu or a
// middle click on a link in an answer would — is refused by the webview, and
// the app goes on as it was. A loopback page, which frames may show, starts
// to load in the window and is sent back to the app at once.

import { createServer } from 'node:http';
import { assert, eq, log, s, shot, sleep, waitFor } from '../lib.mjs';

const APP_PAGE = /^(tauri:\/\/localhost|https?:\/\/tauri\.localhost)(\/|$)/;

/** Registers these steps, in order. */
export function register(step) {
  step('Navigation: the window refuses to leave the app for another page', async () => {
    const before = await s.exec(`return location.href;`);
    assert(APP_PAGE.test(before), `the app's own page: ${before}`);
    await s.exec(`window.__stayed = true; location.href = 'https://example.invalid/atelier-login'; return true;`);
    // A navigation that went through would have replaced the page (and its
    // marker) by now; a refused one leaves both.
    await sleep(2000);
    const [href, stayed, tabs] = await s.exec(
      `return [location.href, window.__stayed === true, !!document.getElementById('tab-tools')];`,
    );
    log(`after the attempt: ${href}`);
    eq(href, before, 'the window’s address');
    eq(stayed, true, 'the page the attempt was made from is still loaded');
    eq(tabs, true, 'the app is still there');
    await shot('navigation-refused');
  });

  step('Navigation: a loopback page loading in the window is sent back to the app', async () => {
    let served = 0;
    const phish = createServer((_, res) => {
      served += 1;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<title>Atelier</title><h1>NOT THE APP: enter your API key</h1>');
    });
    await new Promise((resolve) => phish.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${phish.address().port}/login`;
      await s.exec(`location.href = arguments[0]; return true;`, [url]);
      // Back on the app's page, with the app drawn again.
      const href = await waitFor(async () => {
        const [h, tabs, text] = await s.exec(
          `return [location.href, !!document.getElementById('tab-tools'), document.body?.innerText ?? ''];`,
        );
        return APP_PAGE.test(h) && tabs && !text.includes('NOT THE APP') ? h : null;
      }, 'the window back on the app');
      log(`the loopback page was asked for ${served} time(s); the window is at ${href}`);
      await shot('navigation-back-to-app');
    } finally {
      phish.close();
    }
  });
}
