//! What particular servers do beyond the common shapes, as they really
//! send it: Gemini 3's `extra_content` on a call and DeepSeek's
//! `reasoning_content`, both wanted back on the next request; reasoning in
//! two fields at once (StepFun); a streamed `refusal`; `"error": null` on
//! every chunk; a reply that comes whole as JSON; a `</think>` whose
//! `<think>` was in the prompt (R1 distills); a strict server refusing
//! `stream_options`; Anthropic's `model_context_window_exceeded`.

use anyhow::{Context, Result, ensure};
use atelier_llm::replay::{ReplayServer, Reply};
use atelier_llm::{ErrorKind, Kind, Message, Part, Role, StopReason};
use serde_json::{Value, json};

use crate::{chunk, provider, request, run, sent_body};

fn sse(chunks: &[Value]) -> Reply {
    let mut events: Vec<String> = chunks.iter().map(|c| format!("data: {c}")).collect();
    events.push("data: [DONE]".to_owned());
    Reply::sse(&events)
}

/// A whole chunk as a server sends it (`id`, `model`…, one choice).
fn full(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

/// Gemini 3 puts a thought signature on each call and refuses the next
/// request without it ("missing a thought_signature"); DeepSeek's thinking
/// mode refuses a turn with calls sent back without its reasoning
/// ("Missing `reasoning_content` field in the assistant message").
#[tokio::test]
async fn a_call_s_extra_fields_and_a_tool_turn_s_reasoning_go_back() -> Result<()> {
    let signature = json!({"google": {"thought_signature": "EoYCCoMCARFNMg"}});
    let server = ReplayServer::start(vec![sse(&[
        full(
            json!({"role": "assistant", "reasoning_content": "Need the weather."}),
            None,
        ),
        full(
            json!({"tool_calls": [{"id": "call_1", "type": "function", "index": 0,
                "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
                "extra_content": signature}]}),
            None,
        ),
        full(json!({}), Some("tool_calls")),
    ])])
    .await?;
    let turn = run(&provider(&server, Kind::Openai), &request()).await.0?;
    let call = turn.tool_calls.first().context("a call")?;
    ensure!(call.extra == Some(json!({"extra_content": signature})), "{call:?}");
    ensure!(turn.reasoning == "Need the weather.");

    let mut req = request();
    req.messages = vec![
        Message::user("hi"),
        Message {
            role: Role::Assistant,
            parts: vec![
                Part::Reasoning {
                    text: "Just greet.".into(),
                    signature: None,
                },
                Part::Text { text: "Hello!".into() },
            ],
        },
        Message::user("weather in Paris?"),
        Message {
            role: Role::Assistant,
            parts: vec![
                Part::Reasoning {
                    text: turn.reasoning.clone(),
                    signature: None,
                },
                Part::ToolCall {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: json!({"city": "Paris"}),
                },
            ],
        },
        Message {
            role: Role::User,
            parts: vec![Part::ToolResult {
                call_id: "call_1".into(),
                content: "sunny".into(),
                is_error: false,
            }],
        },
    ];
    req.call_extras
        .insert(call.id.clone(), call.extra.clone().context("extra")?);
    let body = sent_body(Kind::Openai, &req).await?;
    let sent = &body["messages"];
    ensure!(
        sent[4]["reasoning_content"] == "Need the weather." && sent[4]["tool_calls"][0]["extra_content"] == signature,
        "{}",
        sent[4]
    );
    // A turn without calls: its reasoning is not sent (DeepSeek's docs).
    ensure!(sent[2].get("reasoning_content").is_none(), "{}", sent[2]);
    Ok(())
}

#[tokio::test]
async fn reasoning_in_both_fields_is_shown_once() -> Result<()> {
    // StepFun mirrors its reasoning into `reasoning` and `reasoning_content`.
    let server = ReplayServer::start(vec![sse(&[
        full(
            json!({"role": "assistant", "content": "", "reasoning": "The", "reasoning_content": "The"}),
            None,
        ),
        full(json!({"reasoning": " user", "reasoning_content": " user"}), None),
        full(json!({"content": "Hi"}), None),
        full(json!({}), Some("stop")),
    ])])
    .await?;
    let turn = run(&provider(&server, Kind::Openai), &request()).await.0?;
    ensure!(turn.reasoning == "The user" && turn.text == "Hi", "{turn:?}");

    // A server with only `reasoning` (Ollama, OpenRouter) still shows it.
    let server = ReplayServer::start(vec![sse(&[
        full(json!({"reasoning": "Hm."}), None),
        full(json!({"content": "Ok"}), Some("stop")),
    ])])
    .await?;
    let turn = run(&provider(&server, Kind::Openai), &request()).await.0?;
    ensure!(turn.reasoning == "Hm." && turn.text == "Ok", "{turn:?}");
    Ok(())
}

#[tokio::test]
async fn a_streamed_refusal_is_the_text_of_a_refused_turn() -> Result<()> {
    let server = ReplayServer::start(vec![sse(&[
        full(json!({"role": "assistant", "content": null, "refusal": ""}), None),
        full(json!({"refusal": "I'm sorry, I can't help with that."}), None),
        full(json!({}), Some("stop")),
    ])])
    .await?;
    let turn = run(&provider(&server, Kind::Openai), &request()).await.0?;
    ensure!(
        turn.text == "I'm sorry, I can't help with that." && turn.stop == StopReason::Refused,
        "{turn:?}"
    );
    Ok(())
}

#[tokio::test]
async fn an_error_field_of_null_on_every_chunk_is_no_error() -> Result<()> {
    let mut first = full(json!({"content": "Hi"}), None);
    first["error"] = Value::Null;
    let server = ReplayServer::start(vec![sse(&[first, full(json!({}), Some("stop"))])]).await?;
    let turn = run(&provider(&server, Kind::Openai), &request()).await.0?;
    ensure!(turn.text == "Hi" && turn.stop == StopReason::EndTurn, "{turn:?}");
    Ok(())
}

/// A server that ignores `stream: true` answers with one JSON body; one
/// that fails may say so under 200. Either is read as it is, once.
#[tokio::test]
async fn a_reply_that_comes_whole_is_read_as_one() -> Result<()> {
    let whole = ReplayServer::start(vec![Reply::json(
        200,
        &json!({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "<think>hm</think>Hello there",
                "tool_calls": [{"id": "call_9", "type": "function",
                    "function": {"name": "write_file", "arguments": "{\"path\": \"a\"}"}}]},
                "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}}),
    )])
    .await?;
    let turn = run(&provider(&whole, Kind::Openai), &request()).await.0?;
    ensure!(turn.text == "Hello there" && turn.reasoning == "hm", "{turn:?}");
    ensure!(
        turn.usage.input_tokens == 5 && turn.usage.output_tokens == 2,
        "{turn:?}"
    );
    ensure!(
        turn.stop == StopReason::ToolUse
            && turn.tool_calls.len() == 1
            && turn.tool_calls[0].arguments == Ok(json!({"path": "a"})),
        "{turn:?}"
    );
    ensure!(whole.requests().len() == 1);

    let error = ReplayServer::start(vec![Reply::json(
        200,
        &json!({"error": {"message": "model 'm' not found", "type": "invalid_request_error", "code": 404}}),
    )])
    .await?;
    let f = run(&provider(&error, Kind::Openai), &request())
        .await
        .0
        .err()
        .context("an error")?;
    ensure!(
        f.error.kind == ErrorKind::ModelNotFound && f.error.message.contains("model 'm' not found"),
        "{}",
        f.error
    );
    ensure!(error.requests().len() == 1, "not tried again");

    // A stream labelled JSON (a proxy's mistake) is still a stream.
    let mut mislabelled = sse(&[full(json!({"content": "streamed"}), Some("stop"))]);
    mislabelled.headers = vec![("content-type".into(), "application/json".into())];
    let server = ReplayServer::start(vec![mislabelled.rechunk(3)]).await?;
    let turn = run(&provider(&server, Kind::Openai), &request()).await.0?;
    ensure!(turn.text == "streamed", "{turn:?}");

    let anthropic = ReplayServer::start(vec![Reply::json(
        200,
        &json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
            "content": [{"type": "thinking", "thinking": "Plan.", "signature": "SIG"},
                {"type": "text", "text": "Sure."},
                {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {"path": "a"}}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 9, "output_tokens": 4}}),
    )])
    .await?;
    let turn = run(&provider(&anthropic, Kind::Anthropic), &request()).await.0?;
    ensure!(
        turn.text == "Sure." && turn.reasoning == "Plan." && turn.thinking.len() == 1,
        "{turn:?}"
    );
    ensure!(
        turn.tool_calls[0].id == "toolu_1" && turn.stop == StopReason::ToolUse,
        "{turn:?}"
    );
    Ok(())
}

/// R1 distills whose template opens `<think>` in the prompt stream only
/// its end: `reasoning…\n</think>\n\nanswer`.
#[tokio::test]
async fn a_closing_think_tag_alone_ends_the_reasoning_the_text_began_with() -> Result<()> {
    let reply = || {
        sse(&[
            full(
                json!({"role": "assistant", "content": "Okay, the user says hi. I should greet back.\n"}),
                None,
            ),
            full(json!({"content": "</think>\n\n"}), None),
            full(json!({"content": "Hello!"}), None),
            full(json!({}), Some("stop")),
        ])
    };
    for size in [1, 4, 4096] {
        let server = ReplayServer::start(vec![reply().rechunk(size)]).await?;
        let turn = run(&provider(&server, Kind::Openai), &request()).await.0?;
        ensure!(
            turn.reasoning == "Okay, the user says hi. I should greet back.\n" && turn.text.trim() == "Hello!",
            "size {size}: {turn:?}"
        );
    }
    // Inside a line, the tag is words of the answer.
    let server = ReplayServer::start(vec![sse(&[
        full(json!({"content": "Close it with </think> and go on."}), None),
        full(json!({}), Some("stop")),
    ])])
    .await?;
    let turn = run(&provider(&server, Kind::Openai), &request()).await.0?;
    ensure!(
        turn.text == "Close it with </think> and go on." && turn.reasoning.is_empty(),
        "{turn:?}"
    );
    Ok(())
}

/// Mistral refuses `stream_options` with 422 `extra_forbidden`: the
/// request goes again without it, and later requests to that server leave
/// it out from the start.
#[tokio::test]
async fn a_server_refusing_stream_options_gets_requests_without_it() -> Result<()> {
    let ok = Reply::sse(&[
        chunk(json!({"content": "fine"}), Some("stop")),
        "data: [DONE]".to_owned(),
    ]);
    let server = ReplayServer::start(vec![
        Reply::json(
            422,
            &json!({"object": "error", "message": {"detail": [{"type": "extra_forbidden", "loc": ["body", "stream_options"],
                "msg": "Extra inputs are not permitted", "input": {"include_usage": true}}]},
                "type": "invalid_request_message_error", "param": null, "code": null}),
        ),
        ok.clone(),
    ])
    .await?;
    let turn = run(&provider(&server, Kind::Openai), &request()).await.0?;
    ensure!(turn.text == "fine");
    let sent: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    ensure!(sent.len() == 2 && sent[0].get("stream_options").is_some(), "{sent:?}");
    ensure!(
        sent[1].get("stream_options").is_none() && sent[1]["stream"] == true,
        "{}",
        sent[1]
    );
    // A new client (the next run) to the same server.
    let _ = run(&provider(&server, Kind::Openai), &request()).await;
    let third = server.requests().get(2).context("a third request")?.json();
    ensure!(third.get("stream_options").is_none(), "{third}");

    // Any other refusal is the person's to read, tried once.
    let other = ReplayServer::start(vec![Reply::json(
        400,
        &json!({"error": {"message": "Missing `reasoning_content` field in the assistant message at message index 2"}}),
    )])
    .await?;
    let f = run(&provider(&other, Kind::Openai), &request())
        .await
        .0
        .err()
        .context("refused")?;
    ensure!(
        f.error.kind == ErrorKind::InvalidRequest && other.requests().len() == 1,
        "{}",
        f.error
    );
    Ok(())
}

/// Claude's whole window ran out mid-answer: cut like the output limit,
/// not a complete answer.
#[tokio::test]
async fn anthropic_s_context_window_stop_is_a_cut_answer() -> Result<()> {
    let ev = |v: Value| format!("event: {}\ndata: {v}", v["type"].as_str().unwrap_or_default());
    let server = ReplayServer::start(vec![Reply::sse(&[
        ev(json!({"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 10, "output_tokens": 1}}})),
        ev(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
        ev(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Partial"}})),
        ev(json!({"type": "content_block_stop", "index": 0})),
        ev(
            json!({"type": "message_delta", "delta": {"stop_reason": "model_context_window_exceeded", "stop_sequence": null}, "usage": {"output_tokens": 5}}),
        ),
        ev(json!({"type": "message_stop"})),
    ])])
    .await?;
    let turn = run(&provider(&server, Kind::Anthropic), &request()).await.0?;
    ensure!(turn.text == "Partial" && turn.stop == StopReason::MaxTokens, "{turn:?}");
    Ok(())
}
