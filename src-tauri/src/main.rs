//! `atelier-app`: the desktop app. Logs go to stderr (`ATELIER_LOG`), never
//! to tool output, which the core captures from the tools' own pipes.

use std::process::ExitCode;

fn main() -> ExitCode {
    atelier_app::display::prefer_software_friendly_renderer();
    atelier_app::startup::mark_start();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        // rmcp stays off unless ATELIER_LOG names it (its lines may carry a
        // server URL's token; see atelier_core::logging).
        .with_env_filter(tracing_subscriber::EnvFilter::new(
            atelier_core::logging::filter_directives(std::env::var("ATELIER_LOG").ok().as_deref(), "warn"),
        ))
        .init();
    let state = match atelier_core::DataDir::resolve(None)
        .map(|data| tauri::async_runtime::block_on(atelier_app::open_state(data)))
    {
        Ok(Ok(state)) => state,
        Ok(Err(e)) | Err(e) => {
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
