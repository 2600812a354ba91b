// A chat backend for the conversation's tests: one chat's message tree in
// memory (sends, retries and edits add to it as the core does, switches
// move its active leaf), providers, and each run's event channel held for
// the test to feed, with the run's outcome resolved when the test says.
import { act, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { expect } from "vitest";
import { App } from "../src/App";
import type {
  Chat,
  ChatEvent,
  ContentPart,
  Message,
  MessageNode,
  ProviderRecord,
  RunOutcome,
  TurnMeta,
} from "../src/bindings";
import { chat } from "./fixtures";
import { deferred, feeder, mockCommands, type Handlers } from "./ipc";

export const CHAT = "chat-1";

export function provider(over: Partial<ProviderRecord> = {}): ProviderRecord {
  return {
    id: "ollama",
    kind: "openai",
    preset: "ollama",
    base_url: "http://localhost:11434/v1",
    default_model: "qwen2.5:7b",
    headers: {},
    secret_headers: [],
    key_from: null,
    created_at: "2026-11-20T10:00:00.000Z",
    updated_at: "2026-11-20T10:00:00.000Z",
    ...over,
  };
}

export const PRESETS = [
  {
    name: "ollama",
    title: "Ollama",
    kind: "openai" as const,
    base_url: "http://localhost:11434/v1",
    key_env: null,
    local: true,
  },
  {
    name: "openai",
    title: "OpenAI",
    kind: "openai" as const,
    base_url: "https://api.openai.com/v1",
    key_env: "OPENAI_API_KEY",
    local: false,
  },
  {
    name: "anthropic",
    title: "Anthropic",
    kind: "anthropic" as const,
    base_url: "https://api.anthropic.com",
    key_env: "ANTHROPIC_API_KEY",
    local: false,
  },
];

export function meta(over: Partial<TurnMeta> = {}): TurnMeta {
  return {
    provider_id: "ollama",
    model: "qwen2.5:7b",
    usage: null,
    status: "complete",
    error: null,
    error_kind: null,
    ...over,
  };
}

/** A run the test drives: feed it events, then end it. */
export type LiveRun = {
  command: "send_message" | "retry_message" | "edit_message";
  args: Record<string, unknown>;
  feed: (...events: ChatEvent[]) => void;
  /** Saves a message under the run's current leaf, tells the UI, and returns it. */
  save: (role: Message["role"], content: ContentPart[], over?: Partial<Message>) => Message;
  end: (status?: RunOutcome["status"], over?: Partial<RunOutcome>) => void;
  fail: (error: unknown) => void;
};

export function chatBackend({
  messages: seed = [],
  providers = [provider()],
  models = { ollama: ["qwen2.5:7b", "llama3.2:3b"] } as Record<string, string[]>,
  title = "First chat",
  extra = {},
}: {
  messages?: Message[];
  providers?: ProviderRecord[];
  models?: Record<string, string[]>;
  title?: string;
  extra?: Handlers;
} = {}) {
  const root: Message = {
    id: "m0",
    chat_id: CHAT,
    parent_id: null,
    role: "system",
    content: [],
    manifest_id: "man-0",
    created_at: "2026-11-20T10:00:00.000Z",
    meta: null,
    thread_id: null,
  };
  const messages: Message[] = [root, ...seed];
  let leaf = messages.at(-1)!.id;
  const chats = [chat({ id: CHAT, title })];
  const runs: LiveRun[] = [];
  let n = 0;

  const parentOf = (id: string) => messages.find((m) => m.id === id)?.parent_id ?? null;
  const childrenOf = (id: string) => messages.filter((m) => m.parent_id === id).map((m) => m.id);
  const latest = (id: string) => {
    let at = id;
    for (let kids = childrenOf(at); kids.length > 0; kids = childrenOf(at)) at = kids.at(-1)!;
    return at;
  };
  const tree = (): MessageNode[] => {
    const path = new Set<string>();
    for (let at: string | null = leaf; at !== null; at = parentOf(at)) path.add(at);
    return messages.map((m) => ({
      ...m,
      children: childrenOf(m.id),
      on_active_branch: path.has(m.id),
      latest_leaf: latest(m.id),
      source: m.role === "tool" ? "tool_run" : m.role === "system" ? "empty" : "branch",
    }));
  };

  const start = (command: LiveRun["command"], args: Record<string, unknown>, from: string) => {
    const done = deferred<RunOutcome>();
    const feed = feeder<ChatEvent>(args.onEvent);
    const saved: Message[] = [];
    let at = from;
    const run: LiveRun = {
      command,
      args,
      feed,
      save: (role, content, over = {}) => {
        const m: Message = {
          id: `m${++n}-${role}`,
          chat_id: CHAT,
          parent_id: at,
          role,
          content,
          manifest_id: `man-${n}`,
          created_at: "2026-11-20T10:05:00.000Z",
          meta: role === "assistant" ? meta() : null,
          thread_id: null,
          ...over,
        };
        messages.push(m);
        saved.push(m);
        leaf = at = m.id;
        feed({ type: "message_saved", message: m });
        return m;
      },
      end: (status = "complete", over = {}) => {
        feed({ type: "run_finished", status, error: over.error ?? null });
        done.resolve({ status, error: null, error_kind: null, messages: saved, tool_calls: [], ...over });
      },
      fail: (e) => done.reject(e),
    };
    runs.push(run);
    return done.promise;
  };

  const calls = mockCommands({
    list_chats: () => chats.map((c) => ({ ...c })),
    create_chat: (a) => {
      const c = chat({ id: `chat-${chats.length + 1}`, title: String(a.title) });
      chats.push(c);
      return c;
    },
    rename_chat: (a) => {
      const c = chats.find((x) => x.id === a.chatId)!;
      c.title = String(a.title);
      return { ...c };
    },
    list_toolsets: () => [],
    get_available_tools: () => [],
    list_tool_calls: () => [],
    chat_tree: (a) => (a.chatId === CHAT ? tree() : [{ ...tree()[0]!, chat_id: String(a.chatId), children: [] }]),
    list_providers: () => providers,
    provider_presets: () => PRESETS,
    test_provider: (a) => ({
      provider_id: String(a.providerId),
      ok: true,
      models: models[String(a.providerId)] ?? [],
      error_kind: null,
      error: null,
    }),
    send_message: (a) => start("send_message", a, leaf),
    retry_message: (a) => start("retry_message", a, parentOf(String(a.messageId))!),
    edit_message: (a) => start("edit_message", a, parentOf(String(a.messageId))!),
    stop_run: () => true,
    switch_branch: (a) => {
      leaf = latest(String(a.messageId));
      return chat({ id: CHAT, active_leaf_message_id: leaf });
    },
    fork_chat: () => {
      const c = chat({ id: "chat-fork", title: "First chat (fork)", updated_at: "2026-11-21T10:00:00.000Z" });
      chats.push(c);
      return c;
    },
    get_workspace_manifest: (a) => ({
      id: "man",
      chat_id: String(a.chatId),
      parent_id: null,
      files: {},
      executable: [],
      changes: {},
      created_at: "2026-11-20T10:00:00.000Z",
      source: "empty",
      source_ref: null,
      root_tree: "t",
      file_count: 0,
      total_size: 0,
    }),
    get_workspace_files: () => [],
    set_chat_model_settings: (a) => {
      const c = chats.find((x) => x.id === a.chatId)!;
      c.model_settings = a.settings as Chat["model_settings"];
      return { ...c };
    },
    ...extra,
  });
  return {
    calls,
    runs,
    messages,
    chats,
    /** The newest run, once it started. */
    run: () => runs.at(-1)!,
  };
}

/** A message for `messages` (under `parent`). */
export function message(
  id: string,
  parent: string,
  role: Message["role"],
  content: ContentPart[],
  over: Partial<Message> = {},
): Message {
  return {
    id,
    chat_id: CHAT,
    parent_id: parent,
    role,
    content,
    manifest_id: `man-${id}`,
    created_at: "2026-11-20T10:01:00.000Z",
    meta: role === "assistant" ? meta() : null,
    thread_id: null,
    ...over,
  };
}

export const text = (t: string): ContentPart => ({ type: "text", text: t });

/** The app, on its Chat tab; the message box. */
export async function openChat() {
  render(<App />);
  await userEvent.click(await screen.findByRole("tab", { name: "Chat" }));
  return screen.findByRole("textbox", { name: "Message" });
}

/**
 * Sends "Delete old.txt" and has the model's `delete_file` call (model call
 * `mc1`, recorded call `call-9`) wait for the person's approval; the run.
 */
export async function deleteWaitsForApproval(b: { runs: unknown[]; run: () => LiveRun }, box: HTMLElement) {
  await userEvent.type(box, "Delete old.txt{Enter}");
  await waitFor(() => expect(b.runs).toHaveLength(1));
  const run = b.run();
  act(() => {
    run.save("user", [text("Delete old.txt")]);
    run.feed({ type: "tool_call_proposed", call_id: "mc1", name: "delete_file", tool_id: "delete_file" });
    run.save("assistant", [
      { type: "model_call", call_id: "mc1", name: "delete_file", arguments: { path: "old.txt" } },
    ]);
    run.feed(
      { type: "tool_call_event", model_call_id: "mc1", event: { kind: "started", call_id: "call-9" } },
      { type: "tool_call_event", model_call_id: "mc1", event: { kind: "awaiting_approval", call_id: "call-9" } },
    );
  });
  return run;
}

/** The conversation's section. */
export const conversation = () => screen.getByRole("region", { name: "Conversation" });
