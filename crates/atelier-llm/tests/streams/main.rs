//! Streams replayed by a real loopback HTTP server, in the shapes real
//! servers send: OpenAI, Ollama (a whole call in one chunk, `stop` with
//! calls), llama.cpp (id and name repeated on every chunk), vLLM (deltas
//! without `arguments`); Anthropic's in [`anthropic`]; particular
//! servers' ways in [`quirks`]; and, in [`failures`], the failures a
//! person meets.

mod anthropic;
mod failures;
mod quirks;

use std::time::Duration;

use anyhow::{Context, Result, ensure};
use atelier_llm::replay::{ReplayServer, Reply};
use atelier_llm::{
    Client, Event, Failed, Kind, Message, Part, Provider, Request, Retry, Role, StopReason, ToolChoice, ToolSpec, Turn,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn provider(server: &ReplayServer, kind: Kind) -> Client {
    let base = match kind {
        Kind::Openai => server.url("/v1"),
        Kind::Anthropic => server.url(""),
    };
    Client::new(Provider {
        id: "local".into(),
        kind,
        base_url: base,
        api_key: Some("sk-test-key".into()),
        headers: vec![("x-extra".into(), "1".into())],
    })
    .expect("client")
    .with_retry(Retry {
        first: Duration::from_millis(5),
        max: Duration::from_millis(50),
    })
}

fn request() -> Request {
    Request {
        model: "tiny".into(),
        system: Some("Be brief.".into()),
        messages: vec![Message::user("hi")],
        tools: vec![ToolSpec {
            name: "write_file".into(),
            description: "Write a file".into(),
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }],
        ..Default::default()
    }
}

async fn run(client: &Client, req: &Request) -> (std::result::Result<Turn, Failed>, Vec<Event>) {
    let mut events = Vec::new();
    let mut on = |e: &Event| events.push(e.clone());
    let r = client.stream(req, &CancellationToken::new(), &mut on).await;
    (r, events)
}

/// The body `req` makes for a provider of `kind` (answered with an empty
/// stream).
async fn sent_body(kind: Kind, req: &Request) -> Result<serde_json::Value> {
    let end = match kind {
        Kind::Openai => "data: [DONE]",
        Kind::Anthropic => "event: message_stop\ndata: {\"type\": \"message_stop\"}",
    };
    let server = ReplayServer::start(vec![Reply::sse(&[end])]).await?;
    let _ = run(&provider(&server, kind), req).await;
    Ok(server.requests()[0].json())
}

fn chunk(delta: serde_json::Value, finish: Option<&str>) -> String {
    format!(
        "data: {}",
        json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    )
}

#[tokio::test]
async fn openai_text_reasoning_and_usage_survive_any_chunking() -> Result<()> {
    let events = vec![
        chunk(json!({"role": "assistant", "reasoning_content": "think é"}), None),
        chunk(json!({"content": "<think>more</think>Bon"}), None),
        chunk(json!({"content": "jour ✓"}), None),
        chunk(json!({}), Some("stop")),
        format!(
            "data: {}",
            json!({"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 5}})
        ),
        "data: [DONE]".to_owned(),
    ];
    for size in [1, 3, 7, 4096] {
        let server = ReplayServer::start(vec![Reply::sse(&events).rechunk(size)]).await?;
        let (turn, seen) = run(&provider(&server, Kind::Openai), &request()).await;
        let turn = turn?;
        ensure!(turn.text == "Bonjour ✓", "size {size}: {:?}", turn.text);
        ensure!(turn.reasoning == "think émore", "size {size}: {:?}", turn.reasoning);
        ensure!(turn.stop == StopReason::EndTurn && turn.usage.input_tokens == 12 && turn.usage.output_tokens == 5);
        ensure!(seen.iter().any(|e| matches!(e, Event::TextDelta(_))), "deltas streamed");
        let req = &server.requests()[0];
        ensure!(req.path == "/v1/chat/completions" && req.header("authorization") == Some("Bearer sk-test-key"));
        ensure!(req.header("x-extra") == Some("1"));
        let body = req.json();
        ensure!(body["stream"] == true && body["messages"][0] == json!({"role": "system", "content": "Be brief."}));
        ensure!(body["tools"][0]["function"]["name"] == "write_file" && body["tool_choice"] == "auto");
    }
    Ok(())
}

fn calls(turn: &Turn) -> Vec<(String, String, serde_json::Value)> {
    turn.tool_calls
        .iter()
        .map(|c| {
            (
                c.id.clone(),
                c.name.clone(),
                c.arguments.clone().unwrap_or(json!("BAD")),
            )
        })
        .collect()
}

#[tokio::test]
async fn tool_calls_of_every_server_style_come_out_the_same() -> Result<()> {
    let tc = |index: u64, id: Option<&str>, name: Option<&str>, args: Option<&str>| {
        let mut f = json!({});
        if let Some(n) = name {
            f["name"] = json!(n);
        }
        if let Some(a) = args {
            f["arguments"] = json!(a);
        }
        let mut c = json!({"index": index, "function": f});
        if let Some(i) = id {
            c["id"] = json!(i);
            c["type"] = json!("function");
        }
        chunk(json!({"tool_calls": [c]}), None)
    };
    let done = |finish: &str| vec![chunk(json!({}), Some(finish)), "data: [DONE]".to_owned()];
    let want = vec![
        (
            "call_1".to_owned(),
            "write_file".to_owned(),
            json!({"path": "a.txt", "text": "é\"q"}),
        ),
        ("call_2".to_owned(), "read_file".to_owned(), json!({})),
    ];
    let styles: Vec<(&str, Vec<String>)> = vec![
        (
            "openai: id and name first, arguments split inside an escape, interleaved",
            [
                tc(0, Some("call_1"), Some("write_file"), Some("")),
                tc(0, None, None, Some("{\"path\": \"a.txt\", \"text\": \"é\\")),
                tc(1, Some("call_2"), Some("read_file"), Some("")),
                tc(0, None, None, Some("\"q\"}")),
            ]
            .into_iter()
            .chain(done("tool_calls"))
            .collect(),
        ),
        (
            "llama.cpp: id and name on every chunk",
            [
                tc(0, Some("call_1"), Some("write_file"), Some("{\"path\": \"a.txt\", ")),
                tc(0, Some("call_1"), Some("write_file"), Some("\"text\": \"é\\\"q\"}")),
                tc(1, Some("call_2"), Some("read_file"), Some("{}")),
            ]
            .into_iter()
            .chain(done("tool_calls"))
            .collect(),
        ),
        (
            "vLLM: deltas without an arguments key",
            [
                tc(0, Some("call_1"), Some("write_file"), None),
                tc(0, None, None, Some("{\"path\": \"a.txt\", \"text\": \"é\\\"q\"}")),
                tc(1, Some("call_2"), Some("read_file"), None),
                tc(1, None, None, None),
            ]
            .into_iter()
            .chain(done("tool_calls"))
            .collect(),
        ),
        (
            "ollama: whole calls in one chunk, then `stop`",
            [
                chunk(
                    json!({"tool_calls": [
                        {"id": "call_1", "index": 0, "function": {"name": "write_file", "arguments": "{\"path\": \"a.txt\", \"text\": \"é\\\"q\"}"}},
                        {"id": "call_2", "index": 1, "function": {"name": "read_file", "arguments": ""}}]}),
                    None,
                ),
            ]
            .into_iter()
            .chain(done("stop"))
            .collect(),
        ),
    ];
    for (style, events) in styles {
        let server = ReplayServer::start(vec![Reply::sse(&events).rechunk(5)]).await?;
        let (turn, seen) = run(&provider(&server, Kind::Openai), &request()).await;
        let turn = turn.with_context(|| style.to_owned())?;
        ensure!(calls(&turn) == want, "{style}: {:?}", calls(&turn));
        ensure!(turn.stop == StopReason::ToolUse, "{style}: {:?}", turn.stop);
        let ends = seen.iter().filter(|e| matches!(e, Event::ToolCallEnd { .. })).count();
        ensure!(ends == 2, "{style}: one end per call");
    }
    Ok(())
}

#[tokio::test]
async fn invalid_arguments_are_an_error_for_the_model_not_a_crash() -> Result<()> {
    let events = vec![
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "write_file", "arguments": "{\"path\": "}}]}),
            Some("tool_calls"),
        ),
        "data: [DONE]".to_owned(),
    ];
    let server = ReplayServer::start(vec![Reply::sse(&events)]).await?;
    let turn = run(&provider(&server, Kind::Openai), &request()).await.0?;
    let err = turn.tool_calls[0].arguments.clone().err().context("an error")?;
    ensure!(err.starts_with("arguments were not valid JSON"), "{err}");
    ensure!(turn.tool_calls[0].raw_arguments == "{\"path\": ");
    Ok(())
}

#[tokio::test]
async fn a_conversation_with_tool_results_is_sent_in_each_format() -> Result<()> {
    let mut req = request();
    req.messages = vec![
        Message::user("write it"),
        Message {
            role: Role::Assistant,
            parts: vec![
                Part::Reasoning {
                    text: "plan".into(),
                    signature: Some("sig".into()),
                },
                Part::Text { text: "Sure.".into() },
                Part::ToolCall {
                    id: "c1".into(),
                    name: "write_file".into(),
                    arguments: json!({"path": "a.txt"}),
                },
            ],
        },
        Message {
            role: Role::User,
            parts: vec![Part::ToolResult {
                call_id: "c1".into(),
                content: "{\"ok\": true}".into(),
                is_error: false,
            }],
        },
        Message::user("thanks"),
    ];
    req.tool_choice = ToolChoice::Tool("write_file".into());
    let body = sent_body(Kind::Openai, &req).await?;
    ensure!(
        body["messages"][2]
            == json!({"role": "assistant", "content": "Sure.", "reasoning_content": "plan", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "write_file", "arguments": "{\"path\":\"a.txt\"}"}}]}),
        "{}",
        body["messages"][2]
    );
    ensure!(body["messages"][3] == json!({"role": "tool", "tool_call_id": "c1", "content": "{\"ok\": true}"}));
    ensure!(body["tool_choice"] == json!({"type": "function", "function": {"name": "write_file"}}));

    let server = ReplayServer::start(vec![Reply::sse(&[
        "event: message_stop\ndata: {\"type\": \"message_stop\"}",
    ])])
    .await?;
    let _ = run(&provider(&server, Kind::Anthropic), &req).await;
    let sent = &server.requests()[0];
    ensure!(sent.path == "/v1/messages" && sent.header("x-api-key") == Some("sk-test-key"));
    ensure!(sent.header("anthropic-version") == Some("2023-06-01"));
    let body = sent.json();
    ensure!(body["max_tokens"] == 4096 && body["system"] == "Be brief.");
    ensure!(
        body["messages"][1]["content"]
            == json!([{"type": "thinking", "thinking": "plan", "signature": "sig"}, {"type": "text", "text": "Sure."},
                {"type": "tool_use", "id": "c1", "name": "write_file", "input": {"path": "a.txt"}}]),
        "{}",
        body["messages"][1]
    );
    // The tool result and the next user text are one user message.
    ensure!(
        body["messages"][2]["content"]
            == json!([{"type": "tool_result", "tool_use_id": "c1", "content": "{\"ok\": true}", "is_error": false},
                {"type": "text", "text": "thanks"}]),
        "{}",
        body["messages"][2]
    );
    ensure!(body["tool_choice"] == json!({"type": "tool", "name": "write_file"}));
    Ok(())
}

/// A call the model made under a name it was never offered (the router
/// still ran it) goes back under a name the APIs take: sent as it was, it
/// made OpenAI and Anthropic refuse every later request of the branch.
#[tokio::test]
async fn a_call_under_a_name_the_apis_refuse_goes_back_under_one_they_take() -> Result<()> {
    let mut req = request();
    req.messages.push(Message {
        role: Role::Assistant,
        parts: vec![Part::ToolCall {
            id: "c9".into(),
            name: "raw.echo".into(),
            arguments: json!({"text": "hi"}),
        }],
    });
    req.messages.push(Message {
        role: Role::User,
        parts: vec![Part::ToolResult {
            call_id: "c9".into(),
            content: "hi".into(),
            is_error: false,
        }],
    });
    let body = sent_body(Kind::Openai, &req).await?;
    ensure!(
        body["messages"][2]["tool_calls"][0]["function"]["name"] == "raw_echo",
        "{}",
        body["messages"][2]
    );

    let body = sent_body(Kind::Anthropic, &req).await?;
    ensure!(
        body["messages"][1]["content"][0]["name"] == "raw_echo",
        "{}",
        body["messages"][1]
    );
    Ok(())
}
