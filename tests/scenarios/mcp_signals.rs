//! No MCP server outlives the CLI command that started it, however the
//! command ends: SIGTERM and SIGHUP end it as Ctrl-C does (the call
//! cancelled, its servers stopped — SIGKILL for a server that ignores
//! SIGTERM), and a CLI killed outright (SIGKILL) leaves each server's
//! watchdog to stop its group. Before, SIGTERM killed the CLI where it
//! stood and the server ran on.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::Env;
use crate::mcp_cli::{add_args, chat, left_in};

/// A stdio server that ignores SIGTERM and whose one tool never answers.
const STUBBORN: &str = r#"
import json, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
def send(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line); mid = m.get("id"); meth = m.get("method")
    if mid is None:
        continue
    if meth == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": "2025-06-18",
              "capabilities": {"tools": {}}, "serverInfo": {"name": "stubborn", "version": "0"}}})
    elif meth == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [{"name": "hang",
              "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}]}})
    elif meth == "tools/call":
        sys.stderr.write("hanging\n"); sys.stderr.flush()
        time.sleep(3600)
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "Method not found"}})
time.sleep(3600)
"#;

/// `atelier run stubborn:hang` started, once its server runs.
fn running_call(env: &Env, script: &Path) -> Child {
    let cmd = vec!["python3".to_owned(), script.display().to_string()];
    env.ok(&add_args("stubborn", &[], &cmd));
    let c = chat(env);
    let child = Command::new(env!("CARGO_BIN_EXE_atelier"))
        .arg("--data-dir")
        .arg(env.data())
        .args(["run", "stubborn:hang", "--chat", &c, "--args", "{}", "--yes", "--quiet"])
        .env_remove("ATELIER_DATA_DIR")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run atelier");
    let began = Instant::now();
    while left_in(env.data()).is_empty() {
        assert!(began.elapsed() < Duration::from_secs(20), "the server never started");
        std::thread::sleep(Duration::from_millis(100));
    }
    // The call is in flight once the handshake is over: give it a moment.
    std::thread::sleep(Duration::from_millis(1500));
    child
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success(), "kill -{name}");
}

/// Waits up to `within` for no process to be left in the data dir.
fn none_left_within(env: &Env, within: Duration, after: &str) {
    let began = Instant::now();
    loop {
        let left = left_in(env.data());
        if left.is_empty() {
            return;
        }
        assert!(began.elapsed() < within, "left running {after}: {left:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn sigterm_or_sighup_to_the_cli_stops_its_server_even_one_that_ignores_sigterm() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("stubborn.py");
    std::fs::write(&script, STUBBORN).expect("write the server");
    for name in ["TERM", "HUP"] {
        let env = Env::new();
        let mut child = running_call(&env, &script);
        signal(&child, name);
        // The stop's steps: close, SIGTERM (ignored), SIGKILL, 2 s apart.
        let began = Instant::now();
        while child.try_wait().expect("wait").is_none() {
            assert!(
                began.elapsed() < Duration::from_secs(15),
                "the CLI did not end on SIG{name}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        none_left_within(&env, Duration::from_secs(3), &format!("SIG{name} to the CLI"));
    }
}

#[test]
fn a_cli_killed_outright_leaves_no_server_behind() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("stubborn.py");
    std::fs::write(&script, STUBBORN).expect("write the server");
    let env = Env::new();
    let mut child = running_call(&env, &script);
    signal(&child, "KILL");
    child.wait().expect("wait");
    // The watchdog's SIGTERM (ignored), then its SIGKILL 2 s later.
    none_left_within(&env, Duration::from_secs(8), "SIGKILL to the CLI");
}
