// The preview's "history" data (preview.html?history): a chat of five steps
// gone back to step 3 (the banner, the Run button, the Workspace header), a
// workspace with text files to edit, and a form tool whose problems the
// mocked check says in the core's words.
import type { Chat, JsonValue, MessageNode, ToolCallRecord, ToolRecord, WorkspaceManifest } from "../src/bindings";

type Args = { [k: string]: unknown };
type Record = (chatId: string, toolId: string, args: { [k: string]: JsonValue }) => ToolCallRecord;

const CHAT = "chat-history";

const sendSchema: JsonValue = {
  type: "object",
  properties: {
    path: { type: "string", description: "The report to send" },
    count: { type: "integer", maximum: 4, description: "How many copies (at most 4)" },
    email: { type: "string", pattern: "^[^@]+@[^@]+$", description: "name@host" },
    encoding: { type: "string", default: "utf-8" },
    make_dirs: { type: "boolean", default: true, description: "Create missing folders" },
  },
  required: ["path"],
};

/** The mocked core's words for the send tool's arguments (the real ones come from atelier-core). */
function check(args: { [k: string]: JsonValue }) {
  const out: { field: string[]; message: string }[] = [];
  if (typeof args.path !== "string") out.push({ field: ["path"], message: "Required" });
  if (args.count !== undefined && typeof args.count !== "number")
    out.push({ field: ["count"], message: "Must be a whole number" });
  if (typeof args.count === "number" && args.count > 4) out.push({ field: ["count"], message: "Must be at most 4" });
  if (typeof args.email === "string" && !/^[^@]+@[^@]+$/.test(args.email))
    out.push({ field: ["email"], message: "Not in the expected form: name@host" });
  return out;
}

export function seedHistory(
  chats: Chat[],
  calls: ToolCallRecord[],
  tools: ToolRecord[],
  handlers: { [cmd: string]: (a: Args) => unknown },
  record: Record,
) {
  tools.unshift({
    ...tools[0]!,
    tool_id: "mail:send_report",
    toolset_id: null,
    name: "Send report",
    description: "Mail a report to someone",
    input_schema: sendSchema,
    render_config: null,
  });
  const now = new Date().toISOString();
  chats.push({
    id: CHAT,
    title: "Sales report",
    created_at: now,
    updated_at: now,
    root_message_id: "r",
    active_leaf_message_id: "r",
    active_manifest_id: "r",
    agent_id: null,
    provider_id: null,
    model: null,
    model_settings: {},
  });
  const run = (toolId: string, args: { [k: string]: JsonValue }) => {
    const c = record(CHAT, toolId, args);
    calls.push(c);
    return c;
  };
  const steps = [
    run("app-builder:write_file", { path: "notes.md", content: "# Sales\n\nQ3 is up.\n" }),
    run("app-builder:write_file", { path: "data.csv", content: "region,total\nnorth,12\nsouth,9\n" }),
    run("app-builder:read_file", { path: "data.csv" }),
    run("app-builder:write_file", { path: "report.md", content: "# Report\n" }),
    run("app-builder:read_file", { path: "report.md" }),
  ];
  const ids = ["r", ...steps.map((c) => c.id)];
  let at = ids[3]!; // gone back to step 3 of 5
  const texts = new Map<string, string>([
    ["notes.md", "# Sales\n\nQ3 is up.\n"],
    ["data.csv", "region,total\nnorth,12\nsouth,9\n"],
  ]);
  const tree = (): MessageNode[] =>
    ids.map((id, i) => ({
      id,
      chat_id: CHAT,
      parent_id: i === 0 ? null : ids[i - 1]!,
      role: i === 0 ? "system" : "tool",
      content: i === 0 ? [] : [{ type: "tool_call", tool_call_id: id }],
      manifest_id: id,
      created_at: now,
      meta: null,
      thread_id: null,
      children: i + 1 < ids.length ? [ids[i + 1]!] : [],
      on_active_branch: i <= ids.indexOf(at),
      latest_leaf: ids.at(-1)!,
      source: i === 0 ? "empty" : "tool_run",
    }));
  const manifest = (): WorkspaceManifest => {
    const step = ids.indexOf(at);
    const files: { [k: string]: string } = {};
    if (step >= 1) files["notes.md"] = "n";
    if (step >= 2) files["data.csv"] = "d";
    if (step >= 4) files["report.md"] = "r";
    return {
      id: at,
      chat_id: CHAT,
      parent_id: null,
      files,
      executable: [],
      changes: {},
      created_at: now,
      source: step === 0 ? "empty" : "tool_run",
      source_ref: null,
      root_tree: "t",
      file_count: Object.keys(files).length,
      total_size: 412,
    };
  };
  const mine = (a: Args) => a.chatId === CHAT;
  // Another chat (a new one): just its start, with no files.
  handlers.chat_tree ??= (a) => [{ ...tree()[0]!, chat_id: String(a.chatId), children: [], latest_leaf: "r" }];
  handlers.get_workspace_manifest ??= (a) => ({
    ...manifest(),
    id: "r",
    chat_id: String(a.chatId),
    files: {},
    file_count: 0,
    total_size: 0,
  });
  const wrap = (cmd: string, f: (a: Args) => unknown) => {
    const before = handlers[cmd];
    handlers[cmd] = (a) => (mine(a) ? f(a) : before?.(a));
  };
  wrap("chat_tree", tree);
  wrap("checkout", (a) => {
    at = String(a.messageId);
    return { ...chats.find((c) => c.id === CHAT)!, active_leaf_message_id: at, active_manifest_id: at };
  });
  wrap("get_workspace_manifest", manifest);
  wrap("get_workspace_file", (a) => {
    const text = texts.get(String(a.path)) ?? "";
    return { path: a.path, size: text.length, sha256: "0", text };
  });
  wrap("save_edit", () => ({
    message_id: null,
    manifest_id: at,
    changed: false,
    added: 0,
    removed: 0,
    modified: 0,
    warnings: [],
  }));
  wrap("diff_nodes", () => ({
    added: ["report.md"],
    removed: ["draft.txt"],
    modified: [{ path: "notes.md", diff: "--- notes.md\n+++ notes.md\n@@ -1 +1 @@\n-# Draft\n+# Sales" }],
  }));
  handlers.get_tool ??= (a) => tools.find((t) => t.tool_id === a.toolId);
  handlers.diff_text = () => ({
    unified: "@@ -1,3 +1,3 @@\n # Sales\n \n-Q3 is up.\n+Q3 is up 12%.\n",
    added: 1,
    removed: 1,
  });
  const before = handlers.validate_tool_args;
  handlers.validate_tool_args = (a) =>
    a.toolId === "mail:send_report" ? check(a.args as { [k: string]: JsonValue }) : before?.(a);
}
