//! What the test files of real servers share: where the repository is,
//! the environment a server gets, quick timings, a connection, a call's text.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use atelier_mcp::{ConnectOptions, Connection, ServerSpec};
use serde_json::Value;

pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub(crate) fn base_env() -> Vec<(String, String)> {
    vec![("PATH".into(), std::env::var("PATH").unwrap_or_default())]
}

pub(crate) fn quick() -> ConnectOptions {
    ConnectOptions {
        handshake_timeout: Duration::from_secs(20),
        stop_grace: Duration::from_millis(500),
        ..Default::default()
    }
}

pub(crate) async fn connect(spec: &ServerSpec) -> Connection {
    Connection::connect("fixture", spec, &quick(), Arc::default(), None)
        .await
        .expect("the server starts")
}

pub(crate) fn text(result: &atelier_mcp::CallResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}
