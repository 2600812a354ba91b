//! The client against servers of the older protocol (2024-11-05), from
//! `tests/mcp/legacy_server.py`: hand-written, no SDK.
//!
//! - [`an_old_server_that_answers_anything_with_an_empty_result`]: a server
//!   that answers `server/discover` with `{}` still gets `initialize`.
//! - [`an_old_server_is_greeted_with_initialize_once_a_connection_learnt_it`]
//!   and [`a_server_that_ignores_the_probe_is_greeted_the_old_way_after_two_waits`]:
//!   the `Handshake` memory.
//! - [`a_server_slow_to_start_connects_though_the_probe_is_answered_late`]:
//!   `npx -y` fetching it, a container starting.
//! - [`a_server_answering_a_protocol_version_we_do_not_know_is_refused`]

use std::sync::Arc;
use std::time::Duration;

use atelier_mcp::{CallOptions, Connection, ServerSpec, StderrLog};
use serde_json::json;

use crate::common::{connect, legacy_spec, quick, text};

/// The requests the server logged (`request <method>`), once it has logged `last`.
async fn requests_until(log: &StderrLog, last: &str) -> Vec<String> {
    let want = format!("request {last}");
    for _ in 0..100 {
        let lines = log.tail();
        if lines.contains(&want) {
            return lines.into_iter().filter(|l| l.starts_with("request ")).collect();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the server never logged {want:?}: {:?}", log.tail());
}

/// Connects once per round with one `Handshake`: each round's requests as
/// the server logged them, and whether the memory then says `initialize`.
/// Each round shouts, to see the server answer.
async fn rounds(spec: &ServerSpec, rounds: &[(&[&str], bool)]) {
    let options = quick();
    assert!(!options.handshake.initialize_only());
    for (round, (expected, learnt)) in rounds.iter().enumerate() {
        let log = Arc::new(StderrLog::default());
        let conn = Connection::connect("legacy", spec, &options, Arc::clone(&log), None)
            .await
            .expect("the server starts");
        assert_eq!(conn.info().protocol_version, "2024-11-05");
        assert_eq!(options.handshake.initialize_only(), *learnt, "round {round}: learnt");
        let out = conn
            .call("shout", &json!({"text": "again"}), &CallOptions::default())
            .await
            .expect("shout");
        assert_eq!(text(&out), "AGAIN");
        let seen = requests_until(&log, "tools/call").await;
        let expected: Vec<String> = expected.iter().map(|m| format!("request {m}")).collect();
        assert_eq!(seen, expected, "round {round}");
        conn.stop().await;
    }
}

const PROBED: &[&str] = &["server/discover", "initialize", "tools/call"];
const GREETED: &[&str] = &["initialize", "tools/call"];

#[tokio::test]
async fn an_old_server_is_greeted_with_initialize_once_a_connection_learnt_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    // `{}` to the probe, a definite answer (it cost a second process): the
    // next connection greets it with `initialize` at once.
    rounds(&legacy_spec(dir.path(), &[]), &[(PROBED, true), (GREETED, true)]).await;
}

#[tokio::test]
async fn a_server_that_ignores_the_probe_is_greeted_the_old_way_after_two_waits() {
    let dir = tempfile::tempdir().expect("temp dir");
    // No answer: rmcp waits 10 s, then `initialize` on the same process.
    // Once could be a modern server slow to start, so the second connection
    // probes again; after two, the third greets it at once.
    rounds(
        &legacy_spec(dir.path(), &["--silent"]),
        &[(PROBED, false), (PROBED, true), (GREETED, true)],
    )
    .await;
}

#[tokio::test]
async fn an_old_server_that_answers_anything_with_an_empty_result() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = connect(&legacy_spec(dir.path(), &[])).await;
    assert_eq!(conn.info().name.as_deref(), Some("legacy-shouter"));
    assert_eq!(conn.info().protocol_version, "2024-11-05");
    let out = conn
        .call("shout", &json!({"text": "quiet"}), &CallOptions::default())
        .await
        .expect("shout");
    assert_eq!(text(&out), "QUIET");
    conn.stop().await;
}

#[tokio::test]
async fn a_server_slow_to_start_connects_though_the_probe_is_answered_late() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Asleep past rmcp's 10 s probe wait: it reads `server/discover` and
    // the `initialize` sent meanwhile together, and answers the probe
    // first — "method not found" (most servers) or `{}` — a reply that
    // used to fail the handshake.
    tokio::join!(
        slow_start(legacy_spec(dir.path(), &["--start-after", "11", "--not-found"])),
        slow_start(legacy_spec(dir.path(), &["--start-after", "11"])),
    );
}

async fn slow_start(spec: ServerSpec) {
    let log = Arc::new(StderrLog::default());
    let options = quick();
    let conn = Connection::connect("slow", &spec, &options, Arc::clone(&log), None)
        .await
        .unwrap_or_else(|e| panic!("the slow server starts: {e}"));
    assert_eq!(conn.info().protocol_version, "2024-11-05");
    let out = conn
        .call("shout", &json!({"text": "late"}), &CallOptions::default())
        .await
        .expect("shout");
    assert_eq!(text(&out), "LATE");
    let seen = requests_until(&log, "tools/call").await;
    assert_eq!(
        seen,
        ["request server/discover", "request initialize", "request tools/call"]
    );
    assert!(
        !options.handshake.initialize_only(),
        "one late probe is a slow start, not an old server"
    );
    conn.stop().await;
}

/// The processes whose command line holds `marker`.
fn running_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline"))
            && String::from_utf8_lossy(&cmdline).contains(marker)
        {
            found.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    found
}

#[tokio::test]
async fn a_server_answering_a_protocol_version_we_do_not_know_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Unique to this test, to find its processes by.
    let version = format!("1999-01-01-{}", std::process::id());
    let spec = legacy_spec(dir.path(), &["--protocol-version", &version]);
    let err = Connection::connect("future", &spec, &quick(), Arc::default(), None)
        .await
        .expect_err("an unknown version is refused");
    assert_eq!(
        err.to_string(),
        format!(
            "MCP server future failed to start: it answered with protocol version {version}, \
             which Atelier does not speak (it speaks 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)"
        )
    );
    assert_eq!(
        running_with(&version),
        Vec::<String>::new(),
        "the refused server still runs"
    );
}
