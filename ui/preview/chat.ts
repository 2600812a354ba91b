// The preview's "chat" data (preview.html?chat): a conversation with a
// model — a question, reasoning, a tool call with its card, an answer with
// a table and code at a branch point (2/2), a run that failed because
// Ollama is down (the error with its fix) — and, with `?chat=stream`, an
// answer streaming at the end (sending a message streams one too).
import type {
  Chat,
  ChatEvent,
  ContentPart,
  JsonValue,
  Message,
  MessageNode,
  ProviderRecord,
  RunOutcome,
  ToolCallRecord,
} from "../src/bindings";
import { startRun } from "../src/conversation/runStore";

type Args = { [k: string]: unknown };
type Record = (chatId: string, toolId: string, args: { [k: string]: JsonValue }) => ToolCallRecord;

const CHAT = "chat-talk";
const now = new Date().toISOString();

const ANSWER = `Here is the summary of **sales.csv** (1,204 rows):

| Region | Total | Change |
| --- | ---: | ---: |
| North | 412,300 | +12% |
| South | 298,150 | −3% |
| West | 187,900 | +7% |

North grew the most; South is the only region that fell. I wrote the details to \`report.md\`.

To redo the totals yourself:

\`\`\`python
import csv
from collections import defaultdict

totals = defaultdict(float)
with open("sales.csv") as f:
    for row in csv.DictReader(f):
        totals[row["region"]] += float(row["amount"])
print(sorted(totals.items(), key=lambda kv: -kv[1]))
\`\`\`
`;

const STREAMED = `Sure. A bar chart of the totals per region shows the gap best:

1. Read the CSV with the standard library.
2. Sum the amounts per region.
3. Draw the bars, largest first.

\`\`\`python
import matplotlib.pyplot as plt

regions = ["North", "South", "West"]
totals = [412_300, 298_150, 187_900]
plt.bar(regions, totals, color="#4f46e5")
plt.title("Sales per region")
plt.savefig("chart.png", dpi=150)
\`\`\`

The chart goes to \`chart.png\` in the workspace; I can add the monthly trend as a second panel if you like. `;

function msg(
  id: string,
  parent: string | null,
  role: Message["role"],
  content: ContentPart[],
  meta: Message["meta"] = null,
): Message {
  return {
    id,
    chat_id: CHAT,
    parent_id: parent,
    role,
    content,
    manifest_id: id,
    created_at: now,
    meta,
    thread_id: null,
  };
}

const usage = (i: number, o: number) => ({ input_tokens: i, output_tokens: o });
const turn = (
  status: string,
  u: ReturnType<typeof usage> | null,
  error: string | null = null,
  kind: string | null = null,
) => ({
  provider_id: "ollama",
  model: "qwen2.5:7b",
  usage: u,
  status,
  error,
  error_kind: kind,
});

/**
 * ?chat=bench: 20,000 tokens at 500 tokens/s into a new run, with the
 * frame intervals recorded in `window.__frames` (idle first, then
 * streaming) — a quick look at what the UI benchmark measures.
 */
function benchStream() {
  const w = window as unknown as { __frames: { idle: number[]; stream: number[] }; __done: boolean };
  w.__frames = { idle: [], stream: [] };
  let phase: "idle" | "stream" | "off" = "idle";
  let last = performance.now();
  const tick = (t: number) => {
    if (phase !== "off") w.__frames[phase].push(t - last);
    last = t;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  const words = "the model writes a long answer with **bold** words and `code` in it".split(" ");
  setTimeout(() => {
    phase = "stream";
    void startRun(
      "chat-talk",
      "send",
      async (on) => {
        on({
          type: "run_started",
          agent_id: "assistant",
          provider_id: "ollama",
          model: "qwen2.5:7b",
          context_window: 32768,
        });
        const start = performance.now();
        for (let i = 0; i < 20_000;) {
          const due = Math.floor(((performance.now() - start) / 1000) * 500);
          for (; i < Math.min(due, 20_000); i++) {
            const word = words[i % words.length]!;
            const sep = i % 600 === 599 ? "\n\n```python\nprint('block')\n```\n\n" : i % 120 === 119 ? "\n\n" : " ";
            on({ type: "text_delta", text: word + sep });
          }
          await new Promise((r) => setTimeout(r, 4));
        }
        phase = "off";
        w.__done = true;
        return new Promise<RunOutcome>(() => undefined);
      },
      { text: "Write a very long answer." },
    );
  }, 3000);
}

export function seedChat(
  chats: Chat[],
  calls: ToolCallRecord[],
  handlers: { [cmd: string]: (a: Args) => unknown },
  record: Record,
) {
  chats.push({
    id: CHAT,
    title: "Sales per region",
    created_at: now,
    updated_at: new Date(Date.now() + 1000).toISOString(),
    root_message_id: "r",
    active_leaf_message_id: "a3",
    active_manifest_id: "a3",
    agent_id: "assistant",
    provider_id: "ollama",
    model: "qwen2.5:7b",
    model_settings: {},
  });
  const c = record(CHAT, "app-builder:write_file", {
    path: "report.md",
    content: "# Sales per region\n\n- **North** 412,300 (+12%)\n- **South** 298,150 (−3%)\n- **West** 187,900 (+7%)\n",
  });
  const call = { ...c, node_id: "t1", message_id: "t1" };
  calls.push(call);
  const messages: Message[] = [
    msg("r", null, "system", []),
    msg("u1", "r", "user", [{ type: "text", text: "Summarize sales.csv per region and write a short report." }]),
    msg(
      "a1",
      "u1",
      "assistant",
      [
        {
          type: "reasoning",
          text: "The person wants totals per region. I should read the CSV, sum the amounts, then write report.md.",
        },
        { type: "text", text: "I'll write the report to the workspace first." },
        { type: "model_call", call_id: "mc1", name: "app-builder__write_file", arguments: call.args },
      ],
      turn("complete", usage(1840, 96)),
    ),
    msg("t1", "a1", "tool", [{ type: "tool_call", tool_call_id: call.id }]),
    msg(
      "a2a",
      "t1",
      "assistant",
      [{ type: "text", text: "North is up 12%, South down 3%, West up 7%." }],
      turn("complete", usage(2010, 40)),
    ),
    msg("a2", "t1", "assistant", [{ type: "text", text: ANSWER }], turn("complete", usage(2010, 388))),
    msg("u2", "a2", "user", [{ type: "text", text: "Now chart it with matplotlib." }]),
    msg(
      "a3",
      "u2",
      "assistant",
      [],
      new URLSearchParams(location.search).get("chat") === "refused"
        ? // ?chat=refused: the key of a hosted provider was refused (Open Settings goes to its row).
          {
            ...turn("failed", null, "401 Unauthorized: Incorrect API key provided: sk-wrong", "auth"),
            provider_id: "openai",
            model: "gpt-4o-mini",
          }
        : new URLSearchParams(location.search).get("chat") === "cut"
          ? // ?chat=cut: the answer was cut at the output limit (Model options opens the chat's).
            turn("failed", null, "the answer reached max_tokens (512)", "output_limit")
          : turn(
              "failed",
              null,
              "error sending request for url (http://localhost:11434/v1/chat/completions)",
              "network",
            ),
    ),
  ];
  let leaf = "a3";
  if (new URLSearchParams(location.search).get("chat") === "long") {
    // ?chat=long: the branch point in the middle of a long conversation —
    // twelve exchanges before it, twenty after it on one branch, three on
    // the other — to see that a switch keeps it where it is on screen.
    const say = (id: string, parent: string, role: "user" | "assistant", n: number) =>
      msg(id, parent, role, [
        {
          type: "text",
          text:
            role === "user"
              ? `Question ${n}: what about month ${n}?`
              : `Month ${n} follows the same pattern: North leads, South trails.\n\nThe totals move by a few percent; nothing stands out.`,
        },
      ]);
    const chain = (prefix: string, from: string, count: number) => {
      let at = from;
      for (let i = 1; i <= count; i++) {
        messages.push(say(`${prefix}u${i}`, at, "user", i), say(`${prefix}a${i}`, `${prefix}u${i}`, "assistant", i));
        at = `${prefix}a${i}`;
      }
      return at;
    };
    const before = chain("p", "r", 12);
    messages.find((m) => m.id === "u1")!.parent_id = before;
    chain("x", "a2a", 3);
    leaf = chain("y", "a3", 20);
  }
  const parentOf = (id: string) => messages.find((m) => m.id === id)?.parent_id ?? null;
  const tree = (): MessageNode[] => {
    const path = new Set<string>();
    for (let at: string | null = leaf; at !== null; at = parentOf(at)) path.add(at);
    return messages.map((m) => {
      const children = messages.filter((x) => x.parent_id === m.id).map((x) => x.id);
      let latest = m.id;
      for (let kids = children; kids.length > 0;) {
        latest = kids.at(-1)!;
        kids = messages.filter((x) => x.parent_id === latest).map((x) => x.id);
      }
      return {
        ...m,
        children,
        on_active_branch: path.has(m.id),
        latest_leaf: latest,
        source: m.role === "tool" ? "tool_run" : m.id === "r" ? "empty" : "branch",
      };
    });
  };
  const mine = (a: Args) => a.chatId === CHAT;
  const wrap = (cmd: string, f: (a: Args) => unknown) => {
    const before = handlers[cmd];
    handlers[cmd] = (a) => (mine(a) ? f(a) : before?.(a));
  };
  wrap("chat_tree", tree);
  wrap("list_tool_calls", () => calls.filter((x) => x.chat_id === CHAT));
  wrap("switch_branch", (a) => {
    leaf = tree().find((n) => n.id === a.messageId)?.latest_leaf ?? leaf;
    return { ...chats.find((x) => x.id === CHAT)!, active_leaf_message_id: leaf };
  });
  handlers.get_workspace_manifest ??= (a) => ({
    id: "m",
    chat_id: String(a.chatId),
    parent_id: null,
    files: {},
    executable: [],
    changes: {},
    created_at: now,
    source: "empty",
    source_ref: null,
    root_tree: "t",
    file_count: 0,
    total_size: 0,
  });

  const ollama: ProviderRecord = {
    id: "ollama",
    kind: "openai",
    preset: "ollama",
    base_url: "http://localhost:11434/v1",
    default_model: "qwen2.5:7b",
    headers: {},
    secret_headers: [],
    key_from: null,
    created_at: now,
    updated_at: now,
  };
  const mode = new URLSearchParams(location.search).get("chat");
  if (mode === "setup") {
    // A fresh install: no provider yet, a new empty chat; two servers answer.
    let added: ProviderRecord[] = [];
    chats.push({
      ...chats[0]!,
      id: "chat-new",
      title: "New chat",
      updated_at: new Date(Date.now() + 5000).toISOString(),
    });
    handlers.list_providers = () => added;
    handlers.detect_providers = () => [
      { preset: "ollama", title: "Ollama", base_url: "http://localhost:11434/v1", models: ["qwen2.5:7b", "llava:7b"] },
      {
        preset: "lmstudio",
        title: "LM Studio",
        base_url: "http://localhost:1234/v1",
        models: ["mistral-small-3.1", "qwen3-coder-30b", "gemma-3-12b", "phi-4", "llama-3.3-70b"],
      },
    ];
    handlers.add_provider = () => {
      added = [ollama];
      return ollama;
    };
    handlers.chat_tree = (a) =>
      a.chatId === "chat-new" ? [{ ...tree()[0]!, chat_id: "chat-new", children: [], latest_leaf: "r" }] : tree();
  } else if (mode === "refused") {
    // Several providers, the one whose key was refused last (far down Settings).
    const at = (id: string, base_url: string, default_model: string, key_from: string | null = null) => ({
      ...ollama,
      id,
      preset: id,
      base_url,
      default_model,
      key_from,
    });
    handlers.list_providers = () => [
      ollama,
      at("lmstudio", "http://localhost:1234/v1", "qwen2.5-7b-instruct"),
      at("llamacpp", "http://localhost:8080/v1", "scripted-model"),
      at("vllm", "http://localhost:8000/v1", "Qwen/Qwen2.5-7B-Instruct"),
      at("openai", "https://api.openai.com/v1", "gpt-4o-mini", "OPENAI_API_KEY"),
    ];
  } else handlers.list_providers = () => [ollama];

  /** Streams STREAMED as a model would, ~40 tokens a second per word group. */
  const stream = async (on: (e: ChatEvent) => void, parent: string, text: string | null): Promise<RunOutcome> => {
    const saved: Message[] = [];
    let at = parent;
    if (text !== null) {
      const u = msg(`u${messages.length}`, parent, "user", [{ type: "text", text }]);
      messages.push(u);
      saved.push(u);
      leaf = at = u.id;
      on({ type: "message_saved", message: u });
    }
    on({
      type: "run_started",
      agent_id: "assistant",
      provider_id: "ollama",
      model: "qwen2.5:7b",
      context_window: 32768,
    });
    const thought = "They want a chart. A bar chart per region is the clearest; save it as a PNG in the workspace.";
    for (const w of thought.split(/(?<= )/)) {
      on({ type: "reasoning_delta", text: w });
      await new Promise((r) => setTimeout(r, 15));
    }
    for (const w of STREAMED.split(/(?<= )/)) {
      on({ type: "text_delta", text: w });
      await new Promise((r) => setTimeout(r, 25));
    }
    const a = msg(
      `a${messages.length}`,
      at,
      "assistant",
      [{ type: "text", text: STREAMED }],
      turn("complete", usage(2480, 210)),
    );
    messages.push(a);
    saved.push(a);
    leaf = a.id;
    on({ type: "message_saved", message: a });
    on({ type: "run_finished", status: "complete", error: null });
    return { status: "complete", error: null, error_kind: null, messages: saved, tool_calls: [] };
  };
  const channel = (a: Args) => (e: ChatEvent) => (a.onEvent as { onmessage: (m: ChatEvent) => void }).onmessage(e);
  wrap("send_message", (a) => stream(channel(a), leaf, String(a.text)));
  wrap("retry_message", (a) => stream(channel(a), parentOf(String(a.messageId)) ?? "r", null));
  wrap("stop_run", () => true);

  if (mode === "approve") {
    // A model's call waiting for the person, inline in its card.
    setTimeout(() => {
      void startRun(
        CHAT,
        "send",
        async (on) => {
          const u = msg("u9", "a3", "user", [{ type: "text", text: "Clean the build folder, then chart it." }]);
          messages.push(u);
          leaf = u.id;
          on({ type: "message_saved", message: u });
          on({
            type: "run_started",
            agent_id: "assistant",
            provider_id: "ollama",
            model: "qwen2.5:7b",
            context_window: 32768,
          });
          for (const w of "I'll clear the old build output first; that command asks you before it runs.".split(
            /(?<= )/,
          ))
            on({ type: "text_delta", text: w });
          on({
            type: "tool_call_proposed",
            call_id: "mc9",
            name: "app-builder__run_command",
            tool_id: "app-builder:run_command",
          });
          const a = msg(
            "a9",
            u.id,
            "assistant",
            [
              { type: "text", text: "I'll clear the old build output first; that command asks you before it runs." },
              {
                type: "model_call",
                call_id: "mc9",
                name: "app-builder__run_command",
                arguments: { command: "rm -rf build/" },
              },
            ],
            turn("complete", usage(2600, 40)),
          );
          messages.push(a);
          leaf = a.id;
          on({ type: "message_saved", message: a });
          on({ type: "tool_call_event", model_call_id: "mc9", event: { kind: "started", call_id: "call-99" } });
          on({
            type: "tool_call_event",
            model_call_id: "mc9",
            event: { kind: "awaiting_approval", call_id: "call-99" },
          });
          return new Promise<RunOutcome>(() => undefined);
        },
        { text: "Clean the build folder, then chart it." },
      );
    }, 600);
  }
  if (mode === "bench") benchStream();
  if (mode === "stream") {
    // An answer already streaming when the page opens (for screenshots).
    setTimeout(() => {
      void startRun(CHAT, "retry", (on) => stream(on, "u2", null), { from: "a3" });
    }, 600);
  }
}
