//! One streamed chunk of an OpenAI-compatible server as normalized events,
//! and an error a server sends inside its 200 stream typed as the same
//! error over HTTP would be, so that only transient ones are retried.

use serde_json::{Map, Value};

use super::clip;
use crate::accumulate::Builder;
use crate::error::{Error, ErrorKind, Result, body_message, names_context_length, names_no_quota, says_context_length};
use crate::types::StopReason;

/// One event of the stream. `Ok(true)`: the stream is done.
///
/// `event` is `error` for an error llama.cpp builds of 2025 send as a
/// field of its own (`error: {"code":400,…}`, then `data: [DONE]`), which
/// would otherwise end the stream as an empty answer.
pub(crate) fn chunk(event: &str, data: &str, b: &mut Builder<'_>) -> Result<bool> {
    if event == "error" {
        let v: Value = serde_json::from_str(data).unwrap_or_else(|_| Value::String(data.to_owned()));
        return Err(failure(v.get("error").unwrap_or(&v)));
    }
    if data.trim() == "[DONE]" {
        return Ok(true);
    }
    let v: Value = serde_json::from_str(data).map_err(|e| {
        Error::new(
            ErrorKind::BadResponse,
            format!("the stream sent a line that is not JSON ({e}): {}", clip(data)),
        )
    })?;
    // Some gateways put `"error": null` on every chunk.
    if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
        return Err(failure(err));
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
        // Servers that fill both with the same text (StepFun) would show
        // it twice: `reasoning` only stands in for a missing one.
        let reasoning = d
            .get("reasoning_content")
            .and_then(Value::as_str)
            .filter(|r| !r.is_empty())
            .or_else(|| d.get("reasoning").and_then(Value::as_str));
        if let Some(r) = reasoning {
            b.reasoning(r);
        }
        if let Some(t) = d.get("content").and_then(Value::as_str) {
            b.text(t);
        }
        if let Some(r) = d.get("refusal").and_then(Value::as_str).filter(|r| !r.is_empty()) {
            b.refusal(r);
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
                // Gemini 3's `extra_content` (its `thought_signature`), or
                // any field a server adds: it wants them back on the call.
                let extra: Option<Map<String, Value>> = c.as_object().map(|o| {
                    o.iter()
                        .filter(|(k, _)| !matches!(k.as_str(), "index" | "id" | "type" | "function"))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect()
                });
                b.tool_delta(
                    c.get("index")
                        .and_then(Value::as_u64)
                        .and_then(|i| usize::try_from(i).ok()),
                    c.get("id").and_then(Value::as_str),
                    f.and_then(|f| f.get("name")).and_then(Value::as_str),
                    args_text.as_deref(),
                    extra.as_ref().filter(|e| !e.is_empty()),
                );
            }
        }
    }
    if let Some(r) = choice.get("finish_reason").and_then(Value::as_str) {
        b.stop(match r {
            "stop" => StopReason::EndTurn,
            "tool_calls" | "function_call" => StopReason::ToolUse,
            "length" => StopReason::MaxTokens,
            "content_filter" => StopReason::Refused,
            _ => StopReason::Other,
        });
    }
    Ok(false)
}

/// An error object a server sent mid-stream (`{"message", "type",
/// "code"}`, or a bare string) as a typed error. Servers mark it with an
/// HTTP-like `code` (llama.cpp, vLLM) or a name (`type`/`code`: OpenAI's
/// `invalid_request_error`, `invalid_api_key`, `rate_limit_exceeded`;
/// llama.cpp's `exceed_context_size_error`). Only what names no refusal
/// is a server failure, worth another try.
fn failure(err: &Value) -> Error {
    let said = body_message(&serde_json::json!({"error": err}).to_string());
    let status = err.get("code").or_else(|| err.get("status")).and_then(Value::as_u64);
    let names = ["type", "code"]
        .iter()
        .filter_map(|k| err.get(k).and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase();
    let named = |w: &str| names.contains(w);
    let kind = if says_context_length(&said) || names_context_length(&names) {
        ErrorKind::ContextLength
    } else if names_no_quota(&names, &said) {
        ErrorKind::InvalidRequest
    } else if status == Some(429) || named("rate_limit") {
        ErrorKind::RateLimited
    } else if matches!(status, Some(401 | 403))
        || named("invalid_api_key")
        || named("authentication")
        || named("permission")
    {
        ErrorKind::Auth
    } else if status == Some(404) || named("not_found") {
        ErrorKind::ModelNotFound
    } else if status == Some(400) || named("invalid_request") {
        ErrorKind::InvalidRequest
    } else {
        ErrorKind::Server
    };
    Error::new(kind, format!("the server reported an error mid-stream: {said}"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::chunk;
    use crate::accumulate::Builder;
    use crate::error::ErrorKind;

    fn kind(event: &str, data: &str) -> Option<ErrorKind> {
        let mut on = |_: &crate::types::Event| {};
        let mut b = Builder::new(&mut on);
        chunk(event, data, &mut b).err().map(|e| e.kind)
    }

    #[test]
    fn errors_inside_a_stream_are_typed_like_http_errors() {
        let cases = [
            // llama.cpp: its own words, and its own type name.
            (
                json!({"error": {"code": 500, "message": "the request exceeds the available context size, try increasing it", "type": "server_error"}}),
                ErrorKind::ContextLength,
            ),
            (
                json!({"error": {"code": 400, "message": "too big", "type": "exceed_context_size_error"}}),
                ErrorKind::ContextLength,
            ),
            (
                json!({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}),
                ErrorKind::RateLimited,
            ),
            (
                json!({"error": {"code": 429, "message": "slow down"}}),
                ErrorKind::RateLimited,
            ),
            (
                json!({"error": {"message": "Incorrect API key", "type": "invalid_request_error", "code": "invalid_api_key"}}),
                ErrorKind::Auth,
            ),
            (json!({"error": {"code": 401, "message": "no"}}), ErrorKind::Auth),
            (
                json!({"error": {"message": "bad role", "type": "invalid_request_error", "code": null}}),
                ErrorKind::InvalidRequest,
            ),
            (
                json!({"error": {"code": 400, "message": "bad"}}),
                ErrorKind::InvalidRequest,
            ),
            (
                json!({"error": {"message": "oops", "type": "server_error"}}),
                ErrorKind::Server,
            ),
            (json!({"error": "something broke"}), ErrorKind::Server),
        ];
        for (data, want) in cases {
            assert_eq!(kind("", &data.to_string()), Some(want), "{data}");
        }
    }

    #[test]
    fn an_error_field_of_its_own_is_an_error_not_an_empty_answer() {
        // What llama.cpp builds of 2025 send; the SSE parser names it `error`.
        let data = r#"{"code":400,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"invalid_request_error"}"#;
        assert_eq!(kind("error", data), Some(ErrorKind::ContextLength));
        assert_eq!(kind("error", "not json"), Some(ErrorKind::Server));
        assert_eq!(kind("", "[DONE]"), None);
    }
}
