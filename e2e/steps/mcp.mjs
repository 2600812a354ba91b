// MCP servers: server-everything (npm, over stdio) added in Settings, shown
// connected with its tools, and its `echo` tool run by hand from the tool
// picker's "MCP · everything" group.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  HERE,
  assert,
  cli,
  clickButton,
  clickIn,
  field,
  openTab,
  pickTool,
  showToolList,
  runAndWait,
  s,
  scrollIntoView,
  shot,
  waitEl,
} from '../lib.mjs';

const SECTION = '#panel-settings section[aria-labelledby="mcp-title"]';
const EVERYTHING = join(HERE, '..', 'tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** The add form's input whose label says `label`. */
const formField = (label) =>
  waitEl(
    `for (const l of document.querySelectorAll('form[aria-label="Add an MCP server"] label'))
       if (l.textContent.trim() === arguments[0]) return document.getElementById(l.htmlFor);
     return null;`,
    [label],
    `the add form's field ${label}`,
  );

/** The row of server `id`. */
const row = (id) => s.find(`${SECTION} li.mcp-row[aria-label="${id}"]`);

/** Registers these steps, in order. */
export function register(step) {
  step('MCP: server-everything is added in Settings, connects and lists its tools', async () => {
    assert(existsSync(EVERYTHING), `${EVERYTHING} is missing: run scripts/install.sh`);
    await openTab('settings');
    // The settings toolset of the earlier steps declares one ("forecast"): listed, stopped.
    await s.waitText(`${SECTION} li.mcp-row[aria-label="forecast"]`, 'declared by toolset weather-settings');
    await clickButton(SECTION, 'Add server');
    await s.type(await formField('Name'), 'everything');
    await s.type(await formField('Command line'), `node '${EVERYTHING}' stdio`);
    await s.waitText(`${SECTION} [aria-label="How it will run"]`, 'with 2 arguments');
    await shot('mcp-add-form');
    await clickButton(`${SECTION} form`, 'Add and connect');
    const r = await s.waitText(`${SECTION} li.mcp-row[aria-label="everything"] .mcp-status`, 'connected', {
      timeout: 60000,
    });
    assert(r, 'no connected status');
    await s.waitText(`${SECTION} li.mcp-row[aria-label="everything"]`, /\d+ tools/);
    await clickIn(await row('everything'), 'Details');
    const details = await s.waitText(`${SECTION} li.mcp-row[aria-label="everything"] .mcp-details`, 'echo');
    await scrollIntoView(await row('everything'));
    await shot('mcp-connected');
    const text = await s.text(details);
    assert(text.includes('Echoes back the input'), `echo's description is not shown: ${text.slice(0, 400)}`);
    const listed = JSON.parse(cli('mcp', 'list', '--json'));
    assert(
      listed.some((m) => m.id === 'everything' && m.user_declared),
      `the CLI does not list it: ${JSON.stringify(listed)}`,
    );
  });

  step("MCP: everything's echo runs by hand from the tool picker", async () => {
    await openTab('tools');
    // An earlier step may have left a search in the picker: look for the tool.
    await showToolList();
    await s.type(await s.find('#panel-tools input[type=search]'), 'everything:echo');
    // The group's title is shown in capitals (CSS): the group is named as written.
    await s.find('#panel-tools .picker-group[role="group"][aria-label="MCP · everything"]', { timeout: 15000 });
    await pickTool('everything:echo');
    await s.type(await field('message'), 'Hello over MCP');
    const card = await runAndWait('everything:echo');
    await s.waitText(`#panel-tools article.call-card[aria-label="Call of everything:echo"]`, 'Hello over MCP');
    await scrollIntoView(card);
    await shot('mcp-echo');
  });
}
