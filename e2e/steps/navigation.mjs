// The window never leaves the app (src-tauri/src/navigation.rs): a page
// setting the window's location — as "Open Link" from the context menu or a
// middle click on a link in an answer would — is refused by the webview, and
// the app goes on as it was.

import { assert, eq, log, s, shot, sleep } from '../lib.mjs';

/** Registers these steps, in order. */
export function register(step) {
  step('Navigation: the window refuses to leave the app for another page', async () => {
    const before = await s.exec(`return location.href;`);
    assert(/^(tauri:\/\/localhost|https?:\/\/tauri\.localhost)(\/|$)/.test(before), `the app's own page: ${before}`);
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
}
