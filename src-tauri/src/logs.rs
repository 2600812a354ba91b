//! The app's log: stderr (a terminal's) and the data dir's log file
//! ([`atelier_core::logging::LogFile`]), both with the core's filter
//! (`ATELIER_LOG`; rmcp off unless named, its lines may carry a server
//! URL's token). Also the commands that bring the UI's errors into it and
//! show Settings where it is.

use std::sync::Arc;

use atelier_core::DataDir;
use atelier_core::logging::{LogFile, LogLocation};
use tauri::State;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::AppState;
use crate::error::IpcResult;

/// Starts logging for the process: stderr, and `data`'s log file when it
/// has one (not in a read-only data dir, nor without a data dir). A file
/// that cannot be opened is said on stderr; the app starts anyway. Does
/// nothing if this process already logs (a test that called it before).
pub fn init(data: Option<&DataDir>) {
    let (log, problem) = match data.map(LogFile::open).transpose() {
        Ok(log) => (log.flatten(), None),
        Err(e) => (None, Some(e)),
    };
    let directives = atelier_core::logging::filter_directives(std::env::var("ATELIER_LOG").ok().as_deref(), "warn");
    let to_file = log.map(|log| {
        tracing_subscriber::fmt::layer()
            .with_ansi(false)
            .with_writer(Arc::new(log))
    });
    let started = tracing_subscriber::registry()
        .with(EnvFilter::new(directives))
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(to_file)
        .try_init();
    if started.is_ok()
        && let Some(e) = problem
    {
        tracing::warn!("Atelier logs to stderr only: {e}");
    }
}

/// An error the UI met (a view that crashed, an uncaught error or
/// rejection), into the app's log at `error` (target `ui`). `context` says
/// where; texts are cut by the core.
#[tauri::command]
pub fn log_ui_error(message: String, context: String, stack: Option<String>) {
    atelier_core::logging::ui_error(&message, &context, stack.as_deref());
}

/// Where the app's log file is, and whether it is written (Settings).
#[tauri::command]
pub fn log_location(state: State<'_, AppState>) -> LogLocation {
    atelier_core::logging::location(state.app.data_dir())
}

/// Opens the log's folder in the file manager (the one folder it opens:
/// no path comes from the webview).
#[tauri::command]
pub async fn open_log_folder(state: State<'_, AppState>) -> IpcResult<()> {
    let dir = state.app.data_dir().logs_dir();
    Ok(crate::desktop::reveal(&dir).map_err(atelier_core::Error::io("open", &dir))?)
}
