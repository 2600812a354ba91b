// Settings: allowed frame origins.

import { assert, cli, clickButton, eq, openTab, s, shot } from '../lib.mjs';

/** Registers these steps, in order. */
export function register(step) {
  step('Settings: an allowed frame origin is listed and waits for a restart', async () => {
    await openTab('settings');
    await s.waitText('#panel-settings', 'No other origins are allowed.');
    const input = await s.find('#origin-input');
    await s.type(input, 'https://*.example.com');
    await clickButton('#panel-settings form.origin-form', 'Allow');
    await s.waitText('#panel-settings [role="alert"]', 'wildcards are not allowed');
    await shot('settings-refused');
    await s.type(input, 'Docs.Example.com');
    await clickButton('#panel-settings form.origin-form', 'Allow');
    const list = await s.waitText('#panel-settings ul[aria-label="Allowed origins"]', 'https://docs.example.com');
    const text = await s.text(list);
    assert(text.includes('after restart'), `no restart badge: ${text}`);
    eq(
      JSON.stringify(JSON.parse(cli('settings', 'show', '--json')).frame_origins),
      '["https://docs.example.com"]',
      'the CLI sees the saved origin',
    );
    await shot('settings-allowed');
  });
}
