//! OpenAI-compatible chat completions (OpenAI, Ollama, LM Studio,
//! llama.cpp, vLLM, OpenRouter…): the request body and the model list;
//! each streamed chunk is [`stream`]'s.

mod stream;

use serde_json::{Value, json};

use crate::types::{Message, Part, Request, Role, ToolChoice};

pub(crate) use stream::chunk;

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
