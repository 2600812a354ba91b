//! A stdio server writing a message over the 16 MiB a message may be, from
//! `tests/mcp/fixture_server.py`: the request it answers fails at once with
//! words saying so, not after its timeout.
//!
//! - [`an_answer_over_the_limit_fails_its_call_at_once_and_the_session_goes_on`]
//! - [`a_line_over_the_limit_that_answers_nothing_restarts_the_server`]

use std::time::{Duration, Instant};

use atelier_mcp::{CallOptions, Connection, McpError, Status, Supervisor, SupervisorOptions};
use serde_json::json;

use crate::common::{fixture, quick, text};
use crate::servers::group_alive;

/// A timeout the call must not need: the error comes long before it.
fn patient() -> CallOptions {
    CallOptions {
        timeout: Some(Duration::from_secs(120)),
        ..Default::default()
    }
}

/// `what`, or a failed test well before `patient`'s timeout.
async fn within<T>(what: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), what)
        .await
        .expect("the call ended long before its timeout")
}

#[tokio::test]
async fn an_answer_over_the_limit_fails_its_call_at_once_and_the_session_goes_on() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = Connection::connect("big", &fixture(&[], dir.path()), &quick(), Default::default(), None)
        .await
        .expect("the server starts");
    let err = within(conn.call("huge", &json!({"megabytes": 17}), &patient()))
        .await
        .expect_err("17 MiB is over the limit");
    assert!(matches!(err, McpError::TooLarge { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "MCP server big answered with a message of more than 16 MiB, over the 16 MiB a message from a server may \
         be: the answer was dropped and the request failed"
    );
    // The stream went on: the same session answers the next call.
    let out = within(conn.call("echo", &json!({"text": "still here"}), &patient()))
        .await
        .expect("echo");
    assert_eq!(text(&out), "still here");
    let stderr = conn.stderr();
    assert!(
        stderr
            .iter()
            .any(|l| l.starts_with("[atelier] dropped an answer of 34.0 MiB from stdout")),
        "{stderr:?}"
    );
    conn.stop().await;
}

#[tokio::test]
async fn a_line_over_the_limit_that_answers_nothing_restarts_the_server() {
    let dir = tempfile::tempdir().expect("temp dir");
    let options = SupervisorOptions {
        connect: quick(),
        backoff_start: Duration::from_secs(1),
        ..Default::default()
    };
    let sup = Supervisor::start("noisy", fixture(&[], dir.path()), options, None);
    sup.ready().await.expect("starts");
    let first = sup.pid().expect("pid");
    let err = within(sup.call("garbage", &json!({"megabytes": 17}), &patient()))
        .await
        .expect_err("no answer can be read");
    let said = err.to_string();
    assert!(
        said.starts_with("MCP server noisy: it wrote a message of 17 MiB to stdout, over the 16 MiB")
            && said.contains("answers no request Atelier can tell"),
        "{said}"
    );
    // Said in its status, and restarted as a new process.
    let status = sup.status();
    let Status::Error { message, retry_in } = &status else {
        panic!("after the broken stream: {status:?}")
    };
    assert!(message == &said && retry_in.is_some(), "{status:?}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !matches!(sup.status(), Status::Connected { .. }) {
        assert!(Instant::now() < deadline, "no restart: {:?}", sup.status());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let out = within(sup.call("echo", &json!({"text": "again"}), &patient()))
        .await
        .expect("echo");
    assert_eq!(text(&out), "again");
    assert!(!group_alive(first), "the old process was stopped");
    sup.stop().await;
}
