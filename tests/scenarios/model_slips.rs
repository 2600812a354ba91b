//! A model behaving badly against the chat engine: calls without an id or
//! repeating one, arguments that are not JSON, names near the offered ones
//! or none, an empty or reasoning-only answer. Each is followed by
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

/// A chat whose agent has the builtins to write and read files and the
/// fixture MCP server's tools (`fx.echo`, offered as `fx__echo`), with a
/// scripted model replying `replies`.
async fn with_server(env: &Env, replies: Vec<Reply>) -> (atelier_core::Atelier, String, ReplayServer) {
    let server = ReplayServer::start(replies).await.expect("server");
    let (app, chat) = setup(env, &server, 25).await;
    let (py, fx) = (crate::mcp::python(), crate::mcp::fixture());
    app.mcp().add(crate::mcp::stdio("fx", &py, &[&fx])).await.expect("add");
    app.mcp().refresh("fx").await.expect("lists");
    let mut spec = app.agents().get("writer").await.expect("agent").spec();
    spec.toolsets = vec!["fx".into()];
    app.agents().update(&spec).await.expect("update");
    (app, chat, server)
}

/// The assistant message of `request` that made calls, and the results after it.
fn sent_calls(request: &Value) -> (Vec<Value>, Vec<String>) {
    let messages = request["messages"].as_array().expect("messages");
    let calls = messages
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().cloned().unwrap_or_default())
        .collect();
    let results = messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    (calls, results)
}

/// Arguments that are not JSON are kept as the model wrote them — in its
/// turn, in the call's record, and in the history sent back — and the
/// refusal shows them, under the tool's id like any other call (they were
/// stored as `{}`, so neither the model nor the person could see what
/// "line 1 column 13" was about, and the refusal named `fx.echo`).
#[tokio::test]
async fn arguments_that_are_not_json_are_kept_shown_and_sent_back_as_written() {
    let env = Env::new();
    let raw = r#"{"text": "hi"#;
    let (app, chat, server) = with_server(&env, vec![turn(&[(Some("c1"), "fx__echo", raw)]), answer("Sorry.")]).await;
    let (out, _) = run(&app, &chat, "echo hi").await;
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    assert_eq!(model_calls(&out)[0].2, json!(raw), "the turn keeps the text");
    let record = &out.tool_calls[0];
    assert_eq!(
        (record.status.as_str(), record.error_kind.map(|k| k.as_str())),
        ("error", Some("invalid_args"))
    );
    assert_eq!(record.tool_id, "fx:echo", "named by its tool id");
    assert_eq!(record.args, json!(raw), "the record keeps the text");
    let error = record.error.as_deref().unwrap_or_default();
    assert!(error.contains("line 1 column") && error.contains(raw), "{error}");

    let (calls, results) = sent_calls(&server.requests()[1].json());
    assert_eq!(calls[0]["function"]["arguments"], json!(raw), "sent back as written");
    assert!(results[0].contains(raw), "{results:?}");
}

/// A call by a name the router takes but that was not offered (`fx.echo`
/// for `fx__echo`) runs, and the history sends it back under the name
/// offered: it went back as `fx_echo`, a name that reaches nothing, which
/// the model then called.
#[tokio::test]
async fn a_call_by_a_near_name_goes_back_under_the_name_offered() {
    let env = Env::new();
    let args = json!({"text": "hi"}).to_string();
    let (app, chat, server) = with_server(
        &env,
        vec![turn(&[(Some("c1"), "fx.echo", &args)]), answer("It said hi.")],
    )
    .await;
    let (out, events) = run(&app, &chat, "echo hi").await;
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    assert_eq!(out.tool_calls[0].status.as_str(), "success", "{:?}", out.tool_calls[0]);
    let proposed = events.iter().find_map(|e| match e {
        ChatEvent::ToolCallProposed { tool_id, .. } => Some(tool_id.clone()),
        _ => None,
    });
    assert_eq!(
        proposed,
        Some(Some("fx:echo".to_owned())),
        "the live card knows its tool"
    );
    let (calls, _) = sent_calls(&server.requests()[1].json());
    assert_eq!(calls[0]["function"]["name"], "fx__echo");
}

/// A name the run does not have is refused with the offered names near it,
/// as the model was offered them; a call without a name says so.
#[tokio::test]
async fn a_name_not_offered_is_refused_with_the_offered_names_near_it() {
    let env = Env::new();
    let read = json!({"path": "a.txt"}).to_string();
    let echo = json!({"text": "hi"}).to_string();
    let (app, chat, _server) = with_server(
        &env,
        vec![
            turn(&[
                (Some("c1"), "Read_file", &read),
                (Some("c2"), "echo", &echo),
                (Some("c3"), "FX__ECHO", &echo),
                (Some("c4"), "fx_echo", &echo),
                (Some("c5"), "functions.read_file", &read),
                (Some("c6"), "", &read),
            ]),
            answer("I will use the right names."),
        ],
    )
    .await;
    let (out, _) = run(&app, &chat, "go").await;
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let told: Vec<&str> = out
        .tool_calls
        .iter()
        .map(|r| r.error.as_deref().unwrap_or_default())
        .collect();
    assert_eq!(
        told,
        [
            "Tool not found: Read_file. Did you mean read_file?",
            "Tool not found: echo. Did you mean fx__echo?",
            "Tool not found: FX__ECHO. Did you mean fx__echo?",
            "Tool not found: fx_echo. Did you mean fx__echo?",
            "Toolset not found: functions. Did you mean read_file?",
            "Tool not found: the model called a tool without a name",
        ]
    );
}

/// A reply of no text and no call — nothing, or a `<think>` never closed —
/// ends the run failed with words a person reads (it was saved as a
/// complete answer of nothing: `chat send` printed nothing and exited 0),
/// and such a turn never goes back to the model as an empty message.
// Multi-threaded: the scripted model answers the CLI while the test waits for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_or_reasoning_only_answer_ends_the_run_saying_so() {
    let env = Env::new();
    let server = ReplayServer::start(vec![
        answer(""),
        answer("<think>never closed"),
        answer("Hello."),
        answer(""),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    for (ask, what) in [("hi", "no text and no tool call"), ("hello?", "it only reasoned")] {
        let (out, events) = run(&app, &chat, ask).await;
        assert_eq!(out.status, RunStatus::Failed, "{ask}: {:?}", out.error);
        assert_eq!(out.error_kind.as_deref(), Some("empty_answer"));
        let error = out.error.as_deref().unwrap_or_default();
        assert!(
            error.starts_with("The model gave no answer") && error.contains(what) && error.contains("Retry"),
            "{error}"
        );
        let finished = events
            .iter()
            .any(|e| matches!(e, ChatEvent::RunFinished { status: RunStatus::Failed, error: Some(e) } if e == error));
        assert!(finished, "the front door is told: {events:#?}");
        let turn = out.messages.last().expect("the turn is kept");
        let meta = turn.meta.as_ref().expect("meta");
        assert_eq!(
            (meta.status.as_deref(), meta.error_kind.as_deref()),
            (Some("failed"), Some("empty_answer"))
        );
    }
    let (out, _) = run(&app, &chat, "are you there?").await;
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let sent = server.requests()[2].json();
    let roles: Vec<&str> = sent["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["role"].as_str())
        .collect();
    assert_eq!(
        roles,
        ["system", "user", "user", "user"],
        "no empty turn sent back: {sent}"
    );

    // The command line says so and fails.
    let cli = env.cli(&["chat", "send", &chat, "again", "--agent", "writer"]);
    let said = crate::said(&cli);
    assert_eq!(cli.status.code(), Some(1), "{said}");
    assert!(said.contains("The model gave no answer"), "{said}");
}
