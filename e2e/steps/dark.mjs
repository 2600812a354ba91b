// Dark mode (#23): the app restarted with GTK's dark look is dark, and tool
// HTML gets the look too (prefers-color-scheme in its sandboxed frame): the
// bundled csv-report report paints itself dark instead of a white block.
// Last: it ends the session the other steps used.

import {
  APP,
  DRIVER,
  assert,
  enterReport,
  eq,
  field,
  log,
  openTab,
  pickTool,
  runAndWait,
  s,
  scrollIntoView,
  setSession,
  shot,
  waitFor,
} from '../lib.mjs';
import { Session } from '../webdriver.mjs';

/** 0 (black) to 1 (white), from a computed "rgb(r, g, b)". */
function luminance(rgb) {
  const [r, g, b] = rgb.match(/\d+(\.\d+)?/g).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

/** Registers these steps, in order. */
export function register(step) {
  step('Dark mode: restarted with the dark look, the app and the bundled csv report are dark', async () => {
    await s.end();
    setSession(await Session.start(DRIVER, APP, { args: ['--gtk-dark'] }));
    await waitFor(() => s.exec(`return !!document.getElementById('tab-tools');`), 'the app, restarted');
    eq(await s.exec(`return matchMedia('(prefers-color-scheme: dark)').matches;`), true, 'the app sees the dark look');

    await openTab('tools');
    await pickTool('csv-report:make_sample');
    await runAndWait('csv-report:make_sample');
    await pickTool('csv-report:analyze_csv');
    await s.type(await field('path'), 'sales.csv');
    const card = await runAndWait('csv-report:analyze_csv');
    await scrollIntoView(card);
    await enterReport(card);
    await s.waitText('#summary', 'rows');
    const [dark, bg, text] = await s.exec(
      `return [matchMedia('(prefers-color-scheme: dark)').matches,
               getComputedStyle(document.documentElement).backgroundColor, getComputedStyle(document.body).color];`,
    );
    await s.top();
    log(`the report: dark ${dark}, background ${bg}, text ${text}`);
    eq(dark, true, 'prefers-color-scheme in the report’s frame');
    assert(luminance(bg) < 0.3 && luminance(text) > 0.6, `the report is not dark: background ${bg}, text ${text}`);
    await shot('dark-csv-report');
  });
}
