//! The app's hot reload of local toolsets: one core
//! [`LiveReload`](atelier_core::toolsets::live::LiveReload), in Tauri's
//! state from the start (commands add and drop watches), started once the
//! app runs ([`start`]): from then on every outcome is also sent to the UI
//! as a `toolset-reloaded` event (the toolset manager refreshes, and shows a
//! refused edit's error).

use std::sync::{Arc, OnceLock};

use atelier_core::Atelier;
use atelier_core::toolsets::live::{LiveReload, ReloadStatus};
use tauri::{AppHandle, Emitter, Manager, Runtime};

/// The event the UI listens to.
pub const EVENT: &str = "toolset-reloaded";

type Emit = Box<dyn Fn(&ReloadStatus) + Send + Sync>;

/// The app's watches, in Tauri's state.
pub struct Live {
    pub reloads: Arc<LiveReload>,
    emit: Arc<OnceLock<Emit>>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.reloads.fmt(f)
    }
}

impl Live {
    /// Watches nothing yet; outcomes reach the UI once [`start`] ran.
    pub fn new(core: Atelier) -> Self {
        let emit: Arc<OnceLock<Emit>> = Arc::new(OnceLock::new());
        let to_ui = Arc::clone(&emit);
        let reloads = LiveReload::new(core, move |s| {
            if let Some(send) = to_ui.get() {
                send(s);
            }
        });
        Self { reloads, emit }
    }
}

/// Sends outcomes to the UI, and watches every installed local toolset.
pub fn start<R: Runtime>(handle: &AppHandle<R>) {
    let live = handle.state::<Live>();
    let events = handle.clone();
    let _ = live.emit.set(Box::new(move |s| {
        let _ = events.emit(EVENT, s);
    }));
    let reloads = Arc::clone(&live.reloads);
    tauri::async_runtime::spawn(async move {
        if let Err(e) = reloads.watch_all().await {
            tracing::warn!(error = %e, "local toolsets are not watched");
        }
    });
}
