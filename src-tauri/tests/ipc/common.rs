//! The app on Tauri's mock runtime with the real capability file and a
//! real data dir, and `invoke` as the UI calls it.

use atelier_app::{AppState, open_state, setup};
use atelier_core::DataDir;
use serde_json::Value;
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder};
use tauri::webview::InvokeRequest;
use tauri::{App, WebviewWindow, WebviewWindowBuilder};

pub(crate) struct Harness {
    pub(crate) app: App<MockRuntime>,
    pub(crate) window: WebviewWindow<MockRuntime>,
    pub(crate) tmp: tempfile::TempDir,
}

pub(crate) fn harness() -> Harness {
    harness_in(tempfile::tempdir().expect("tempdir"))
}

/// The app on `tmp/data`, which may hold what an earlier process left.
pub(crate) fn harness_in(tmp: tempfile::TempDir) -> Harness {
    let state: AppState =
        tauri::async_runtime::block_on(open_state(DataDir::new(tmp.path().join("data")))).expect("open the data dir");
    let app = setup(mock_builder(), state)
        .build(tauri::generate_context!())
        .expect("build the app");
    let window = WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .expect("main window");
    Harness { app, window, tmp }
}

pub(crate) fn invoke(h: &Harness, cmd: &str, args: Value) -> Result<Value, Value> {
    invoke_on(&h.window, cmd, args)
}

/// `invoke` from another thread (the app itself is not `Sync`).
pub(crate) fn invoke_on(window: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: tauri::ipc::CallbackFn(0),
        error: tauri::ipc::CallbackFn(1),
        url: "tauri://localhost".parse().expect("url"),
        body: tauri::ipc::InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(window, request).map(|b| b.deserialize::<Value>().expect("json"))
}
