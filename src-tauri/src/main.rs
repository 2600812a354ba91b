//! `atelier-app`: the desktop app. Logs go to stderr and the data dir's
//! `logs/atelier.log` (`ATELIER_LOG`; [`atelier_app::logs`]), never to tool
//! output, which the core captures from the tools' own pipes.

use std::process::ExitCode;

fn main() -> ExitCode {
    atelier_app::display::prefer_software_friendly_renderer();
    atelier_app::startup::mark_start();
    // The log's file is in the data dir the app opens; stderr only without one.
    let data = atelier_core::DataDir::resolve(None);
    atelier_app::logs::init(data.as_ref().ok());
    let state = match data.and_then(|data| tauri::async_runtime::block_on(atelier_app::open_state(data))) {
        Ok(state) => state,
        Err(e) => {
            tracing::error!("Atelier could not open its data directory: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut context = tauri::generate_context!();
    atelier_app::frames::allow_in_csp(context.config_mut(), &state.frame_origins_in_effect);
    let core = state.app.clone();
    match atelier_app::setup(tauri::Builder::default(), state).build(context) {
        Ok(app) => {
            app.run(move |_, event| {
                // The process ends right after this event, without running
                // destructors: the MCP servers it started are stopped here
                // (close, SIGTERM, SIGKILL of each group), never orphaned.
                if let tauri::RunEvent::Exit = event {
                    tauri::async_runtime::block_on(core.mcp().stop_everything());
                }
            });
            ExitCode::SUCCESS
        }
        Err(e) => {
            tracing::error!("Atelier stopped: {e}");
            ExitCode::FAILURE
        }
    }
}
