//! What a model is sent: the branch being answered (root → that message),
//! and nothing else — a sibling branch's text, calls or files never reach
//! a request. The transcript is always well paired: every call a model made
//! has exactly one result (a call a stop or an edit cut off gets "cancelled
//! by the user"), and a call a person ran by hand appears as a call and its
//! result.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use atelier_llm::{Message as LlmMessage, Part, Role as LlmRole};
use serde_json::Value;

use super::images::Images;
use super::results::result_text;
use crate::model::{ContentPart, Message, Role};

pub use super::results::MAX_RESULT_CHARS;

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
    /// The tool is an MCP server's: a list result is its content blocks
    /// (any other tool's list of `{"type": "text", …}` objects is data).
    pub mcp: bool,
}

struct Builder<'a> {
    /// The rows of the branch's calls, also those still without a node (a
    /// call another process runs or asks about).
    calls: &'a HashMap<String, CallRow>,
    out: Vec<LlmMessage>,
    /// Calls of the last model turn still without a result.
    pending: Vec<String>,
    /// Results waiting to be sent (before the next message).
    results: Vec<Part>,
}

impl Builder<'_> {
    fn flush(&mut self) {
        for call_id in self.pending.drain(..) {
            let content = no_result(self.calls, &call_id).into();
            self.results.push(Part::ToolResult {
                call_id,
                content,
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

/// What a model call with no result is answered: what its row says — a
/// call another process still asks about or runs has not ended — else it
/// was cut off before it ran (a stop, an edit).
fn no_result(calls: &HashMap<String, CallRow>, call_id: &str) -> &'static str {
    let open = calls
        .values()
        .filter(|r| r.model_call_id.as_deref() == Some(call_id))
        .find(|r| matches!(r.status.as_str(), "awaiting_approval" | "running" | "pending"));
    match open.map(|r| r.status.as_str()) {
        Some("awaiting_approval") => {
            "no result yet: this call waits for the user's approval (asked elsewhere); it has not run"
        }
        Some(_) => "no result yet: this call is still running elsewhere; it may be changing files",
        None => "cancelled by the user: this call did not run",
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

/// Every call id `branch` holds (its turns' calls, its rows' model call
/// ids): a new turn's calls take none of them, even those of messages a
/// request leaves out to fit the window.
pub(crate) fn call_ids(branch: &[Message], calls: &HashMap<String, CallRow>) -> BTreeSet<String> {
    let made = branch.iter().flat_map(|m| &m.content).filter_map(|p| match p {
        ContentPart::ModelCall { call_id, .. } => Some(call_id.clone()),
        _ => None,
    });
    made.chain(calls.values().filter_map(|r| r.model_call_id.clone()))
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
        calls,
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
                // A turn with no answer (nothing, or reasoning alone) is not
                // sent: providers refuse an empty assistant message, or one
                // that ends in a thinking block (Anthropic).
                let answered = parts.iter().any(|p| match p {
                    Part::Text { text } => !text.trim().is_empty(),
                    Part::ToolCall { .. } => true,
                    _ => false,
                });
                if answered {
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
                // The first call still waiting under that id: a turn that
                // repeated an id (older data) has its results paired in order.
                let waiting = row
                    .model_call_id
                    .as_ref()
                    .and_then(|c| b.pending.iter().position(|p| p == c));
                match waiting {
                    Some(at) => {
                        let call_id = b.pending.remove(at);
                        b.results.push(Part::ToolResult {
                            call_id,
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
    use super::*;

    fn message(id: &str, role: Role, content: Vec<ContentPart>) -> Message {
        Message {
            id: id.into(),
            chat_id: "c".into(),
            parent_id: None,
            role,
            content,
            manifest_id: "m".into(),
            created_at: String::new(),
            meta: None,
            thread_id: None,
        }
    }

    fn row(id: &str, model_call_id: &str, said: &str) -> CallRow {
        CallRow {
            id: id.into(),
            tool_id: "write_file".into(),
            args: serde_json::json!({}),
            result: Some(serde_json::json!(said)),
            status: "success".into(),
            error_kind: None,
            error: None,
            model_call_id: Some(model_call_id.into()),
            render_plan: None,
            post_manifest_id: None,
            mcp: false,
        }
    }

    /// A turn stored with one id twice (older data): each result answers
    /// its own call, in order — the first result took both calls, and the
    /// second was sent as a made-up `hand_…` call of its own.
    #[test]
    fn results_of_a_turn_that_repeated_an_id_pair_in_order() {
        let call = |path: &str| ContentPart::ModelCall {
            call_id: "dup".into(),
            name: "write_file".into(),
            arguments: serde_json::json!({"path": path}),
            extra: None,
        };
        let ran = |row: &str| ContentPart::ToolCall {
            tool_call_id: row.into(),
        };
        let branch = [
            message("u", Role::User, vec![ContentPart::Text { text: "go".into() }]),
            message("a", Role::Assistant, vec![call("b.txt"), call("c.txt")]),
            message("t1", Role::Tool, vec![ran("r1")]),
            message("t2", Role::Tool, vec![ran("r2")]),
        ];
        let calls = HashMap::from([
            ("r1".to_owned(), row("r1", "dup", "first")),
            ("r2".to_owned(), row("r2", "dup", "second")),
        ]);
        let wire_name = |id: &str| id.to_owned();
        let inputs = Inputs {
            calls: &calls,
            wire_name: &wire_name,
            images: &Images::default(),
            provider_id: "p",
            edits: &HashMap::new(),
        };
        let out = transcript(&branch, &inputs);
        assert_eq!(out.len(), 3, "{out:#?}");
        let results: Vec<(&str, &str)> = out[2]
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::ToolResult { call_id, content, .. } => Some((call_id.as_str(), content.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(results, [("dup", "first"), ("dup", "second")]);
    }
}
