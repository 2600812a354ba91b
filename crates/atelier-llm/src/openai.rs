//! OpenAI-compatible chat completions (OpenAI, Ollama, LM Studio,
//! llama.cpp, vLLM, OpenRouter…): the request body (what differs for
//! OpenAI's own API, call ids as OpenAI takes them) and the model list;
//! each streamed chunk is [`stream`]'s.

mod stream;

use serde_json::{Value, json};

use crate::types::{Message, Part, Request, Role, ToolChoice};

pub(crate) use stream::chunk;

/// Whether `base_url` is OpenAI's own API (the `openai` preset's
/// `https://api.openai.com/v1`), not another server speaking its format.
pub(crate) fn is_openai_itself(base_url: &str) -> bool {
    reqwest::Url::parse(base_url).is_ok_and(|u| u.host_str() == Some("api.openai.com"))
}

/// The body of `POST {base}/chat/completions`; `openai_itself`: the
/// server is OpenAI's own API ([`is_openai_itself`]).
pub(crate) fn body(req: &Request, openai_itself: bool) -> Value {
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
        // OpenAI refuses `max_tokens` for o-series and GPT-5 models ("Use
        // 'max_completion_tokens' instead") and takes the new name for all;
        // the servers that copy its format know only the old one.
        let field = if openai_itself {
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
                        "id": call_id(id), "type": "function",
                        "function": {"name": crate::names::tool_name(name), "arguments": arguments.to_string()}})),
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
                        "role": "tool", "tool_call_id": self::call_id(call_id),
                        "content": if *is_error { format!("Error: {c}") } else { c.clone() }})),
                    Part::Text { text } => content.push(json!({"type": "text", "text": text})),
                    Part::Image { media_type, data } => content.push(json!({
                        "type": "image_url", "image_url": {"url": format!("data:{media_type};base64,{data}")}})),
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
mod tests {
    use serde_json::json;

    use super::{body, call_id, is_openai_itself};
    use crate::types::{Message, Part, Request, Role};

    #[test]
    fn openai_itself_gets_max_completion_tokens_and_other_servers_max_tokens() {
        assert!(is_openai_itself("https://api.openai.com/v1"));
        assert!(!is_openai_itself("http://localhost:11434/v1"));
        assert!(!is_openai_itself("https://openrouter.ai/api/v1"));
        assert!(!is_openai_itself("not a url"));
        let req = Request {
            model: "gpt-5".into(),
            messages: vec![Message::user("hi")],
            max_tokens: Some(500),
            ..Default::default()
        };
        let b = body(&req, true);
        assert!(
            b["max_completion_tokens"] == 500 && b.get("max_tokens").is_none(),
            "{b}"
        );
        let b = body(&req, false);
        assert!(
            b["max_tokens"] == 500 && b.get("max_completion_tokens").is_none(),
            "{b}"
        );
    }

    #[test]
    fn a_message_of_text_parts_is_one_string_and_one_with_an_image_a_list() {
        let text = |t: &str| Part::Text { text: t.into() };
        let req = Request {
            model: "local".into(),
            messages: vec![Message {
                role: Role::User,
                parts: vec![text("(2 older messages were left out)"), text("hello")],
            }],
            ..Default::default()
        };
        let b = body(&req, false);
        assert_eq!(b["messages"][0]["content"], "(2 older messages were left out)\n\nhello");
        let req = Request {
            messages: vec![Message {
                role: Role::User,
                parts: vec![
                    text("what is this?"),
                    Part::Image {
                        media_type: "image/png".into(),
                        data: "iVBO".into(),
                    },
                ],
            }],
            ..req
        };
        assert!(body(&req, false)["messages"][0]["content"].is_array());
    }

    #[test]
    fn long_or_odd_call_ids_become_short_ones_the_same_for_call_and_result() {
        assert_eq!(call_id("call_abc-1"), "call_abc-1");
        let long = "toolu_01A09q90qw90lq917835lq9toolu_01A09q90qw90lq917835lq9";
        let short = call_id(long);
        assert!(short.starts_with("call_") && short.len() <= 40, "{short}");
        assert_eq!(short, call_id(long), "deterministic");
        assert_ne!(call_id("a.b"), call_id("a:b"));
        assert!(call_id("a.b").bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
        // Pinned: the hash is the same in every build (FNV-1a of "a.b").
        assert_eq!(call_id("a.b"), "call_e61d99190466522c");

        let req = Request {
            model: "gpt-4o".into(),
            messages: vec![
                Message {
                    role: Role::Assistant,
                    parts: vec![Part::ToolCall {
                        id: long.into(),
                        name: "read".into(),
                        arguments: json!({}),
                    }],
                },
                Message {
                    role: Role::User,
                    parts: vec![Part::ToolResult {
                        call_id: long.into(),
                        content: "ok".into(),
                        is_error: false,
                    }],
                },
            ],
            ..Default::default()
        };
        let b = body(&req, true);
        assert_eq!(b["messages"][0]["tool_calls"][0]["id"], json!(short));
        assert_eq!(b["messages"][1]["tool_call_id"], json!(short));
    }
}
