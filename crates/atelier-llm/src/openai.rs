//! OpenAI-compatible chat completions (OpenAI, Ollama, LM Studio,
//! llama.cpp, vLLM, OpenRouter…): the request body, and each streamed chunk
//! as normalized events.

use serde_json::{Value, json};

use crate::accumulate::Builder;
use crate::error::{Error, ErrorKind, Result, body_message, says_context_length};
use crate::types::{Message, Part, Request, Role, StopReason, ToolChoice};

/// The body of `POST {base}/chat/completions`.
pub(crate) fn body(req: &Request) -> Value {
    let mut messages = Vec::new();
    if let Some(s) = &req.system {
        messages.push(json!({"role": "system", "content": s}));
    }
    for m in &req.messages {
        messages.extend(message(m));
    }
    let mut b = json!({
        "model": req.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !req.tools.is_empty() {
        b["tools"] = req
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.input_schema}})
            })
            .collect();
        b["tool_choice"] = match &req.tool_choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
        };
    }
    if let Some(t) = req.temperature {
        b["temperature"] = json!(t);
    }
    if let Some(n) = req.max_tokens {
        b["max_tokens"] = json!(n);
    }
    if let Some(e) = &req.reasoning_effort {
        b["reasoning_effort"] = json!(e);
    }
    b
}

/// One of our messages as OpenAI messages: tool results are messages of
/// their own (`role: tool`), reasoning is not sent back.
fn message(m: &Message) -> Vec<Value> {
    let mut out = Vec::new();
    match m.role {
        Role::Assistant => {
            let text: String = m
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            let calls: Vec<Value> = m
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::ToolCall { id, name, arguments } => Some(json!({
                        "id": id, "type": "function",
                        "function": {"name": name, "arguments": arguments.to_string()}})),
                    _ => None,
                })
                .collect();
            // Always a string: llama-cpp-python's server refuses `null`
            // (a 500 at the turn after a tool call), and OpenAI takes "".
            let mut a = json!({"role": "assistant", "content": text});
            if !calls.is_empty() {
                a["tool_calls"] = json!(calls);
            }
            out.push(a);
        }
        Role::User => {
            let mut content = Vec::new();
            for p in &m.parts {
                match p {
                    Part::ToolResult {
                        call_id,
                        content: c,
                        is_error,
                    } => out.push(json!({
                        "role": "tool", "tool_call_id": call_id,
                        "content": if *is_error { format!("Error: {c}") } else { c.clone() }})),
                    Part::Text { text } => content.push(json!({"type": "text", "text": text})),
                    Part::Image { media_type, data } => content.push(json!({
                        "type": "image_url", "image_url": {"url": format!("data:{media_type};base64,{data}")}})),
                    Part::Reasoning { .. } | Part::ToolCall { .. } => {}
                }
            }
            match content.as_slice() {
                [] => {}
                // Plain text as a string: what every local server takes.
                [one] if one["type"] == "text" => out.push(json!({"role": "user", "content": one["text"]})),
                _ => out.push(json!({"role": "user", "content": content})),
            }
        }
    }
    out
}

/// One `data:` payload of the stream. `Ok(true)`: the stream is done.
pub(crate) fn chunk(data: &str, b: &mut Builder<'_>) -> Result<bool> {
    if data.trim() == "[DONE]" {
        return Ok(true);
    }
    let v: Value = serde_json::from_str(data).map_err(|e| {
        Error::new(
            ErrorKind::BadResponse,
            format!("the stream sent a line that is not JSON ({e}): {}", clip(data)),
        )
    })?;
    if let Some(err) = v.get("error") {
        let said = body_message(&v.to_string());
        let kind = if says_context_length(&said) {
            ErrorKind::ContextLength
        } else if err.get("code").and_then(Value::as_u64) == Some(429) {
            ErrorKind::RateLimited
        } else {
            ErrorKind::Server
        };
        return Err(Error::new(
            kind,
            format!("the server reported an error mid-stream: {said}"),
        ));
    }
    if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
        b.usage(
            u.get("prompt_tokens").and_then(Value::as_u64),
            u.get("completion_tokens").and_then(Value::as_u64),
        );
    }
    let Some(choice) = v.get("choices").and_then(|c| c.get(0)) else {
        return Ok(false);
    };
    if let Some(d) = choice.get("delta").or_else(|| choice.get("message")) {
        for key in ["reasoning_content", "reasoning"] {
            if let Some(r) = d.get(key).and_then(Value::as_str) {
                b.reasoning(r);
            }
        }
        if let Some(t) = d.get("content").and_then(Value::as_str) {
            b.text(t);
        }
        if let Some(calls) = d.get("tool_calls").and_then(Value::as_array) {
            for c in calls {
                let f = c.get("function");
                let args = f.and_then(|f| f.get("arguments"));
                // Some servers send arguments as an object, not a string.
                let args_text = match args {
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(Value::Null) | None => None,
                    Some(other) => Some(other.to_string()),
                };
                b.tool_delta(
                    c.get("index")
                        .and_then(Value::as_u64)
                        .and_then(|i| usize::try_from(i).ok()),
                    c.get("id").and_then(Value::as_str),
                    f.and_then(|f| f.get("name")).and_then(Value::as_str),
                    args_text.as_deref(),
                );
            }
        }
    }
    if let Some(r) = choice.get("finish_reason").and_then(Value::as_str) {
        b.stop(match r {
            "stop" => StopReason::EndTurn,
            "tool_calls" | "function_call" => StopReason::ToolUse,
            "length" => StopReason::MaxTokens,
            _ => StopReason::Other,
        });
    }
    Ok(false)
}

pub(crate) fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(200).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// The model ids of `GET {base}/models`.
pub(crate) fn models(body: &Value) -> Vec<String> {
    body.get("data")
        .or_else(|| body.get("models"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|m| {
                    m.get("id")
                        .or_else(|| m.get("name"))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default()
}
