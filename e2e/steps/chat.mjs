// Chatting with a model: a scripted OpenAI-compatible server on loopback
// (e2e/llm-server.mjs, started here) plays the model. The server listens
// where a llama.cpp server would (localhost:8080), so the empty chat's
// "Set up a model" finds it and one click uses it. Then: an answer streams,
// calls a Python tool with an HTML renderer (word-tools' word_count) and a
// tool that asks first (App Builder's run_command, approved inline), and
// ends; Retry makes a sibling and the workspace follows the ‹ 1/2 › arrows;
// Edit on the first message branches, and the model is sent that branch
// only; Fork opens a new chat with the path; Stop keeps what streamed; the
// model calls server-everything's echo (added by the MCP steps); a refused
// key shows its fix (Open Settings), and with that provider removed the
// chat answers again.

import {
  assert,
  chatIdNow,
  cli,
  clickButton,
  clickIn,
  enterReport,
  eq,
  log,
  openTab,
  ref,
  s,
  scrollIntoView,
  shot,
  waitEl,
  waitFor,
  workspaceIs,
} from '../lib.mjs';
import { MODEL, lastMessage, startLlmServer } from '../llm-server.mjs';
import {
  COMPOSER,
  CONV,
  choose,
  composerButton,
  messageButton,
  messages,
  onFresh,
  send,
  settledText,
  stepBranch,
  waitAnswer,
  waitIdle,
  waitSiblings,
} from '../conversation.mjs';

const SENTENCE = 'the quick brown fox jumps over the lazy dog and the fox naps';
const FIRST = `Count the words of “${SENTENCE}”, then save a note.`;
const OPENING =
  'Sure. I will count the words with the word counter first, and then save a short note in the workspace with a shell command, which asks you before it runs.';
const FINAL = 'Done: 13 words, and **the** is the most common one (3 times). The note is in `note.txt`:';
const RETRIED = 'A different answer: this time I counted in my head, no tools needed — 13 words.';
const EDITED = 'Just say hello, please.';
const HELLO = 'Hello! This answers the edited message, on a branch of its own.';
const ECHOED = 'Hello over MCP from the model';
const SETUP = '#panel-tools section[aria-label="Set up a model"]';
const PROVIDERS = '#panel-settings section[aria-labelledby="providers-title"]';

/** The scripted model, started by the first step; `chat` the id of the conversation's chat. */
let llm = null;
let chat = null;
let providerId = null;

/** The scripted server on :8080 (a llama.cpp server's port), else on a free port. */
async function startServer() {
  try {
    return await startLlmServer(8080);
  } catch (e) {
    log(`port 8080 is taken (${e.code}): the scripted model listens on a free port, added in Settings`);
    return startLlmServer(0);
  }
}

/** The completion requests sent since `from`, with their messages' roles and texts. */
function sentSince(from) {
  return llm.completions(from).map((r) => r.body);
}

const wireNames = (body) => (body.tools ?? []).map((t) => t.function.name);

/** Adds a provider in Settings → Providers: "OpenAI-compatible" (any URL). */
async function addProviderInSettings(baseUrl, key) {
  await openTab('settings');
  const form = `${PROVIDERS} form[aria-label="Add a provider"]`;
  await choose(`${form} select`, '');
  const input = (label) =>
    waitEl(
      `for (const l of document.querySelectorAll(arguments[0] + ' label'))
         if (l.firstChild?.textContent.trim() === arguments[1]) return l.querySelector('input');
       return null;`,
      [form, label],
      `the provider form's ${label}`,
    );
  await s.type(await input('Base URL'), baseUrl);
  await s.type(await input('Default model'), MODEL);
  if (key) await s.type(await input('API key'), key);
  const before = JSON.parse(cli('provider', 'list', '--json')).map((p) => p.id);
  await clickButton(form, 'Add provider');
  const added = await waitFor(
    () => JSON.parse(cli('provider', 'list', '--json')).find((p) => !before.includes(p.id)),
    'the new provider in the CLI list',
  );
  await s.waitText(`${PROVIDERS} ul[aria-label="Providers"]`, added.id);
  return added;
}

/** The row of provider `id` in Settings. */
const providerRow = (id) =>
  waitEl(
    `for (const li of document.querySelectorAll(arguments[0] + ' li.provider-row'))
       if (li.querySelector('strong')?.textContent === arguments[1]) return li;
     return null;`,
    [PROVIDERS, id],
    `the provider row ${id}`,
  );

/** Registers these steps, in order. */
export function register(step) {
  step('Chat: a new chat with no provider offers the model server found here; one click uses it', async () => {
    llm = await startServer();
    log(`scripted model at ${llm.base}`);
    // The tools the model is given: word-tools (allowed at its install), App Builder's (a fresh data dir's
    // examples are the Assistant's from the start), everything's.
    const assistant = JSON.parse(cli('agent', 'show', 'assistant', '--json'));
    assert(assistant.toolsets.includes('app-builder'), `the examples are not the Assistant's: ${assistant.toolsets}`);
    for (const id of ['everything'].filter((t) => !assistant.toolsets.includes(t))) {
      log(`allowing ${id} to the Assistant`);
      cli('agent', 'edit', 'assistant', '--add-toolset', id);
    }
    await openTab('tools');
    // The tool form an earlier step left open goes: the conversation gets the column.
    const close = await s.findAll('#panel-tools button[aria-label="Close the tool form"]');
    if (close.length > 0) await s.click(close[0]);
    await clickButton('section[aria-label="Chats"] .sidebar-heading', 'New chat');
    await waitFor(async () => (await messages()).length === 0, 'an empty conversation');
    const panel = await s.waitText(SETUP, 'API key', { timeout: 20000 });
    if (llm.port === 8080) {
      // Looked for before the server started (another empty chat showed the panel): look again.
      const found = await s.waitText(SETUP, /llama\.cpp server|None answered/, { timeout: 20000 });
      if ((await s.text(found)).includes('None answered')) await clickIn(panel, 'Look again');
      await s.waitText(SETUP, 'llama.cpp server', { timeout: 20000 });
      await scrollIntoView(panel);
      await shot('chat-set-up-a-model');
      await clickIn(panel, 'Use llama.cpp server');
    } else {
      await shot('chat-set-up-a-model');
      await addProviderInSettings(llm.base, null);
      await openTab('tools');
    }
    const providers = await waitFor(async () => {
      const list = JSON.parse(cli('provider', 'list', '--json'));
      return list.length === 1 ? list : null;
    }, 'one provider set up');
    providerId = providers[0].id;
    eq(providers[0].default_model, MODEL, "the provider's default model");
    await waitFor(async () => (await s.findAll(SETUP)).length === 0, 'the set-up panel to go away');
    // The Model switcher shows the provider's default model (as the default, or chosen).
    const shown = await waitFor(
      () =>
        s.exec(
          `const sel = document.querySelector(arguments[0] + ' select[aria-label="Model"]');
           return sel ? sel.options[sel.selectedIndex]?.textContent ?? '' : null;`,
          [COMPOSER],
        ),
      'the Model switcher',
    );
    assert(shown.includes(providerId) && shown.includes(MODEL), `the Model switcher shows "${shown}"`);
    await shot('chat-ready');
  });

  step(
    'Chat: the answer streams, calls word_count (HTML report) and run_command (approved inline), and ends',
    async () => {
      const from = llm.requests.length;
      llm.queue(
        {
          text: OPENING,
          rate: 12,
          calls: [{ id: 'call_count', name: 'word-tools__word_count', arguments: { text: SENTENCE, top: 3 } }],
        },
        {
          text: 'The text has 13 words. Now the note:',
          rate: 40,
          calls: [
            {
              id: 'call_note',
              name: 'app-builder__run_command',
              arguments: { command: "printf 'the fox naps\\n' > note.txt" },
            },
          ],
        },
        { text: `${FINAL}\n\n\`\`\`text\nthe fox naps\n\`\`\`\n`, rate: 40 },
      );
      await send(FIRST);
      // Streaming: the answer is busy and grows.
      const busy = await waitFor(
        async () => (await messages()).find((m) => m.role === 'assistant' && m.busy && m.text.length > 10) ?? null,
        'a streaming answer (aria-busy) with some text',
        20000,
      );
      await shot('chat-streaming');
      const later = await waitFor(async () => {
        const m = (await messages()).find((x) => x.role === 'assistant' && x.text.length > busy.text.length);
        return m ?? null;
      }, 'the streaming answer to grow');
      assert(OPENING.startsWith(busy.text.slice(0, 20)), `the streamed text is not the model's: ${busy.text}`);
      log(`streamed: ${busy.text.length} then ${later.text.length} characters`);
      await composerButton('Stop');
      chat = chatIdNow();

      // The Python tool's card, its HTML renderer in place.
      await waitEl(
        `return document.querySelector(arguments[0] + ' article.call-card:not(.call-live)[aria-label="Call of word-tools:word_count"]');`,
        [CONV],
        'the word_count card',
        60000,
      );
      // The tool that asks first waits inline.
      const waiting = await waitEl(
        `return document.querySelector(arguments[0] + ' article.call-card[aria-label="Call of app-builder:run_command"]');`,
        [CONV],
        'the run_command card',
        60000,
      );
      await s.waitText(`${CONV} article.call-card[aria-label="Call of app-builder:run_command"]`, 'Approve', {
        timeout: 30000,
      });
      await scrollIntoView(waiting, 'center');
      await shot('chat-asks-first');
      await clickIn(waiting, 'Approve');
      await waitAnswer('the most common one');
      await waitIdle();
      await s.waitText(`${CONV} article.message[data-role="assistant"]`, 'the fox naps');
      // Found again: the card is rendered anew once its turn is saved.
      const counted = await s.find(`${CONV} article.call-card[aria-label="Call of word-tools:word_count"]`);
      await enterReport(counted);
      await s.waitText('#title', 'The text: 13 words');
      await s.top();
      await scrollIntoView(counted);
      // The frame is as tall as the report (its page posts no size of its
      // own): not the 320 px box it starts as.
      const fitted = await waitFor(async () => {
        const h = await s.exec(
          `const f = arguments[0].querySelector('iframe.sandboxed-frame');
           // The page's viewport is the height it asked for (the border
           // outside it), else it shows a scrollbar.
           return f && f.clientHeight === parseFloat(f.style.height) ? f.clientHeight : 0;`,
          [ref(counted)],
        );
        return h > 0 && h < 300 ? h : null;
      }, 'the report frame fitted to its page, all of its height the page viewport');
      log(`the word_count report frame: ${fitted}px`);
      await shot('chat-word-count-report');
      const code = await waitEl(
        `for (const m of document.querySelectorAll(arguments[0] + ' article.message[data-role="assistant"]'))
         if (m.textContent.includes('the most common one')) return m;
       return null;`,
        [CONV],
        'the final answer',
      );
      await scrollIntoView(code, 'end');
      await shot('chat-answer-ended');
      assert(
        await s.exec(`return arguments[0].querySelector('button[aria-label="Copy code"]') !== null;`, [ref(code)]),
        'the code block of the answer has no Copy code button',
      );

      // What the model was sent: the tools under their wire names, then each result.
      const bodies = sentSince(from);
      eq(bodies.length, 3, 'model requests of the run');
      for (const name of ['word-tools__word_count', 'app-builder__run_command', 'everything__echo']) {
        assert(wireNames(bodies[0]).includes(name), `the model was not offered ${name}: ${wireNames(bodies[0])}`);
      }
      const result = lastMessage(bodies[1]);
      eq(result.role, 'tool', 'the last message of the second request');
      assert(
        result.text.includes('"words": 13') || result.text.includes('"words":13'),
        `word_count's result: ${result.text}`,
      );
      eq(lastMessage(bodies[2]).role, 'tool', 'the last message of the third request');
      const files = JSON.parse(cli('workspace', 'ls', chat, '--json')).map((f) => f.path);
      for (const f of ['words.txt', 'note.txt']) assert(files.includes(f), `${f} is not in the workspace: ${files}`);
    },
  );

  step('Chat: Retry makes a sibling answer; ‹ 1/2 › switches the answer and the workspace', async () => {
    const first = (await messages()).find((m) => m.role === 'assistant');
    const from = llm.requests.length;
    llm.queue({ text: RETRIED, rate: 40 });
    await messageButton(first.id, 'Retry');
    await waitAnswer('in my head');
    await waitIdle();
    const sibling = (await messages()).find((m) => m.role === 'assistant');
    assert(sibling.id !== first.id, 'Retry replaced the answer instead of adding a sibling');
    await waitSiblings(sibling.id, '2/2', 'the arrows at the new answer');
    const shown = await messages();
    assert(!shown.some((m) => m.text.includes('the most common one')), 'the old branch is still shown');
    await shot('chat-retried-2-of-2');
    // The retry was sent the question only: nothing of the first answer's branch.
    const [body] = sentSince(from);
    const sent = JSON.stringify(body.messages);
    assert(
      sent.includes('Count the words') && !sent.includes('call_count') && !sent.includes('note.txt'),
      `the retry was sent another branch: ${sent.slice(0, 600)}`,
    );
    await workspaceIs([]);
    await shot('chat-retried-workspace');
    await openTab('tools');
    await stepBranch('2/2', 'Previous branch');
    await waitAnswer('the most common one');
    await waitSiblings(first.id, '1/2', 'the arrows after Previous branch');
    await workspaceIs(['note.txt', 'words.txt']);
    await shot('chat-back-to-1-of-2-workspace');
    await openTab('tools');
    await shot('chat-back-to-1-of-2');
  });

  step('Chat: Edit on the first message branches, and the model is sent the edited branch only', async () => {
    const user = (await messages()).find((m) => m.role === 'user');
    const from = llm.requests.length;
    llm.queue({ text: HELLO, rate: 40 });
    await messageButton(user.id, 'Edit message');
    const editor = await s.find(`${CONV} textarea[aria-label="Edit message"]`);
    await s.type(editor, EDITED);
    await shot('chat-editing');
    await clickButton(CONV, 'Send edit');
    await waitAnswer('edited message');
    await waitIdle();
    const now = await messages();
    const edited = now.find((m) => m.role === 'user');
    eq(edited.text, EDITED, 'the first message after the edit');
    await waitSiblings(edited.id, '2/2', 'the arrows at the edited message');
    assert(!now.some((m) => m.text.includes('Count the words')), 'the original message is still shown');
    const [body] = sentSince(from);
    const sent = JSON.stringify(body.messages);
    assert(sent.includes(EDITED), 'the edit was not sent');
    for (const gone of ['Count the words', 'in my head', 'call_count', 'most common']) {
      assert(!sent.includes(gone), `the edited branch's request holds "${gone}" of another branch`);
    }
    await workspaceIs([]);
    await openTab('tools');
    await shot('chat-edited');
  });

  step('Chat: Fork to new chat opens a new chat with the path', async () => {
    const before = JSON.parse(cli('chat', 'list', '--json')).length;
    const answer = (await messages()).find((m) => m.role === 'assistant');
    await messageButton(answer.id, 'Fork to new chat');
    const title = await waitFor(
      () =>
        s.exec(
          `const t = document.querySelector('section[aria-label="Chats"] .chat-title[aria-current="true"]')?.textContent ?? '';
           return t.endsWith('(fork)') ? t : null;`,
        ),
      'the fork to be the current chat',
    );
    const list = JSON.parse(cli('chat', 'list', '--json'));
    eq(list.length, before + 1, 'chats after the fork');
    const shown = await waitFor(async () => {
      const m = await messages();
      return m.length >= 2 ? m : null;
    }, 'the fork’s messages');
    eq(
      JSON.stringify(shown.map((m) => [m.role, m.text.slice(0, 20)])),
      JSON.stringify([
        ['user', EDITED.slice(0, 20)],
        ['assistant', HELLO.slice(0, 20)],
      ]),
      'the messages of the fork',
    );
    chat = list.find((c) => c.title === title).id;
    await shot('chat-forked');
  });

  step("Chat: the chat's model settings go with its next request", async () => {
    await s.click(await composerButton('Model options'));
    const panel = 'form#model-settings';
    const input = (label) =>
      waitEl(
        `for (const l of document.querySelectorAll(arguments[0] + ' label'))
           if (l.firstChild?.textContent.trim() === arguments[1]) return l.querySelector('input');
         return null;`,
        [panel, label],
        `the settings' ${label}`,
      );
    await s.type(await input('Temperature'), '0.3');
    await s.type(await input('Max tokens of an answer'), '300');
    await shot('chat-model-settings');
    await clickButton(panel, 'Save');
    await waitFor(() => s.exec(`return document.querySelector(arguments[0]) === null;`, [panel]), 'the panel to close');
    await composerButton('Model options · 2 changed');
    const from = llm.requests.length;
    llm.queue({ text: 'Short and cool.', rate: 200 });
    await send('Answer briefly.');
    await waitAnswer('Short and cool.');
    await waitIdle();
    const [body] = sentSince(from);
    eq(body.temperature, 0.3, 'the temperature sent');
    eq(body.max_tokens, 300, 'the answer length sent');
  });

  step('Chat: Stop mid-stream keeps what streamed', async () => {
    const story = Array.from({ length: 60 }, (_, i) => `Sentence ${i + 1} of a long story that goes on.`).join(' ');
    llm.queue({ text: story, rate: 25 });
    await send('Tell me a long story.');
    const seen = await waitFor(
      async () => (await messages()).find((m) => m.role === 'assistant' && m.busy && m.text.length > 120) ?? null,
      'the story to stream for a while',
      30000,
    );
    await shot('chat-before-stop');
    await s.click(await composerButton('Stop'));
    await waitIdle('the run to stop', 15000);
    const kept = await waitFor(
      async () => (await messages()).find((m) => m.role === 'assistant' && m.text.startsWith('Sentence 1 ')) ?? null,
      'the stopped answer',
    );
    const text = await settledText(kept.id);
    assert(text.length >= seen.text.length, `the stopped answer lost text: ${text.length} < ${seen.text.length}`);
    assert(text.length < story.length, 'the whole story arrived: Stop did not stop');
    await waitFor(() => llm.streams.size === 0, 'the app to hang up on the model');
    const saved = JSON.parse(cli('chat', 'show', chat, '--json'));
    const last = JSON.stringify(saved).includes(text.slice(0, 100));
    assert(last, 'the stopped answer is not saved in the chat');
    log(`stopped after ${text.length} of ${story.length} characters`);
    await shot('chat-stopped');
  });

  step("Chat: the model calls server-everything's echo over MCP", async () => {
    const from = llm.requests.length;
    llm.queue(
      {
        text: 'Asking the MCP server.',
        rate: 40,
        calls: [{ id: 'call_echo', name: 'everything__echo', arguments: { message: ECHOED } }],
      },
      { text: 'The server said it back: **Hello over MCP from the model**.', rate: 40 },
    );
    await send('Have the MCP server echo a greeting.');
    await s.waitText(`${CONV} article.call-card:not(.call-live)[aria-label="Call of everything:echo"]`, ECHOED, {
      timeout: 60000,
    });
    await waitAnswer('The server said it back');
    await waitIdle();
    // Found again: the card is rendered anew once its turn is saved.
    const card = await s.find(`${CONV} article.call-card[aria-label="Call of everything:echo"]`);
    const bodies = sentSince(from);
    const result = lastMessage(bodies[1]);
    eq(result.role, 'tool', 'the last message after the echo');
    assert(result.text.includes(`Echo: ${ECHOED}`), `echo's result as the model got it: ${result.text}`);
    await scrollIntoView(card, 'center');
    await shot('chat-mcp-echo');
  });

  step(
    'Chat: a refused API key says so with its fix, Open Settings; with the bad provider gone the chat answers',
    async () => {
      llm.refuseKey('sk-wrong-key');
      const refused = await addProviderInSettings(llm.base.replace('127.0.0.1', 'localhost'), 'sk-wrong-key');
      const row = await providerRow(refused.id);
      await clickIn(row, 'Test connection');
      await s.waitText(`${PROVIDERS} li.provider-row`, 'auth', { timeout: 20000 });
      await scrollIntoView(row, 'center');
      await shot('chat-provider-refused-test');
      await openTab('tools');
      await choose(`${COMPOSER} select[aria-label="Model"]`, `${refused.id}/${MODEL}`);
      await send('Are you there?');
      // Read by script, not by element: the live error is replaced by the saved turn's.
      const said = await waitFor(
        () =>
          s.exec(
            `const t = document.querySelector(arguments[0] + ' .run-error[role="alert"]')?.textContent ?? '';
           return /refused/.test(t) ? t : null;`,
            [CONV],
          ),
        'the run error',
        30000,
      );
      await waitIdle('the refused run to end');
      log(`the error says: ${said.replace(/\n/g, ' ')}`);
      assert(/API key .* was refused/.test(said), `the error does not say the key was refused: ${said}`);
      const ALERT = `${CONV} .run-error[role="alert"]`;
      await onFresh(ALERT, (alert) => scrollIntoView(alert, 'center'));
      await shot('chat-key-refused');
      await onFresh(ALERT, async (alert) => {
        const b = await s.execEl(
          `for (const b of arguments[0].querySelectorAll('button')) if (b.textContent.trim() === 'Open Settings') return b;
           return null;`,
          [ref(alert)],
        );
        await s.click(b);
      });
      await waitFor(
        async () => (await s.attr(await s.find('#tab-settings'), 'aria-selected')) === 'true',
        'Settings to open',
      );
      await s.waitText(PROVIDERS, refused.id);
      await shot('chat-key-refused-settings');
      // The fix here: the provider with the wrong key goes; the chat goes on with the working one.
      await clickIn(await providerRow(refused.id), 'Remove');
      await waitFor(() => JSON.parse(cli('provider', 'list', '--json')).length === 1, 'the refused provider to go');
      await openTab('tools');
      await choose(`${COMPOSER} select[aria-label="Model"]`, `${providerId}/${MODEL}`);
      llm.queue({ text: 'Yes, I am here (on the working provider).', rate: 40 });
      await send('Are you there now?');
      await waitAnswer('on the working provider');
      await waitIdle();
      await shot('chat-answers-after-the-fix');
      eq(llm.pending, 0, 'scripted turns left unanswered');
      log(`title requests the model got: ${llm.titles}`);
    },
  );
}
