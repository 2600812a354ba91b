//! What the test files of real servers share: where the repository is,
//! the environment a server gets, the fixture and the hand-written legacy
//! server, quick timings, a connection, a call's text.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use atelier_mcp::{ConnectOptions, Connection, ServerSpec, StdioSpec};
use serde_json::Value;

pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub(crate) fn base_env() -> Vec<(String, String)> {
    vec![("PATH".into(), std::env::var("PATH").unwrap_or_default())]
}

/// `tests/mcp/fixture_server.py` (PyPI `mcp`) with `args`, in `cwd`.
pub(crate) fn fixture(args: &[&str], cwd: &Path) -> ServerSpec {
    let python = repo().join(".tools/mcp-venv/bin/python");
    assert!(
        python.is_file(),
        "{} is missing: run scripts/install.sh",
        python.display()
    );
    ServerSpec::Stdio(StdioSpec {
        command: python.display().to_string(),
        args: std::iter::once(repo().join("tests/mcp/fixture_server.py").display().to_string())
            .chain(args.iter().map(|s| (*s).to_owned()))
            .collect(),
        env: base_env(),
        cwd: cwd.to_owned(),
    })
}

/// `tests/mcp/legacy_server.py` with `extra` flags, in `dir`.
pub(crate) fn legacy_spec(dir: &Path, extra: &[&str]) -> ServerSpec {
    let mut args = vec![repo().join("tests/mcp/legacy_server.py").display().to_string()];
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    ServerSpec::Stdio(StdioSpec {
        command: "python3".into(),
        args,
        env: base_env(),
        cwd: dir.to_owned(),
    })
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
