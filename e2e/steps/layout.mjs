// The layout under load (#23): 20 chats and a 12-node map with a branch, at
// 1200×800 and at 900×600. The sections stay put and on screen, the chat
// list and the map scroll in their own regions, the page itself never
// scrolls, and every map node has a label on a row of its own.

import { assert, cli, eq, log, openTab, s, shot, showToolList, sleep, waitFor, xdotool } from '../lib.mjs';

const SECTIONS = ['toolsets', 'tools', 'workspace', 'settings'];

/** Clicks what `script` returns, finding it again if a re-render replaced it in between. */
async function clickFound(script, what) {
  await waitFor(async () => {
    await s.click(await s.execEl(script));
    return true;
  }, what);
}

/** Resizes the app's window and waits until the page has that viewport. */
async function resize(width, height) {
  const id = xdotool('search', '--onlyvisible', '--name', '^Atelier$').split('\n')[0];
  xdotool('windowsize', id, width, height);
  await waitFor(
    async () => JSON.stringify(await s.exec('return [innerWidth, innerHeight];')) === JSON.stringify([width, height]),
    `a ${width}×${height} viewport`,
  );
  await sleep(300); // a frame or two for the layout
}

/** What a person sees of the layout: where the sections are, what scrolls, the map's nodes. */
function measure() {
  return s.exec(`
    const box = (el) => { const r = el.getBoundingClientRect(); return { top: Math.round(r.top), bottom: Math.round(r.bottom), left: Math.round(r.left), right: Math.round(r.right) }; };
    const list = document.querySelector('ul[aria-label="Chat list"]');
    const map = document.querySelector('section[aria-label="Conversation map"] .map-scroll');
    const nodes = [...document.querySelectorAll('section[aria-label="Conversation map"] g[role=button][data-node-id]')];
    const page = document.scrollingElement;
    return {
      tabs: ${JSON.stringify(SECTIONS)}.map((t) => box(document.getElementById('tab-' + t))),
      list: { ...box(list), scrolls: list.scrollHeight > list.clientHeight + 1, items: list.querySelectorAll('li').length },
      map: map && { ...box(map), scrolls: map.scrollHeight > map.clientHeight + 1 },
      page: { height: page.scrollHeight, width: page.scrollWidth, sidebar: document.querySelector('.sidebar').scrollHeight - document.querySelector('.sidebar').clientHeight },
      nodes: nodes.map((g) => ({ row: g.querySelector('.map-hit').getAttribute('cy'), label: g.querySelector('.map-label')?.textContent ?? '' })),
      view: [innerWidth, innerHeight],
    };`);
}

/** The checks that hold at any size. */
function check(m, size) {
  const [w, h] = m.view;
  for (const [i, t] of m.tabs.entries()) {
    assert(
      t.top >= 0 && t.bottom <= h && t.right <= w,
      `${size}: the ${SECTIONS[i]} tab is off-screen: ${JSON.stringify(t)}`,
    );
  }
  assert(m.page.height <= h && m.page.width <= w, `${size}: the page scrolls: ${JSON.stringify(m.page)} in ${w}×${h}`);
  assert(m.page.sidebar <= 0, `${size}: the sidebar overflows by ${m.page.sidebar}px`);
  assert(m.list.items >= 20, `${size}: the chat list shows ${m.list.items} chats`);
  assert(m.list.bottom <= h && m.map && m.map.bottom <= h, `${size}: the chat list or the map runs off-screen`);
  eq(m.nodes.length, 12, `${size}: map nodes`);
  eq(new Set(m.nodes.map((n) => n.row)).size, 12, `${size}: distinct map rows`);
  const unlabelled = m.nodes.filter((n) => n.label.trim() === '');
  assert(unlabelled.length === 0, `${size}: ${unlabelled.length} map nodes have no label`);
}

/** Registers these steps, in order. */
export function register(step) {
  step('Layout: 20 chats and a 12-step map with a branch, at 1200×800 and 900×600', async () => {
    // 19 more chats, then one whose tree has 12 nodes: root, 9 messages in a
    // line, and a 2-message branch off the 3rd (made last, so it is selected).
    for (let i = 1; i <= 19; i++) cli('chat', 'new', '--title', `Layout chat ${i}`);
    const chat = JSON.parse(cli('--json', 'chat', 'new', '--title', 'A chat with a branch')).id;
    const said = [];
    for (let i = 1; i <= 9; i++)
      said.push(JSON.parse(cli('--json', 'chat', 'say', chat, `Message ${i} of the main line`)).id);
    const branch = JSON.parse(
      cli('--json', 'chat', 'say', chat, 'A second try at the 3rd step', '--parent', said[2]),
    ).id;
    cli('chat', 'say', chat, 'And its follow-up', '--parent', branch);

    // The app reads the chats again on a reload.
    await s.exec('location.reload();');
    await waitFor(
      () => s.exec(`return document.querySelectorAll('ul[aria-label="Chat list"] li').length >= 20;`),
      'the 20 new chats in the list',
    );
    await clickFound(
      `for (const b of document.querySelectorAll('ul[aria-label="Chat list"] .chat-title')) if (b.textContent === 'A chat with a branch') return b; return null;`,
      'a click on the chat with a branch',
    );
    await s.waitText('section[aria-label="Conversation map"] .map-count', '11 steps');
    // The straight part of the main line is folded ("⋯ 4 steps"): open it.
    await s.click(
      await s.execEl(`return document.querySelector('section[aria-label="Conversation map"] .map-run .map-shape');`),
    );
    await waitFor(
      () =>
        s.exec(
          `return document.querySelectorAll('section[aria-label="Conversation map"] g[data-node-id]').length === 12;`,
        ),
      'the 12 nodes drawn one by one',
    );
    await openTab('workspace');

    try {
      const big = await measure();
      log(`1200×800: tabs at ${big.tabs.map((t) => t.top).join(', ')}; map ${JSON.stringify(big.map)}`);
      check(big, '1200×800');
      assert(big.list.scrolls, '1200×800: the chat list does not scroll on its own');
      await shot('layout-1200x800');

      await resize(900, 600);
      const small = await measure();
      log(`900×600: tabs at ${small.tabs.map((t) => t.top).join(', ')}; map ${JSON.stringify(small.map)}`);
      check(small, '900×600');
      assert(small.map.scrolls, '900×600: the map does not scroll on its own');
      // (A short window makes the tabs a little tighter: their places are compared at one size.)
      await shot('layout-900x600');

      // The selected chat is kept in view: scroll the list to its end, then
      // make a new chat (it is listed first).
      await s.exec(`const l = document.querySelector('ul[aria-label="Chat list"]'); l.scrollTop = l.scrollHeight;`);
      await clickFound(
        `for (const b of document.querySelectorAll('section[aria-label="Chats"] .sidebar-heading button')) if (b.textContent === 'New chat') return b; return null;`,
        'a click on New chat',
      );
      await waitFor(
        () =>
          s.exec(`
            const l = document.querySelector('ul[aria-label="Chat list"]');
            const c = l.querySelector('.chat-item-current');
            if (!c || c.querySelector('.chat-title').textContent === 'A chat with a branch') return false;
            const a = l.getBoundingClientRect(), b = c.getBoundingClientRect();
            return b.top >= a.top - 1 && b.bottom <= a.bottom + 1;`),
        'the new chat to be selected and in view in the scrolled list',
      );
      const after = await measure();
      eq(
        JSON.stringify(after.tabs),
        JSON.stringify(small.tabs),
        'the sections’ places with an empty map and with 12 nodes',
      );
      await shot('layout-900x600-new-chat');

      // Tools at 900×600: the list narrows and the results get the room; the
      // search picks like a command palette and the form takes the cursor.
      await openTab('tools');
      await showToolList();
      const search = await s.find('#panel-tools input[type=search]');
      await s.click(search);
      await s.keys(search, 'write_file');
      await waitFor(
        () => s.exec(`return !!document.querySelector('#panel-tools .picker-item-highlight');`),
        'a highlighted result',
      );
      await s.keys(search, '\uE007'); // Enter
      await waitFor(
        () =>
          s.exec(`
            const f = document.activeElement;
            return !!f && f.closest('form.tool-runner') !== null && f.matches('input, textarea');`),
        'the cursor in the first field of the chosen tool',
      );
      const tools = await s.exec(`
        const w = (css) => Math.round(document.querySelector(css).getBoundingClientRect().width);
        const page = document.scrollingElement;
        return { list: w('#panel-tools .tools-column'), run: w('#panel-tools .run-column'),
                 page: [page.scrollWidth, page.scrollHeight], view: [innerWidth, innerHeight],
                 searchTop: Math.round(document.querySelector('#panel-tools input[type=search]').getBoundingClientRect().top) };`);
      log(`900×600 tools: ${JSON.stringify(tools)}`);
      assert(
        tools.page[0] <= tools.view[0] && tools.page[1] <= tools.view[1],
        `900×600: the page scrolls in Tools: ${JSON.stringify(tools)}`,
      );
      assert(tools.list <= 240 && tools.run >= 360, `900×600: the tool list leaves the results ${tools.run}px`);
      // The form scrolls on its own: the search box stays where it was.
      await s.exec(`document.querySelector('#panel-tools .run-column').scrollTop = 10000;`);
      const searchTop = await s.exec(
        `return Math.round(document.querySelector('#panel-tools input[type=search]').getBoundingClientRect().top);`,
      );
      eq(searchTop, tools.searchTop, 'the search box top after scrolling the form');
      await shot('layout-900x600-tools');
    } finally {
      await resize(1200, 800);
    }
  });
}
