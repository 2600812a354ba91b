//! A reply that came whole instead of as a stream (`application/json`
//! under a 2xx): a server that ignores `stream: true` (some proxies and
//! older local servers), or an error under 200. Read as one chat completion
//! or Anthropic message, giving the same events a stream would have, or
//! as the error it is; never fed to the SSE parser, where it would end as
//! a stream "ended before the answer did" and be tried again.

use serde_json::Value;

use crate::accumulate::Builder;
use crate::client::Kind;
use crate::error::{Error, ErrorKind, Result};
use crate::openai::clip;
use crate::{anthropic, openai};

/// Reads `text`, the whole reply of provider `provider`, into `b`.
pub(crate) fn reply(kind: Kind, text: &str, provider: &str, b: &mut Builder<'_>) -> Result<()> {
    let bad = |why: &str| {
        Error::new(
            ErrorKind::BadResponse,
            format!("{provider} answered with JSON that is {why}: {}", clip(text)),
        )
    };
    let v: Value = serde_json::from_str(text).map_err(|_| bad("not valid"))?;
    match kind {
        Kind::Openai => {
            let answer = v
                .get("choices")
                .and_then(Value::as_array)
                .is_some_and(|c| !c.is_empty());
            let error = v.get("error").is_some_and(|e| !e.is_null());
            if !answer && !error {
                return Err(bad("neither a chat completion nor an error"));
            }
            // The same reader as a stream's chunks: it takes `message`
            // where a chunk has `delta`, and types an `error` field.
            openai::chunk("", text, b).map(|_| ())
        }
        Kind::Anthropic => match v.get("type").and_then(Value::as_str) {
            Some("error") => anthropic::event("error", text, b).map(|_| ()),
            Some("message") => {
                message(&v, b);
                Ok(())
            }
            _ => Err(bad("neither a message nor an error")),
        },
    }
}

/// A whole Anthropic message as the events its stream would have given.
fn message(v: &Value, b: &mut Builder<'_>) {
    let usage = |k: &str| v.pointer(&format!("/usage/{k}")).and_then(Value::as_u64);
    b.usage(usage("input_tokens"), usage("output_tokens"));
    let blocks = v.get("content").and_then(Value::as_array).into_iter().flatten();
    for (i, block) in blocks.enumerate() {
        let field = |k: &str| block.get(k).and_then(Value::as_str);
        match field("type") {
            Some("text") => b.text(field("text").unwrap_or_default()),
            Some("thinking") => {
                b.thinking_start();
                b.thinking(field("thinking").unwrap_or_default());
                if let Some(sig) = field("signature") {
                    b.signature(sig);
                }
            }
            Some("redacted_thinking") => b.redacted(field("data").unwrap_or_default()),
            Some("tool_use") => {
                let input = block.get("input").map(Value::to_string);
                b.tool_delta(Some(i), field("id"), field("name"), input.as_deref(), None);
                b.tool_end(i);
            }
            _ => {}
        }
    }
    if let Some(r) = v.get("stop_reason").and_then(Value::as_str) {
        b.stop(anthropic::stop_reason(r));
    }
}
