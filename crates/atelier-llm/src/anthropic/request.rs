//! The body of an Anthropic Messages request: our messages as content
//! blocks in the order the API accepts, and extended thinking fitted to
//! the model, the output limit and the tool choice ([`super::thinking`])
//! so the request is never refused for its settings.

use serde_json::{Value, json};

use super::thinking::{self, Ask};
use super::tool_id;
use crate::types::{Message, Part, Request, Role, ToolChoice};
use crate::wire_ids::WireIds;

/// The body of `POST {base}/v1/messages`.
pub(crate) fn body(req: &Request) -> Value {
    // Consecutive messages of one role are one message for Anthropic.
    let mut messages: Vec<Value> = Vec::new();
    let mut ids = WireIds::new(tool_id);
    for m in &req.messages {
        let role = match m.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        // An empty content is refused: a message left with no block (all
        // whitespace, unsigned reasoning) is not sent. Nor is an assistant
        // message of thinking alone (a turn stopped or cut after it): the
        // API refuses one whose last block is thinking.
        let content = blocks(m, &mut ids);
        let answers = |b: &Value| b["type"] == "text" || b["type"] == "tool_use";
        if content.is_empty() || (m.role == Role::Assistant && !content.iter().any(answers)) {
            continue;
        }
        match messages.last_mut() {
            Some(last) if last["role"] == role => {
                if let Some(a) = last["content"].as_array_mut() {
                    a.extend(content);
                }
            }
            _ => messages.push(json!({"role": role, "content": content})),
        }
    }
    for m in &mut messages {
        if let Some(a) = m["content"].as_array_mut() {
            results_first(a);
        }
    }
    let t = thinking::settings(&Ask {
        model: &req.model,
        max_tokens: req.max_tokens,
        effort: req.reasoning_effort.as_deref(),
        forced_tool: !req.tools.is_empty() && matches!(req.tool_choice, ToolChoice::Tool(_)),
        mid_turn_without_thinking: thinking::mid_turn_without_thinking(&messages),
    });
    let mut b = json!({
        "model": req.model,
        "max_tokens": t.max_tokens,
        "messages": messages,
        "stream": true,
    });
    if let Some(s) = req.system.as_deref().filter(|s| !s.trim().is_empty()) {
        b["system"] = json!(s);
    }
    if !req.tools.is_empty() {
        b["tools"] = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
            .collect();
        b["tool_choice"] = match &req.tool_choice {
            ToolChoice::Auto => json!({"type": "auto"}),
            ToolChoice::None => json!({"type": "none"}),
            ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
        };
    }
    if let Some(thinking) = t.thinking {
        b["thinking"] = thinking;
    }
    if let Some(config) = t.output_config {
        b["output_config"] = config;
    }
    match req.temperature {
        Some(temp) if t.temperature => b["temperature"] = json!(temp),
        Some(_) if b.get("thinking").is_none() => {
            tracing::debug!(model = %req.model, "temperature not sent: this model refuses it");
        }
        _ => {}
    }
    b
}

/// One message's parts as content blocks. Whitespace-only text is
/// dropped (the API refuses it: "text content blocks must contain
/// non-whitespace text"); images right after a tool result go inside it.
/// Call ids are the request's, unique in it ([`WireIds`]).
fn blocks(m: &Message, ids: &mut WireIds) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for p in &m.parts {
        let block = match p {
            Part::Text { text } if !text.trim().is_empty() => json!({"type": "text", "text": text}),
            Part::Text { .. } => continue,
            Part::Image { media_type, data } => {
                let image = json!({"type": "image",
                    "source": {"type": "base64", "media_type": media_type, "data": data}});
                // An image a tool produced follows its result: as a block of
                // its own it would sit before the next tool_result, which the
                // API refuses ("tool_result block(s) at the beginning of this
                // message"), so it becomes part of the result's content.
                match out.last_mut().filter(|b| b["type"] == "tool_result") {
                    Some(result) => {
                        nest(result, image);
                        continue;
                    }
                    None => image,
                }
            }
            // A thinking block goes back only with its signature (the API
            // refuses one without); otherwise it is dropped.
            Part::Reasoning {
                text,
                signature: Some(sig),
            } => json!({"type": "thinking", "thinking": text, "signature": sig}),
            Part::Reasoning { signature: None, .. } => continue,
            Part::RedactedReasoning { data } => json!({"type": "redacted_thinking", "data": data}),
            Part::ToolCall { id, name, arguments } => {
                json!({"type": "tool_use", "id": ids.call(id), "name": crate::names::tool_name(name), "input": input(arguments)})
            }
            Part::ToolResult {
                call_id,
                content,
                is_error,
            } => {
                json!({"type": "tool_result", "tool_use_id": ids.result(call_id), "content": content, "is_error": is_error})
            }
        };
        out.push(block);
    }
    out
}

/// A call's arguments as a tool_use `input`, which must be an object:
/// arguments that did not parse (kept as a JSON string: the text the model
/// sent) go back wrapped, under a key that says so, so the model sees what
/// its error result is about.
fn input(arguments: &Value) -> Value {
    match arguments {
        Value::Object(_) => arguments.clone(),
        Value::String(raw) => json!({"unparsed_arguments": raw}),
        other => json!({"unparsed_arguments": other.to_string()}),
    }
}

/// Adds an image to a tool_result's content, turning a string content
/// into blocks (`[{"type": "text"}, {"type": "image"}]`, which the API
/// takes there).
fn nest(result: &mut Value, image: Value) {
    if let Some(text) = result["content"].as_str() {
        let text_block = (!text.trim().is_empty()).then(|| json!({"type": "text", "text": text}));
        result["content"] = json!(text_block.into_iter().collect::<Vec<_>>());
    }
    if let Some(a) = result["content"].as_array_mut() {
        a.push(image);
    }
}

/// The API wants a user message's tool_result blocks before anything
/// else in it; the rest keep their order.
fn results_first(content: &mut [Value]) {
    content.sort_by_key(|b| b["type"] != "tool_result");
}

#[cfg(test)]
mod tests;
