//! A model behaving badly against the chat engine: calls without an id or
//! repeating one, arguments that are not JSON, names near the offered ones
//! or none, an empty answer, a turn of reasoning alone. Each is followed by
//! what a person sees (the run's events, its records, how it ends) and by
//! what the next request teaches the model.

use atelier_core::conversation::{ChatEvent, RunStatus};
use atelier_core::model::{ContentPart, Role};
use atelier_llm::replay::{ReplayServer, Reply};
use serde_json::{Value, json};

use crate::Env;
use crate::conversation::{answer, chunk, opts, setup};

/// A turn of calls, each `(id, name, arguments as streamed)`; no id: the
/// server sends none.
fn turn(list: &[(Option<&str>, &str, &str)]) -> Reply {
    let mut events: Vec<String> = list
        .iter()
        .enumerate()
        .map(|(i, (id, name, args))| {
            let mut call = json!({"index": i, "type": "function", "function": {"name": name, "arguments": args}});
            if let Some(id) = id {
                call["id"] = json!(id);
            }
            chunk(json!({"tool_calls": [call]}), None)
        })
        .collect();
    events.push(chunk(json!({}), Some("tool_calls")));
    events.push("data: [DONE]".to_owned());
    Reply::sse(&events)
}

fn write(path: &str) -> String {
    json!({"path": path, "content": path}).to_string()
}

/// Runs `text` in `chat`, keeping every event.
async fn run(
    app: &atelier_core::Atelier,
    chat: &str,
    text: &str,
) -> (atelier_core::conversation::RunOutcome, Vec<ChatEvent>) {
    let mut events = Vec::new();
    let out = app
        .conversation()
        .send(chat, text, opts(), &mut |e: &ChatEvent| events.push(e.clone()))
        .await
        .expect("send");
    (out, events)
}

/// The model's calls the saved turns hold, in order: (call id, name, arguments).
fn model_calls(out: &atelier_core::conversation::RunOutcome) -> Vec<(String, String, Value)> {
    out.messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| &m.content)
        .filter_map(|p| match p {
            ContentPart::ModelCall {
                call_id,
                name,
                arguments,
                ..
            } => Some((call_id.clone(), name.clone(), arguments.clone())),
            _ => None,
        })
        .collect()
}

/// A server that sends no call ids gives `call_0` on every turn, and a
/// model may repeat an id within a turn: each call is announced, followed
/// and kept under an id of its own (a front door that follows calls by id
/// showed the second on the first's finished card, its Approve/Deny
/// never drawn), and the next request pairs every result with its call
/// (the second was re-sent as a made-up `hand_…` call).
#[tokio::test]
async fn calls_without_an_id_or_repeating_one_are_each_followed_under_their_own() {
    let env = Env::new();
    let server = ReplayServer::start(vec![
        turn(&[(None, "write_file", &write("a.txt"))]),
        turn(&[
            (Some("dup"), "write_file", &write("b.txt")),
            (Some("dup"), "write_file", &write("c.txt")),
        ]),
        turn(&[(None, "write_file", &write("d.txt"))]),
        answer("Wrote four files."),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let (out, events) = run(&app, &chat, "write four files").await;
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);

    let proposed: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            ChatEvent::ToolCallProposed { call_id, .. } => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(proposed, ["call_0", "dup", "dup_2", "call_0_2"]);
    let kept: Vec<String> = model_calls(&out).into_iter().map(|(id, ..)| id).collect();
    assert_eq!(kept, proposed, "the saved turns name the calls as announced");
    // Every call's own events (its start, its end) reach it by its id.
    for id in &proposed {
        let started = events.iter().any(|e| {
            matches!(e, ChatEvent::ToolCallEvent { model_call_id, event }
                if model_call_id == id && matches!(event, atelier_core::tools::RunEvent::Started { .. }))
        });
        assert!(started, "call {id} was followed: {events:#?}");
    }
    let ws = app.workspace_dir(&chat);
    for f in ["a.txt", "b.txt", "c.txt", "d.txt"] {
        assert!(ws.join(f).is_file(), "{f} written");
    }

    // The last request: every call once, each answered by its own result.
    let last = server.requests().last().expect("requests").json();
    let sent = last["messages"].to_string();
    assert!(!sent.contains("hand_"), "no call made up for a repeated id: {sent}");
    let calls: Vec<&str> = last["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().into_iter().flatten())
        .filter_map(|c| c["id"].as_str())
        .collect();
    let results: Vec<&str> = last["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["tool_call_id"].as_str())
        .collect();
    assert_eq!(calls, proposed);
    assert_eq!(results, proposed);
}
