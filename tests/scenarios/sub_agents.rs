//! Sub-agents: `spawn_agents` runs each task as a child run in a thread of
//! its own (out of the main tree and its context), without holding the
//! chat lock while children call tools, and the depth limit is enforced by
//! the backend; a spawn is stopped by its call's cancel, and one whose
//! process died is recovered without leaving its lock file.

use std::time::Duration;

use atelier_core::Atelier;
use atelier_core::conversation::{ChatEvent, RunStatus, SendOptions};
use atelier_core::model::Role;
use atelier_llm::replay::{ReplayServer, Reply};
use serde_json::{Value, json};

use crate::Env;
use crate::conversation::{answer, calls, chunk, opts, send, setup};

/// A turn that calls one tool with these arguments.
fn call_one(id: &str, name: &str, args: serde_json::Value) -> Reply {
    Reply::sse(&[
        chunk(
            json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
                "function": {"name": name, "arguments": args.to_string()}}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
        "data: [DONE]".to_owned(),
    ])
}

/// A child's model that talks for about six seconds: time to stop it.
fn talking() -> Reply {
    let words: Vec<String> = (0..200)
        .map(|i| chunk(json!({"content": format!("w{i} ")}), None))
        .collect();
    Reply::sse(&words).delayed(Duration::from_millis(30))
}

/// Agent `lead` (may spawn) and agent `helper`; `send` as `lead` runs in
/// a task of its own, and the receiver hears each sub-agent text delta.
async fn lead_sends_in_background(
    app: &Atelier,
    chat: &str,
) -> (
    tokio::task::JoinHandle<atelier_core::Result<atelier_core::conversation::RunOutcome>>,
    tokio::sync::mpsc::UnboundedReceiver<()>,
) {
    use atelier_core::agents::AgentSpec;
    let mut lead = AgentSpec::new("lead", "Lead");
    lead.tools = vec!["spawn_agents".into()];
    app.agents().create(&lead).await.expect("lead");
    app.agents()
        .create(&AgentSpec::new("helper", "Helper"))
        .await
        .expect("helper");
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let (app, chat) = (app.clone(), chat.to_owned());
    let running = tokio::spawn(async move {
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
    });
    (running, rx)
}

/// The id of the chat's `spawn_agents` call.
async fn spawn_call(app: &Atelier, chat: &str) -> String {
    app.tools()
        .calls(chat)
        .await
        .expect("calls")
        .into_iter()
        .find(|c| c.tool_id == "spawn_agents")
        .expect("the spawn's call")
        .id
}

#[tokio::test]
async fn a_sub_agent_works_in_its_own_thread_and_its_answer_is_the_result() {
    use atelier_core::agents::AgentSpec;
    let env = Env::new();
    let server = ReplayServer::start(vec![
        call_one(
            "call_spawn",
            "spawn_agents",
            json!({"tasks": [{"agent": "helper", "task": "Write h.txt saying hi"}]}),
        ),
        calls(&[("call_h", "h.txt", "from the helper")]),
        answer("Helper wrote h.txt."),
        answer("The helper did it."),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let mut lead = AgentSpec::new("lead", "Lead");
    lead.tools = vec!["spawn_agents".into(), "list_available_agents".into()];
    lead.system_prompt = "You delegate.".into();
    app.agents().create(&lead).await.expect("lead");
    let mut helper = AgentSpec::new("helper", "Helper");
    helper.tools = vec!["write_file".into()];
    helper.system_prompt = "You help.".into();
    app.agents().create(&helper).await.expect("helper");

    let mut events = Vec::new();
    let o = SendOptions {
        agent_id: Some("lead".into()),
        ..opts()
    };
    // A spawn holding the chat lock while its child writes would hang here.
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        app.conversation()
            .send(&chat, "PARENT-ONLY delegate the file", o, &mut |e: &ChatEvent| {
                events.push(e.clone())
            }),
    )
    .await
    .expect("no deadlock")
    .expect("send");
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let roles: Vec<Role> = out.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool, Role::Assistant]);
    assert_eq!(out.messages[3].text(), "The helper did it.");
    let spawn = &out.tool_calls[0];
    assert_eq!(
        (spawn.tool_id.as_str(), spawn.status.as_str()),
        ("spawn_agents", "success")
    );
    let result = spawn.result.clone().expect("result");
    assert_eq!(result["results"][0]["answer"], "Helper wrote h.txt.");
    assert_eq!(result["results"][0]["status"], "complete");
    // The child's file is in the workspace, and in the spawn's own state.
    assert_eq!(
        std::fs::read_to_string(app.workspace_dir(&chat).join("h.txt")).expect("h.txt"),
        "from the helper"
    );
    let at_spawn = app
        .workspace()
        .list_files(&chat, spawn.node_id.as_deref())
        .await
        .expect("files at the spawn");
    assert!(at_spawn.iter().any(|f| f.path == "h.txt"), "{at_spawn:?}");
    // The child saw its task, not the parent's conversation.
    let child_body = server.requests()[1].body.clone();
    assert!(child_body.contains("Write h.txt saying hi") && child_body.contains("You help."));
    assert!(!child_body.contains("PARENT-ONLY"), "{child_body}");
    // The parent's answer got the child's answer as the call's result.
    assert!(server.requests()[3].body.contains("Helper wrote h.txt."));
    // The thread stays out of the main tree: no child message in it, and
    // the chat is at the parent's answer.
    let tree = app.chats().tree(&chat).await.expect("tree");
    assert_eq!(tree.len(), 5, "root + the four messages of the parent run");
    assert!(tree.iter().all(|n| n.message.thread_id.is_none()));
    let c = app.chats().get(&chat).await.expect("chat");
    assert_eq!(c.active_leaf_message_id, out.messages[3].id);
    // The front door heard the child's steps, marked as a sub-agent's.
    assert!(events.iter().any(|e| matches!(
        e,
        ChatEvent::SubAgent { agent_id, depth: 1, event, .. }
            if agent_id == "helper" && matches!(**event, ChatEvent::ToolCallFinished { .. })
    )));
}

/// A fork takes the sub-agent threads its spawns started: their messages
/// and calls, with the spawn's result naming the fork's copies — readable
/// after the source chat is gone.
#[tokio::test]
async fn a_fork_keeps_the_sub_agent_threads_of_its_spawns_after_the_source_is_deleted() {
    use atelier_core::agents::AgentSpec;
    let env = Env::new();
    let server = ReplayServer::start(vec![
        call_one(
            "call_spawn",
            "spawn_agents",
            json!({"tasks": [{"agent": "helper", "task": "Write h.txt saying hi"}]}),
        ),
        calls(&[("call_h", "h.txt", "from the helper")]),
        answer("Helper wrote h.txt."),
        answer("The helper did it."),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let mut lead = AgentSpec::new("lead", "Lead");
    lead.tools = vec!["spawn_agents".into()];
    app.agents().create(&lead).await.expect("lead");
    let mut helper = AgentSpec::new("helper", "Helper");
    helper.tools = vec!["write_file".into()];
    app.agents().create(&helper).await.expect("helper");
    let o = SendOptions {
        agent_id: Some("lead".into()),
        ..opts()
    };
    let out = app
        .conversation()
        .send(&chat, "delegate", o, &mut |_: &ChatEvent| {})
        .await
        .expect("send");
    let source_thread = out.tool_calls[0].result.clone().expect("result")["results"][0]["thread_id"]
        .as_str()
        .expect("a thread id")
        .to_owned();

    let fork = app
        .conversation()
        .fork(&chat, &out.messages[3].id, None)
        .await
        .expect("fork");
    app.chats().delete(&chat).await.expect("delete the source");
    let spawn = app
        .tools()
        .calls(&fork.id)
        .await
        .expect("calls")
        .into_iter()
        .find(|c| c.tool_id == "spawn_agents")
        .expect("the fork's spawn");
    let thread = spawn.result.expect("result")["results"][0]["thread_id"]
        .as_str()
        .expect("a thread id")
        .to_owned();
    assert_ne!(thread, source_thread, "the fork's own copy");
    let messages = app.conversation().thread(&fork.id, &thread).await.expect("the thread");
    let roles: Vec<Role> = messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::System, Role::User, Role::Assistant, Role::Tool, Role::Assistant],
        "{messages:?}"
    );
    assert_eq!(messages[1].text(), "Write h.txt saying hi");
    assert_eq!(messages[4].text(), "Helper wrote h.txt.");
    // The child's call is the fork's, with its workspace state.
    let child_call = app
        .tools()
        .calls(&fork.id)
        .await
        .expect("calls")
        .into_iter()
        .find(|c| c.tool_id == "write_file")
        .expect("the child's call, copied");
    let files = app
        .workspace()
        .list_files(&fork.id, child_call.node_id.as_deref())
        .await
        .expect("files at the child's call");
    assert!(files.iter().any(|f| f.path == "h.txt"), "{files:?}");
    assert!(
        app.conversation().thread(&fork.id, &source_thread).await.is_err(),
        "nothing of the source's ids"
    );
}

/// An agent with `max_depth: 0` is not offered `spawn_agents` (every
/// call would be refused), and a model calling it anyway runs nothing.
#[tokio::test]
async fn an_agent_at_its_depth_limit_is_not_offered_spawn_agents_and_a_call_runs_nothing() {
    use atelier_core::agents::AgentSpec;
    let env = Env::new();
    let server = ReplayServer::start(vec![
        call_one(
            "call_spawn",
            "spawn_agents",
            json!({"tasks": [{"agent": "writer", "task": "anything"}]}),
        ),
        answer("I could not delegate."),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let mut lead = AgentSpec::new("flat", "Flat");
    lead.tools = vec!["spawn_agents".into()];
    lead.max_depth = 0;
    app.agents().create(&lead).await.expect("agent");
    let o = SendOptions {
        agent_id: Some("flat".into()),
        ..opts()
    };
    let out = send(&app, &chat, "delegate", o).await;
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let offered: Value = serde_json::from_str(&server.requests()[0].body).expect("json");
    assert_eq!(offered.get("tools"), None, "no tool offered: {offered}");
    let spawn = &out.tool_calls[0];
    assert_eq!(
        (spawn.status.as_str(), spawn.error.as_deref()),
        ("error", Some("Tool not found: spawn_agents"))
    );
    assert_eq!(server.requests().len(), 2, "no child run started");
}

#[tokio::test]
async fn cancelling_a_spawn_by_its_call_stops_its_children_and_the_run_goes_on() {
    let env = Env::new();
    let server = ReplayServer::start(vec![
        call_one(
            "call_spawn",
            "spawn_agents",
            json!({"tasks": [{"agent": "helper", "task": "talk for a while"},
                             {"agent": "helper", "task": "SECOND-TASK"}]}),
        ),
        talking(),
        answer("Stopped delegating."),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let (running, mut rx) = lead_sends_in_background(&app, &chat).await;
    rx.recv().await.expect("the child is talking");
    assert!(
        app.tools().cancel(&spawn_call(&app, &chat).await),
        "the spawn is cancellable"
    );
    let out = tokio::time::timeout(Duration::from_secs(20), running)
        .await
        .expect("the child stopped")
        .expect("task")
        .expect("send");
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    assert_eq!(
        out.messages.last().map(|m| m.text()).as_deref(),
        Some("Stopped delegating.")
    );
    let call = &out.tool_calls[0];
    assert_eq!(call.status.as_str(), "cancelled", "{call:?}");
    let error = call.error.clone().unwrap_or_default();
    assert!(error.contains("0 of 2 task(s)"), "{error}");
    // The second task never started: no request carried it.
    assert_eq!(server.requests().len(), 3);
    let asked_second = server.requests().iter().any(|r| {
        r.json()["messages"]
            .as_array()
            .is_some_and(|m| m.iter().any(|m| m["content"] == "SECOND-TASK"))
    });
    assert!(!asked_second, "the second child never ran");
}

#[tokio::test]
async fn a_spawn_whose_process_died_is_interrupted_on_the_next_start_and_leaves_no_lock_file() {
    let env = Env::new();
    let server = ReplayServer::start(vec![
        call_one(
            "call_spawn",
            "spawn_agents",
            json!({"tasks": [{"agent": "helper", "task": "talk for a while"}]}),
        ),
        talking(),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let (running, mut rx) = lead_sends_in_background(&app, &chat).await;
    rx.recv().await.expect("the child is talking");
    let spawn_id = spawn_call(&app, &chat).await;
    let own = app.data_dir().chat_dir(&chat).join("waiting").join(&spawn_id);
    assert!(own.is_file(), "a live spawn holds its own lock file");
    running.abort();
    let _ = running.await;
    drop(app);
    // A killed process leaves its lock file behind (an aborted task does not).
    std::fs::write(&own, "").expect("the dead process's file");

    let app = env.app().await;
    let call = app.tools().call(&spawn_id).await.expect("call");
    assert_eq!(call.status.as_str(), "interrupted");
    assert!(!own.exists(), "recovery removed the dead spawn's lock file");
}
