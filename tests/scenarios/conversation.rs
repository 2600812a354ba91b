//! The chat engine against a loopback model server that records every
//! request: a tool loop that writes files and ends in an answer, branch
//! isolation (a sibling's text, calls and results never in a request), a
//! tool turn's reasoning and call extras sent back (DeepSeek, Gemini 3),
//! pairing after a stop cut a turn, hand runs in the history, the step
//! limit, and a stopped stream kept. Shared helpers for every scenario
//! with a scripted model.

use std::time::Duration;

use atelier_core::Atelier;
use atelier_core::agents::AgentSpec;
use atelier_core::conversation::{ChatEvent, RunStatus, SendOptions};
use atelier_core::model::{ContentPart, Role};
use atelier_core::providers::ProviderSpec;
use atelier_core::tools::Approval;
use atelier_llm::replay::{ReplayServer, Reply};
use serde_json::{Value, json};

use crate::Env;

pub(crate) fn chunk(delta: Value, finish: Option<&str>) -> String {
    format!(
        "data: {}",
        json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    )
}

/// A turn that calls `write_file` once per `(call id, path, content)`.
pub(crate) fn calls(list: &[(&str, &str, &str)]) -> Reply {
    let mut events: Vec<String> = list
        .iter()
        .enumerate()
        .map(|(i, (id, path, content))| {
            chunk(
                json!({"tool_calls": [{"index": i, "id": id, "type": "function", "function": {
                    "name": "write_file", "arguments": json!({"path": path, "content": content}).to_string()}}]}),
                None,
            )
        })
        .collect();
    events.push(chunk(json!({}), Some("tool_calls")));
    events.push("data: [DONE]".into());
    Reply::sse(&events)
}

pub(crate) fn answer(text: &str) -> Reply {
    Reply::sse(&[
        chunk(json!({"content": text}), None),
        chunk(json!({}), Some("stop")),
        "data: [DONE]".to_owned(),
    ])
}

pub(crate) async fn setup(env: &Env, server: &ReplayServer, max_steps: u32) -> (Atelier, String) {
    let app = env.app().await;
    app.providers()
        .add(&ProviderSpec {
            id: "local".into(),
            base_url: Some(server.url("/v1")),
            default_model: Some("tiny".into()),
            ..Default::default()
        })
        .await
        .expect("provider");
    let mut spec = AgentSpec::new("writer", "Writer");
    spec.tools = vec!["write_file".into(), "read_file".into()];
    spec.system_prompt = "You write files.".into();
    spec.max_steps = max_steps;
    app.agents().create(&spec).await.expect("agent");
    // Titled: naming a new chat would be one more request.
    let chat = app.chats().create(Some("Test")).await.expect("chat").id;
    (app, chat)
}

pub(crate) fn opts() -> SendOptions {
    SendOptions {
        agent_id: Some("writer".into()),
        approval: Approval::Approved,
        ..Default::default()
    }
}

pub(crate) async fn send(
    app: &Atelier,
    chat: &str,
    text: &str,
    o: SendOptions,
) -> atelier_core::conversation::RunOutcome {
    let mut ignore = |_: &ChatEvent| {};
    app.conversation().send(chat, text, o, &mut ignore).await.expect("send")
}

/// Sends `text` in the background and returns once the answer streams
/// (its first text delta arrived).
pub(crate) async fn send_streaming(
    app: &Atelier,
    chat: &str,
    text: &str,
    o: SendOptions,
) -> tokio::task::JoinHandle<atelier_core::Result<atelier_core::conversation::RunOutcome>> {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (app, chat, text) = (app.clone(), chat.to_owned(), text.to_owned());
    let running = tokio::spawn(async move {
        let mut on = |e: &ChatEvent| {
            if matches!(e, ChatEvent::TextDelta { .. }) {
                let _ = tx.send(());
            }
        };
        app.conversation().send(&chat, &text, o, &mut on).await
    });
    rx.recv().await.expect("the answer began to stream");
    running
}

#[tokio::test]
async fn a_tool_loop_writes_files_and_ends_in_an_answer() {
    let env = Env::new();
    let server = ReplayServer::start(vec![
        calls(&[("call_a", "a.txt", "one")]),
        calls(&[("call_b", "b.txt", "two")]),
        answer("Wrote a.txt and b.txt."),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let mut events = Vec::new();
    let mut on = |e: &ChatEvent| events.push(e.clone());
    let out = app
        .conversation()
        .send(&chat, "make two files", opts(), &mut on)
        .await
        .expect("send");
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let roles: Vec<Role> = out.messages.iter().map(|m| m.role).collect();
    use Role::{Assistant as A, Tool as T, User as U};
    assert_eq!(roles, [U, A, T, A, T, A]);
    assert_eq!(out.messages[5].text(), "Wrote a.txt and b.txt.");
    let ws = app.workspace_dir(&chat);
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).expect("a"), "one");
    assert_eq!(std::fs::read_to_string(ws.join("b.txt")).expect("b"), "two");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, ChatEvent::TextDelta { text } if text.contains("Wrote")))
    );
    assert!(matches!(
        events.last(),
        Some(ChatEvent::RunFinished {
            status: RunStatus::Complete,
            ..
        })
    ));

    // Each request carries the branch so far, well paired.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let first = reqs[0].json();
    assert_eq!(first["model"], "tiny");
    assert_eq!(
        first["messages"][0],
        json!({"role": "system", "content": "You write files."})
    );
    assert_eq!(
        first["messages"][1],
        json!({"role": "user", "content": "make two files"})
    );
    let tool_names: Vec<&str> = first["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert_eq!(tool_names, ["read_file", "write_file"]);
    let third = reqs[2].json();
    let msgs = third["messages"].as_array().expect("messages");
    assert_eq!(msgs[2]["tool_calls"][0]["id"], "call_a");
    assert_eq!(msgs[3]["role"], "tool");
    assert_eq!(msgs[3]["tool_call_id"], "call_a");
    assert_eq!(msgs[5]["tool_call_id"], "call_b");
    assert_eq!(msgs.len(), 6);
}

/// DeepSeek's thinking mode and Gemini 3 refuse the request after a tool
/// call (400 "Missing `reasoning_content` field", "missing a
/// thought_signature") unless the turn that made it comes back with its
/// reasoning and each call with what the provider put on it: in the run's
/// next request, and in a later run's, read back from the database.
#[tokio::test]
async fn a_tool_turn_s_reasoning_and_call_extras_go_back_to_the_model() {
    let env = Env::new();
    let signature = json!({"google": {"thought_signature": "EoYCCoMCARFNMg"}});
    let tool_turn = Reply::sse(&[
        chunk(
            json!({"role": "assistant", "reasoning_content": "I should write a.txt."}),
            None,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_g", "type": "function", "function": {
                "name": "write_file", "arguments": json!({"path": "a.txt", "content": "one"}).to_string()},
                "extra_content": signature}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
        "data: [DONE]".to_owned(),
    ]);
    let server = ReplayServer::start(vec![tool_turn, answer("Wrote a.txt."), answer("You are welcome.")])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let out = send(&app, &chat, "write a.txt", opts()).await;
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let out = send(&app, &chat, "thanks", opts()).await;
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);

    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    for (i, r) in reqs.iter().enumerate().skip(1) {
        let body = r.json();
        let turn = &body["messages"][2];
        assert_eq!(turn["tool_calls"][0]["id"], "call_g", "request {i}: {turn}");
        assert_eq!(
            turn["reasoning_content"], "I should write a.txt.",
            "request {i}: {turn}"
        );
        assert_eq!(turn["tool_calls"][0]["extra_content"], signature, "request {i}: {turn}");
    }
    // The answer without calls goes back as it was.
    let last = reqs[2].json();
    assert_eq!(
        last["messages"][4],
        json!({"role": "assistant", "content": "Wrote a.txt."})
    );
}

#[tokio::test]
async fn a_sibling_branch_never_reaches_a_request() {
    let env = Env::new();
    let server = ReplayServer::start(vec![
        calls(&[("call_s", "secret-plan.txt", "SIBLING-CONTENT")]),
        answer("Saved the SIBLING plan."),
        answer("Fresh answer."),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let first = send(&app, &chat, "write the SIBLING plan", opts()).await;
    assert_eq!(first.status, RunStatus::Complete);
    let root = app.chats().get(&chat).await.expect("chat").root_message_id;
    // A new branch from the root: nothing of the first one may be sent.
    let o = SendOptions {
        parent_id: Some(root),
        ..opts()
    };
    let second = send(&app, &chat, "another question", o).await;
    assert_eq!(
        second.messages.last().map(|m| m.text()),
        Some("Fresh answer.".to_owned())
    );
    let body = server.requests()[2].body.clone();
    for leaked in ["SIBLING", "secret-plan", "call_s"] {
        assert!(!body.contains(leaked), "{leaked} leaked into {body}");
    }
    assert!(
        !app.workspace_dir(&chat).join("secret-plan.txt").exists(),
        "the workspace follows the branch"
    );
}

#[tokio::test]
async fn a_stop_between_calls_leaves_a_well_paired_transcript() {
    let env = Env::new();
    let server = ReplayServer::start(vec![
        calls(&[("call_1", "one.txt", "1"), ("call_2", "two.txt", "2")]),
        answer("ok"),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let o = opts();
    let stop = o.cancel.clone();
    let mut on = |e: &ChatEvent| {
        if matches!(e, ChatEvent::ToolCallFinished { .. }) {
            stop.cancel();
        }
    };
    let out = app
        .conversation()
        .send(&chat, "two files", o, &mut on)
        .await
        .expect("send");
    assert_eq!(out.status, RunStatus::Stopped);
    assert_eq!(out.tool_calls.len(), 1, "the second call never ran");
    assert!(!app.workspace_dir(&chat).join("two.txt").exists());

    let next = send(&app, &chat, "go on", opts()).await;
    assert_eq!(next.status, RunStatus::Complete);
    let body = server.requests()[1].json();
    let msgs = body["messages"].as_array().expect("messages");
    let results: Vec<(&str, &str)> = msgs
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap_or(""),
                m["content"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(results.len(), 2, "every call has exactly one result: {msgs:?}");
    assert_eq!(results[0].0, "call_1");
    assert_eq!(
        results[1],
        ("call_2", "Error: cancelled by the user: this call did not run")
    );
}

#[tokio::test]
async fn a_hand_run_reaches_the_model_as_a_call_and_its_result() {
    let env = Env::new();
    let server = ReplayServer::start(vec![answer("I see notes.txt.")])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let ran = app
        .tools()
        .run(atelier_core::tools::RunRequest {
            chat_id: chat.clone(),
            tool_id: "write_file".into(),
            args: json!({"path": "notes.txt", "content": "by hand"}),
            parent_id: None,
            approval: Approval::Approved,
            control: Default::default(),
            model_call_id: None,
        })
        .await
        .expect("run");
    assert_eq!(ran.status.as_str(), "success");
    send(&app, &chat, "what did I write?", opts()).await;
    let body = server.requests()[0].json();
    let msgs = body["messages"].as_array().expect("messages");
    // Providers want the person first (Anthropic refuses anything else).
    assert_eq!(msgs[1]["role"], "user");
    assert!(
        msgs[1]["content"].as_str().unwrap_or("").contains("ran by hand"),
        "{}",
        msgs[1]
    );
    assert_eq!(msgs[2]["tool_calls"][0]["function"]["name"], "write_file");
    let id = msgs[2]["tool_calls"][0]["id"].as_str().expect("id");
    assert_eq!(msgs[3]["role"], "tool");
    assert_eq!(msgs[3]["tool_call_id"], id);
    assert_eq!(msgs[4], json!({"role": "user", "content": "what did I write?"}));
}

#[tokio::test]
async fn the_step_limit_ends_a_run_with_a_note() {
    let env = Env::new();
    let server = ReplayServer::start(vec![calls(&[("call_x", "x.txt", "x")])])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 2).await;
    let out = send(&app, &chat, "loop forever", opts()).await;
    assert_eq!(out.status, RunStatus::StepLimit);
    assert_eq!(server.requests().len(), 2);
    let note = out.messages.last().expect("note").text();
    assert!(note.contains("Stopped after 2 model steps"), "{note}");
}

#[tokio::test]
async fn a_stopped_stream_keeps_its_text_and_a_failure_its_error() {
    let env = Env::new();
    let words: Vec<String> = (0..40)
        .map(|i| chunk(json!({"content": format!("w{i} ")}), None))
        .collect();
    let server = ReplayServer::start(vec![
        Reply::sse(&words).delayed(Duration::from_millis(15)),
        Reply::json(401, &json!({"error": {"message": "bad key"}})),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let o = opts();
    let stop = o.cancel.clone();
    let mut seen = 0;
    let mut on = |e: &ChatEvent| {
        if matches!(e, ChatEvent::TextDelta { .. }) {
            seen += 1;
            if seen == 2 {
                stop.cancel();
            }
        }
    };
    let out = app.conversation().send(&chat, "talk", o, &mut on).await.expect("send");
    assert_eq!(out.status, RunStatus::Stopped);
    let last = out.messages.last().expect("assistant");
    assert_eq!((last.role, last.text()), (Role::Assistant, "w0 w1 ".to_owned()));
    assert!(last.content.iter().all(|p| matches!(p, ContentPart::Text { .. })));

    let failed = send(&app, &chat, "again", opts()).await;
    assert_eq!(failed.status, RunStatus::Failed);
    assert_eq!(failed.error_kind.as_deref(), Some("auth"));
    assert!(
        failed
            .error
            .as_deref()
            .unwrap_or("")
            .contains("check the API key of provider local")
    );
}
