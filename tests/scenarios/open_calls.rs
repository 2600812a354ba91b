//! A call still open elsewhere: while one run's call waits for the
//! person's approval (or runs), a message sent to the same chat from
//! another process tells the model the call has not ended — not that the
//! person cancelled it.

use atelier_core::conversation::{ChatEvent, RunStatus, SendOptions};
use atelier_core::tools::{Approval, Policy, RunEvent};
use atelier_llm::replay::ReplayServer;

use crate::Env;
use crate::conversation::{answer, calls, opts, send, setup};

/// What the request's tool message for `call_id` says.
fn result_of(body: &serde_json::Value, call_id: &str) -> String {
    body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_waiting_for_approval_in_one_run_is_told_waiting_to_the_next_send() {
    let env = Env::new();
    let server = ReplayServer::start(vec![calls(&[("call_wait", "w.txt", "x")]), answer("It still waits.")])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    app.tools().set_policy("write_file", Policy::Ask).await.expect("ask");

    // One run (the CLI's `chat send`) whose call waits for Approve or Deny.
    let (tx, mut waiting) = tokio::sync::mpsc::unbounded_channel();
    let first = {
        let (app, chat) = (app.clone(), chat.clone());
        tokio::spawn(async move {
            let mut on = |e: &ChatEvent| {
                if let ChatEvent::ToolCallEvent {
                    event: RunEvent::AwaitingApproval { .. },
                    ..
                } = e
                {
                    let _ = tx.send(());
                }
            };
            let o = SendOptions {
                approval: Approval::Wait,
                ..opts()
            };
            app.conversation().send(&chat, "write it", o, &mut on).await
        })
    };
    waiting.recv().await.expect("the call waits for its answer");

    // The app, another process on the same data dir, sends meanwhile.
    let other = env.app().await;
    let next = send(&other, &chat, "what about the file?", opts()).await;
    assert_eq!(next.status, RunStatus::Complete, "{:?}", next.error);
    let said = result_of(&server.requests()[1].json(), "call_wait");
    assert!(
        said.contains("waits for the user's approval") && !said.contains("cancelled"),
        "the model hears the call is still open: {said}"
    );

    // Stopped, the call is cancelled: a later request says so.
    assert!(app.conversation().stop(&chat));
    let out = first.await.expect("task").expect("send");
    assert_eq!(out.status, RunStatus::Stopped, "{:?}", out.error);
    assert!(!app.workspace_dir(&chat).join("w.txt").exists());
}
