// Export ZIP… through the real native save dialog (GTK 3's file chooser, a
// window of its own that WebDriver cannot see): found and typed into with
// xdotool, then the ZIP is read back.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EDITED_FILE, EDITED_LINE } from './edits.mjs';
import {
  FIXTURES,
  assert,
  clickButton,
  eq,
  jumpOnMap,
  log,
  openTab,
  s,
  screenShot,
  shot,
  sleep,
  waitFor,
  workspaceIs,
  xdotool,
} from '../lib.mjs';

const DIALOG_TITLE = 'Save File'; // rfd's title for a save dialog without one

/** The visible windows named `name` (xdotool exits 1 when there are none). */
function windowsNamed(name) {
  try {
    return xdotool('search', '--onlyvisible', '--name', `^${name}$`).split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** Every named window, for a failure message. */
function allWindows() {
  try {
    return xdotool('search', '--name', '.')
      .split('\n')
      .filter(Boolean)
      .map((id) => `${id}: ${xdotool('getwindowname', id)}`);
  } catch (e) {
    return [`(xdotool: ${e.message})`];
  }
}

/** The ZIP's entries and their text. */
function readZip(file) {
  const script =
    'import json, sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(json.dumps({n: z.read(n).decode("utf-8", "replace") for n in z.namelist()}))';
  return JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' }));
}

/** Registers these steps, in order. */
export function register(step) {
  step('Export ZIP… of a step through the native save dialog; the ZIP holds its files', async () => {
    // Back to the edit node from the map: two files, one of them edited.
    await openTab('workspace');
    await jumpOnMap('Step 3: Edit: 1 changed,');
    await workspaceIs(['hello.txt', EDITED_FILE]);
    const target = join(FIXTURES, 'export.zip');
    assert(!existsSync(target), `${target} exists before the export`);

    await clickButton('#panel-workspace .header-actions', 'Export ZIP…');
    let dialog = null;
    try {
      dialog = await waitFor(() => windowsNamed(DIALOG_TITLE)[0], `a "${DIALOG_TITLE}" window`, 15000).catch((e) => {
        throw new Error(`${e.message}; the windows are: ${allWindows().join(' | ')}`);
      });
      const geo = xdotool('getwindowgeometry', dialog);
      log(`the save dialog: window ${dialog}, ${geo.replace(/\n\s*/g, '; ')}`);
      // No window manager under Xvfb: give the dialog the keyboard focus
      // directly (the pointer goes there too, as a person's would).
      await sleep(500);
      xdotool('mousemove', '--window', dialog, 40, 20);
      xdotool('windowfocus', dialog);
      await sleep(300);
      // The name field has the focus, with "workspace.zip" in it: replace it with a full path.
      xdotool('key', '--clearmodifiers', 'ctrl+a');
      xdotool('type', '--delay', 15, target);
      await sleep(500);
      screenShot('export-zip-native-dialog');
      xdotool('key', '--clearmodifiers', 'Return');
      await waitFor(() => windowsNamed(DIALOG_TITLE).length === 0, 'the save dialog to close', 10000);
      dialog = null;
    } finally {
      // A dialog left open would hold the app: close it.
      if (dialog !== null && windowsNamed(DIALOG_TITLE).length > 0) {
        xdotool('windowfocus', dialog);
        xdotool('key', '--clearmodifiers', 'Escape');
      }
    }

    const notice = await s.waitText('#panel-workspace .notice[role=status]', /Exported 2 files \([^)]*\) to /, {
      timeout: 30000,
    });
    const said = (await s.text(notice)).trim().match(/^Exported 2 files \([^)]*\) to (.*)\.$/);
    assert(said, `the notice: ${await s.text(notice)}`);
    log(`the app says: ${said[0]}`);
    eq(said[1], target, 'the path the app exported to');
    assert(existsSync(target), `no file at ${target}`);
    const zip = readZip(target);
    eq(JSON.stringify(Object.keys(zip).sort()), JSON.stringify(['branch.txt', 'hello.txt']), 'the ZIP entries');
    assert(
      zip[EDITED_FILE].includes(EDITED_LINE),
      `the ZIP's ${EDITED_FILE} lacks the edited line: ${JSON.stringify(zip[EDITED_FILE])}`,
    );
    log(execFileSync('python3', ['-m', 'zipfile', '-l', target], { encoding: 'utf8' }).trim().replace(/\n/g, ' | '));
    await shot('export-zip-done');
  });
}
