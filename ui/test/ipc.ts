// Test doubles for the Tauri commands, through @tauri-apps/api's mockIPC.
import type { Channel } from "@tauri-apps/api/core";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import { vi } from "vitest";
import type { api } from "../src/api";

export type Args = Record<string, unknown>;

/** What `api.<wrapper>` resolves to: the type api.ts gives `invoke` (bindings.ts types). */
type Answer<W extends keyof typeof api> = Awaited<ReturnType<(typeof api)[W]>>;

/**
 * Each command's answer, by command name, as api.ts reads it: a mock that
 * answers with a wrongly shaped record fails `tsc`. ipc-contract.test.ts
 * checks that these names are exactly the registered commands.
 */
export type CommandAnswers = {
  first_paint: Answer<"firstPaint">;
  list_toolsets: Answer<"listToolsets">;
  get_toolset: Answer<"getToolset">;
  check_bundle: Answer<"checkBundle">;
  import_toolset: Answer<"importToolset">;
  export_toolset: Answer<"exportToolset">;
  pick_bundle: Answer<"pickBundle">;
  pick_bundle_folder: Answer<"pickBundleFolder">;
  pick_export_path: Answer<"pickExportPath">;
  enable_toolset: Answer<"enableToolset">;
  uninstall_toolset: Answer<"uninstallToolset">;
  list_tools: Answer<"listTools">;
  get_available_tools: Answer<"getAvailableTools">;
  get_tool: Answer<"getTool">;
  validate_tool_args: Answer<"validateToolArgs">;
  list_chats: Answer<"listChats">;
  create_chat: Answer<"createChat">;
  rename_chat: Answer<"renameChat">;
  delete_chat: Answer<"deleteChat">;
  run_tool: Answer<"runTool">;
  answer_approval: Answer<"answerApproval">;
  toolset_reloads: Answer<"toolsetReloads">;
  answer_approval_for_chat: Answer<"answerApprovalForChat">;
  tool_policy: Answer<"toolPolicy">;
  set_tool_policy: Answer<"setToolPolicy">;
  list_tool_calls: Answer<"listToolCalls">;
  get_workspace_files: Answer<"getWorkspaceFiles">;
  get_workspace_file: Answer<"getWorkspaceFile">;
  get_workspace_manifest: Answer<"getWorkspaceManifest">;
  render_url: Answer<"renderUrl">;
  workspace_file_url: Answer<"workspaceFileUrl">;
  switch_branch: Answer<"switchBranch">;
  checkout: Answer<"checkout">;
  cancel_tool_call: Answer<"cancelToolCall">;
  diff_nodes: Answer<"diffNodes">;
  diff_text: Answer<"diffText">;
  chat_tree: Answer<"chatTree">;
  save_edit: Answer<"saveEdit">;
  restore_file: Answer<"restoreFile">;
  upload_files: Answer<"uploadFiles">;
  export_workspace: Answer<"exportWorkspace">;
  pick_workspace_export_path: Answer<"pickWorkspaceExportPath">;
  open_workspace_folder: Answer<"openWorkspaceFolder">;
  export_workspace_file: Answer<"exportWorkspaceFile">;
  get_settings: Answer<"getSettings">;
  allow_frame_origin: Answer<"allowFrameOrigin">;
  check_frame: Answer<"checkFrame">;
  forbid_frame_origin: Answer<"forbidFrameOrigin">;
  restart_app: Answer<"restartApp">;
  toolset_config: Answer<"toolsetConfig">;
  set_toolset_config: Answer<"setToolsetConfig">;
  toolset_allowed_env: Answer<"toolsetAllowedEnv">;
  allow_toolset_env: Answer<"allowToolsetEnv">;
  toolset_env_references: Answer<"toolsetEnvReferences">;
  set_toolset_env_secret: Answer<"setToolsetEnvSecret">;
  unset_toolset_env_secret: Answer<"unsetToolsetEnvSecret">;
  secrets_status: Answer<"secretsStatus">;
  allow_file_secrets: Answer<"allowFileSecrets">;
  pick_setting_path: Answer<"pickSettingPath">;
  send_message: Answer<"sendMessage">;
  retry_message: Answer<"retryMessage">;
  edit_message: Answer<"editMessage">;
  stop_run: Answer<"stopRun">;
  stage_pasted_image: Answer<"stagePastedImage">;
  fork_chat: Answer<"forkChat">;
  set_chat_model_settings: Answer<"setChatModelSettings">;
  provider_presets: Answer<"providerPresets">;
  list_providers: Answer<"listProviders">;
  add_provider: Answer<"addProvider">;
  remove_provider: Answer<"removeProvider">;
  test_provider: Answer<"testProvider">;
  detect_providers: Answer<"detectProviders">;
  list_mcp_servers: Answer<"listMcpServers">;
  get_mcp_server: Answer<"getMcpServer">;
  add_mcp_server: Answer<"addMcpServer">;
  remove_mcp_server: Answer<"removeMcpServer">;
  set_mcp_server_enabled: Answer<"setMcpServerEnabled">;
  restart_mcp_server: Answer<"restartMcpServer">;
  list_mcp_server: Answer<"listMcpServer">;
  preview_mcp_config: Answer<"previewMcpConfig">;
  import_mcp_config: Answer<"importMcpConfig">;
  sign_in_mcp_server: Answer<"signInMcpServer">;
  cancel_mcp_sign_in: Answer<"cancelMcpSignIn">;
  update_provider: Answer<"updateProvider">;
  list_agents: Answer<"listAgents">;
  get_agent: Answer<"getAgent">;
  create_agent: Answer<"createAgent">;
  update_agent: Answer<"updateAgent">;
  delete_agent: Answer<"deleteAgent">;
  preview_agent_tools: Answer<"previewAgentTools">;
  agent_id_from_name: Answer<"agentIdFromName">;
  log_ui_error: Answer<"logUiError">;
  log_location: Answer<"logLocation">;
  open_log_folder: Answer<"openLogFolder">;
};

export type Command = keyof CommandAnswers;

/** A command's double: its answer, at once or later (a throw is the backend's rejection). */
export type Handler<C extends Command> = (args: Args) => CommandAnswers[C] | Promise<CommandAnswers[C]>;

/** Doubles for some of the commands. */
export type Handlers = { [C in Command]?: Handler<C> };

/** Where secrets go on a machine with a keychain (the passive answer of `secrets_status`). */
export const KEYCHAIN_STATUS: CommandAnswers["secrets_status"] = {
  keychain: true,
  keychain_error: null,
  file_allowed: false,
  store: "keychain",
  file: null,
  count: 0,
};

/** Where the log is on a machine where the data dir is writable (the passive answer of `log_location`). */
export const LOG_LOCATION: CommandAnswers["log_location"] = {
  file: "/home/ada/.local/share/atelier/logs/atelier.log",
  folder: "/home/ada/.local/share/atelier/logs",
  written: true,
};

/**
 * Status queries every screen of a kind makes, answered "nothing to report"
 * unless a test says otherwise: no reloads, a toolset without settings,
 * allowed variables or values its servers read, a reachable keychain, the
 * log's place; a UI error reported to the log is taken.
 */
const PASSIVE: Handlers = {
  toolset_reloads: () => [],
  toolset_config: (a) => ({ toolset_id: String(a.id), fields: [], missing: [] }),
  toolset_allowed_env: () => [],
  toolset_env_references: () => [],
  secrets_status: () => KEYCHAIN_STATUS,
  list_providers: () => [],
  provider_presets: () => [],
  detect_providers: () => [],
  list_mcp_servers: () => [],
  list_agents: () => [],
  log_location: () => LOG_LOCATION,
  log_ui_error: () => null,
};

/**
 * Routes each command to its handler; an unmocked command rejects like the
 * backend does, with `{kind, message}`. Returns a spy of every call.
 */
export function mockCommands(handlers: Handlers) {
  const calls = vi.fn<(cmd: string, args: Args) => void>();
  mockWindows("main");
  mockIPC(
    (cmd, payload) => {
      const args = (payload ?? {}) as Args;
      calls(cmd, args);
      const h = ({ ...PASSIVE, ...handlers } as Record<string, ((args: Args) => unknown) | undefined>)[cmd];
      if (h === undefined) throw { kind: "not_mocked", message: `no mock for ${cmd}` };
      return h(args);
    },
    { shouldMockEvents: true },
  );
  return calls;
}

/** The args of every call of one command. */
export function argsOf(calls: ReturnType<typeof mockCommands>, cmd: Command): Args[] {
  return calls.mock.calls.filter(([c]) => c === cmd).map(([, a]) => a);
}

type Internals = { runCallback: (id: number, data: unknown) => void };

/**
 * Sends messages the way the Rust side does: raw `{index, message}` frames
 * through the callback the channel registered (so ordering is exercised too).
 */
export function sendOnChannel<T>(channel: Channel<T>, messages: T[], firstIndex = 0): void {
  const internals = (window as unknown as { __TAURI_INTERNALS__: Internals }).__TAURI_INTERNALS__;
  messages.forEach((message, i) => internals.runCallback(channel.id, { index: firstIndex + i, message }));
}

/** A promise with its resolve and reject exposed. */
export function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * Feeds a command's event channel (`args.onEvent`) the way the Rust side
 * does, in order across calls: each call sends the next messages.
 */
export function feeder<T>(channel: unknown): (...messages: T[]) => void {
  let next = 0;
  return (...messages: T[]) => {
    sendOnChannel(channel as Channel<T>, messages, next);
    next += messages.length;
  };
}
