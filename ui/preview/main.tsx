// A development preview of the UI on a mocked, in-memory backend (no Tauri):
// `npm run dev`, then open /preview.html. Not part of the production build.
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "../src/App";
import type {
  Chat,
  JsonValue,
  ProviderRecord,
  SourceType,
  ToolCallRecord,
  ToolRecord,
  ToolsetRecord,
} from "../src/bindings";
import "../src/styles.css";
import { seedBusy } from "./busy";
import { seedChat } from "./chat";
import { seedHistory } from "./history";
import { mcpHandlers } from "./mcp";
import { agentHandlers } from "./agents";
import { bundles, picks } from "./bundles";
import { envSecretHandlers } from "./envSecrets";

const now = () => new Date().toISOString();

function ts(id: string, name: string, version: string, description: string, source_type: SourceType): ToolsetRecord {
  return {
    id,
    name,
    version,
    description,
    enabled: true,
    installed_at: now(),
    updated_at: null,
    source_type,
    source_ref: null,
    manifest_version: "1",
    author: null,
    homepage: null,
    icon: null,
    python_requirements: [],
    extra: {},
    prefix: id,
    scope: "chat",
  };
}

function tl(
  tool_id: string,
  name: string,
  description: string,
  renderer: string | null,
  over: Partial<ToolRecord> = {},
): ToolRecord {
  const at = tool_id.indexOf(":");
  return {
    tool_id,
    toolset_id: at > 0 && !tool_id.startsWith("everything") ? tool_id.slice(0, at) : null,
    name,
    description,
    category: null,
    requires_confirmation: false,
    enabled: true,
    entrypoint: null,
    tags: [],
    timeout_s: null,
    render_config: renderer === null ? null : { renderer, config: {}, priority: 0 },
    exported_from: null,
    input_schema: {
      type: "object",
      properties: { path: { type: "string", description: "File path relative to workspace" } },
      required: ["path"],
    },
    ...over,
  };
}

const toolsets: ToolsetRecord[] = [
  ts("app-builder", "App Builder", "1.0.0", "Build and preview web applications", "zip"),
  ts("csv-report", "CSV Report", "0.2.0", "Summaries and charts of CSV files", "zip"),
];
const writeSchema: JsonValue = {
  type: "object",
  properties: {
    path: { type: "string", description: "File path relative to workspace" },
    content: { type: "string", description: "File content" },
    mode: { type: "string", enum: ["overwrite", "append"], default: "overwrite" },
    make_dirs: { type: "boolean", default: true, description: "Create missing folders" },
  },
  required: ["path", "content"],
};
const tools: ToolRecord[] = [
  tl("app-builder:read_file", "Read File", "Read a file from the workspace", "code"),
  tl("app-builder:run_command", "Run Command", "Run a shell command in the workspace", "code", {
    requires_confirmation: true,
  }),
  tl("app-builder:write_file", "Write File", "Write content to a file in the workspace", "code", {
    input_schema: writeSchema,
  }),
  tl("csv-report:summarize", "Summarize CSV", "Statistics and a chart of a CSV file", "html"),
  tl("delete_file", "Delete File", "Delete a workspace file", null, { requires_confirmation: true }),
  tl("everything:echo", "echo", "Echoes back the input", null),
  tl("write_file", "Write File", "Write a file in the workspace", "code", { input_schema: writeSchema }),
];
const chats: Chat[] = [];
const calls: ToolCallRecord[] = [];
const files = new Map<string, string>();

function record(chatId: string, toolId: string, args: { [k: string]: JsonValue }): ToolCallRecord {
  const id = `call-${calls.length + 1}`;
  const path = typeof args.path === "string" ? args.path : "out.txt";
  const base = {
    id,
    chat_id: chatId,
    message_id: id,
    node_id: id,
    tool_id: toolId,
    args,
    error_kind: null,
    error: null,
    stdout: null,
    stderr: null,
    started_at: now(),
    finished_at: now(),
    pre_manifest_id: "m0",
    post_manifest_id: id,
  };
  if (toolId.endsWith("summarize")) {
    return {
      ...base,
      status: "success",
      result: { rows: 1204 },
      render_plan: { renderer: "html", config: {}, manifest_id: id, warnings: [] },
    };
  }
  if (toolId === "delete_file") {
    const tb =
      'Traceback (most recent call last):\n  File "builtin/files.py", line 41, in delete_file\nFileNotFoundError: missing.txt';
    return {
      ...base,
      status: "error",
      result: null,
      error_kind: "exception",
      error: "FileNotFoundError: missing.txt",
      render_plan: {
        renderer: "error",
        manifest_id: id,
        warnings: [],
        config: {
          kind: "exception",
          message: "FileNotFoundError: missing.txt",
          traceback: tb,
          stdout: "looking for missing.txt\n",
          stderr: null,
        },
      },
    };
  }
  files.set(
    `${id}:${path}`,
    typeof args.content === "string" ? args.content : `# ${path}\n\nWritten by **${toolId}**.\n`,
  );
  const renderer = path.endsWith(".md") ? "document" : "code";
  return {
    ...base,
    status: "success",
    result: { written: path },
    render_plan: { renderer, config: { file: path, language: "auto", editable: true }, manifest_id: id, warnings: [] },
  };
}

type Args = { [k: string]: unknown };
const handlers: Record<string, (a: Args) => unknown> = {
  list_toolsets: () => toolsets,
  get_toolset: (a) => ({
    ...toolsets.find((t) => t.id === a.id),
    tools: tools.filter((t) => t.toolset_id === a.id),
    files: [],
    mcp_servers: [],
  }),
  enable_toolset: (a) => {
    const t = toolsets.find((x) => x.id === a.id);
    if (t === undefined) throw { kind: "not_found", message: `toolset ${String(a.id)} not found` };
    t.enabled = a.enabled === true;
    return t;
  },
  pick_bundle: () => (picks.length > 1 ? picks.shift() : picks[0]),
  pick_bundle_folder: () => "/home/me/dev/git-tools",
  check_bundle: (a) => {
    const b = bundles[String(a.path)] ?? bundles["/home/me/Downloads/git-tools.zip"]!;
    // How it stands to an installed version (the core compares semantic
    // versions; these differ in one number).
    const installed = toolsets.find((t) => t.id === b.id)?.version ?? null;
    const change =
      installed === null
        ? "new"
        : installed === b.version
          ? "same"
          : (b.version ?? "").localeCompare(installed, undefined, { numeric: true }) < 0
            ? "downgrade"
            : "upgrade";
    const stand = { installed_version: installed, version_change: b.valid ? change : null } as const;
    return b.valid ? { ...b, ...stand, consent: { ...b.consent, secret_store: secrets.store } } : { ...b, ...stand };
  },
  import_toolset: async (a) => {
    const channel = a.onProgress as { onmessage: (m: unknown) => void };
    for (let i = 0; i <= 10; i++) {
      channel.onmessage({ bytes_done: i * 4821, bytes_total: 48213, files_done: i, files_total: 10, step: null });
      if (i === 6)
        channel.onmessage({
          bytes_done: 0,
          bytes_total: 0,
          files_done: 0,
          files_total: 0,
          step: "Installing GitPython==3.1.43",
        });
      await new Promise((r) => setTimeout(r, 250));
    }
    const t = ts("git-tools", "Git Tools", "0.3.1", "Status, log and diff of a repository", "zip");
    toolsets.push(t);
    return {
      action: "installed",
      previous_version: null,
      toolset: t,
      tools: ["git-tools:status", "git-tools:log"],
      warnings: [],
      will_run: bundles["/home/me/Downloads/git-tools.zip"]!.will_run,
      secrets_moved: 1,
    };
  },
  pick_export_path: (a) => `/home/me/${String(a.suggestedName)}`,
  export_toolset: () => null,
  uninstall_toolset: (a) => {
    toolsets.splice(
      toolsets.findIndex((t) => t.id === a.id),
      1,
    );
    return null;
  },
  get_available_tools: () =>
    tools.filter((t) => t.toolset_id === null || toolsets.some((s) => s.id === t.toolset_id && s.enabled)),
  list_tools: () => tools,
  validate_tool_args: (a) =>
    typeof (a.args as Args).path === "string" ? [] : [{ field: ["path"], message: "Required" }],
  list_chats: () => chats,
  create_chat: (a) => {
    const c: Chat = {
      id: `chat-${chats.length + 1}`,
      title: String(a.title),
      created_at: now(),
      updated_at: now(),
      root_message_id: "r",
      active_leaf_message_id: "r",
      active_manifest_id: "m0",
      agent_id: null,
      provider_id: null,
      model: null,
      model_settings: {},
    };
    chats.push(c);
    return c;
  },
  log_location: () => ({
    file: "/home/ada/.local/share/atelier/logs/atelier.log",
    folder: "/home/ada/.local/share/atelier/logs",
    written: true,
  }),
  open_log_folder: () => null,
  log_ui_error: () => null,
  // ?deleteFails: a deletion the backend refuses (the chat comes back with the error).
  delete_chat: (a) => {
    if (new URLSearchParams(location.search).has("deleteFails")) {
      throw { kind: "io", message: `could not remove chats/${String(a.chatId)}: permission denied` };
    }
    const at = chats.findIndex((c) => c.id === a.chatId);
    if (at >= 0) chats.splice(at, 1);
    return null;
  },
  run_tool: (a) => {
    const c = record(String(a.chatId), String(a.toolId), a.args as { [k: string]: JsonValue });
    calls.push(c);
    return c;
  },
  list_tool_calls: (a) => calls.filter((c) => c.chat_id === a.chatId),
  get_workspace_file: (a) => {
    const text = files.get(`${String(a.manifestId)}:${String(a.path)}`);
    if (text === undefined) throw { kind: "not_found", message: `${String(a.path)}: no such file` };
    return { path: a.path, size: text.length, sha256: "0".repeat(64), text };
  },
  render_url: () => "/preview/render-demo.html",
  toolset_config: (a) =>
    a.id === "git-tools"
      ? { ...bundles["/home/me/Downloads/git-tools.zip"]!.consent.settings!, missing: [] }
      : { toolset_id: a.id, fields: [], missing: [] },
  set_toolset_config: () => ({ ...bundles["/home/me/Downloads/git-tools.zip"]!.consent.settings!, missing: [] }),
  toolset_allowed_env: () => [],
  allow_toolset_env: () => [],
  pick_setting_path: () => "/home/me/src/atelier",
  get_settings: () => ({ saved: { frame_origins: [] }, frame_origins_in_effect: [] }),
  secrets_status: () => secrets,
  provider_presets: () => [
    {
      name: "openai",
      title: "OpenAI",
      kind: "openai",
      base_url: "https://api.openai.com/v1",
      key_env: "OPENAI_API_KEY",
      local: false,
    },
    {
      name: "anthropic",
      title: "Anthropic",
      kind: "anthropic",
      base_url: "https://api.anthropic.com",
      key_env: "ANTHROPIC_API_KEY",
      local: false,
    },
    {
      name: "ollama",
      title: "Ollama",
      kind: "openai",
      base_url: "http://localhost:11434/v1",
      key_env: null,
      local: true,
    },
  ],
  list_providers: () => providers,
  detect_providers: () => [
    { preset: "ollama", title: "Ollama", base_url: "http://localhost:11434/v1", models: ["qwen2.5:7b", "llava:7b"] },
  ],
  test_provider: (a) =>
    a.providerId === "openai"
      ? {
          provider_id: "openai",
          ok: false,
          models: [],
          error_kind: "auth",
          error: "the API key was refused: check the API key of provider openai",
        }
      : {
          provider_id: String(a.providerId),
          ok: true,
          models: ["qwen2.5:7b", "llava:7b"],
          error_kind: null,
          error: null,
        },
  add_provider: (a) => {
    const spec = a.spec as { id: string; preset: string | null; base_url: string | null; default_model: string | null };
    const p: ProviderRecord = {
      id: spec.id,
      kind: "openai",
      preset: spec.preset,
      base_url: spec.base_url ?? "https://api.openai.com/v1",
      default_model: spec.default_model,
      headers: {},
      secret_headers: [],
      key_from: null,
      created_at: now(),
      updated_at: now(),
    };
    providers = [...providers, p];
    return p;
  },
  remove_provider: (a) => {
    providers = providers.filter((p) => p.id !== a.providerId);
    return null;
  },
  allow_file_secrets: (a) => {
    secrets = { ...secrets, file_allowed: a.allowed === true, store: a.allowed === true ? "file" : null };
    return secrets;
  },
  ...mcpHandlers,
  ...agentHandlers(
    tools,
    () => providers,
    (p) => {
      providers = p;
    },
  ),
};
let providers: ProviderRecord[] = [
  {
    id: "openai",
    kind: "openai",
    preset: "openai",
    base_url: "https://api.openai.com/v1",
    default_model: "gpt-4o-mini",
    headers: {},
    secret_headers: [],
    key_from: "OPENAI_API_KEY",
    created_at: now(),
    updated_at: now(),
  },
];
let secrets = {
  keychain: false,
  keychain_error: "Secret Service: no result found",
  file_allowed: false,
  store: null as string | null,
  file: "/home/me/.local/share/atelier/secrets.json",
  count: 0,
};

if (new URLSearchParams(location.search).has("busy")) seedBusy(chats, calls, tools, handlers, record);
if (new URLSearchParams(location.search).has("history")) seedHistory(chats, calls, tools, handlers, record);
if (new URLSearchParams(location.search).has("chat")) {
  seedChat(chats, calls, handlers, record);
  // Open on the chat (Ctrl+2), as a person who talks to the model would.
  setTimeout(() => window.dispatchEvent(new CustomEvent("atelier:shortcut", { detail: "tab-2" })), 300);
}

mockWindows("main");
Object.assign(handlers, envSecretHandlers({ ...handlers }));
mockIPC(async (cmd, payload) => {
  await new Promise((r) => setTimeout(r, 120)); // let loading states show
  const h = handlers[cmd];
  if (h === undefined) throw { kind: "not_mocked", message: `the preview has no ${cmd}` };
  return h((payload ?? {}) as Args);
});

const root = document.getElementById("root");
if (root !== null) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
