// The one typed door onto the Tauri commands. Every command rejects with
// `{kind, message}`; components show `errorText(e)` where the error happened.

import { Channel, invoke as tauriInvoke, type InvokeArgs } from "@tauri-apps/api/core";
import { afterMoves, moving, stopped } from "./lib/moves";
import type {
  Agent,
  AgentSpec,
  ProviderChanges,
  SavedAgent,
  ToolsPreview,
  ArgProblem,
  BundleReport,
  ChatEvent,
  ConnectionTest,
  Detected,
  EnvReference,
  ImportCandidate,
  McpServerRequest,
  ServerDetails,
  ServerRecord,
  ModelSettings,
  Preset,
  ProviderRecord,
  ProviderSpec,
  RunChoice,
  RunOutcome,
  SendRequest,
  ImportProgress,
  IpcError,
  Chat,
  FileListing,
  ImportReport,
  FileChange,
  FrameCheck,
  JsonValue,
  LogLocation,
  MessageNode,
  Policy,
  Progress,
  ReloadStatus,
  SnapshotOutcome,
  WorkspaceDiff,
  WorkspaceExport,
  RunEvent,
  SecretsStatus,
  SettingsView,
  TextChange,
  ToolCallRecord,
  ToolPolicy,
  ToolRecord,
  ToolsetConfig,
  ToolsetDetails,
  ToolsetRecord,
  WorkspaceFile,
  WorkspaceManifest,
} from "./bindings";

export type { ChatEvent, ImportProgress, IpcError, RunEvent };

/** What an install takes besides the bundle: its settings, secrets and allowed variables. */
export type ImportSettings = {
  /** Plain values of its settings, by key (text is fine for numbers and booleans). */
  config: Record<string, JsonValue>;
  /** Values of its sensitive settings, by key: they go to the secret store. */
  secrets: Record<string, string>;
  /** Variables of the environment it may read. */
  allowEnv: string[];
};

export const NO_IMPORT_SETTINGS: ImportSettings = { config: {}, secrets: {}, allowEnv: [] };

export function isIpcError(e: unknown): e is IpcError {
  return (
    typeof e === "object" &&
    e !== null &&
    typeof (e as { kind?: unknown }).kind === "string" &&
    typeof (e as { message?: unknown }).message === "string"
  );
}

/** A one-line, human message for anything a command (or we) threw. */
export function errorText(e: unknown): string {
  if (isIpcError(e)) return e.message;
  if (e instanceof Error) return e.message;
  if (typeof e === "string") return e;
  return "Something went wrong (no details were given).";
}

/**
 * Reads several views make at the same moment (the first screen, the tabs
 * mounted after it): a view asking while the same read is under way gets
 * that read's answer instead of a second request.
 */
export const SHARED_READS: ReadonlySet<string> = new Set([
  "list_providers",
  "provider_presets",
  "list_toolsets",
  "list_agents",
  "list_mcp_servers",
  "list_tool_calls",
  "secrets_status",
]);

/**
 * Commands that change nothing (reads, dialogs, checks). Every other one
 * may change what a read answers: reads under way when it is sent or when
 * it answers are not shared with later ones, which read afresh.
 */
export const NEUTRAL: ReadonlySet<string> = new Set([
  "first_paint",
  "get_toolset",
  "check_bundle",
  "pick_bundle",
  "pick_bundle_folder",
  "pick_export_path",
  "pick_setting_path",
  "pick_workspace_export_path",
  "toolset_config",
  "toolset_allowed_env",
  "toolset_env_references",
  "list_tools",
  "get_available_tools",
  "get_tool",
  "validate_tool_args",
  "list_chats",
  "toolset_reloads",
  "tool_policy",
  "get_workspace_files",
  "get_workspace_file",
  "get_workspace_manifest",
  "render_url",
  "workspace_file_url",
  "diff_nodes",
  "diff_text",
  "chat_tree",
  "get_settings",
  "check_frame",
  "detect_providers",
  "get_mcp_server",
  "preview_mcp_config",
  "get_agent",
  "agent_id_from_name",
  "preview_agent_tools",
  "log_ui_error",
  "log_location",
  "open_log_folder",
]);

const underWay = new Map<string, Promise<unknown>>();

/**
 * Reads asked for from now on are made afresh: something may have changed
 * (a command that changes things was sent or answered, the shell sent an
 * event, a run or a progress channel said something).
 */
export function forgetReads(): void {
  underWay.clear();
}

/** A channel's handler that first forgets the reads under way (the message may say something changed). */
function heard<T>(on: (message: T) => void): (message: T) => void {
  return (message) => {
    forgetReads();
    on(message);
  };
}

/**
 * Tauri's `invoke`, with a clear error when the page is not inside the app;
 * a read of SHARED_READS under way is shared, and reads under way are
 * forgotten around a command that may change things.
 */
function invoke<T>(cmd: string, args?: InvokeArgs): Promise<T> {
  const internals = (window as { __TAURI_INTERNALS__?: { invoke?: unknown } }).__TAURI_INTERNALS__;
  if (typeof internals?.invoke !== "function") {
    return Promise.reject(
      new Error("The Atelier backend is not available: this page works only inside the Atelier app."),
    );
  }
  if (SHARED_READS.has(cmd)) {
    const key = args === undefined ? cmd : `${cmd} ${JSON.stringify(args)}`;
    const known = underWay.get(key) as Promise<T> | undefined;
    if (known !== undefined) return known;
    const read: Promise<T> = tauriInvoke<T>(cmd, args).finally(() => {
      if (underWay.get(key) === read) underWay.delete(key);
    });
    underWay.set(key, read);
    return read;
  }
  if (NEUTRAL.has(cmd)) return tauriInvoke<T>(cmd, args);
  forgetReads();
  return tauriInvoke<T>(cmd, args).finally(forgetReads);
}

export const api = {
  /** Tells the shell the first screen is painted (start-up benchmark). */
  firstPaint: () => invoke<null>("first_paint"),
  listToolsets: () => invoke<ToolsetRecord[]>("list_toolsets"),
  getToolset: (id: string) => invoke<ToolsetDetails>("get_toolset", { id }),
  checkBundle: (path: string) => invoke<BundleReport>("check_bundle", { path }),
  /** Installs a toolset, then allows it to `agents` (ids, e.g. "assistant"). */
  importToolset: (
    path: string,
    force: boolean,
    agents: string[],
    settings: ImportSettings,
    onProgress: (p: ImportProgress) => void,
  ) => {
    const channel = new Channel<ImportProgress>();
    channel.onmessage = heard(onProgress);
    const { config, secrets, allowEnv } = settings;
    return invoke<ImportReport>("import_toolset", {
      path,
      force,
      agents,
      config,
      secrets,
      allowEnv,
      onProgress: channel,
    });
  },
  exportToolset: (id: string, path: string) => invoke<null>("export_toolset", { id, path }),
  /** A native open dialog for a ZIP; null when cancelled. */
  pickBundle: () => invoke<string | null>("pick_bundle"),
  /** A native open dialog for a toolset folder; null when cancelled. */
  pickBundleFolder: () => invoke<string | null>("pick_bundle_folder"),
  pickExportPath: (suggestedName: string) => invoke<string | null>("pick_export_path", { suggestedName }),
  /** An installed toolset's settings (sensitive ones only say whether they are set). */
  toolsetConfig: (id: string) => invoke<ToolsetConfig>("toolset_config", { id }),
  /** Sets plain values, stores sensitive ones and removes `unset` keys; the settings after. */
  setToolsetConfig: (id: string, values: Record<string, JsonValue>, secrets: Record<string, string>, unset: string[]) =>
    invoke<ToolsetConfig>("set_toolset_config", { id, values, secrets, unset }),
  /** The environment variables a toolset may read. */
  toolsetAllowedEnv: (id: string) => invoke<string[]>("toolset_allowed_env", { id }),
  /** Lets a toolset read a variable of the environment (or not); the list after. */
  allowToolsetEnv: (id: string, name: string, allowed: boolean) =>
    invoke<string[]>("allow_toolset_env", { id, var: name, allowed }),
  /** The `${NAME}`s an installed toolset's servers read, each set or not (never a value). */
  toolsetEnvReferences: (id: string) => invoke<EnvReference[]>("toolset_env_references", { id }),
  /** Stores the value of `${name}` for a toolset (where `atelier secrets set toolset:<id> NAME` does). */
  setToolsetEnvSecret: (id: string, name: string, value: string) =>
    invoke<EnvReference[]>("set_toolset_env_secret", { id, name, value }),
  unsetToolsetEnvSecret: (id: string, name: string) => invoke<EnvReference[]>("unset_toolset_env_secret", { id, name }),
  /** A native open dialog for a folder (or a file) setting; null when cancelled. */
  pickSettingPath: (directory: boolean) => invoke<string | null>("pick_setting_path", { directory }),
  enableToolset: (id: string, enabled: boolean) => invoke<ToolsetRecord>("enable_toolset", { id, enabled }),
  uninstallToolset: (id: string) => invoke<null>("uninstall_toolset", { id }),

  listTools: () => invoke<ToolRecord[]>("list_tools"),
  getAvailableTools: () => invoke<ToolRecord[]>("get_available_tools"),
  getTool: (toolId: string) => invoke<ToolRecord>("get_tool", { toolId }),
  /** The arguments' problems, each under its field and in words (none: they are valid). */
  validateToolArgs: (toolId: string, args: JsonValue) => invoke<ArgProblem[]>("validate_tool_args", { toolId, args }),

  listChats: () => invoke<Chat[]>("list_chats"),
  createChat: (title: string) => invoke<Chat>("create_chat", { title }),
  renameChat: (chatId: string, title: string) => invoke<Chat>("rename_chat", { chatId, title }),
  deleteChat: (chatId: string) => invoke<null>("delete_chat", { chatId }),

  /**
   * Runs a tool; walk progress, live output and, for a confirmation tool,
   * the wait for `answerApproval` arrive on `onEvent`.
   */
  runTool: (chatId: string, toolId: string, args: JsonValue, onEvent: (e: RunEvent) => void = () => {}) => {
    const channel = new Channel<RunEvent>();
    channel.onmessage = heard(onEvent);
    return afterMoves(chatId, "the tool did not run.").then(() =>
      invoke<ToolCallRecord>("run_tool", { chatId, toolId, args, onEvent: channel }),
    );
  },
  /** Approve (true) or deny a call waiting for approval; false: it was not waiting. */
  /** The last hot reload of each watched local toolset (the version installed, or why an edit was refused). */
  toolsetReloads: () => invoke<ReloadStatus[]>("toolset_reloads"),
  answerApproval: (callId: string, approve: boolean) => invoke<boolean>("answer_approval", { callId, approve }),
  /** Run the waiting call and let its tool run unasked in its chat from now on; false: it was not waiting. */
  answerApprovalForChat: (callId: string) => invoke<boolean>("answer_approval_for_chat", { callId }),
  /** Whether a tool asks before it runs, and the person's override. */
  toolPolicy: (toolId: string) => invoke<ToolPolicy>("tool_policy", { toolId }),
  setToolPolicy: (toolId: string, policy: Policy) => invoke<ToolPolicy>("set_tool_policy", { toolId, policy }),
  listToolCalls: (chatId: string) => invoke<ToolCallRecord[]>("list_tool_calls", { chatId }),

  getWorkspaceFiles: (chatId: string, manifestId: string | null) =>
    invoke<FileListing[]>("get_workspace_files", { chatId, manifestId }),
  getWorkspaceFile: (chatId: string, path: string, manifestId: string | null) =>
    invoke<WorkspaceFile>("get_workspace_file", { chatId, path, manifestId }),
  getWorkspaceManifest: (chatId: string, manifestId: string | null) =>
    invoke<WorkspaceManifest>("get_workspace_manifest", { chatId, manifestId }),

  renderUrl: (callId: string) => invoke<string>("render_url", { callId }),
  /** A render-scheme URL for one workspace file version (images). */
  workspaceFileUrl: (chatId: string, path: string, manifestId: string | null) =>
    invoke<string>("workspace_file_url", { chatId, path, manifestId }),

  switchBranch: (chatId: string, messageId: string) => {
    const channel = new Channel<Progress>();
    return moving(chatId, invoke<Chat>("switch_branch", { chatId, messageId, onProgress: channel }));
  },
  checkout: (chatId: string, messageId: string) => {
    const channel = new Channel<Progress>();
    return moving(chatId, invoke<Chat>("checkout", { chatId, messageId, onProgress: channel }));
  },
  cancelToolCall: (callId: string) => invoke<boolean>("cancel_tool_call", { callId }),
  diffNodes: (chatId: string, from: string, to: string) => invoke<WorkspaceDiff>("diff_nodes", { chatId, from, to }),
  /** The diff of an edit before it is saved (the same diff Compare shows). */
  diffText: (path: string, before: string, after: string) => invoke<TextChange>("diff_text", { path, before, after }),
  chatTree: (chatId: string) => invoke<MessageNode[]>("chat_tree", { chatId }),
  saveEdit: (chatId: string, at: string | null, changes: FileChange[]) =>
    invoke<SnapshotOutcome>("save_edit", { chatId, at, changes }),
  restoreFile: (chatId: string, path: string, from: string) =>
    invoke<SnapshotOutcome>("restore_file", { chatId, path, from }),
  uploadFiles: (chatId: string, paths: string[], dest: string, onProgress: (p: Progress) => void = () => {}) => {
    const channel = new Channel<Progress>();
    channel.onmessage = heard(onProgress);
    return invoke<SnapshotOutcome>("upload_files", { chatId, paths, dest, onProgress: channel });
  },
  exportWorkspace: (
    chatId: string,
    node: string | null,
    path: string,
    onProgress: (p: Progress) => void = () => {},
  ) => {
    const channel = new Channel<Progress>();
    channel.onmessage = heard(onProgress);
    return invoke<WorkspaceExport>("export_workspace", { chatId, node, path, onProgress: channel });
  },
  pickWorkspaceExportPath: (suggestedName: string, zip: boolean) =>
    invoke<string | null>("pick_workspace_export_path", { suggestedName, zip }),
  openWorkspaceFolder: (chatId: string) => invoke<null>("open_workspace_folder", { chatId }),
  /** One file version saved where the person picks (a native save dialog); null when cancelled. */
  exportWorkspaceFile: (chatId: string, manifestId: string, path: string) =>
    invoke<string | null>("export_workspace_file", { chatId, manifestId, path }),

  getSettings: () => invoke<SettingsView>("get_settings"),
  allowFrameOrigin: (origin: string) => invoke<SettingsView>("allow_frame_origin", { origin }),
  /** What a frame renderer may do with a page (the core decides). */
  checkFrame: (url: string) => invoke<FrameCheck>("check_frame", { url }),
  forbidFrameOrigin: (origin: string) => invoke<SettingsView>("forbid_frame_origin", { origin }),
  /** An error the UI met, into the app's log (lib/uiErrors.ts reports them; never call it elsewhere). */
  logUiError: (message: string, context: string, stack: string | null) =>
    invoke<null>("log_ui_error", { message, context, stack }),
  /** Where the app's log file is (Settings). */
  logLocation: () => invoke<LogLocation>("log_location"),
  /** Opens the log's folder in the file manager. */
  openLogFolder: () => invoke<null>("open_log_folder"),
  /** Whether a keychain answers, where secrets go, how many are stored. */
  secretsStatus: () => invoke<SecretsStatus>("secrets_status"),
  /** Consent (or not) to keep secrets in a file only you can read where no keychain answers. */
  allowFileSecrets: (allowed: boolean) => invoke<SecretsStatus>("allow_file_secrets", { allowed }),
  /** Sends the person's message; the chat's agent answers (events as they happen). */
  sendMessage: (chatId: string, text: string, options: SendRequest, onEvent: (e: ChatEvent) => void = () => {}) => {
    const channel = new Channel<ChatEvent>();
    channel.onmessage = heard(onEvent);
    const send = () => invoke<RunOutcome>("send_message", { chatId, text, options, onEvent: channel });
    // With no parent it goes wherever the chat is: after the moves under way.
    return options.parent_id !== null ? send() : afterMoves(chatId, "your message is back in the box.").then(send);
  },
  /** Answers again from where a model's message started (a sibling branch). */
  retryMessage: (chatId: string, messageId: string, choice: RunChoice, onEvent: (e: ChatEvent) => void = () => {}) => {
    const channel = new Channel<ChatEvent>();
    channel.onmessage = heard(onEvent);
    return invoke<RunOutcome>("retry_message", { chatId, messageId, choice, onEvent: channel });
  },
  /** The person's message rewritten (a sibling branch) and answered. */
  editMessage: (
    chatId: string,
    messageId: string,
    text: string,
    choice: RunChoice,
    onEvent: (e: ChatEvent) => void = () => {},
  ) => {
    const channel = new Channel<ChatEvent>();
    channel.onmessage = heard(onEvent);
    return invoke<RunOutcome>("edit_message", { chatId, messageId, text, choice, onEvent: channel });
  },
  /** A pasted image (base64 bytes) kept as a file a message can attach; its path. */
  stagePastedImage: (base64Data: string, mediaType: string) =>
    invoke<string>("stage_pasted_image", { base64Data, mediaType }),
  /** Stop: false when nothing was running. */
  stopRun: (chatId: string) => {
    stopped(chatId);
    return invoke<boolean>("stop_run", { chatId });
  },
  forkChat: (chatId: string, messageId: string) => invoke<Chat>("fork_chat", { chatId, messageId }),
  setChatModelSettings: (chatId: string, settings: ModelSettings) =>
    invoke<Chat>("set_chat_model_settings", { chatId, settings }),
  providerPresets: () => invoke<Preset[]>("provider_presets"),
  listProviders: () => invoke<ProviderRecord[]>("list_providers"),
  /** Adds a provider and its key (to the secret store) in one step: nothing stays when the key cannot be kept. */
  addProvider: (spec: ProviderSpec, key: string | null = null) => invoke<ProviderRecord>("add_provider", { spec, key }),
  /** The key goes to the secret store, never the database. */
  removeProvider: (providerId: string) => invoke<null>("remove_provider", { providerId }),
  testProvider: (providerId: string) => invoke<ConnectionTest>("test_provider", { providerId }),
  /** Model servers running on this computer. */
  detectProviders: () => invoke<Detected[]>("detect_providers"),
  /** Every MCP server with its status, instances and stderr tail. */
  listMcpServers: () => invoke<ServerDetails[]>("list_mcp_servers"),
  getMcpServer: (id: string) => invoke<ServerDetails>("get_mcp_server", { id }),
  /** Adds a server of the person's (env and header values go to the secret store); nothing connects yet. */
  addMcpServer: (server: McpServerRequest, addToAssistant: boolean) =>
    invoke<ServerRecord>("add_mcp_server", { server, addToAssistant }),
  removeMcpServer: (id: string) => invoke<null>("remove_mcp_server", { id }),
  setMcpServerEnabled: (id: string, enabled: boolean) =>
    invoke<ServerRecord>("set_mcp_server_enabled", { id, enabled }),
  /** Connects afresh and lists its tools; rejects with why it could not. */
  restartMcpServer: (id: string) => invoke<ServerRecord>("restart_mcp_server", { id }),
  /** Lists a server's tools unless it runs (then its listing is current and it goes on). */
  listMcpServer: (id: string) => invoke<ServerRecord>("list_mcp_server", { id }),
  /** What importing an `mcpServers` config would add (nothing is added). */
  previewMcpConfig: (text: string) => invoke<ImportCandidate[]>("preview_mcp_config", { text }),
  /** Adds the servers of a config named in `only` (every one that can be added: null). */
  importMcpConfig: (text: string, only: string[] | null) => invoke<ServerRecord[]>("import_mcp_config", { text, only }),
  /** Signs in to an HTTP server (OAuth): its page opens in the browser (also sent as `mcp-sign-in-page`); resolves once the browser came back and the server was listed. */
  signInMcpServer: (id: string) => invoke<ServerRecord>("sign_in_mcp_server", { id }),
  /** Gives up a sign-in waiting for its browser (it then rejects); whether one was waiting. */
  cancelMcpSignIn: (id: string) => invoke<boolean>("cancel_mcp_sign_in", { id }),
  /** Restarts the app (saved frame origins apply at start). */
  restartApp: () => invoke<null>("restart_app"),
  /** Changes a provider's base URL, default model and plain headers, and its key when one is given, in one step: a key the store refuses leaves the provider as it was. */
  updateProvider: (providerId: string, changes: ProviderChanges, key: string | null = null) =>
    invoke<ProviderRecord>("update_provider", { providerId, changes, key }),
  listAgents: () => invoke<Agent[]>("list_agents"),
  getAgent: (id: string) => invoke<Agent>("get_agent", { id }),
  /** An empty `spec.id` is the id the name gives; the answer has what to tell about its tools now. */
  createAgent: (spec: AgentSpec) => invoke<SavedAgent>("create_agent", { spec }),
  updateAgent: (spec: AgentSpec) => invoke<SavedAgent>("update_agent", { spec }),
  /** The id a new agent with this name gets when none is typed (null: the name gives none). */
  agentIdFromName: (name: string) => invoke<string | null>("agent_id_from_name", { name }),
  /** Rejects for the Assistant, which answers in chats without an agent. */
  deleteAgent: (id: string) => invoke<null>("delete_agent", { id }),
  /** What an unsaved definition's tool rules resolve to now, and the warnings. */
  previewAgentTools: (spec: AgentSpec) => invoke<ToolsPreview>("preview_agent_tools", { spec }),
};
