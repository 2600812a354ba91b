//! OpenAI-compatible chat completions (OpenAI, Ollama, LM Studio,
//! llama.cpp, vLLM, OpenRouter, DeepSeek, Gemini's OpenAI endpoint…): the
//! request body (what differs for OpenAI's own API and its reasoning
//! models, call ids as OpenAI takes them, what a turn with calls must carry
//! back), the fields a strict server may refuse, and the model list; each
//! streamed chunk is [`stream`]'s.

mod stream;

use serde_json::{Value, json};

use crate::types::{Message, Part, Request, Role, ToolChoice};
use crate::wire_ids::WireIds;

/// Fields this client adds that not every server takes: Mistral answers
/// `stream_options` with 422 `extra_forbidden`, Azure AI Foundry with 400
/// "Extra parameters ['stream_options'] are not allowed"; a strict server
/// may refuse a message's `reasoning_content` or a call's `extra_content`
/// likewise. Each can go without breaking the turn (usage, or what only
/// DeepSeek and Gemini read), so a refusal naming one is retried without it
/// ([`refused_field`], [`strip`]).
pub(crate) const OPTIONAL_FIELDS: [&str; 3] = ["stream_options", "reasoning_content", "extra_content"];

pub(crate) use stream::chunk;

/// Whether `base_url` is OpenAI's own API (the `openai` preset's
/// `https://api.openai.com/v1`), not another server speaking its format.
pub(crate) fn is_openai_itself(base_url: &str) -> bool {
    reqwest::Url::parse(base_url).is_ok_and(|u| u.host_str() == Some("api.openai.com"))
}

/// Whether `model` is one of OpenAI's reasoning models (o1, o3, o4-mini,
/// the GPT-5 family), under any prefix a gateway adds (`openai/o3`): they
/// take `max_completion_tokens`, not `max_tokens`, on OpenAI, Azure and
/// gateways alike.
fn is_reasoning_model(model: &str) -> bool {
    let id = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    let o_series = id
        .strip_prefix('o')
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
    o_series || id.starts_with("gpt-5")
}

/// Whether `model` refuses a temperature other than the default 1 ("Only
/// the default (1) value is supported"): OpenAI's reasoning models but
/// GPT-5's chat variant, and GPT-5.1 and later with reasoning turned off.
fn takes_no_temperature(model: &str, effort: Option<&str>) -> bool {
    is_reasoning_model(model) && !model.to_ascii_lowercase().contains("-chat") && effort != Some("none")
}

/// The body of `POST {base}/chat/completions`; `openai_itself`: the
/// server is OpenAI's own API ([`is_openai_itself`]).
pub(crate) fn body(req: &Request, openai_itself: bool) -> Value {
    let mut messages = Vec::new();
    if let Some(s) = &req.system {
        messages.push(json!({"role": "system", "content": s}));
    }
    let mut ids = WireIds::new(call_id);
    for m in &req.messages {
        messages.extend(message(m, req, &mut ids));
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
    match req.temperature {
        Some(t) if t != 1.0 && takes_no_temperature(&req.model, req.reasoning_effort.as_deref()) => {
            tracing::info!(model = %req.model, temperature = t, "temperature left out: this model takes only the default");
        }
        Some(t) => b["temperature"] = json!(t),
        None => {}
    }
    if let Some(n) = req.max_tokens {
        // OpenAI refuses `max_tokens` for o-series and GPT-5 models ("Use
        // 'max_completion_tokens' instead"), on Azure and through gateways
        // too, and takes the new name for all; the servers that copy its
        // format know only the old one.
        let field = if openai_itself || is_reasoning_model(&req.model) {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        b[field] = json!(n);
    }
    if let Some(e) = &req.reasoning_effort {
        b["reasoning_effort"] = json!(e);
    }
    b
}

/// One of our messages as OpenAI messages: tool results are messages of
/// their own (`role: tool`). Reasoning goes back only on a turn that made
/// calls, as `reasoning_content`: DeepSeek's thinking mode refuses such a
/// turn without it ("Missing `reasoning_content` field in the assistant
/// message"), while the reasoning of a turn without calls "should not" be
/// sent (its docs, guides/thinking_mode). A call carries back what the
/// provider put on it (`req.call_extras`: Gemini 3's `extra_content`).
/// Call ids are the request's ([`WireIds`]).
fn message(m: &Message, req: &Request, ids: &mut WireIds) -> Vec<Value> {
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
                    Part::ToolCall { id, name, arguments } => {
                        let mut call = json!({
                            "id": ids.call(id), "type": "function",
                            "function": {"name": crate::names::tool_name(name), "arguments": arguments_text(arguments)}});
                        if let (Some(extra), Some(c)) =
                            (req.call_extras.get(id).and_then(Value::as_object), call.as_object_mut())
                        {
                            for (k, v) in extra {
                                c.entry(k.clone()).or_insert_with(|| v.clone());
                            }
                        }
                        Some(call)
                    }
                    _ => None,
                })
                .collect();
            let reasoning: String = m
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::Reasoning { text, .. } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            // A turn with no answer (nothing, or reasoning alone) is not
            // sent: an empty assistant message teaches the model nothing.
            if text.trim().is_empty() && calls.is_empty() {
                return out;
            }
            // Always a string: llama-cpp-python's server refuses `null`
            // (a 500 at the turn after a tool call), and OpenAI takes "".
            let mut a = json!({"role": "assistant", "content": text});
            if !calls.is_empty() {
                a["tool_calls"] = json!(calls);
                if !reasoning.is_empty() {
                    a["reasoning_content"] = json!(reasoning);
                }
            }
            out.push(a);
        }
        Role::User => {
            let mut content = Vec::new();
            // The call whose result the parts follow: its images are said to
            // be its (a tool message takes no image, so they come after all
            // the results, in a user message of their own).
            let (mut after, mut labelled) = (None, None);
            for p in &m.parts {
                match p {
                    Part::ToolResult {
                        call_id,
                        content: c,
                        is_error,
                    } => {
                        let sent = ids.result(call_id);
                        after = Some(sent.clone());
                        // OpenAI's tool message has no error flag: a failed
                        // call says so in words, once (the core's own words
                        // may already open with "Error").
                        let said = if *is_error && !c.starts_with("Error") {
                            format!("Error: {c}")
                        } else {
                            c.clone()
                        };
                        out.push(json!({
                        "role": "tool", "tool_call_id": sent, "content": said}));
                    }
                    Part::Text { text } => {
                        after = None;
                        content.push(json!({"type": "text", "text": text}));
                    }
                    Part::Image { media_type, data } => {
                        if let Some(id) = after.clone().filter(|id| labelled.as_ref() != Some(id)) {
                            let label = format!("(The images below came from tool call {id}.)");
                            labelled = Some(id);
                            content.push(json!({"type": "text", "text": label}));
                        }
                        content.push(json!({
                        "type": "image_url", "image_url": {"url": format!("data:{media_type};base64,{data}")}}));
                    }
                    Part::Reasoning { .. } | Part::RedactedReasoning { .. } | Part::ToolCall { .. } => {}
                }
            }
            // Text only (a message and the notes beside it) as one string:
            // what every local server takes; llama-cpp-python's chat
            // templates fail on a list ("can only concatenate str").
            let texts: Option<Vec<&str>> = content
                .iter()
                .map(|c| (c["type"] == "text").then(|| c["text"].as_str()).flatten())
                .collect();
            match (content.is_empty(), texts) {
                (true, _) => {}
                (false, Some(texts)) => out.push(json!({"role": "user", "content": texts.join("\n\n")})),
                (false, None) => out.push(json!({"role": "user", "content": content})),
            }
        }
    }
    out
}

/// A call's arguments as the API carries them, a string: the JSON of the
/// object, or, for arguments that did not parse (kept as a JSON string),
/// the text the model sent, as it sent it.
fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

/// A call id as OpenAI takes it: at most 40 characters (a longer one is
/// refused: "string too long"), letters, digits, `_` and `-`. Ids another
/// provider made (a chat that switched providers) that are not become
/// `call_` and a hash of the id, the same for a call and its result.
fn call_id(id: &str) -> String {
    let fits = id.len() <= 40 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if fits && !id.is_empty() {
        return id.to_owned();
    }
    // FNV-1a (64 bits): the same id in every build, which std's hasher
    // does not promise across Rust versions.
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("call_{hash:016x}")
}

/// The one of [`OPTIONAL_FIELDS`] in `body` a 400 or 422 refusal names as
/// one the server does not take (pydantic's `extra_forbidden`, "Extra
/// parameters … are not allowed", "Unrecognized request argument"…).
pub(crate) fn refused_field(status: Option<u16>, said: &str, body: &Value) -> Option<&'static str> {
    if !matches!(status, Some(400 | 422)) {
        return None;
    }
    let m = said.to_ascii_lowercase();
    let refusal = [
        "extra",
        "not allowed",
        "not permitted",
        "unrecognized",
        "unknown",
        "unsupported",
        "not supported",
    ]
    .iter()
    .any(|w| m.contains(w));
    OPTIONAL_FIELDS
        .into_iter()
        .find(|f| refusal && m.contains(f) && has_field(body, f))
}

/// Whether `body` has `field` where [`strip`] would take it from.
fn has_field(body: &Value, field: &str) -> bool {
    let messages = body.get("messages").and_then(Value::as_array).into_iter().flatten();
    body.get(field).is_some()
        || messages.into_iter().any(|m| {
            m.get(field).is_some()
                || m.get("tool_calls")
                    .and_then(Value::as_array)
                    .is_some_and(|c| c.iter().any(|c| c.get(field).is_some()))
        })
}

/// The servers (by base URL) that refused a field of [`OPTIONAL_FIELDS`]
/// in this process: a client is made per run, the memory outlives it, so
/// that only the first request to such a server is refused.
static REFUSED: std::sync::Mutex<Vec<(String, &'static str)>> = std::sync::Mutex::new(Vec::new());

/// The fields the server at `base_url` refused before.
pub(crate) fn refused_before(base_url: &str) -> Vec<&'static str> {
    REFUSED
        .lock()
        .map(|r| r.iter().filter(|(u, _)| u == base_url).map(|(_, f)| *f).collect())
        .unwrap_or_default()
}

pub(crate) fn remember_refused(base_url: &str, field: &'static str) {
    if let Ok(mut r) = REFUSED.lock()
        && !r.iter().any(|(u, f)| u == base_url && *f == field)
    {
        r.push((base_url.to_owned(), field));
    }
}

/// `body` without `field`, wherever this client puts it: the body's own
/// fields, each message's, each call's.
pub(crate) fn strip(body: &mut Value, field: &str) {
    if let Some(b) = body.as_object_mut() {
        b.remove(field);
    }
    let messages = body.get_mut("messages").and_then(Value::as_array_mut);
    for m in messages.into_iter().flatten().filter_map(Value::as_object_mut) {
        m.remove(field);
        let calls = m.get_mut("tool_calls").and_then(Value::as_array_mut);
        for c in calls.into_iter().flatten().filter_map(Value::as_object_mut) {
            c.remove(field);
        }
    }
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

#[cfg(test)]
mod tests;
