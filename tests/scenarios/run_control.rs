//! A chat run while it runs: a call's start, its wait for confirmation and
//! its answer reach the front door as they happen; Stop while a tool runs
//! cancels it and keeps what it did; a chat answers one run at a time and
//! is stopped by its id; an answer cut at the output limit or stopped by a
//! content filter ends the run saying so.

use std::time::Duration;

use atelier_core::conversation::{ChatEvent, RunStatus, SendOptions};
use atelier_llm::replay::{ReplayServer, Reply};
use serde_json::json;

use crate::Env;
use crate::conversation::{answer, calls, chunk, opts, send, send_streaming, setup};

#[tokio::test]
async fn a_calls_start_its_wait_for_confirmation_and_its_answer_reach_the_front_door() {
    use atelier_core::tools::{Approval, Policy, RunEvent};
    let env = Env::new();
    let server = ReplayServer::start(vec![
        calls(&[("call_ok", "yes.txt", "approved")]),
        calls(&[("call_no", "no.txt", "denied")]),
        answer("One written, one refused."),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    app.tools().set_policy("write_file", Policy::Ask).await.expect("ask");
    let mut events: Vec<ChatEvent> = Vec::new();
    let answerer = app.clone();
    let mut on = |e: &ChatEvent| {
        // The desktop's Approve and Deny buttons: the first call yes, the second no.
        if let ChatEvent::ToolCallEvent {
            model_call_id,
            event: RunEvent::AwaitingApproval { call_id },
        } = e
        {
            assert!(answerer.tools().answer_approval(call_id, model_call_id == "call_ok"));
        }
        events.push(e.clone());
    };
    let o = SendOptions {
        approval: Approval::Wait,
        ..opts()
    };
    let out = app
        .conversation()
        .send(&chat, "write both", o, &mut on)
        .await
        .expect("send");
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let ws = app.workspace_dir(&chat);
    assert!(ws.join("yes.txt").exists() && !ws.join("no.txt").exists());
    // For each call, in order: proposed, started (its row's id), waiting, finished.
    for (model_id, path, status) in [("call_ok", "yes.txt", "success"), ("call_no", "no.txt", "error")] {
        let steps: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                // Named by the tool's id too, for the live card.
                ChatEvent::ToolCallProposed { call_id, tool_id, .. } if call_id == model_id => {
                    Some(format!("proposed {}", tool_id.as_deref().unwrap_or("?")))
                }
                ChatEvent::ToolCallEvent { model_call_id, event } if model_call_id == model_id => match event {
                    RunEvent::Started { .. } => Some("started".to_owned()),
                    RunEvent::AwaitingApproval { .. } => Some("waiting".to_owned()),
                    _ => None,
                },
                ChatEvent::ToolCallFinished { call } if call.args["path"] == path => {
                    Some(format!("finished {}", call.status.as_str()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            steps,
            [
                "proposed write_file",
                "started",
                "waiting",
                &format!("finished {status}")
            ],
            "{model_id}"
        );
    }
    // The model is told the person said no.
    assert!(server.requests()[2].body.contains("the user denied this call"));
}

#[tokio::test]
async fn stop_while_a_tool_runs_cancels_it_and_keeps_what_it_did() {
    use atelier_core::tools::RunEvent;
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let zip = crate::hostile_host::spin_toolset(t.path());
    let server = crate::hostile_host::spin_call_server("Stopped, then asked again.").await;
    let (app, chat) = setup(&env, &server, 25).await;
    app.toolsets().import(&zip, &Default::default()).await.expect("import");
    app.agents().allow_toolset("writer", "spin").await.expect("allow");
    let o = opts();
    let stop = o.cancel.clone();
    let count = app.workspace_dir(&chat).join("count.txt");
    let watched = count.clone();
    let mut on = |e: &ChatEvent| {
        if let ChatEvent::ToolCallEvent {
            event: RunEvent::Started { .. },
            ..
        } = e
        {
            // Stop once the tool has written something.
            let (stop, watched) = (stop.clone(), watched.clone());
            tokio::spawn(async move {
                for _ in 0..600 {
                    if watched.exists() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                stop.cancel();
            });
        }
    };
    let out = app.conversation().send(&chat, "spin", o, &mut on).await.expect("send");
    assert_eq!(out.status, RunStatus::Stopped, "{:?}", out.error);
    assert_eq!(out.tool_calls[0].status.as_str(), "cancelled");
    assert!(count.exists(), "what the tool wrote before the stop is kept");
    // The next request pairs the call with its (cancelled) result.
    let next = send(&app, &chat, "again", opts()).await;
    assert_eq!(next.status, RunStatus::Complete, "{:?}", next.error);
    let body = server.requests()[1].json();
    let messages = body["messages"].as_array().expect("messages");
    let result = messages
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == "call_spin")
        .expect("the call's result");
    assert!(
        result["content"]
            .as_str()
            .unwrap_or("")
            .contains("cancelled by the user"),
        "{result}"
    );
}

#[tokio::test]
async fn a_chat_answers_one_run_at_a_time_and_stops_by_its_id() {
    let env = Env::new();
    let words: Vec<String> = (0..100)
        .map(|i| chunk(json!({"content": format!("w{i} ")}), None))
        .collect();
    let server = ReplayServer::start(vec![Reply::sse(&words).delayed(Duration::from_millis(30))])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let running = send_streaming(&app, &chat, "talk", opts()).await;
    assert!(app.conversation().is_running(&chat));
    let other_model = SendOptions {
        model: Some("another-model".into()),
        ..opts()
    };
    let err = app
        .conversation()
        .send(&chat, "me too", other_model, &mut |_| {})
        .await
        .expect_err("one run at a time");
    assert!(err.to_string().contains("already answering"), "{err}");
    assert_eq!(
        app.chats().get(&chat).await.expect("chat").model,
        None,
        "a refused message does not change the chat's model"
    );
    // The Stop button: by chat.
    assert!(app.conversation().stop(&chat));
    let out = running.await.expect("task").expect("send");
    assert_eq!(out.status, RunStatus::Stopped);
    assert!(out.messages.last().expect("kept").text().starts_with("w0 "));
    assert!(!app.conversation().is_running(&chat));
    assert!(!app.conversation().stop(&chat), "nothing left to stop");
}

#[tokio::test]
async fn stop_pressed_while_a_message_is_still_starting_stops_its_run() {
    let env = Env::new();
    let server = ReplayServer::start(vec![answer("Never asked for.")])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let conversation = app.conversation();
    let mut on = |_: &ChatEvent| {};
    let mut sending = std::pin::pin!(conversation.send(&chat, "hello", opts(), &mut on));
    // Send pressed: the run has been asked for and waits on its first read
    // (the chat), nothing of it started yet.
    let waker = std::task::Waker::noop();
    let first = sending.as_mut().poll(&mut std::task::Context::from_waker(waker));
    assert!(first.is_pending());
    assert!(
        app.conversation().is_running(&chat),
        "a run still starting counts as the chat's run"
    );
    assert!(app.conversation().stop(&chat), "Stop finds a run still starting");
    let out = sending.await.expect("send");
    assert_eq!(out.status, RunStatus::Stopped, "{:?}", out.error);
    // The person's message stays; the model is never asked.
    assert_eq!(out.messages.first().expect("the message").text(), "hello");
    assert!(
        server.requests().is_empty(),
        "the model was asked: {:?}",
        server.requests().len()
    );
    assert!(!app.conversation().is_running(&chat));
}

#[tokio::test]
async fn an_answer_cut_at_the_output_limit_is_kept_and_ends_the_run_saying_so() {
    let env = Env::new();
    // The answer, then a call whose arguments the limit cut in half.
    let cut_call = Reply::sse(&[
        chunk(json!({"content": "Writing it now."}), None),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_cut", "type": "function", "function": {
                "name": "write_file", "arguments": "{\"path\": \"a.txt\", \"content\": \"Once upon"}}]}),
            None,
        ),
        chunk(json!({}), Some("length")),
        "data: [DONE]".to_owned(),
    ]);
    let server = ReplayServer::start(vec![cut_call, answer("never asked")])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let out = send(&app, &chat, "write a story", opts()).await;
    assert_eq!(out.status, RunStatus::Failed);
    assert_eq!(out.error_kind.as_deref(), Some("output_limit"));
    let said = out.error.as_deref().unwrap_or_default();
    assert!(
        said.contains("output limit") && said.contains("provider's default"),
        "{said}"
    );
    assert_eq!(out.messages.last().expect("kept").text(), "Writing it now.");
    // The cut call never ran, and the model was not asked again.
    assert!(out.tool_calls.is_empty(), "{:?}", out.tool_calls);
    assert!(!app.workspace_dir(&chat).join("a.txt").exists());
    assert_eq!(server.requests().len(), 1);
}

/// A content filter (OpenAI `content_filter`, Anthropic `refusal`) ends an
/// answer mid-way: it is kept and said to have been stopped, never saved
/// as a whole answer, and a call in it does not run.
#[tokio::test]
async fn an_answer_a_content_filter_stopped_is_kept_and_said_to_be_refused() {
    let env = Env::new();
    let filtered = Reply::sse(&[
        chunk(json!({"content": "Here is how to"}), None),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_f", "type": "function", "function": {
                "name": "write_file", "arguments": "{\"path\": \"a.txt\", \"content\": \"x\"}"}}]}),
            None,
        ),
        chunk(json!({}), Some("content_filter")),
        "data: [DONE]".to_owned(),
    ]);
    let server = ReplayServer::start(vec![filtered, answer("never asked")])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let out = send(&app, &chat, "tell me", opts()).await;
    assert_eq!(out.status, RunStatus::Failed);
    assert_eq!(out.error_kind.as_deref(), Some("refused"));
    let said = out.error.as_deref().unwrap_or_default();
    assert!(said.contains("declined") && said.contains("content filter"), "{said}");
    assert_eq!(out.messages.last().expect("kept").text(), "Here is how to");
    assert!(out.tool_calls.is_empty(), "{:?}", out.tool_calls);
    assert!(!app.workspace_dir(&chat).join("a.txt").exists());
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn stop_while_a_call_waits_for_its_answer_records_it_cancelled_not_denied() {
    use atelier_core::tools::{Approval, Policy, RunEvent};
    let env = Env::new();
    let server = ReplayServer::start(vec![calls(&[("call_wait", "w.txt", "x")]), answer("never asked")])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    app.tools().set_policy("write_file", Policy::Ask).await.expect("ask");
    let stopper = app.clone();
    let stop_chat = chat.clone();
    let mut on = move |e: &ChatEvent| {
        // Stop pressed while the card waits for Approve or Deny.
        if let ChatEvent::ToolCallEvent {
            event: RunEvent::AwaitingApproval { .. },
            ..
        } = e
        {
            assert!(stopper.conversation().stop(&stop_chat));
        }
    };
    let o = SendOptions {
        approval: Approval::Wait,
        ..opts()
    };
    let out = app
        .conversation()
        .send(&chat, "write it", o, &mut on)
        .await
        .expect("send");
    assert_eq!(out.status, RunStatus::Stopped, "{:?}", out.error);
    let call = out.tool_calls.first().expect("the call is recorded");
    assert_eq!(
        call.error_kind.map(|k| k.as_str()),
        Some("cancelled"),
        "{:?}",
        call.error
    );
    assert!(!app.workspace_dir(&chat).join("w.txt").exists());
}
