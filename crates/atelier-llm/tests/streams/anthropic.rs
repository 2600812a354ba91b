//! Anthropic's stream as the API sends it: text, thinking (several signed
//! blocks, encrypted ones), tool_use with input_json_delta, ping, a
//! refusal, an error event; and the thinking blocks sent back.

use anyhow::{Context, Result, ensure};
use atelier_llm::replay::{ReplayServer, Reply};
use atelier_llm::{ErrorKind, Event, Kind, Message, Part, Role, StopReason, ThinkingBlock};
use serde_json::json;

use crate::{calls, provider, request, run, sent_body};

fn anthropic_event(v: serde_json::Value) -> String {
    format!("event: {}\ndata: {v}", v["type"].as_str().unwrap_or_default())
}

/// Interleaved thinking: several thinking blocks, each closed by its own
/// signature, and an encrypted one between them. The API takes the turn
/// back only with every block as it came, in order (a joined signature is
/// "Invalid signature in thinking block"; a dropped redacted block fails
/// the same way), so the blocks survive a round trip into the next request.
#[tokio::test]
async fn anthropic_thinking_blocks_go_back_each_with_its_signature() -> Result<()> {
    let events = [
        json!({"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 9}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "First."}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "SIG-A"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "redacted_thinking", "data": "ENC=="}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "content_block_start", "index": 2, "content_block": {"type": "thinking", "thinking": ""}}),
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "thinking_delta", "thinking": "Second."}}),
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "signature_delta", "signature": "SIG-B"}}),
        json!({"type": "content_block_stop", "index": 2}),
        json!({"type": "content_block_start", "index": 3, "content_block": {"type": "tool_use", "id": "toolu_2", "name": "write_file", "input": {}}}),
        json!({"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": "{}"}}),
        json!({"type": "content_block_stop", "index": 3}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 7}}),
        json!({"type": "message_stop"}),
    ]
    .map(anthropic_event);
    let server = ReplayServer::start(vec![Reply::sse(&events)]).await?;
    let (turn, seen) = run(&provider(&server, Kind::Anthropic), &request()).await;
    let turn = turn?;
    ensure!(
        turn.thinking
            == vec![
                ThinkingBlock::Thinking {
                    text: "First.".into(),
                    signature: Some("SIG-A".into())
                },
                ThinkingBlock::Redacted { data: "ENC==".into() },
                ThinkingBlock::Thinking {
                    text: "Second.".into(),
                    signature: Some("SIG-B".into())
                },
            ],
        "{:?}",
        turn.thinking
    );
    // Shown: the readable blocks a paragraph apart, nothing of the
    // encrypted one.
    ensure!(turn.reasoning == "First.\n\nSecond.", "{:?}", turn.reasoning);
    ensure!(
        !seen
            .iter()
            .any(|e| matches!(e, Event::ReasoningDelta(t) if t.contains("ENC")))
    );

    // The next request carries the blocks as they came.
    let mut req = request();
    req.messages.push(Message {
        role: Role::Assistant,
        parts: vec![
            Part::Reasoning {
                text: "First.".into(),
                signature: Some("SIG-A".into()),
            },
            Part::RedactedReasoning { data: "ENC==".into() },
            Part::Reasoning {
                text: "Second.".into(),
                signature: Some("SIG-B".into()),
            },
            Part::ToolCall {
                id: "toolu_2".into(),
                name: "write_file".into(),
                arguments: json!({}),
            },
        ],
    });
    let body = sent_body(Kind::Anthropic, &req).await?;
    ensure!(
        body["messages"][1]["content"]
            == json!([
                {"type": "thinking", "thinking": "First.", "signature": "SIG-A"},
                {"type": "redacted_thinking", "data": "ENC=="},
                {"type": "thinking", "thinking": "Second.", "signature": "SIG-B"},
                {"type": "tool_use", "id": "toolu_2", "name": "write_file", "input": {}}]),
        "{}",
        body["messages"][1]
    );
    Ok(())
}

#[tokio::test]
async fn anthropic_text_thinking_and_tool_use() -> Result<()> {
    let events = [
        json!({"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 30, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me write."}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQB"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "ping"}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Writing it."}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}}),
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": ""}}),
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"a"}}),
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": ".txt\"}"}}),
        json!({"type": "content_block_stop", "index": 2}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 42}}),
        json!({"type": "message_stop"}),
    ]
    .map(anthropic_event);
    let server = ReplayServer::start(vec![Reply::sse(&events).rechunk(11)]).await?;
    let (turn, seen) = run(&provider(&server, Kind::Anthropic), &request()).await;
    let turn = turn?;
    ensure!(turn.text == "Writing it." && turn.reasoning == "Let me write.");
    ensure!(
        turn.thinking
            == vec![ThinkingBlock::Thinking {
                text: "Let me write.".into(),
                signature: Some("EqQB".into())
            }]
    );
    ensure!(calls(&turn) == vec![("toolu_1".into(), "write_file".into(), json!({"path": "a.txt"}))]);
    ensure!(turn.stop == StopReason::ToolUse && turn.usage.input_tokens == 30 && turn.usage.output_tokens == 42);
    ensure!(seen.contains(&Event::Keepalive));

    // A refusal (Claude 4 models' `stop_reason`) is a turn of its own kind,
    // not a whole answer.
    let refused = [
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "I"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "refusal"}, "usage": {"output_tokens": 1}}),
        json!({"type": "message_stop"}),
    ]
    .map(anthropic_event);
    let server = ReplayServer::start(vec![Reply::sse(&refused)]).await?;
    let turn = run(&provider(&server, Kind::Anthropic), &request()).await.0?;
    ensure!(turn.stop == StopReason::Refused && turn.text == "I", "{turn:?}");

    // An error event mid-stream: typed, and the text so far kept.
    let broken = [
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Half"}}),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ]
    .map(anthropic_event);
    let server = ReplayServer::start(vec![Reply::sse(&broken)]).await?;
    let failed = run(&provider(&server, Kind::Anthropic), &request())
        .await
        .0
        .err()
        .context("fails")?;
    ensure!(
        failed.error.kind == ErrorKind::Overloaded && failed.partial.text == "Half",
        "{failed:?}"
    );
    ensure!(
        server.requests().len() == 1,
        "nothing is retried once text has streamed"
    );
    Ok(())
}
