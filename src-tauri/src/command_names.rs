// The commands the UI may invoke: one list, read by build.rs (which makes
// their `allow-<command>` permissions), by lib.rs and by the tests (which
// check that each is registered and granted in capabilities/main.json).
pub const COMMANDS: &[&str] = &[
    "list_toolsets",
    "get_toolset",
    "check_bundle",
    "import_toolset",
    "export_toolset",
    "enable_toolset",
    "uninstall_toolset",
    "pick_bundle",
    "pick_bundle_folder",
    "pick_export_path",
    "list_tools",
    "get_tool",
    "get_available_tools",
    "validate_tool_args",
    "list_chats",
    "create_chat",
    "run_tool",
    "list_tool_calls",
    "get_workspace_files",
    "get_workspace_file",
    "get_workspace_manifest",
    "render_url",
    "first_paint",
];
