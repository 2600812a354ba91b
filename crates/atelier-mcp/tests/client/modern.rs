//! The client against a server of the newest protocol (2026-07-28, the
//! PyPI SDK's fixture) where it differs from the older ones.
//!
//! - [`a_modern_server_slow_to_start_connects`]: `uvx` fetching it; the
//!   probe answered after rmcp fell back on `initialize`, which such a
//!   server refuses once it has answered the probe.
//! - [`a_server_asking_for_roots_mid_call_gets_them`] and
//!   [`a_server_asking_for_input_we_do_not_offer_is_declined`]: a call
//!   answered `input_required` (SEP-2322) is called again with the answers;
//!   [`a_slow_tool_answering_still_at_it_is_asked_again_until_done`] and
//!   [`a_tool_still_at_it_for_ever_times_out`]: one answering only its state
//!   is asked again, within the call's timeout, not its rounds, and
//!   [`a_tool_still_at_it_with_progress_runs_past_its_timeout`]: progress is
//!   news for it too.

use std::sync::Arc;

use atelier_mcp::{CallOptions, ConnectOptions, Connection};
use serde_json::json;

use crate::common::{fixture, quick, text};

#[tokio::test]
async fn a_modern_server_slow_to_start_connects() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Asleep past rmcp's 10 s probe wait, the first time only.
    let spec = fixture(&["--start-after", "11"], dir.path());
    let options = quick();
    let conn = Connection::connect("slow", &spec, &options, Arc::default(), None)
        .await
        .unwrap_or_else(|e| panic!("the slow server starts: {e}"));
    assert_eq!(conn.info().protocol_version, "2026-07-28");
    let out = conn
        .call("echo", &json!({"text": "late"}), &CallOptions::default())
        .await
        .expect("echo");
    assert_eq!(text(&out), "late");
    assert!(!options.handshake.initialize_only(), "a modern server, not an old one");
    conn.stop().await;
}

#[tokio::test]
async fn a_server_asking_for_roots_mid_call_gets_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ws = tempfile::tempdir().expect("workspace");
    let options = ConnectOptions {
        roots: Some(vec![ws.path().to_owned()]),
        ..quick()
    };
    let spec = fixture(&[], dir.path());
    let conn = Connection::connect("fixture", &spec, &options, Arc::default(), None)
        .await
        .expect("the server starts");
    assert_eq!(conn.info().protocol_version, "2026-07-28");
    let out = conn
        .call("roots", &json!({}), &CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("roots: {e}"));
    assert!(!out.is_error, "{out:?}");
    let uri = format!("file://{}", ws.path().display());
    assert_eq!(text(&out), format!("roots: {uri}"));
    conn.stop().await;
}

#[tokio::test]
async fn a_server_asking_for_input_we_do_not_offer_is_declined() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = crate::common::connect(&fixture(&[], dir.path())).await;
    let out = conn
        .call("ask_anyway", &json!({}), &CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("ask_anyway: {e}"));
    // As an `elicitation/create` request of an older protocol is answered.
    assert_eq!(text(&out), "answer: decline");
    conn.stop().await;
}

/// A slow tool of the newest protocol answers only its state ("still at
/// it") until it is done: more times than the rounds a call takes of a
/// server asking for something. Such answers used to count as rounds, and
/// the call failed after ten (about two seconds) as "asked for input".
#[tokio::test]
async fn a_slow_tool_answering_still_at_it_is_asked_again_until_done() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = crate::common::connect(&fixture(&[], dir.path())).await;
    let out = conn
        .call("ponder", &json!({"polls": 14}), &CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("ponder: {e}"));
    assert_eq!(text(&out), "pondered 14");
    conn.stop().await;
}

/// Still at it for ever: the call's timeout ends it (counted from the first
/// such answer), as for a server that says nothing.
#[tokio::test]
async fn a_tool_still_at_it_for_ever_times_out() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = crate::common::connect(&fixture(&[], dir.path())).await;
    let options = CallOptions {
        timeout: Some(std::time::Duration::from_secs(2)),
        ..CallOptions::default()
    };
    let began = std::time::Instant::now();
    let err = conn
        .call("ponder", &json!({"polls": 1_000_000}), &options)
        .await
        .expect_err("never done");
    // The timeout's, not the ceiling's (ten timeouts).
    assert!(
        matches!(err, atelier_mcp::McpError::Timeout { after } if after == std::time::Duration::from_secs(2)),
        "a timeout after 2 s, not {err:?}"
    );
    assert!(
        began.elapsed() < std::time::Duration::from_secs(8),
        "ended by the timeout"
    );
    conn.stop().await;
}

/// Still at it, but reporting progress with each answer: news, so it is
/// polled past its timeout (as a call reporting progress runs past it),
/// within the ceiling. Before, the clock of the answers that ask nothing
/// never started again.
#[tokio::test]
async fn a_tool_still_at_it_with_progress_runs_past_its_timeout() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = crate::common::connect(&fixture(&[], dir.path())).await;
    let options = CallOptions {
        timeout: Some(std::time::Duration::from_secs(1)),
        ..CallOptions::default()
    };
    let began = std::time::Instant::now();
    let out = conn
        .call("ponder", &json!({"polls": 12, "progress": true}), &options)
        .await
        .unwrap_or_else(|e| panic!("ponder with progress: {e}"));
    assert_eq!(text(&out), "pondered 12");
    assert!(
        began.elapsed() > std::time::Duration::from_secs(1),
        "it did take longer than the timeout"
    );
    conn.stop().await;
}
