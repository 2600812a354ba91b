import { vi } from "vitest";
import { api } from "../src/api";
import type { Chats } from "../src/chats/useChats";
import type {
  Agent,
  BundleReport,
  Chat,
  ConfigField,
  Consent,
  ImportReport,
  SecretsStatus,
  JsonValue,
  McpTool,
  MessageNode,
  RenderPlan,
  ServerRecord,
  ToolCallRecord,
  ToolRecord,
  ToolsetDetails,
  ToolsetRecord,
} from "../src/bindings";

/** An agent as the core lists it: no model, no tools, the default limits. */
export function agent(over: Partial<Agent> & { id: string }): Agent {
  return {
    name: over.id,
    description: "",
    model: null,
    model_settings: {},
    system_prompt: "",
    toolsets: [],
    tools: [],
    filters: [],
    policies: [],
    max_depth: 2,
    max_steps: 25,
    created_at: "2026-11-24T10:00:00.000Z",
    updated_at: "2026-11-24T10:00:00.000Z",
    ...over,
  };
}

export function toolset(over: Partial<ToolsetRecord> = {}): ToolsetRecord {
  return {
    id: "app-builder",
    name: "App Builder",
    version: "1.0.0",
    description: "Build and preview web applications",
    enabled: true,
    installed_at: "2026-11-20T10:00:00.000Z",
    updated_at: null,
    source_type: "zip",
    source_ref: "/home/me/app-builder.zip",
    manifest_version: "1",
    author: null,
    homepage: null,
    icon: null,
    python_requirements: [],
    extra: {},
    prefix: over.id ?? "app-builder",
    scope: "chat",
    ...over,
  };
}

export function tool(over: Partial<ToolRecord> = {}): ToolRecord {
  return {
    tool_id: "write_file",
    toolset_id: null,
    name: "Write File",
    description: "Write content to a file in the workspace",
    category: "files",
    input_schema: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
    },
    requires_confirmation: false,
    enabled: true,
    entrypoint: null,
    tags: [],
    timeout_s: null,
    render_config: { renderer: "code", config: { file: "$args.path", language: "auto" }, priority: 0 },
    exported_from: null,
    ...over,
  };
}

export function details(ts: ToolsetRecord, tools: ToolRecord[]): ToolsetDetails {
  return { ...ts, tools, files: [], mcp_servers: [] };
}

export function chat(over: Partial<Chat> = {}): Chat {
  return {
    id: "chat-1",
    title: "First chat",
    created_at: "2026-11-20T10:00:00.000Z",
    updated_at: "2026-11-20T10:00:00.000Z",
    root_message_id: "m0",
    active_leaf_message_id: "m0",
    active_manifest_id: "man-0",
    agent_id: null,
    provider_id: null,
    model: null,
    model_settings: {},
    ...over,
  };
}

export function plan(renderer: string, config: JsonValue, over: Partial<RenderPlan> = {}): RenderPlan {
  return { renderer, config, manifest_id: "man-after", warnings: [], ...over };
}

export function call(over: Partial<ToolCallRecord> = {}): ToolCallRecord {
  return {
    id: "call-1",
    chat_id: "chat-1",
    message_id: "m1",
    node_id: "m1",
    tool_id: "write_file",
    args: { path: "a.py", content: "print(1)\n" },
    result: { written: "a.py" },
    render_plan: plan("code", { file: "a.py", language: "auto" }),
    status: "success",
    error_kind: null,
    error: null,
    stdout: null,
    stderr: null,
    started_at: "2026-11-20T10:01:00.000Z",
    finished_at: "2026-11-20T10:01:00.100Z",
    pre_manifest_id: "man-before",
    post_manifest_id: "man-after",
    ...over,
  };
}

export function bundle(over: Partial<BundleReport> = {}): BundleReport {
  return {
    id: "csv-report",
    name: "CSV Report",
    version: "0.2.0",
    description: "Summaries and charts of CSV files",
    installed_version: null,
    version_change: "new",
    valid: true,
    problems: [],
    will_run: {
      python_entrypoints: [
        { tool_id: "csv-report:summarize", entrypoint: "tools.csv:summarize", requires_confirmation: false },
      ],
      requirements: ["pandas==2.2.3"],
      mcp_servers: [
        {
          id: "files",
          command: "npx",
          args: ["-y", "@modelcontextprotocol/server-filesystem"],
          url: null,
          env: [],
          headers: [],
        },
      ],
    },
    file_count: 7,
    total_size: 20480,
    consent: consent(),
    exported: [],
    ...over,
  };
}

/** The consent part of a bundle report: nothing to fill in, secrets to the keychain. */
export function consent(over: Partial<Consent> = {}): Consent {
  return { secret_values: [], settings: null, env_references: [], secret_store: "keychain", ...over };
}

/** One setting of a toolset's form: a plain string, unset, unless `over` says otherwise. */
export function configField(key: string, over: Partial<ConfigField> = {}): ConfigField {
  return { key, type: "string", title: key, value: null, is_set: false, ...over };
}

/** A bundle whose consent step has these settings (`missing`: the required ones without a value or default). */
export function bundleWithSettings(fields: ConfigField[], over: Partial<Consent> = {}): BundleReport {
  const missing = fields
    .filter((f) => f.required === true && !f.is_set && (f.sensitive === true || f.default === undefined))
    .map((f) => f.key);
  return bundle({ consent: consent({ settings: { toolset_id: "csv-report", fields, missing }, ...over }) });
}

export function importReport(ts: ToolsetRecord, over: Partial<ImportReport> = {}): ImportReport {
  return {
    action: "installed",
    previous_version: null,
    toolset: ts,
    tools: [],
    warnings: [],
    will_run: bundle().will_run,
    secrets_moved: 0,
    ...over,
  };
}

export function secretsStatus(over: Partial<SecretsStatus> = {}): SecretsStatus {
  return {
    keychain: true,
    keychain_error: null,
    file_allowed: false,
    store: "keychain",
    file: null,
    count: 0,
    ...over,
  };
}

/** A message node; `children` and the active flag as given. */
export function node(id: string, parent: string | null, over: Partial<MessageNode> = {}): MessageNode {
  return {
    id,
    chat_id: "chat-1",
    parent_id: parent,
    role: parent === null ? "system" : "tool",
    content: [],
    manifest_id: `man-${id}`,
    created_at: "2026-11-20T10:00:00.000Z",
    meta: null,
    thread_id: null,
    children: [],
    on_active_branch: true,
    latest_leaf: id,
    source: parent === null ? "empty" : "tool_run",
    ...over,
  };
}

/** The tree of a chat whose calls ran one after another (all active). */
export function linearTree(calls: ToolCallRecord[]): MessageNode[] {
  const ids = ["root", ...calls.map((c) => c.node_id ?? c.id)];
  return ids.map((id, i) =>
    node(id, i === 0 ? null : ids[i - 1]!, { children: i + 1 < ids.length ? [ids[i + 1]!] : [] }),
  );
}

/** A chat list with chat-1 selected and spies for every action (views take it as `chats`). */
export function chatsStub(over: Partial<Chats> = {}): Chats {
  return {
    load: { state: "ok", data: [] },
    reload: vi.fn(),
    selectedId: "chat-1",
    select: vi.fn(),
    create: vi.fn(),
    creating: false,
    createError: null,
    ensure: vi.fn(() => Promise.resolve("chat-1")),
    rename: vi.fn(),
    remove: vi.fn(),
    deletion: { pending: null, undo: vi.fn(), failed: null, dismiss: vi.fn() },
    revision: 0,
    moved: vi.fn(),
    activeManifest: null,
    show: vi.fn(),
    showing: null,
    readTree: (chatId) => api.chatTree(chatId),
    nameAfter: vi.fn(),
    ...over,
  };
}

/** An MCP server record: server-everything added by hand, stopped, no tools listed unless `over` says. */
export function mcpServer(over: Partial<ServerRecord> = {}): ServerRecord {
  return {
    id: "everything",
    transport: "stdio",
    command: "node",
    args: ["/opt/everything/index.js", "stdio"],
    url: null,
    env_keys: [],
    header_keys: [],
    enabled: true,
    active: true,
    user_declared: true,
    toolsets: [],
    scope: "shared",
    tools: [],
    server_name: null,
    server_version: null,
    protocol_version: null,
    listed_at: null,
    last_error: null,
    ...over,
  };
}

/** A tool an MCP server lists: `name`, nothing else said about it. */
export function mcpTool(name: string, over: Partial<McpTool> = {}): McpTool {
  return { name, title: null, description: "", input_schema: {}, read_only: false, destructive: false, ...over };
}
