//! Atelier's desktop app: a thin Tauri 2 shell over `atelier-core`.
//!
//! [`setup`] assembles the app (commands, the render scheme, the dialog
//! plugin, the state) for any runtime, so tests drive it on Tauri's mock
//! runtime without a window; [`run`] opens the data dir and starts it on
//! the real one. Commands live in [`commands`], [`chat_commands`],
//! [`config_commands`], [`toolset_secret_commands`], [`llm_commands`],
//! [`mcp_commands`], [`agent_commands`] and [`logs`] (typed arguments, one
//! core call, [`error::IpcError`]; `logs` also starts the log at `main`);
//! tool HTML is served by [`render`]; paths from the webview are re-checked
//! by [`paths`]; the window never leaves the app's own pages
//! ([`navigation`]).

pub mod agent_commands;
pub mod chat_commands;
mod command_names;
pub mod commands;
pub mod config_commands;
mod desktop;
mod dialogs;
pub mod display;
pub mod error;
pub mod frames;
pub mod live_reload;
pub mod llm_commands;
pub mod logs;
pub mod mcp_commands;
pub mod navigation;
pub mod paths;
pub mod render;
pub mod run_events;
pub mod startup;
pub mod toolset_secret_commands;

pub use command_names::COMMANDS;

use atelier_core::{Atelier, DataDir};
use tauri::Runtime;

/// What every command can reach: the core handle, the issued renders and
/// the frame origins this run's CSP allows ([`frames`]).
#[derive(Debug)]
pub struct AppState {
    pub app: Atelier,
    pub renders: render::Renders,
    pub frame_origins_in_effect: Vec<String>,
}

/// Adds the app to a builder (Tauri's, or the mock runtime's in tests):
/// everything but the window and the event loop.
pub fn setup<R: Runtime>(builder: tauri::Builder<R>, state: AppState) -> tauri::Builder<R> {
    let live = live_reload::Live::new(state.app.clone());
    builder
        .plugin(tauri_plugin_dialog::init())
        .plugin(navigation::guard())
        .manage(state)
        .manage(live)
        .setup(|app| {
            live_reload::start(app.handle());
            mcp_commands::list_unlisted_at_start(app.handle());
            Ok(())
        })
        .register_asynchronous_uri_scheme_protocol(render::SCHEME, render::handler)
        .invoke_handler(tauri::generate_handler![
            commands::list_toolsets,
            commands::get_toolset,
            commands::check_bundle,
            commands::import_toolset,
            commands::export_toolset,
            commands::enable_toolset,
            commands::uninstall_toolset,
            commands::toolset_reloads,
            commands::pick_bundle,
            commands::pick_bundle_folder,
            commands::pick_export_path,
            commands::list_tools,
            commands::get_tool,
            commands::get_available_tools,
            commands::validate_tool_args,
            commands::list_chats,
            commands::create_chat,
            commands::run_tool,
            commands::list_tool_calls,
            commands::get_workspace_files,
            commands::get_workspace_file,
            commands::get_workspace_manifest,
            commands::render_url,
            commands::workspace_file_url,
            commands::get_settings,
            commands::allow_frame_origin,
            commands::forbid_frame_origin,
            commands::check_frame,
            commands::restart_app,
            chat_commands::chat_tree,
            chat_commands::checkout,
            chat_commands::switch_branch,
            commands::cancel_tool_call,
            commands::answer_approval,
            commands::answer_approval_for_chat,
            commands::tool_policy,
            commands::set_tool_policy,
            chat_commands::rename_chat,
            chat_commands::delete_chat,
            chat_commands::diff_nodes,
            chat_commands::diff_text,
            chat_commands::save_edit,
            chat_commands::restore_file,
            chat_commands::upload_files,
            chat_commands::export_workspace,
            chat_commands::pick_workspace_export_path,
            chat_commands::open_workspace_folder,
            chat_commands::export_workspace_file,
            startup::first_paint,
            config_commands::toolset_config,
            config_commands::set_toolset_config,
            config_commands::toolset_allowed_env,
            config_commands::allow_toolset_env,
            config_commands::secrets_status,
            config_commands::allow_file_secrets,
            config_commands::pick_setting_path,
            toolset_secret_commands::toolset_env_references,
            toolset_secret_commands::set_toolset_env_secret,
            toolset_secret_commands::unset_toolset_env_secret,
            llm_commands::send_message,
            llm_commands::retry_message,
            llm_commands::edit_message,
            llm_commands::stop_run,
            llm_commands::stage_pasted_image,
            llm_commands::fork_chat,
            llm_commands::set_chat_model_settings,
            llm_commands::provider_presets,
            llm_commands::list_providers,
            llm_commands::add_provider,
            llm_commands::remove_provider,
            llm_commands::test_provider,
            llm_commands::detect_providers,
            mcp_commands::list_mcp_servers,
            mcp_commands::get_mcp_server,
            mcp_commands::add_mcp_server,
            mcp_commands::remove_mcp_server,
            mcp_commands::set_mcp_server_enabled,
            mcp_commands::restart_mcp_server,
            mcp_commands::list_mcp_server,
            mcp_commands::preview_mcp_config,
            mcp_commands::import_mcp_config,
            mcp_commands::sign_in_mcp_server,
            mcp_commands::cancel_mcp_sign_in,
            llm_commands::update_provider,
            agent_commands::list_agents,
            agent_commands::get_agent,
            agent_commands::create_agent,
            agent_commands::update_agent,
            agent_commands::delete_agent,
            agent_commands::preview_agent_tools,
            agent_commands::agent_id_from_name,
            logs::log_ui_error,
            logs::log_location,
            logs::open_log_folder,
        ])
}

/// Opens the data dir (the CLI's: `ATELIER_DATA_DIR`, else the OS data
/// dir), installing the bundled examples into a fresh one, on the
/// Assistant's allowlist. The saved frame origins become the ones in
/// effect: pass them to [`frames::allow_in_csp`] before the app is built.
pub async fn open_state(data: DataDir) -> atelier_core::Result<AppState> {
    let app = Atelier::open(data).await?;
    app.agents().seed_if_fresh().await?;
    let frame_origins_in_effect = app.settings().get().await?.frame_origins;
    Ok(AppState {
        app,
        renders: render::Renders::default(),
        frame_origins_in_effect,
    })
}
