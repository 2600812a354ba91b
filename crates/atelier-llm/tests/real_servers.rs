//! Streams captured from real servers (`tests/transcripts/`, recorded by
//! the real-model lane, `scripts/test-real-model.sh`), replayed through a
//! loopback server, and the requests those servers accept.
//!
//! llama-cpp-python 0.3: a forced tool call repeats its id and name (and a
//! legacy `function_call`) on every chunk, `null` fields everywhere, and
//! `finish_reason: "tool_calls"` with `tool_calls: null`; it refuses an
//! assistant message whose `content` is `null`.

use std::time::Duration;

use anyhow::{Context, Result, ensure};
use atelier_llm::replay::{ReplayServer, Reply};
use atelier_llm::{Client, Kind, Message, Part, Provider, Request, Retry, Role, StopReason};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn transcript(name: &str) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/transcripts")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("transcript");
    text.split("\n\n")
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(str::to_owned)
        .collect()
}

fn client(server: &ReplayServer) -> Client {
    Client::new(Provider {
        id: "llama".into(),
        kind: Kind::Openai,
        base_url: server.url("/v1"),
        api_key: None,
        headers: vec![],
    })
    .expect("client")
    .with_retry(Retry {
        first: Duration::from_millis(5),
        max: Duration::from_millis(20),
    })
}

#[tokio::test]
async fn llama_cpp_pythons_forced_call_and_answer_parse_and_the_next_request_is_one_it_takes() -> Result<()> {
    let server = ReplayServer::start(vec![
        Reply::sse(&transcript("llama-cpp-python.forced-tool.sse")),
        Reply::sse(&transcript("llama-cpp-python.text.sse")),
    ])
    .await?;
    let c = client(&server);
    let mut req = Request {
        model: "qwen".into(),
        messages: vec![Message::user("write hello.txt")],
        ..Default::default()
    };
    let turn = c
        .stream(&req, &CancellationToken::new(), &mut |_| {})
        .await
        .map_err(|f| anyhow::anyhow!(f.error.message))?;
    ensure!(turn.stop == StopReason::ToolUse, "{:?}", turn.stop);
    ensure!(turn.tool_calls.len() == 1, "{:?}", turn.tool_calls);
    let call = &turn.tool_calls[0];
    ensure!(call.name == "write_file");
    let args = call.arguments.clone().map_err(anyhow::Error::msg)?;
    ensure!(args["path"] == "hello.txt", "{args}");
    ensure!(turn.text.is_empty(), "no text: {:?}", turn.text);

    // The turn after the call: the assistant message carries a string
    // `content` (the server answers 500 to `null`).
    req.messages.push(Message {
        role: Role::Assistant,
        parts: vec![Part::ToolCall {
            id: call.id.clone(),
            name: call.name.clone(),
            arguments: args,
        }],
    });
    req.messages.push(Message {
        role: Role::User,
        parts: vec![Part::ToolResult {
            call_id: call.id.clone(),
            content: "{}".into(),
            is_error: false,
        }],
    });
    let answer = c
        .stream(&req, &CancellationToken::new(), &mut |_| {})
        .await
        .map_err(|f| anyhow::anyhow!(f.error.message))?;
    ensure!(!answer.text.is_empty() && answer.stop == StopReason::EndTurn);
    let body = server.requests().get(1).context("second request")?.json();
    let assistant = &body["messages"][1];
    ensure!(
        assistant["role"] == "assistant" && assistant["content"] == json!(""),
        "{assistant}"
    );
    Ok(())
}
