//! Where a call belongs: a `spawn_agents` call a crash cut off while the
//! person had checked out an earlier message ends under the model's turn
//! that made it, not wherever the chat is by then; and a call still open on
//! a sibling branch (a retry's answer reused its model call id) is not
//! taken for this branch's.

use std::time::Duration;

use atelier_core::Atelier;
use atelier_core::agents::AgentSpec;
use atelier_core::conversation::{ChatEvent, RunStatus, SendOptions};
use atelier_core::model::Role;
use atelier_core::tools::{Approval, Policy, RunEvent};
use atelier_llm::replay::{ReplayServer, Reply};
use serde_json::json;

use crate::Env;
use crate::conversation::{answer, calls, chunk, opts, send, setup};

/// A turn that calls `spawn_agents` with one task for `helper`.
fn spawn_one(task: &str) -> Reply {
    let args = json!({"tasks": [{"agent": "helper", "task": task}]});
    Reply::sse(&[
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_spawn", "type": "function",
                "function": {"name": "spawn_agents", "arguments": args.to_string()}}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
        "data: [DONE]".to_owned(),
    ])
}

/// A child's model that talks for about six seconds.
fn talking() -> Reply {
    let words: Vec<String> = (0..200)
        .map(|i| chunk(json!({"content": format!("w{i} ")}), None))
        .collect();
    Reply::sse(&words).delayed(Duration::from_millis(30))
}

/// The chat's messages of `role` in the main tree, oldest first.
async fn of_role(app: &Atelier, chat: &str, role: Role) -> Vec<atelier_core::model::Message> {
    let tree = app.chats().tree(chat).await.expect("tree");
    tree.into_iter().map(|n| n.message).filter(|m| m.role == role).collect()
}

/// The person checks out an earlier message while a sub-agent works; the
/// process dies. The next start ends the spawn under the model's turn
/// that called it, claims none of the folder for it, and leaves the
/// person at the message they checked out.
#[tokio::test]
async fn a_spawn_cut_off_by_a_crash_after_a_checkout_ends_under_its_own_turn() {
    let env = Env::new();
    let server = ReplayServer::start(vec![spawn_one("talk for a while"), talking()])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let mut lead = AgentSpec::new("lead", "Lead");
    lead.tools = vec!["spawn_agents".into()];
    app.agents().create(&lead).await.expect("lead");
    app.agents()
        .create(&AgentSpec::new("helper", "Helper"))
        .await
        .expect("helper");
    let ws = app.workspace_dir(&chat);
    crate::write(&ws, "a.txt", "one");
    let earlier = crate::snap(&app, &chat).await.message_id.expect("a node");

    let (tx, mut talks) = tokio::sync::mpsc::unbounded_channel();
    let running = {
        let (app, chat) = (app.clone(), chat.clone());
        tokio::spawn(async move {
            let o = SendOptions {
                agent_id: Some("lead".into()),
                ..opts()
            };
            app.conversation()
                .send(&chat, "delegate", o, &mut |e: &ChatEvent| {
                    if let ChatEvent::SubAgent { event, .. } = e
                        && matches!(**event, ChatEvent::TextDelta { .. })
                    {
                        let _ = tx.send(());
                    }
                })
                .await
        })
    };
    talks.recv().await.expect("the sub-agent is talking");
    let turn = of_role(&app, &chat, Role::Assistant)
        .await
        .pop()
        .expect("the lead's turn");
    let spawn = app
        .tools()
        .calls(&chat)
        .await
        .expect("calls")
        .into_iter()
        .find(|c| c.tool_id == "spawn_agents")
        .expect("the spawn's call")
        .id;
    // The spawn holds no chat lock while its child talks: a checkout goes.
    app.workspace().checkout(&chat, &earlier).await.expect("checkout");
    // The process dies (its own lock file stays, as a killed process's does).
    let own = app.data_dir().chat_dir(&chat).join("waiting").join(&spawn);
    running.abort();
    let _ = running.await;
    drop(app);
    std::fs::write(&own, "").expect("the dead process's lock file");

    let app = env.app().await;
    let call = app.tools().call(&spawn).await.expect("call");
    assert_eq!(call.status.as_str(), "interrupted", "{call:?}");
    let node = app
        .chats()
        .message(&chat, call.message_id.as_deref().expect("its node"))
        .await
        .expect("node");
    assert_eq!(
        node.parent_id.as_deref(),
        Some(turn.id.as_str()),
        "under the turn that called it, not the message checked out since"
    );
    assert_eq!(node.manifest_id, turn.manifest_id, "no change is claimed for it");
    let c = app.chats().get(&chat).await.expect("chat");
    assert_eq!(c.active_leaf_message_id, earlier, "the person stays where they went");
    let error = call.error.unwrap_or_default();
    assert!(error.contains("is not known"), "{error}");
}

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

/// One run's `call_1` waits for the person's approval; meanwhile, in
/// another process, the person retries that answer, the new answer's own
/// `call_1` is cut off by a stop, and the person goes on. The model is
/// told the new branch's `call_1` did not run — not that it waits for an
/// approval, which is the other branch's call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sibling_branchs_open_call_with_the_same_id_is_not_this_branchs() {
    let env = Env::new();
    let server = ReplayServer::start(vec![
        calls(&[("call_1", "w.txt", "x")]),
        calls(&[("call_0", "zero.txt", "0"), ("call_1", "one.txt", "1")]),
        answer("Going on."),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    app.tools().set_policy("write_file", Policy::Ask).await.expect("ask");

    // Branch A: its call_1 waits for Approve or Deny.
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
    let answer_a = of_role(&app, &chat, Role::Assistant).await.pop().expect("A's turn");

    // Branch B, from another process: a retry whose call_1 a stop cuts off.
    let other = env.app().await;
    let o = opts();
    let stop = o.cancel.clone();
    let mut on = |e: &ChatEvent| {
        if matches!(e, ChatEvent::ToolCallFinished { .. }) {
            stop.cancel();
        }
    };
    let retried = other
        .conversation()
        .retry(&chat, &answer_a.id, o, &mut on)
        .await
        .expect("retry");
    assert_eq!(retried.status, RunStatus::Stopped, "{:?}", retried.error);
    assert_eq!(retried.tool_calls.len(), 1, "B's call_1 never ran");
    let next = send(&other, &chat, "go on", opts()).await;
    assert_eq!(next.status, RunStatus::Complete, "{:?}", next.error);
    let said = result_of(&server.requests()[2].json(), "call_1");
    assert_eq!(
        said, "Error: cancelled by the user: this call did not run",
        "B's call_1 is B's, not the call waiting on branch A"
    );

    // Branch A's call still waits, and is stopped.
    assert!(app.conversation().stop(&chat));
    let out = first.await.expect("task").expect("send");
    assert_eq!(out.status, RunStatus::Stopped, "{:?}", out.error);
}
