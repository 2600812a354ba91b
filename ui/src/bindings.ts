// Generated from the Rust types by src-tauri/tests/ipc/bindings.rs (ts-rs). Do not edit:
// run `UPDATE_BINDINGS=1 cargo test -p atelier-app --test ipc bindings`.

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;

export type IpcError = { kind: ErrorCode, message: string, };

export type ErrorCode = "io" | "database" | "disk_full" | "migration" | "no_data_dir" | "chat_not_found" | "ambiguous_id" | "message_not_found" | "manifest_not_found" | "file_not_found" | "invalid_path" | "missing_blob" | "corrupt_blob" | "corrupt_tree" | "invalid_data" | "invalid_bundle" | "invalid_manifest" | "toolset_not_found" | "agent_not_found" | "mcp_server_not_found" | "mcp" | "routing_conflict" | "tool_not_found" | "tool_call_not_found" | "already_installed" | "toolset_busy" | "conflict" | "invalid_setting" | "cancelled" | "python_unavailable" | "requirements_failed" | "internal" | "injected" | "secrets_unavailable" | "secret_not_set" | "config_invalid" | "config_missing" | "provider";

export type ImportProgress = { bytes_done: number, bytes_total: number, files_done: number, files_total: number, 
/**
 * An installer's step (python.requirements), when there is one.
 */
step: string | null, };

export type RunEvent = { "kind": "started", call_id: string, } | { "kind": "awaiting_approval", call_id: string, } | { "kind": "workspace", files_done: number, files_total: number, bytes_done: number, bytes_total: number, } | { "kind": "output", stream: OutputStream, text: string, } | { "kind": "progress", progress: number, total: number | null, message: string | null, };

export type OutputStream = "stdout" | "stderr";

export type ArgProblem = { 
/**
 * The field it is about: property names (and list indexes) from the
 * arguments' top; empty for the arguments as a whole. A missing
 * required property is its own field.
 */
field: Array<string>, 
/**
 * What is wrong, in words: "Required", "Must be at most 4".
 */
message: string, };

export type Chat = { id: string, title: string, created_at: string, updated_at: string, 
/**
 * The root message (role `system`), whose manifest is the empty workspace.
 */
root_message_id: string, active_leaf_message_id: string, active_manifest_id: string, agent_id: string | null, 
/**
 * The provider and model this chat talks to (none: its agent's).
 */
provider_id: string | null, model: string | null, 
/**
 * Overrides of its agent's model settings, field by field.
 */
model_settings: ModelSettings, };

export type ModelSettings = { 
/**
 * 0 to 2.
 */
temperature?: number, 
/**
 * The most tokens of one answer (Anthropic requires a limit: 4096
 * when none is set).
 */
max_tokens?: number, 
/**
 * The model's context window in tokens, when Atelier does not know it:
 * the oldest turns of a longer branch are left out to fit.
 */
context_window?: number, 
/**
 * `low`, `medium` or `high`, for models that take it.
 */
reasoning_effort?: ReasoningEffort, 
/**
 * Whether the model takes images (unset: judged by its name); images
 * go to one that does, a short note to one that does not.
 */
images?: boolean, };

export type ReasoningEffort = "low" | "medium" | "high";

export type TurnMeta = { provider_id: string | null, model: string | null, usage: TokenUsage | null, 
/**
 * `complete`, `stopped`, `failed`, `interrupted` (the process died
 * while it streamed) or `step_limit`.
 */
status: string | null, error: string | null, 
/**
 * `auth`, `network`, `context_length`… (see `atelier_llm::ErrorKind`).
 */
error_kind: string | null, };

export type TokenUsage = { input_tokens: number, output_tokens: number, };

export type ChatEvent = { "type": "run_started", agent_id: string, provider_id: string, model: string, 
/**
 * The context window the run fits the branch into, when known.
 */
context_window: number | null, } | { "type": "context_note", text: string, } | { "type": "context_trimmed", dropped_messages: number, context_window: number, } | { "type": "text_delta", text: string, } | { "type": "reasoning_delta", text: string, } | { "type": "tool_call_proposed", call_id: string, 
/**
 * The name the model used (its wire name).
 */
name: string, 
/**
 * The tool's id, when the name is one of the run's tools (a model
 * may make one up: that call is refused as not found).
 */
tool_id: string | null, } | { "type": "message_saved", message: Message, } | { "type": "tool_call_event", 
/**
 * The model's id of the call (as in `tool_call_proposed`).
 */
model_call_id: string, event: RunEvent, } | { "type": "tool_call_finished", call: ToolCallRecord, } | { "type": "sub_agent", thread_id: string, agent_id: string, depth: number, event: ChatEvent, } | { "type": "run_finished", status: RunStatus, error: string | null, };

export type RunStatus = "complete" | "stopped" | "failed" | "step_limit";

export type RunOutcome = { status: RunStatus, error: string | null, 
/**
 * The error's kind (`auth`, `network`…), when the provider failed.
 */
error_kind: string | null, 
/**
 * Every message the run wrote, in order.
 */
messages: Array<Message>, tool_calls: Array<ToolCallRecord>, };

export type SendRequest = { 
/**
 * Answer under this message instead of the active leaf (a branch).
 */
parent_id: string | null, 
/**
 * Image files (dropped or pasted) to send with the message.
 */
images: string[], agent_id: string | null, provider_id: string | null, model: string | null, };

export type RunChoice = { agent_id: string | null, provider_id: string | null, model: string | null, };

export type ProviderRecord = { id: string, 
/**
 * `openai` (OpenAI-compatible) or `anthropic`.
 */
kind: string, preset: string | null, base_url: string, default_model: string | null, headers: { [key in string]: string }, 
/**
 * Headers whose values are in the secret store.
 */
secret_headers: Array<string>, 
/**
 * Where its key comes from now (`keychain`, `file`, an environment
 * variable's name), or none.
 */
key_from: string | null, created_at: string, updated_at: string, };

export type ProviderSpec = { id: string, 
/**
 * A preset's name fills kind and base URL.
 */
preset: string | null, kind: string | null, base_url: string | null, default_model: string | null, headers: { [key in string]: string }, };

export type ConnectionTest = { provider_id: string, ok: boolean, 
/**
 * The models it offers for chats; the first is the one a chat uses
 * when it names none (its default model, else [`choose_model`]'s).
 */
models: Array<string>, 
/**
 * The error kind (`auth`, `network`…) and sentence, when it failed.
 */
error_kind: string | null, error: string | null, };

export type Detected = { preset: string, title: string, base_url: string, 
/**
 * Its chat models, the one it would start with first ([`choose_model`]).
 */
models: Array<string>, };

export type Preset = { name: string, title: string, kind: "openai" | "anthropic", base_url: string, 
/**
 * The variable its users set (`OPENAI_API_KEY`); read only for this provider.
 */
key_env: string | null, 
/**
 * A server on this computer: probed by `detect`, needs no key.
 */
local: boolean, };

export type Role = "system" | "user" | "assistant" | "tool" | "edit";

export type ContentPart = { "type": "text", text: string, } | { "type": "tool_call", tool_call_id: string, } | { "type": "workspace_edit", added: number, removed: number, modified: number, } | { "type": "reasoning", text: string, signature?: string | null, } | { "type": "redacted_reasoning", data: string, } | { "type": "image", path: string, media_type: string, } | { "type": "model_call", call_id: string, name: string, arguments: unknown, };

export type Message = { id: string, chat_id: string, parent_id: string | null, role: Role, content: Array<ContentPart>, 
/**
 * The workspace state after this message.
 */
manifest_id: string, created_at: string, 
/**
 * A model turn's provider, model, usage and how it ended.
 */
meta: TurnMeta | null, 
/**
 * The sub-agent thread it belongs to (none: the chat's main tree).
 */
thread_id: string | null, };

export type MessageNode = { 
/**
 * Child ids in creation order.
 */
children: Array<string>, 
/**
 * Whether the message is on the path from the root to the active leaf.
 */
on_active_branch: boolean, 
/**
 * Where a switch to this message's branch lands: from it, the newest
 * child, repeatedly, down to a leaf (itself when it has no children).
 */
latest_leaf: string, 
/**
 * Why its workspace state was recorded: tells an upload from an edit
 * made by hand, which share the `edit` role.
 */
source: ManifestSource, id: string, chat_id: string, parent_id: string | null, role: Role, content: Array<ContentPart>, 
/**
 * The workspace state after this message.
 */
manifest_id: string, created_at: string, 
/**
 * A model turn's provider, model, usage and how it ended.
 */
meta: TurnMeta | null, 
/**
 * The sub-agent thread it belongs to (none: the chat's main tree).
 */
thread_id: string | null, };

export type ManifestSource = "user_upload" | "tool_run" | "branch" | "edit" | "empty";

export type WorkspaceManifest = { id: string, chat_id: string, parent_id: string | null, 
/**
 * The full state: every workspace path with its blob's SHA-256.
 */
files: { [key in string]: string }, 
/**
 * Paths whose executable bit is set.
 */
executable: Array<string>, 
/**
 * What changed against `parent_id`: `{path: sha256 | null}` (null =
 * removed). For a manifest without a parent, every file.
 */
changes: { [key in string]: string | null }, created_at: string, source: ManifestSource, source_ref: string | null, root_tree: string, file_count: number, total_size: number, };

export type FileListing = { path: string, sha256: string, size: number, executable: boolean, };

export type SnapshotOutcome = { 
/**
 * The new `edit` message, if anything changed.
 */
message_id: string | null, 
/**
 * The manifest now active (the new one, or the unchanged current one).
 */
manifest_id: string, changed: boolean, added: number, removed: number, modified: number, 
/**
 * Things skipped (symlinks, special files, non-UTF-8 names).
 */
warnings: Array<string>, };

export type WorkspaceDiff = { added: Array<string>, removed: Array<string>, modified: Array<ModifiedFile>, };

export type ModifiedFile = { path: string, 
/**
 * Unified diff, for text files.
 */
diff?: string | null, 
/**
 * Set for files that are not UTF-8 text.
 */
binary?: boolean, 
/**
 * Set for text files too large to diff.
 */
too_large?: boolean, 
/**
 * Set when only the mode changed (the executable bit, or whether the
 * file is private: no group or other permission).
 */
mode_only?: boolean, 
/**
 * The mode before and after (0644, 0755, 0600 or 0700), when it changed.
 */
mode_from?: number | null, mode_to?: number | null, };

export type WorkspaceFile = { path: string, size: number, sha256: string, 
/**
 * The content as UTF-8, or `None` when it is binary.
 */
text: string | null, };

export type Settings = { 
/**
 * Origins (`https://host[:port]`) whose pages frame renderers may show,
 * besides loopback ones. Normalized by [`parse_origin`], sorted.
 */
frame_origins: Array<string>, };

export type FrameAccess = "loopback" | "allowed" | "needs_restart" | "not_allowed" | "invalid";

export type FrameCheck = { access: FrameAccess, origin: string | null, };

export type TextChange = { 
/**
 * Unified diff (`a/<path>`, `b/<path>`, three lines of context); empty
 * when nothing changed.
 */
unified: string, 
/**
 * Lines added and removed.
 */
added: number, removed: number, };

export type Progress = { 
/**
 * Files looked at so far.
 */
files_done: number, 
/**
 * Files to look at in all (0 while still counting).
 */
files_total: number, 
/**
 * Bytes hashed or copied so far.
 */
bytes_done: number, 
/**
 * Bytes to hash or copy in all (0 while still counting).
 */
bytes_total: number, };

export type FileChange = { "op": "write", path: string, text: string, } | { "op": "delete", path: string, };

export type WorkspaceExport = { path: string, files: number, bytes: number, };

export type SettingsView = { saved: Settings, 
/**
 * Allowed origins in effect since start-up; saved ones missing here
 * wait for a restart.
 */
frame_origins_in_effect: Array<string>, };

export type ToolsetRecord = { id: string, name: string, version: string, description: string, enabled: boolean, installed_at: string, updated_at: string | null, source_type: SourceType, source_ref: string | null, manifest_version: string, author: string | null, homepage: string | null, icon: string | null, python_requirements: Array<string>, extra: JsonValue, 
/**
 * Its tools' namespace in model-facing names: the manifest's `prefix`,
 * else its id.
 */
prefix: string, scope: Scope, };

export type RenderConfigRecord = { renderer: string, config: JsonValue, priority: number, };

export type ToolRecord = { 
/**
 * Canonical id: bare for builtins, `<toolset_id>:<tool>` for toolset tools.
 */
tool_id: string, toolset_id: string | null, name: string, description: string, category: string | null, input_schema: JsonValue, requires_confirmation: boolean, enabled: boolean, entrypoint: string | null, tags: Array<string>, timeout_s: number | null, render_config: RenderConfigRecord | null, 
/**
 * The module that exported this tool (`tools_from:`), if it was not
 * declared in `tools:`.
 */
exported_from: string | null, };

export type ToolsetFileRecord = { toolset_id: string, path: string, kind: string, sha256: string, size: number, 
/**
 * Relative to the data dir for installed bundles; absolute for local
 * folders (they run in place).
 */
stored_path: string, };

export type ToolsetMcpServerRecord = { toolset_id: string, server_id: string, config: JsonValue, auto_enabled: boolean, };

export type ToolsetDetails = { tools: Array<ToolRecord>, files: Array<ToolsetFileRecord>, mcp_servers: Array<ToolsetMcpServerRecord>, id: string, name: string, version: string, description: string, enabled: boolean, installed_at: string, updated_at: string | null, source_type: SourceType, source_ref: string | null, manifest_version: string, author: string | null, homepage: string | null, icon: string | null, python_requirements: Array<string>, extra: JsonValue, 
/**
 * Its tools' namespace in model-facing names: the manifest's `prefix`,
 * else its id.
 */
prefix: string, scope: Scope, };

export type WillRun = { 
/**
 * `(tool id, module.path:function)`.
 */
python_entrypoints: Array<EntryPoint>, requirements: Array<string>, 
/**
 * The file `requirements` were read from when the manifest lists
 * none (`requirements.txt` at the bundle's root); none: the manifest's
 * `python.requirements`.
 */
requirements_file?: string, mcp_servers: Array<ServerLaunch>, };

export type EntryPoint = { tool_id: string, entrypoint: string, 
/**
 * The tool asks the person before each call.
 */
requires_confirmation: boolean, };

export type ServerLaunch = { id: string, command: string | null, args: Array<string>, url: string | null, 
/**
 * Its environment variables: that each has a value, and the value
 * only when it is made of `${…}` references (a plain value may be a
 * secret: never shown).
 */
env: Array<LaunchValue>, 
/**
 * Its HTTP headers, shown the same way.
 */
headers: Array<LaunchValue>, };

export type LaunchValue = { name: string, 
/**
 * `${HOME}/data`; none: a plain value, kept out of sight (it goes to
 * the secret store at import).
 */
shown: string | null, };

export type VersionChange = "new" | "same" | "upgrade" | "downgrade";

export type BundleReport = { id: string | null, name: string | null, version: string | null, 
/**
 * The manifest's `description` (empty: none).
 */
description: string, 
/**
 * The version installed now, if any, and how this one stands to it.
 */
installed_version: string | null, version_change: VersionChange | null, valid: boolean, problems: Array<Problem>, will_run: WillRun, file_count: number, total_size: number, 
/**
 * Settings to fill in, secrets it brings, variables it reads.
 */
consent: Consent, 
/**
 * The tools its `tools_from:` modules export, with the input schemas
 * derived from their signatures (read from the source, nothing run).
 */
exported: Array<ExportedTool>, 
/**
 * The `tools:` entries that give no `input_schema`, whose arguments
 * come from their function's signature as an exported tool's do (read
 * from the source; the import takes them from the imported function).
 */
derived?: Array<ExportedTool>, };

export type ExportedTool = { module: string, name: string, entrypoint: string, description: string, input_schema: unknown, 
/**
 * A `tools:` entry without `entrypoint` adds to it (a name, a
 * renderer…).
 */
adds: boolean, 
/**
 * That entry makes it ask the person before each call.
 */
requires_confirmation: boolean, };

export type ImportReport = { action: ImportAction, previous_version: string | null, toolset: ToolsetRecord, tools: Array<string>, warnings: Array<Problem>, will_run: WillRun, 
/**
 * How many plain-text values of its `env`/`headers` went to the
 * secret store (references took their place).
 */
secrets_moved: number, };

export type SourceType = "zip" | "local" | "url";

export type Scope = "chat" | "shared";

export type ImportAction = "installed" | "upgraded" | "downgraded" | "reinstalled";

export type Severity = "error" | "warning";

export type Problem = { severity: Severity, 
/**
 * The file `line` and `column` are in, when it is not the manifest (a
 * Python module with a syntax error).
 */
file?: string, 
/**
 * Field path, e.g. `tools[1].entrypoint` (empty: the whole file).
 */
path: string, line: number | null, column: number | null, message: string, };

export type CallStatus = "pending" | "awaiting_approval" | "running" | "success" | "error" | "cancelled" | "interrupted";

export type ErrorKind = "invalid_args" | "denied" | "not_found" | "import" | "entrypoint" | "exception" | "bad_return" | "too_large" | "timeout" | "cancelled" | "crash" | "unavailable" | "internal" | "interrupted";

export type Policy = "default" | "ask" | "allow";

export type ReloadStatus = { toolset_id: string, 
/**
 * The folder watched.
 */
path: string, 
/**
 * The version now installed, after a good reload.
 */
version: string | null, 
/**
 * Why the folder was refused: the last good version still runs.
 */
error: string | null, };

export type ToolPolicy = { tool_id: string, policy: Policy, 
/**
 * What the author asked for.
 */
requires_confirmation: boolean, 
/**
 * Whether a call asks first (outside chats that allow it).
 */
asks: boolean, };

export type ToolCallRecord = { id: string, chat_id: string, message_id: string | null, 
/**
 * The `tool` message this call added to the tree (= `message_id`).
 */
node_id: string | null, tool_id: string, args: JsonValue, result: JsonValue | null, render_plan: RenderPlan | null, status: CallStatus, error_kind: ErrorKind | null, error: string | null, stdout: string | null, stderr: string | null, started_at: string, finished_at: string | null, pre_manifest_id: string | null, post_manifest_id: string | null, };

export type RenderPlan = { 
/**
 * `code`, `document`, `html`, `frame`, `image`, `audio` (MCP audio
 * content: `{"url": "data:audio/…"}`), `error`, or `blocks` (MCP
 * content of several parts: `{"blocks": [{renderer, config}, …]}`,
 * each one of the others but `html`, `frame` and `blocks`).
 */
renderer: string, config: JsonValue, 
/**
 * The workspace state a `file` refers to.
 */
manifest_id: string | null, 
/**
 * Expressions that did not resolve, and similar.
 */
warnings: Array<string>, artifact_sha256?: string | null, 
/**
 * An `html` plan whose `data` had to be cut: the render config's
 * `data` as the tool wrote it (`"$return"`, `{"rows": "$return.rows"}`).
 * The page's document resolves it again against the call's whole
 * result, so the page gets all of its data; the plan, which rides on
 * every record, keeps only the first part.
 */
data_expr?: JsonValue | null, };

export type PackReport = { path: string, file_count: number, size: number, 
/**
 * SHA-256 of the ZIP, hex: what a person publishing it quotes.
 */
sha256: string, };

export type Consent = { 
/**
 * Values the bundle holds in plain text: they will be kept in the
 * secret store (a ZIP), or read from the folder (a local toolset).
 */
secret_values: Array<SecretValue>, 
/**
 * The settings form (with the values of the installed version, if any).
 */
settings: ToolsetConfig | null, env_references: Array<EnvReference>, 
/**
 * Where secrets would go now; none: nowhere (the person must allow
 * the file fallback first).
 */
secret_store: StoreKind | null, };

export type SecretValue = { server_id: string, 
/**
 * `env` or `headers`.
 */
field: string, name: string, };

export type EnvReference = { name: string, server_ids: Array<string>, 
/**
 * Whether this process's environment has the variable.
 */
in_environment: boolean, 
/**
 * Whether the person already allowed this toolset to read it.
 */
allowed: boolean, 
/**
 * Whether the secret store already holds it for this toolset.
 */
stored: boolean, 
/**
 * Where the stored value came from: the person, or the bundle (a
 * value its ZIP held in plain text, moved to the secret store when it
 * was imported); none while nothing is stored.
 */
origin: SecretOrigin | null, };

export type ToolsetConfig = { toolset_id: string, fields: Array<ConfigField>, missing: Array<string>, };

export type ConfigField = { key: string, 
/**
 * The value in use: the person's, else the default. Never given for a
 * sensitive setting (see `is_set`).
 */
value: unknown, 
/**
 * Whether the person gave a value (for a sensitive one: whether the
 * secret store holds it).
 */
is_set: boolean, type: ConfigType, 
/**
 * The label of the setting's field.
 */
title: string, description?: string, required?: boolean, default?: unknown, 
/**
 * Kept in the secret store, never in the database; strings only.
 */
sensitive?: boolean, min?: number | null, max?: number | null, 
/**
 * Several values (a list): `directory` and `file` only.
 */
multiple?: boolean, };

export type UserConfigDecl = { type: ConfigType, 
/**
 * The label of the setting's field.
 */
title: string, description?: string, required?: boolean, default?: unknown, 
/**
 * Kept in the secret store, never in the database; strings only.
 */
sensitive?: boolean, min?: number | null, max?: number | null, 
/**
 * Several values (a list): `directory` and `file` only.
 */
multiple?: boolean, };

export type ConfigType = "string" | "number" | "boolean" | "directory" | "file";

export type SecretsStatus = { 
/**
 * Whether the OS keychain answers.
 */
keychain: boolean, 
/**
 * Why it does not, in one line.
 */
keychain_error: string | null, 
/**
 * Whether the person allowed the file fallback (the setting).
 */
file_allowed: boolean, 
/**
 * Where a secret set now would go; none: nowhere (say how to allow the fallback).
 */
store: StoreKind | null, 
/**
 * The fallback file, when it is (or would be) used.
 */
file: string | null, 
/**
 * How many secrets are stored (names known).
 */
count: number, };

export type LogLocation = { 
/**
 * The file (`<data dir>/logs/atelier.log`).
 */
file: string, 
/**
 * Its folder, where the previous file (`atelier.log.1`) is too.
 */
folder: string, 
/**
 * Whether the app writes it: not in a read-only data dir.
 */
written: boolean, };

export type StoreKind = "keychain" | "file";

export type SecretOrigin = "person" | "bundle";

export type McpServerRequest = { id: string, command: string | null, args: Array<string>, url: string | null, 
/**
 * Variable name → value; values go to the secret store.
 */
env: { [key in string]: string }, 
/**
 * Header name → value; values go to the secret store.
 */
headers: { [key in string]: string }, 
/**
 * Seconds a call may go without news; absent: the app's default.
 */
timeout_s?: number, };

export type ServerRecord = { id: string, transport: ServerTransport, command: string | null, args: Array<string>, url: string | null, env_keys: Array<string>, header_keys: Array<string>, 
/**
 * Seconds a call of its tools may go without news before it is
 * stopped; `None`: the app's default.
 */
timeout_s?: number, 
/**
 * The row's switch (`mcp enable|disable`).
 */
enabled: boolean, 
/**
 * Enabled, and the person's or needed by an enabled toolset: its
 * tools are in the pool.
 */
active: boolean, 
/**
 * Added by the person (settings, `mcp add`).
 */
user_declared: boolean, 
/**
 * The toolsets that declare it, in no particular order.
 */
toolsets: Array<string>, scope: Scope, 
/**
 * What it offered when last listed; `None`: never listed.
 */
tools: Array<McpTool> | null, server_name: string | null, server_version: string | null, protocol_version: string | null, listed_at: string | null, 
/**
 * Why the last connection failed, if it did.
 */
last_error: string | null, 
/**
 * What its last listing found wrong with its list (a tool listed
 * twice: the first kept), each naming the server and the tool.
 */
warnings?: Array<string>, };

export type ServerDetails = { server: ServerRecord, 
/**
 * `starting`, `connected`, `error` or `stopped` (the best of its
 * running instances; `stopped` when none runs).
 */
status: string, 
/**
 * The error or exit of an instance in `error`.
 */
message: string | null, 
/**
 * Instances running now: a shared server has at most one, a chat
 * server one per chat that used it lately.
 */
instances: Array<Instance>, 
/**
 * The last lines the server wrote to stderr (any instance).
 */
stderr: Array<string>, };

export type Instance = { chat_id: string | null, status: string, pid: number | null, };

export type McpTool = { name: string, title: string | null, description: string, input_schema: JsonValue, 
/**
 * The server says it changes nothing (`readOnlyHint`): no question
 * before it runs.
 */
read_only: boolean, destructive: boolean, 
/**
 * What its `structuredContent` must match (MCP 2025-06-18 on); a
 * result that does not is a failed call, as the reference SDK's
 * client has it. Listings stored before it was kept have none.
 */
output_schema?: JsonValue, };

export type ServerTransport = "stdio" | "http";

export type ImportCandidate = { id: string, 
/**
 * The command line or the URL: what adding it would run or reach.
 */
runs: string, env_keys: Array<string>, header_keys: Array<string>, 
/**
 * Why it cannot be added, if it cannot (an id in use, SSE, a
 * variable that is not set).
 */
problem: string | null, 
/**
 * What adding it does beyond the above (added turned off, paths made
 * absolute against its `cwd`).
 */
note: string | null, 
/**
 * Its call timeout in seconds, read from the config's `"timeout"`
 * (Cline's seconds or Claude Code's milliseconds); `None`: the default.
 */
timeout_s: number | null, };

export type ProviderChanges = { base_url: string, 
/**
 * The model a chat uses when it names none; none: the chat must choose.
 */
default_model: string | null, 
/**
 * Plain headers sent with every request, replacing the ones stored.
 */
headers: { [key in string]: string }, };

export type Agent = { id: string, name: string, description: string, model: AgentModel | null, 
/**
 * Temperature, output limit, context window, reasoning effort (a chat
 * may override each).
 */
model_settings: ModelSettings, system_prompt: string, 
/**
 * Toolset or MCP server ids: all their tools.
 */
toolsets: Array<string>, 
/**
 * Canonical ids, model-facing names or globs (`csv-report.*`, `*`).
 */
tools: Array<string>, filters: Array<Filter>, policies: Array<RoutingPolicy>, 
/**
 * How deep sub-agents may go (2: this agent's sub-agents may not start
 * their own unless they opt in).
 */
max_depth: number, 
/**
 * The most model steps one run takes.
 */
max_steps: number, created_at: string, updated_at: string, };

export type AgentSpec = { id: string, name: string, description: string, model: AgentModel | null, model_settings?: ModelSettings, system_prompt: string, toolsets: Array<string>, tools: Array<string>, filters: Array<Filter>, policies: Array<RoutingPolicy>, max_depth: number, max_steps: number, };

export type AgentModel = { provider: string, model: string, };

export type Filter = { "namespace": Array<string> } | { "tags_any": Array<string> } | { "tags_all": Array<string> } | { "category": string } | { "allow_ids": Array<string> } | { "deny_ids": Array<string> };

export type RoutingPolicy = { "deny": Array<string> } | "no_confirmation_in_sub_agents";

export type SourceKind = "builtin" | "toolset" | "mcp";

export type Exposure = "openai" | "anthropic" | "mcp";

export type ToolsPreview = { 
/**
 * Sorted by canonical id.
 */
tools: Array<PreviewTool>, 
/**
 * Names and toolsets on the allowlist that match nothing in the pool,
 * tools a run would lose, more tools than the provider takes, a
 * provider that is not set up.
 */
warnings: Array<string>, 
/**
 * The protocol the tools were exposed to: the agent's provider's, or
 * OpenAI's (the strictest) when it names none.
 */
exposure: Exposure, 
/**
 * What that protocol takes away, per tool (feature loss).
 */
feature_loss: Array<string>, };

export type PreviewTool = { 
/**
 * The name the model calls it by: `csv-report.summarize`, `write_file`.
 */
model_name: string, canonical_id: string, source_kind: SourceKind, 
/**
 * The toolset or MCP server id (none for builtins).
 */
source_id: string | null, description: string, 
/**
 * What its author asked for (a person's policy may override it).
 */
requires_confirmation: boolean, 
/**
 * The person's confirmation policy for it (everywhere, not only in
 * this agent); none for the coordination tools, which never ask.
 */
policy: Policy | null, };

export type SavedAgent = { agent: Agent, 
/**
 * As the preview's, and two tools under one model-facing name (a run
 * of it would fail).
 */
warnings: Array<string>, exposure: Exposure, feature_loss: Array<string>, };
