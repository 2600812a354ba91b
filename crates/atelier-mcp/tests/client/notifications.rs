//! A call's notifications in the order the server sent them, from
//! `tests/mcp/legacy_server.py`'s `count`, which writes n progress and n log
//! notifications in one burst before its answer. The runtime has several
//! threads, as the app's does: rmcp hands each notification to a task of
//! its own, and those ran in any order.
//!
//! - [`progress_and_logs_of_a_call_arrive_in_order`]

use std::sync::{Arc, Mutex};

use atelier_mcp::{CallOptions, Progress};
use serde_json::json;

use crate::common::{connect, legacy_spec, text};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn progress_and_logs_of_a_call_arrive_in_order() {
    const N: u32 = 150;
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = connect(&legacy_spec(dir.path(), &[])).await;
    let expected_progress: Vec<String> = (1..=N).map(|i| format!("{i}/{N}")).collect();
    let expected_logs: Vec<String> = (1..=N).map(|i| format!("[info] count {i}")).collect();
    for round in 0..5 {
        let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
        let sink = Arc::clone(&seen);
        let options = CallOptions {
            progress: Some(Arc::new(move |p| sink.lock().expect("test").push(p))),
            ..Default::default()
        };
        let out = conn.call("count", &json!({"n": N}), &options).await.expect("count");
        assert_eq!(text(&out), format!("counted {N}"));
        // All of it is there when the answer is: it came before it.
        let shown: Vec<String> = seen
            .lock()
            .expect("test")
            .iter()
            .map(|p| p.message.clone().unwrap_or_default())
            .collect();
        assert_eq!(shown, expected_progress, "round {round}: progress");
        let logs: Vec<String> = out.stderr.into_iter().filter(|l| l.starts_with("[info] ")).collect();
        assert_eq!(logs, expected_logs, "round {round}: log messages");
    }
    conn.stop().await;
}
