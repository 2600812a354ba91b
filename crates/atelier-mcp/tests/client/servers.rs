//! The client against real servers: `@modelcontextprotocol/server-everything`
//! (npm) and `tests/mcp/fixture_server.py` (the PyPI `mcp` package), both
//! installed by `scripts/install.sh`.
//!
//! - [`everything_over_stdio`]: handshake, listing, a call, a clean stop.
//! - [`progress_timeout_and_cancel`]: progress arrives, a timeout and a
//!   cancel end the call and tell the server.
//! - [`a_crash_mid_call_names_the_exit_and_the_supervisor_restarts`]
//! - [`a_flood_of_stderr_is_drained_and_bounded`]
//! - [`a_stubborn_server_is_still_stopped`]
//! - [`list_changed_relists_the_tools`]
//! - [`start_errors_name_the_server`]: a missing command, a server that
//!   never answers the handshake.
//! - [`env_cwd_and_roots`]: only the given environment, the given folder.
//!
//! Servers of the older protocol are in `legacy.rs`.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use atelier_mcp::{
    CallOptions, ConnectOptions, Connection, McpError, ServerSpec, Status, StdioSpec, Supervisor, SupervisorOptions,
};
use serde_json::json;

use crate::common::{base_env, connect, fixture, quick, repo, text};

fn node_server(package: &str, entry: &str, args: &[&str], cwd: &Path) -> ServerSpec {
    let script = repo()
        .join("tests/mcp/node_modules/@modelcontextprotocol")
        .join(package)
        .join(entry);
    assert!(
        script.is_file(),
        "{} is missing: run scripts/install.sh",
        script.display()
    );
    ServerSpec::Stdio(StdioSpec {
        command: "node".into(),
        args: std::iter::once(script.display().to_string())
            .chain(args.iter().map(|s| (*s).to_owned()))
            .collect(),
        env: base_env(),
        cwd: cwd.to_owned(),
    })
}

/// Whether any process of the group `pgid` is alive.
pub(crate) fn group_alive(pgid: u32) -> bool {
    let pid = rustix::process::Pid::from_raw(i32::try_from(pgid).expect("pid")).expect("pid");
    rustix::process::test_kill_process_group(pid).is_ok()
}

#[tokio::test]
async fn everything_over_stdio() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = connect(&node_server(
        "server-everything",
        "dist/index.js",
        &["stdio"],
        dir.path(),
    ))
    .await;
    assert!(
        conn.info().name.as_deref().is_some_and(|n| !n.is_empty()),
        "{:?}",
        conn.info()
    );
    let listed = conn.list_tools().await.expect("tools/list");
    assert_eq!(listed.warnings, Vec::<String>::new());
    let echo = listed
        .tools
        .iter()
        .find(|t| t.name == "echo")
        .expect("server-everything has echo");
    assert_eq!(echo.input_schema["type"], "object");
    let out = conn
        .call("echo", &json!({"message": "hello"}), &CallOptions::default())
        .await
        .expect("echo");
    assert!(text(&out).contains("hello"), "{out:?}");
    assert!(!out.is_error);
    let pid = conn.pid().expect("a stdio server has a pid");
    conn.stop().await;
    assert!(!group_alive(pid), "server-everything's process group outlived stop");
}

#[tokio::test]
async fn progress_timeout_and_cancel() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = connect(&fixture(&[], dir.path())).await;
    let seen: Arc<Mutex<Vec<f64>>> = Arc::default();
    let sink = Arc::clone(&seen);
    let options = CallOptions {
        progress: Some(Arc::new(move |p| sink.lock().expect("test").push(p.progress))),
        ..Default::default()
    };
    let done = conn
        .call("slow", &json!({"seconds": 1.0}), &options)
        .await
        .expect("slow");
    assert_eq!(text(&done), "done");
    let seen = seen.lock().expect("test").clone();
    assert!(seen.len() >= 3, "progress notifications: {seen:?}");
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");

    // A call that keeps reporting progress outlives its timeout (each
    // progress starts it again)…
    let timed = CallOptions {
        timeout: Some(Duration::from_millis(600)),
        ..Default::default()
    };
    let done = conn
        .call("slow", &json!({"seconds": 1.5}), &timed)
        .await
        .expect("progress every 0.2 s keeps a 0.6 s timeout from firing");
    assert_eq!(text(&done), "done");
    // …up to its ceiling.
    let capped = CallOptions {
        max_total: Some(Duration::from_secs(1)),
        ..timed.clone()
    };
    let t0 = Instant::now();
    let err = conn
        .call("slow", &json!({"seconds": 30}), &capped)
        .await
        .expect_err("times out at the ceiling");
    assert_eq!(
        err,
        McpError::Timeout {
            after: Duration::from_secs(1)
        }
    );
    assert!(t0.elapsed() < Duration::from_secs(3));
    // A call with no news times out at its timeout, and the server is told.
    let t0 = Instant::now();
    let err = conn
        .call("stubborn", &json!({"seconds": 30}), &timed)
        .await
        .expect_err("times out");
    assert_eq!(
        err,
        McpError::Timeout {
            after: Duration::from_millis(600)
        }
    );
    assert!(t0.elapsed() < Duration::from_secs(3));
    let told = Instant::now();
    while !conn
        .stderr()
        .iter()
        .any(|l| l.contains("stubborn ignores cancellation"))
    {
        assert!(
            told.elapsed() < Duration::from_secs(5),
            "no notifications/cancelled: {:?}",
            conn.stderr()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let cancel = CallOptions::default();
    let token = cancel.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        token.cancel();
    });
    let err = conn
        .call("slow", &json!({"seconds": 30}), &cancel)
        .await
        .expect_err("cancelled");
    assert_eq!(err, McpError::Cancelled);
    // The server is still fine after both.
    let out = conn
        .call("echo", &json!({"text": "still here"}), &CallOptions::default())
        .await
        .expect("echo");
    assert_eq!(text(&out), "still here");
    conn.stop().await;
}

/// On the 2026-07-28 protocol a server logs only at the level a request
/// names in its `_meta`: a call names `info`, so its log lines reach the
/// call (shown with its output), as on the older protocol.
#[tokio::test]
async fn a_modern_servers_log_lines_reach_the_call() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = connect(&fixture(&[], dir.path())).await;
    let out = conn
        .call("chatty", &json!({}), &CallOptions::default())
        .await
        .expect("chatty");
    assert_eq!(text(&out), "said");
    assert!(
        out.stderr
            .iter()
            .any(|l| l.contains("[info]") && l.contains("chatty says hello")),
        "{:?}",
        out.stderr
    );
    conn.stop().await;
}

#[tokio::test]
async fn a_crash_mid_call_names_the_exit_and_the_supervisor_restarts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let options = SupervisorOptions {
        connect: quick(),
        backoff_start: Duration::from_millis(200),
        ..Default::default()
    };
    let sup = Supervisor::start("crashy", fixture(&[], dir.path()), options, None);
    let tools = sup.ready().await.expect("starts");
    assert!(tools.iter().any(|t| t.name == "crash"));
    let first = sup.pid().expect("pid");
    let err = sup
        .call("crash", &json!({"code": 3}), &CallOptions::default())
        .await
        .expect_err("the server died");
    assert_eq!(err.to_string(), "MCP server crashy exited (code 3)");
    assert!(
        sup.stderr().iter().any(|l| l.contains("crashing with exit code 3")),
        "{:?}",
        sup.stderr()
    );
    // Down: calls fail at once with the status.
    let status = sup.status();
    let Status::Error { message, retry_in } = &status else {
        panic!("after the crash: {status:?}")
    };
    assert!(message.contains("exited (code 3)") && retry_in.is_some(), "{status:?}");
    let err = sup
        .call("echo", &json!({"text": "x"}), &CallOptions::default())
        .await
        .expect_err("down");
    assert!(
        err.to_string().contains("is not running") && err.to_string().contains("code 3"),
        "{err}"
    );
    // Back after the backoff, as a new process.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !matches!(sup.status(), Status::Connected { .. }) {
        assert!(Instant::now() < deadline, "no restart: {:?}", sup.status());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let out = sup
        .call("echo", &json!({"text": "again"}), &CallOptions::default())
        .await
        .expect("echo");
    assert_eq!(text(&out), "again");
    assert_ne!(sup.pid(), Some(first));
    let pid = sup.pid().expect("pid");
    sup.stop().await;
    assert_eq!(sup.status(), Status::Stopped);
    assert!(!group_alive(pid) && !group_alive(first));
}

#[tokio::test]
async fn a_flood_of_stderr_is_drained_and_bounded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = connect(&fixture(&[], dir.path())).await;
    let out = conn
        .call("flood", &json!({"megabytes": 10}), &CallOptions::default())
        .await
        .expect("flood");
    assert_eq!(text(&out), "flooded");
    assert_eq!(out.stderr.len(), 200, "the call keeps the last 200 lines");
    assert!(conn.stderr().len() <= 200);
    conn.stop().await;
}

#[tokio::test]
async fn a_stubborn_server_is_still_stopped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = connect(&fixture(&[], dir.path())).await;
    let options = CallOptions::default();
    let token = options.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        token.cancel();
    });
    let t0 = Instant::now();
    let err = conn
        .call("stubborn", &json!({"seconds": 30}), &options)
        .await
        .expect_err("cancelled");
    assert_eq!(err, McpError::Cancelled);
    assert!(t0.elapsed() < Duration::from_secs(3), "cancel waited for the server");
    let pid = conn.pid().expect("pid");
    let t0 = Instant::now();
    conn.stop().await;
    assert!(!group_alive(pid));
    assert!(t0.elapsed() < Duration::from_secs(5), "stop took {:?}", t0.elapsed());
}

#[tokio::test]
async fn list_changed_relists_the_tools() {
    let dir = tempfile::tempdir().expect("temp dir");
    let listed: Arc<Mutex<Vec<Vec<String>>>> = Arc::default();
    let sink = Arc::clone(&listed);
    let sup = Supervisor::start(
        "growing",
        fixture(&[], dir.path()),
        SupervisorOptions {
            connect: quick(),
            ..Default::default()
        },
        Some(Arc::new(move |listed: &atelier_mcp::Listing| {
            sink.lock()
                .expect("test")
                .push(listed.tools.iter().map(|t| t.name.clone()).collect());
        })),
    );
    let tools = sup.ready().await.expect("starts");
    assert!(!tools.iter().any(|t| t.name == "extra"));
    sup.call("grow", &json!({}), &CallOptions::default())
        .await
        .expect("grow");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !sup.tools().unwrap_or_default().iter().any(|t| t.name == "extra") {
        assert!(
            Instant::now() < deadline,
            "never relisted: {:?}",
            listed.lock().expect("test")
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(listed.lock().expect("test").len() >= 2);
    let out = sup
        .call("extra", &json!({}), &CallOptions::default())
        .await
        .expect("extra");
    assert_eq!(text(&out), "extra");
    sup.stop().await;
}

#[tokio::test]
async fn start_errors_name_the_server() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = ServerSpec::Stdio(StdioSpec {
        command: "atelier-no-such-server".into(),
        args: vec![],
        env: base_env(),
        cwd: dir.path().to_owned(),
    });
    let err = Connection::connect("ghost", &missing, &quick(), Arc::default(), None)
        .await
        .expect_err("no such command");
    assert!(
        matches!(&err, McpError::Spawn { server, .. } if server == "ghost") && err.to_string().contains("not found"),
        "{err}"
    );

    let options = ConnectOptions {
        handshake_timeout: Duration::from_secs(2),
        ..quick()
    };
    let mute = fixture(&["--no-handshake", "--stderr-lines", "3"], dir.path());
    let t0 = Instant::now();
    let err = Connection::connect("mute", &mute, &options, Arc::default(), None)
        .await
        .expect_err("never answers");
    let text = err.to_string();
    assert!(
        text.starts_with("MCP server mute did not answer the handshake within 2 s"),
        "{text}"
    );
    assert!(text.contains("fixture stderr line 3"), "{text}");
    assert!(t0.elapsed() < Duration::from_secs(6));

    // Exits at once: said at once, with its stderr.
    let dies = ServerSpec::Stdio(StdioSpec {
        command: "sh".into(),
        args: vec!["-c".into(), "echo 'bad config: no API key' >&2; exit 2".into()],
        env: base_env(),
        cwd: dir.path().to_owned(),
    });
    let err = Connection::connect("dies", &dies, &quick(), Arc::default(), None)
        .await
        .expect_err("exits");
    let text = err.to_string();
    assert!(
        text.contains("exited (code 2)") && text.contains("bad config: no API key"),
        "{text}"
    );
}

#[tokio::test]
async fn env_cwd_and_roots() {
    let dir = tempfile::tempdir().expect("temp dir");
    let Some(ServerSpec::Stdio(mut spec)) = Some(fixture(&[], dir.path())) else {
        unreachable!()
    };
    spec.env.push(("FIXTURE_TOKEN".into(), "s3cret".into()));
    let conn = connect(&ServerSpec::Stdio(spec)).await;
    let out = conn
        .call("whereami", &json!({}), &CallOptions::default())
        .await
        .expect("whereami");
    let got = out.structured.expect("structured content");
    assert_eq!(
        Path::new(got["cwd"].as_str().expect("cwd"))
            .canonicalize()
            .expect("cwd"),
        dir.path().canonicalize().expect("dir")
    );
    assert_eq!(got["token"], "s3cret");
    conn.stop().await;

    // server-filesystem asks for roots and serves only those.
    let ws = tempfile::tempdir().expect("temp dir");
    std::fs::write(ws.path().join("notes.txt"), "from the workspace").expect("write");
    let options = ConnectOptions {
        roots: Some(vec![ws.path().to_owned()]),
        ..quick()
    };
    let spec = node_server("server-filesystem", "dist/index.js", &[], dir.path());
    let conn = Connection::connect("files", &spec, &options, Arc::default(), None)
        .await
        .expect("filesystem starts");
    let listed = conn
        .call("list_allowed_directories", &json!({}), &CallOptions::default())
        .await
        .expect("list_allowed_directories");
    let canon = ws.path().canonicalize().expect("ws").display().to_string();
    // The roots arrive after the handshake: ask until they did.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut listed = text(&listed);
    while !listed.contains(&canon) {
        assert!(Instant::now() < deadline, "roots not used: {listed}");
        tokio::time::sleep(Duration::from_millis(100)).await;
        listed = text(
            &conn
                .call("list_allowed_directories", &json!({}), &CallOptions::default())
                .await
                .expect("list"),
        );
    }
    let read = conn
        .call(
            "read_text_file",
            &json!({"path": ws.path().join("notes.txt").display().to_string()}),
            &CallOptions::default(),
        )
        .await
        .expect("read");
    assert_eq!(text(&read), "from the workspace");
    conn.stop().await;
}
