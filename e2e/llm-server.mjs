// A scripted OpenAI-compatible model server on loopback, for the chat steps
// of the end-to-end lane and the UI benchmark: plain Node `http`, no
// dependencies. It answers what the app's OpenAI client asks for —
// `GET /v1/models` and `POST /v1/chat/completions` with `stream: true`, in
// the real chunk format (`data: {chat.completion.chunk}\n\n`, a usage
// chunk, `data: [DONE]\n\n`) — from a script the test sets:
//
// - `queue(...turns)`: the answers of the next requests, in order. A turn is
//   `{ text, rate }` (streamed token by token, `rate` tokens per second),
//   `{ tokens, rate }` (the tokens as given), `{ reasoning, text }`,
//   `{ text, calls: [{ id, name, arguments }] }` (the calls' arguments
//   split across chunks; `finish_reason: tool_calls`),
//   `{ status, error }` (an HTTP error with OpenAI's error body), or a
//   function of the request body returning one of these (to answer from
//   what was sent).
// - `when(match, turn)`: a standing rule tried before the queue, e.g. for
//   every request whose last message is a tool result; `match` gets the
//   request body. The chat title request (the engine names a new chat after
//   its first exchange) is answered by such a rule from the start.
// - `refuseKey(key)`: requests with `Authorization: Bearer <key>` get a 401
//   (the models list too), as OpenAI answers a wrong key.
// - `requests`: every request received (method, path, authorization, body,
//   time), so a step can assert what the model was sent.
// A request with nothing queued and no rule gets a 400 that says so, which
// the app shows as the run's error: a step that queued too little fails
// visibly rather than hanging.
//
// While streaming, a disconnect (the app's Stop) ends the turn; `sent` keeps
// each streamed token's send time (performance.timeOrigin-based ms) for the
// benchmark. The E2E steps and the benchmark start it in their own process
// (`startLlmServer`).

import { createServer } from 'node:http';

/** The model the server lists and answers as. */
export const MODEL = 'scripted-model';

// performance.now() put on Date.now()'s clock (the one a page can share):
// the mean difference over ~30 ms of samples, Date.now() flooring as a
// page's does.
const clockOffset = (() => {
  let sum = 0;
  let n = 0;
  for (const end = Date.now() + 30; Date.now() < end; n++)
    sum += performance.timeOrigin + performance.now() - Date.now();
  return sum / n;
})();

/** Wall-clock milliseconds with sub-ms precision, on Date.now()'s clock. */
export const wallMs = () => performance.timeOrigin + performance.now() - clockOffset;

/** A text in tokens as a model streams them: words with their leading space, punctuation apart. */
export function tokens(text) {
  return text.match(/\s*[\p{L}\p{N}_]+|\s*[^\s\p{L}\p{N}_]|\s+/gu) ?? [];
}

const TITLE_SYSTEM = 'You name conversations.';

function systemText(body) {
  const first = body?.messages?.[0];
  return first?.role === 'system' && typeof first.content === 'string' ? first.content : '';
}

/** The text of the last message of a request body (user, tool or assistant). */
export function lastMessage(body) {
  const m = body?.messages?.at(-1);
  if (!m) return { role: null, text: '' };
  const text =
    typeof m.content === 'string'
      ? m.content
      : Array.isArray(m.content)
        ? m.content.map((p) => p.text ?? '').join('')
        : '';
  return { role: m.role, text, name: m.name, toolCallId: m.tool_call_id };
}

export class LlmServer {
  constructor() {
    this.turns = [];
    this.rules = [];
    this.refused = new Set();
    this.requests = [];
    /** Send times of streamed tokens, for the benchmark: [{ index, at }] of the current stream. */
    this.sent = [];
    this.titles = 0;
    this.server = createServer((req, res) => void this.handle(req, res));
    this.streams = new Set();
    this.reset();
  }

  /** Clears the queue, the rules (but the title rule), the refused keys and the records. */
  reset() {
    this.turns = [];
    this.refused.clear();
    this.requests = [];
    this.sent = [];
    this.rules = [
      {
        match: (body) => systemText(body).startsWith(TITLE_SYSTEM),
        turn: () => ({ text: `Scripted chat ${++this.titles}`, rate: 0 }),
        once: false,
      },
    ];
  }

  queue(...turns) {
    this.turns.push(...turns);
  }

  /** A standing rule (or one used once, with `{ once: true }`), tried before the queue, newest first. */
  when(match, turn, { once = false } = {}) {
    this.rules.unshift({ match, turn, once });
  }

  refuseKey(key) {
    this.refused.add(key);
  }

  /** How many queued turns are still unanswered. */
  get pending() {
    return this.turns.length;
  }

  /** The chat completion requests received since `from` (an index into `requests`), titles left out. */
  completions(from = 0) {
    return this.requests
      .slice(from)
      .filter((r) => r.path.endsWith('/chat/completions') && !systemText(r.body).startsWith(TITLE_SYSTEM));
  }

  async listen(port = 0) {
    await new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', resolve);
    });
    this.port = this.server.address().port;
    this.base = `http://127.0.0.1:${this.port}/v1`;
    return this;
  }

  async close() {
    for (const r of this.streams) r.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  async handle(req, res) {
    const raw = await readBody(req);
    const url = new URL(req.url, 'http://x');
    try {
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        return error(res, 400, `the body is not JSON: ${raw.slice(0, 200)}`, 'invalid_request_error');
      }
      const authorization = req.headers.authorization ?? null;
      this.requests.push({ method: req.method, path: url.pathname, authorization, body, at: wallMs() });
      const key = authorization?.replace(/^Bearer\s+/i, '');
      if (key && this.refused.has(key)) {
        return error(
          res,
          401,
          `Incorrect API key provided: ${key.slice(0, 3)}***. You can find your API key in your account settings.`,
          'invalid_request_error',
          'invalid_api_key',
        );
      }
      if (req.method === 'GET' && url.pathname === '/v1/models') {
        return json(res, 200, { object: 'list', data: [{ id: MODEL, object: 'model', created: 0, owned_by: 'e2e' }] });
      }
      if (req.method === 'POST' && url.pathname === '/v1/chat/completions') {
        return await this.complete(body, req, res);
      }
      return error(res, 404, `no route ${req.method} ${url.pathname}`, 'invalid_request_error');
    } catch (e) {
      if (!res.headersSent) error(res, 500, `the scripted server failed: ${e.message}`, 'server_error');
      else res.destroy();
    }
  }

  /** The next turn for `body`: a matching rule, else the queue's head. */
  next(body) {
    const i = this.rules.findIndex((r) => r.match(body));
    if (i >= 0) {
      const rule = this.rules[i];
      if (rule.once) this.rules.splice(i, 1);
      return typeof rule.turn === 'function' ? rule.turn(body) : rule.turn;
    }
    const turn = this.turns.shift();
    return typeof turn === 'function' ? turn(body) : turn;
  }

  async complete(body, req, res) {
    const turn = this.next(body);
    if (!turn) {
      const said = lastMessage(body);
      // 400, not 500: the client would retry a server error.
      return error(
        res,
        400,
        `the scripted server has no answer queued for a request ending with a ${said.role} message: ${said.text.slice(0, 120)}`,
        'server_error',
      );
    }
    if (turn.status) return error(res, turn.status, turn.error ?? `error ${turn.status}`, turn.type ?? 'server_error');
    const id = `chatcmpl-${Math.random().toString(36).slice(2, 12)}`;
    const model = body?.model ?? MODEL;
    const chunk = (delta, finish = null, extra = {}) =>
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, delta, finish_reason: finish }],
        ...extra,
      })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    this.streams.add(res);
    let closed = false;
    res.on('close', () => {
      closed = true;
      this.streams.delete(res);
    });
    const write = (s) => !closed && res.write(s);
    write(chunk({ role: 'assistant', content: '' }));
    let produced = 0;
    if (turn.reasoning) {
      for (const t of tokens(turn.reasoning)) write(chunk({ reasoning_content: t }));
    }
    if (turn.text || turn.tokens) {
      const all = turn.tokens ?? tokens(turn.text);
      produced += all.length;
      const stopped = await this.stream(
        all,
        turn.rate ?? 60,
        write,
        () => closed,
        (t) => chunk({ content: t }),
      );
      if (stopped) return;
    }
    for (const [index, c] of (turn.calls ?? []).entries()) {
      const args = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {});
      write(
        chunk({
          tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }],
        }),
      );
      // Arguments in pieces, as models stream them.
      for (let i = 0; i < args.length; i += 7) {
        write(chunk({ tool_calls: [{ index, function: { arguments: args.slice(i, i + 7) } }] }));
        await sleep(2);
      }
    }
    if (closed) return;
    write(chunk({}, turn.calls?.length ? 'tool_calls' : 'stop'));
    write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model, choices: [], usage: { prompt_tokens: JSON.stringify(body).length >> 2, completion_tokens: produced + 1, total_tokens: 0 } })}\n\n`,
    );
    write('data: [DONE]\n\n');
    res.end();
  }

  /**
   * Streams `all` at `rate` tokens per second (0: all at once), on an
   * absolute schedule so timer lateness does not slow the rate: each tick
   * sends every token that is due. True when the client went away.
   */
  async stream(all, rate, write, isClosed, frame) {
    this.sent = [];
    const t0 = wallMs();
    let i = 0;
    while (i < all.length) {
      if (isClosed()) return true;
      const due = rate > 0 ? Math.min(all.length, Math.floor(((wallMs() - t0) * rate) / 1000) + 1) : all.length;
      let out = '';
      const at = wallMs();
      for (; i < due; i++) {
        out += frame(all[i]);
        this.sent.push({ index: i, at });
      }
      if (out) write(out);
      if (i < all.length) await sleep(rate > 0 ? Math.max(1, 1000 / rate - 0.2) : 0);
    }
    return isClosed();
  }
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (s += d));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}

function json(res, status, value) {
  const s = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s) });
  res.end(s);
}

/** An error as OpenAI sends one. */
function error(res, status, message, type, code = null) {
  json(res, status, { error: { message, type, param: null, code } });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Starts a server on a free loopback port. */
export function startLlmServer(port = 0) {
  return new LlmServer().listen(port);
}
