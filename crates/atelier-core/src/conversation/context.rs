//! What a model is sent: the branch being answered (root → that message),
//! and nothing else — a sibling branch's text, calls or files never reach
//! a request. The transcript is always well paired: every call a model made
//! has exactly one result (a call a stop or an edit cut off gets "cancelled
//! by the user"), and a call a person ran by hand appears as a call and its
//! result.

use std::collections::{BTreeMap, HashMap};

use atelier_llm::{Message as LlmMessage, Part, Role as LlmRole};
use serde_json::Value;

use super::images::Images;
use crate::model::{ContentPart, Message, Role};

/// The most characters of one tool result sent back.
pub const MAX_RESULT_CHARS: usize = 16_000;

/// What a `tool` message ran, as the transcript needs it.
#[derive(Debug, Clone)]
pub(crate) struct CallRow {
    pub id: String,
    pub tool_id: String,
    pub args: Value,
    pub result: Option<Value>,
    pub status: String,
    pub error_kind: Option<String>,
    pub error: Option<String>,
    pub model_call_id: Option<String>,
    pub render_plan: Option<Value>,
    pub post_manifest_id: Option<String>,
}

/// A call's result as the model reads it; whether it is an error.
pub(crate) fn result_text(row: &CallRow) -> (String, bool) {
    if row.status == "success" {
        // A text result (an MCP tool's content) is sent as the text, not
        // as a quoted JSON string.
        let text = match row.result.as_ref().map(without_bytes) {
            Some(Value::String(s)) => s,
            Some(v) => v.to_string(),
            None => "{}".to_owned(),
        };
        let n = text.chars().count();
        if n > MAX_RESULT_CHARS {
            let cut: String = text.chars().take(MAX_RESULT_CHARS).collect();
            return (
                format!("{cut}\n[cut: the result is {n} characters; the first {MAX_RESULT_CHARS} are above]"),
                false,
            );
        }
        return (text, false);
    }
    match row.error_kind.as_deref() {
        Some("denied") => ("the user denied this call".to_owned(), true),
        Some("cancelled") => ("cancelled by the user".to_owned(), true),
        kind => (
            format!(
                "Error ({}): {}",
                kind.unwrap_or("error"),
                row.error.as_deref().unwrap_or("the call failed")
            ),
            true,
        ),
    }
}

/// The shortest string read as bytes in a result rather than words.
const BYTES_FROM: usize = 1024;

/// A result with its bytes left out: an MCP image, audio or blob block's
/// base64, a `data:` URL or any long run of base64 becomes a note of what
/// it was and how big. Sent as text they cost a model thousands of tokens
/// of noise and crowd out the 16,000 characters kept; an image still
/// reaches a model that takes images, as an image (see `images`).
pub(crate) fn without_bytes(v: &Value) -> Value {
    match v {
        // An MCP block's bytes, whatever their size.
        Value::Object(m)
            if matches!(m.get("type").and_then(Value::as_str), Some("image" | "audio"))
                && m.get("data").is_some_and(Value::is_string) =>
        {
            let mut m = m.clone();
            if let Some(Value::String(data)) = m.get("data") {
                let note = format!(
                    "[{} of base64 data, not sent as text]",
                    crate::toolsets::bundle::human_bytes(data.len() as u64 * 3 / 4)
                );
                m.insert("data".into(), Value::String(note));
            }
            Value::Object(m)
        }
        Value::String(s) if s.len() >= BYTES_FROM && looks_like_bytes(s) => {
            let media = s
                .strip_prefix("data:")
                .and_then(|r| r.split_once(";base64,"))
                .map(|(m, _)| format!("{m}, "))
                .unwrap_or_default();
            Value::String(format!(
                "[{media}{} of base64 data, not sent as text]",
                crate::toolsets::bundle::human_bytes(s.len() as u64 * 3 / 4)
            ))
        }
        Value::Array(a) => Value::Array(a.iter().map(without_bytes).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), without_bytes(x))).collect()),
        other => other.clone(),
    }
}

/// A `data:` URL, or one unbroken run of the base64 alphabet mixing upper
/// and lower case and digits — not words, hex hashes, DNA or a column of
/// ids one a line, which are data a model should read.
fn looks_like_bytes(s: &str) -> bool {
    if let Some((_, body)) = s.strip_prefix("data:").and_then(|r| r.split_once(";base64,")) {
        return body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    }
    let alphabet = s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_'));
    alphabet
        && s.bytes().any(|b| b.is_ascii_uppercase())
        && s.bytes().any(|b| b.is_ascii_lowercase())
        && s.bytes().any(|b| b.is_ascii_digit())
}

struct Builder {
    out: Vec<LlmMessage>,
    /// Calls of the last model turn still without a result.
    pending: Vec<String>,
    /// Results waiting to be sent (before the next message).
    results: Vec<Part>,
}

impl Builder {
    fn flush(&mut self) {
        for call_id in self.pending.drain(..) {
            self.results.push(Part::ToolResult {
                call_id,
                content: "cancelled by the user: this call did not run".into(),
                is_error: true,
            });
        }
        if !self.results.is_empty() {
            self.out.push(LlmMessage {
                role: LlmRole::User,
                parts: std::mem::take(&mut self.results),
            });
        }
    }
}

/// An image for the request, or a note saying it was left out and why.
fn image_part(loaded: Option<&super::images::Loaded>, send: bool, what: &str) -> Part {
    match loaded {
        Some(Ok((media_type, data))) => Part::Image {
            media_type: media_type.clone(),
            data: data.clone(),
        },
        _ if !send => Part::Text {
            text: format!("(An image ({what}) was left out: this model does not take images.)"),
        },
        Some(Err(why)) => Part::Text {
            text: format!("(An image was left out: {why}.)"),
        },
        None => Part::Text {
            text: format!("(An image ({what}) was left out.)"),
        },
    }
}

fn same_provider(m: &Message, provider_id: &str) -> bool {
    m.meta
        .as_ref()
        .and_then(|meta| meta.provider_id.as_deref())
        .is_none_or(|p| p == provider_id)
}

/// How many reasoning blocks of `branch` another provider made (they are
/// left out of a request to this one).
pub(crate) fn foreign_reasoning(branch: &[Message], provider_id: &str) -> usize {
    branch
        .iter()
        .filter(|m| !same_provider(m, provider_id))
        .flat_map(|m| &m.content)
        .filter(|p| matches!(p, ContentPart::Reasoning { .. } | ContentPart::RedactedReasoning { .. }))
        .count()
}

/// What the provider put on each call of `branch` besides its function
/// (Gemini 3's `extra_content`), by call id, for the request to send back
/// on those calls; only the calls `provider_id` made (like reasoning,
/// another provider's would mean nothing to it).
pub(crate) fn call_extras(branch: &[Message], provider_id: &str) -> BTreeMap<String, Value> {
    branch
        .iter()
        .filter(|m| m.role == Role::Assistant && same_provider(m, provider_id))
        .flat_map(|m| &m.content)
        .filter_map(|p| match p {
            ContentPart::ModelCall {
                call_id,
                extra: Some(extra),
                ..
            } => Some((call_id.clone(), extra.clone())),
            _ => None,
        })
        .collect()
}

/// What a transcript is made from besides the branch's messages.
pub(crate) struct Inputs<'a> {
    /// The rows the branch's `tool` messages name.
    pub calls: &'a HashMap<String, CallRow>,
    /// The name a tool goes by for this provider.
    pub wire_name: &'a dyn Fn(&str) -> String,
    pub images: &'a Images,
    /// The provider being asked (another one's reasoning is left out).
    pub provider_id: &'a str,
    /// What each `edit` message changed, as a sentence (by message id).
    pub edits: &'a HashMap<String, String>,
}

/// What an `edit` node changed, as the model reads it: a manifest's change
/// set (`{path: hash, removed path: null}`) and why it was recorded.
pub(crate) fn edit_note(files: &serde_json::Map<String, Value>, upload: bool) -> String {
    const SHOWN: usize = 20;
    let list = |paths: Vec<&String>| {
        let n = paths.len();
        let mut s = paths.into_iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
        if n > SHOWN {
            s.push_str(&format!(" and {} more", n - SHOWN));
        }
        s
    };
    let (removed, changed): (Vec<&String>, Vec<&String>) = files.keys().partition(|k| files[*k].is_null());
    let mut parts = Vec::new();
    if !changed.is_empty() {
        parts.push(format!(
            "{} {}",
            if upload { "added to the workspace:" } else { "edited" },
            list(changed)
        ));
    }
    if !removed.is_empty() {
        parts.push(format!("removed {}", list(removed)));
    }
    if parts.is_empty() {
        return "(The user changed the workspace by hand.)".to_owned();
    }
    format!("(The user {}.)", parts.join("; "))
}

/// The transcript of `branch` (root first).
pub(crate) fn transcript(branch: &[Message], inputs: &Inputs<'_>) -> Vec<LlmMessage> {
    let Inputs {
        calls,
        wire_name,
        images,
        provider_id,
        edits,
    } = *inputs;
    let mut b = Builder {
        out: Vec::new(),
        pending: Vec::new(),
        results: Vec::new(),
    };
    for m in branch {
        match m.role {
            Role::System => {}
            Role::User => {
                b.flush();
                let text = m.text();
                let mut parts = Vec::new();
                if !text.is_empty() {
                    parts.push(Part::Text { text });
                }
                for p in &m.content {
                    if let ContentPart::Image { path, .. } = p {
                        parts.push(image_part(images.of_message(&m.id, path), images.send, path));
                    }
                }
                if !parts.is_empty() {
                    b.out.push(LlmMessage {
                        role: LlmRole::User,
                        parts,
                    });
                }
            }
            Role::Edit => {
                b.flush();
                if let Some(note) = edits.get(&m.id) {
                    b.out.push(LlmMessage::user(note.clone()));
                } else if let Some(ContentPart::WorkspaceEdit {
                    added,
                    removed,
                    modified,
                }) = m.content.first()
                {
                    b.out.push(LlmMessage {
                        role: LlmRole::User,
                        parts: vec![Part::Text {
                            text: format!(
                                "(The user changed workspace files by hand: {added} added, {removed} removed, {modified} modified.)"
                            ),
                        }],
                    });
                }
            }
            Role::Assistant => {
                b.flush();
                let mut parts = Vec::new();
                for p in &m.content {
                    match p {
                        // Reasoning goes back only to the provider that made it
                        // (a signature means nothing to another).
                        ContentPart::Reasoning { text, signature } if same_provider(m, provider_id) => {
                            parts.push(Part::Reasoning {
                                text: text.clone(),
                                signature: signature.clone(),
                            });
                        }
                        ContentPart::RedactedReasoning { data } if same_provider(m, provider_id) => {
                            parts.push(Part::RedactedReasoning { data: data.clone() });
                        }
                        ContentPart::Reasoning { .. } | ContentPart::RedactedReasoning { .. } => {}
                        ContentPart::Text { text } => parts.push(Part::Text { text: text.clone() }),
                        ContentPart::ModelCall {
                            call_id,
                            name,
                            arguments,
                            ..
                        } => {
                            b.pending.push(call_id.clone());
                            parts.push(Part::ToolCall {
                                id: call_id.clone(),
                                name: name.clone(),
                                arguments: arguments.clone(),
                            });
                        }
                        ContentPart::ToolCall { .. }
                        | ContentPart::WorkspaceEdit { .. }
                        | ContentPart::Image { .. } => {}
                    }
                }
                if !parts.is_empty() {
                    b.out.push(LlmMessage {
                        role: LlmRole::Assistant,
                        parts,
                    });
                }
            }
            Role::Tool => {
                let Some(row) = m.content.iter().find_map(|p| match p {
                    ContentPart::ToolCall { tool_call_id } => calls.get(tool_call_id),
                    _ => None,
                }) else {
                    continue;
                };
                let (mut content, is_error) = result_text(row);
                let shown = images.after_result(&row.id, &mut content);
                match row.model_call_id.as_ref().filter(|c| b.pending.contains(c)) {
                    Some(call_id) => {
                        b.pending.retain(|c| c != call_id);
                        b.results.push(Part::ToolResult {
                            call_id: call_id.clone(),
                            content,
                            is_error,
                        });
                    }
                    None => {
                        // Run by hand (or its turn is gone): a call and its
                        // result of their own.
                        b.flush();
                        let call_id = format!("hand_{}", row.id.replace('-', ""));
                        b.out.push(LlmMessage {
                            role: LlmRole::Assistant,
                            parts: vec![Part::ToolCall {
                                id: call_id.clone(),
                                name: wire_name(&row.tool_id),
                                arguments: row.args.clone(),
                            }],
                        });
                        b.results.push(Part::ToolResult {
                            call_id,
                            content,
                            is_error,
                        });
                    }
                }
                // The images the call returned follow its result (Anthropic
                // puts them inside it, OpenAI after the results, labelled).
                b.results.extend(shown);
            }
        }
    }
    b.flush();
    // Providers want the person first (Anthropic refuses anything else): a
    // branch that opens with a hand run gets a note before it.
    if b.out.first().is_some_and(|m| m.role == LlmRole::Assistant) {
        b.out.insert(
            0,
            LlmMessage::user("(The conversation starts with tool calls the user ran by hand.)"),
        );
    }
    b.out
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{CallRow, result_text};

    fn row(result: Value) -> CallRow {
        CallRow {
            id: "c1".into(),
            tool_id: "srv:chart".into(),
            args: json!({}),
            result: Some(result),
            status: "success".into(),
            error_kind: None,
            error: None,
            model_call_id: Some("call_1".into()),
            render_plan: None,
            post_manifest_id: None,
        }
    }

    #[test]
    fn an_mcp_image_or_a_data_url_reaches_the_model_as_a_note_not_base64() {
        let png = "iVBORw0KGgoAAAANSUhEUg".repeat(300);
        let blocks =
            json!([{"type": "text", "text": "A chart"}, {"type": "image", "data": png, "mimeType": "image/png"}]);
        let (text, error) = result_text(&row(blocks));
        assert!(!error);
        assert!(!text.contains("iVBORw0KGgo"), "{text}");
        assert!(
            text.contains("A chart") && text.contains("4.8 KiB of base64 data, not sent as text"),
            "{text}"
        );
        let (text, _) = result_text(&row(
            json!({"chart": format!("data:image/png;base64,{png}"), "rows": 3}),
        ));
        assert!(text.contains("[image/png, ") && text.contains("\"rows\":3"), "{text}");
        // Data a model should read stays, however long: a hex hash list,
        // ids one a line, DNA.
        for kept in [
            "0123456789abcdef".repeat(100),
            "1f3a8d1\n".repeat(200),
            "ACGT".repeat(400),
        ] {
            assert_eq!(result_text(&row(json!({"x": kept}))).0, json!({"x": kept}).to_string());
        }
        // A small MCP image is still bytes.
        let (text, _) = result_text(&row(
            json!([{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]),
        ));
        assert!(text.contains("of base64 data, not sent as text"), "{text}");
        // Words stay words, however long.
        let prose = "word ".repeat(400);
        assert_eq!(
            result_text(&row(json!({"text": prose}))).0,
            json!({"text": prose}).to_string()
        );
    }
}
