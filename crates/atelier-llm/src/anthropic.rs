//! Anthropic Messages: the stream's events (`message_start`,
//! `content_block_start` text / tool_use / thinking, `content_block_delta`,
//! `content_block_stop`, `message_delta`, `message_stop`, `ping`, `error`)
//! as normalized events, and call ids as the API takes them; the request
//! body is [`request`]'s.

mod request;
mod thinking;

use serde_json::Value;

use crate::accumulate::Builder;
use crate::error::{Error, ErrorKind, Result, says_context_length};
use crate::openai::clip;
use crate::types::StopReason;

pub(crate) use request::body;

/// The API version this adapter is written against.
pub(crate) const VERSION: &str = "2023-06-01";

/// One event of the stream. `Ok(true)`: the message is complete.
pub(crate) fn event(name: &str, data: &str, b: &mut Builder<'_>) -> Result<bool> {
    let v: Value = serde_json::from_str(data).map_err(|e| {
        Error::new(
            ErrorKind::BadResponse,
            format!("the stream sent an event that is not JSON ({e}): {}", clip(data)),
        )
    })?;
    let kind = v.get("type").and_then(Value::as_str).unwrap_or(name);
    let index = || {
        v.get("index")
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok())
    };
    match kind {
        "message_start" => {
            let u = v.pointer("/message/usage");
            b.usage(
                u.and_then(|u| u.get("input_tokens")).and_then(Value::as_u64),
                u.and_then(|u| u.get("output_tokens")).and_then(Value::as_u64),
            );
        }
        "content_block_start" => {
            let block = v.get("content_block").cloned().unwrap_or(Value::Null);
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use") => b.tool_delta(
                    index(),
                    block.get("id").and_then(Value::as_str),
                    block.get("name").and_then(Value::as_str),
                    None,
                    None,
                ),
                Some("text") => {
                    if let Some(t) = block.get("text").and_then(Value::as_str) {
                        b.text(t);
                    }
                }
                Some("thinking") => {
                    b.thinking_start();
                    if let Some(t) = block.get("thinking").and_then(Value::as_str) {
                        b.thinking(t);
                    }
                }
                Some("redacted_thinking") => b.redacted(block.get("data").and_then(Value::as_str).unwrap_or_default()),
                _ => {}
            }
        }
        "content_block_delta" => {
            let d = v.get("delta").cloned().unwrap_or(Value::Null);
            match d.get("type").and_then(Value::as_str) {
                Some("text_delta") => b.text(d.get("text").and_then(Value::as_str).unwrap_or_default()),
                Some("input_json_delta") => {
                    b.tool_delta(index(), None, None, d.get("partial_json").and_then(Value::as_str), None)
                }
                Some("thinking_delta") => b.thinking(d.get("thinking").and_then(Value::as_str).unwrap_or_default()),
                Some("signature_delta") => b.signature(d.get("signature").and_then(Value::as_str).unwrap_or_default()),
                _ => {}
            }
        }
        "content_block_stop" => {
            if let Some(i) = index() {
                b.tool_end(i);
            }
        }
        "message_delta" => {
            if let Some(r) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                b.stop(stop_reason(r));
            }
            if let Some(o) = v.pointer("/usage/output_tokens").and_then(Value::as_u64) {
                b.usage(None, Some(o));
            }
        }
        "message_stop" => return Ok(true),
        "ping" => b.keepalive(),
        "error" => {
            let t = v.pointer("/error/type").and_then(Value::as_str).unwrap_or_default();
            let said = v.pointer("/error/message").and_then(Value::as_str).unwrap_or(data);
            let kind = match t {
                "overloaded_error" => ErrorKind::Overloaded,
                "rate_limit_error" => ErrorKind::RateLimited,
                "authentication_error" | "permission_error" => ErrorKind::Auth,
                "not_found_error" => ErrorKind::ModelNotFound,
                "invalid_request_error" if says_context_length(said) => ErrorKind::ContextLength,
                "invalid_request_error" => ErrorKind::InvalidRequest,
                _ => ErrorKind::Server,
            };
            return Err(Error::new(kind, format!("Anthropic reported {t} mid-stream: {said}")));
        }
        _ => {}
    }
    Ok(false)
}

/// A `stop_reason` as ours. `model_context_window_exceeded` (the
/// model's whole window, not `max_tokens`, ran out) cut the answer just as
/// the output limit does: not a complete answer.
pub(crate) fn stop_reason(r: &str) -> StopReason {
    match r {
        "end_turn" | "stop_sequence" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" | "model_context_window_exceeded" => StopReason::MaxTokens,
        "refusal" => StopReason::Refused,
        _ => StopReason::Other,
    }
}

/// A call id as Anthropic takes it (`^[a-zA-Z0-9_-]+$`): ids another
/// provider made (a chat that switched providers) keep their letters and
/// digits, anything else becomes `_` — the same for a call and its result
/// (two ids made alike are told apart by [`crate::wire_ids`]).
fn tool_id(id: &str) -> String {
    let cleaned: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() { "call".to_owned() } else { cleaned }
}

#[cfg(test)]
mod id_tests {
    #[test]
    fn call_ids_of_other_providers_become_ids_anthropic_takes() {
        assert_eq!(super::tool_id("toolu_01A-b"), "toolu_01A-b");
        assert_eq!(super::tool_id("chatcmpl-tool.7:a/b"), "chatcmpl-tool_7_a_b");
        assert_eq!(super::tool_id(""), "call");
    }
}
