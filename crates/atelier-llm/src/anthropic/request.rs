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
mod tests {
    use serde_json::json;

    use super::body;
    use crate::types::{Message, Part, Request, Role, ToolChoice, ToolSpec};

    fn ask(effort: &str, max_tokens: Option<u32>) -> Request {
        Request {
            // A generation with manual thinking (see `thinking` for the others).
            model: "claude-sonnet-4-5".into(),
            messages: vec![Message::user("hi")],
            temperature: Some(0.2),
            max_tokens,
            reasoning_effort: Some(effort.into()),
            ..Default::default()
        }
    }

    #[test]
    fn thinking_always_fits_under_max_tokens_and_goes_without_temperature() {
        // No limit set: room for the answer on top of the budget.
        let b = body(&ask("high", None));
        assert_eq!(b["thinking"], json!({"type": "enabled", "budget_tokens": 16_384}));
        assert_eq!(b["max_tokens"], 16_384 + 4096);
        assert!(b.get("temperature").is_none(), "{b}");
        let b = body(&ask("medium", None));
        assert_eq!(
            (b["max_tokens"].as_u64(), b["thinking"]["budget_tokens"].as_u64()),
            (Some(8192), Some(4096))
        );
        // A limit set and large enough: both kept.
        let b = body(&ask("medium", Some(10_000)));
        assert_eq!(
            (b["max_tokens"].as_u64(), b["thinking"]["budget_tokens"].as_u64()),
            (Some(10_000), Some(4096))
        );
        // A limit set and too small: the budget shrinks below it.
        let b = body(&ask("high", Some(4096)));
        assert_eq!(
            (b["max_tokens"].as_u64(), b["thinking"]["budget_tokens"].as_u64()),
            (Some(4096), Some(2048))
        );
        // Too small for the API's least budget: no thinking, temperature back.
        let b = body(&ask("medium", Some(2000)));
        assert!(b.get("thinking").is_none(), "{b}");
        assert_eq!(
            (b["max_tokens"].as_u64(), b["temperature"].as_f64()),
            (Some(2000), Some(0.2))
        );
        // Without an effort nothing changes.
        let mut plain = ask("low", None);
        plain.reasoning_effort = None;
        let b = body(&plain);
        assert!(
            b.get("thinking").is_none() && b["max_tokens"] == 4096 && b["temperature"] == 0.2,
            "{b}"
        );
    }

    #[test]
    fn a_forced_tool_turns_thinking_off_for_that_request() {
        let mut req = ask("high", None);
        req.tools = vec![ToolSpec {
            name: "write_file".into(),
            description: String::new(),
            input_schema: json!({"type": "object"}),
        }];
        req.tool_choice = ToolChoice::Tool("write_file".into());
        let b = body(&req);
        assert!(b.get("thinking").is_none(), "{b}");
        assert_eq!(
            (b["max_tokens"].as_u64(), b["temperature"].as_f64()),
            (Some(4096), Some(0.2))
        );
        req.tool_choice = ToolChoice::Auto;
        assert_eq!(body(&req)["thinking"]["budget_tokens"], 16_384);
    }

    #[test]
    fn opus_4_7_gets_adaptive_thinking_and_no_temperature_whatever_is_set() {
        let mut req = ask("high", None);
        req.model = "claude-opus-4-7".into();
        let b = body(&req);
        assert_eq!(
            (&b["thinking"], &b["output_config"]),
            (&json!({"type": "adaptive"}), &json!({"effort": "high"}))
        );
        assert!(b.get("temperature").is_none(), "{b}");
        req.reasoning_effort = None;
        let b = body(&req);
        assert!(b.get("thinking").is_none() && b.get("temperature").is_none(), "{b}");
    }

    #[test]
    fn a_loop_that_began_with_a_forced_tool_goes_on_without_thinking() {
        let mut req = ask("high", None);
        req.messages = vec![
            Message::user("write it"),
            Message {
                role: Role::Assistant,
                parts: vec![Part::ToolCall {
                    id: "toolu_1".into(),
                    name: "write_file".into(),
                    arguments: json!({}),
                }],
            },
            Message {
                role: Role::User,
                parts: vec![result("toolu_1", "ok")],
            },
        ];
        let b = body(&req);
        assert!(b.get("thinking").is_none(), "{b}");
        assert_eq!(b["temperature"], 0.2);
        // The next question starts a new turn: thinking comes back.
        req.messages.push(Message {
            role: Role::Assistant,
            parts: vec![Part::Text { text: "Done.".into() }],
        });
        req.messages.push(Message::user("and now?"));
        assert_eq!(body(&req)["thinking"]["budget_tokens"], 16_384);
    }

    fn result(id: &str, content: &str) -> Part {
        Part::ToolResult {
            call_id: id.into(),
            content: content.into(),
            is_error: false,
        }
    }

    fn image() -> Part {
        Part::Image {
            media_type: "image/png".into(),
            data: "iVBO".into(),
        }
    }

    #[test]
    fn an_image_after_a_tool_result_goes_inside_it_and_results_come_first() {
        let req = Request {
            model: "claude".into(),
            messages: vec![
                Message {
                    role: Role::User,
                    parts: vec![result("a", "shot taken"), image(), result("b", "")],
                },
                // A second user message merges into the first: its result
                // still comes before the text and the lone image.
                Message {
                    role: Role::User,
                    parts: vec![Part::Text { text: "look".into() }, image(), result("c", "ok")],
                },
            ],
            ..Default::default()
        };
        let content = body(&req)["messages"][0]["content"].clone();
        let png = json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}});
        assert_eq!(
            content,
            json!([
                {"type": "tool_result", "tool_use_id": "a", "is_error": false,
                    "content": [{"type": "text", "text": "shot taken"}, png]},
                {"type": "tool_result", "tool_use_id": "b", "content": "", "is_error": false},
                {"type": "tool_result", "tool_use_id": "c", "content": "ok", "is_error": false},
                {"type": "text", "text": "look"},
                png,
            ])
        );
        // A result with no words keeps only the image.
        let req = Request {
            messages: vec![Message {
                role: Role::User,
                parts: vec![result("a", " "), image()],
            }],
            ..Default::default()
        };
        assert_eq!(body(&req)["messages"][0]["content"][0]["content"], json!([png]));
    }

    fn turn(calls: &[&str]) -> [Message; 2] {
        let call = |id: &&str| Part::ToolCall {
            id: (*id).into(),
            name: "read_file".into(),
            arguments: json!({}),
        };
        [
            Message {
                role: Role::Assistant,
                parts: calls.iter().map(call).collect(),
            },
            Message {
                role: Role::User,
                parts: calls
                    .iter()
                    .enumerate()
                    .map(|(i, id)| result(id, &format!("r{i}")))
                    .collect(),
            },
        ]
    }

    #[test]
    fn repeated_call_ids_of_a_stored_history_go_out_unique_with_results_in_order() {
        // A server without ids (`call_0` every turn), a turn that repeated
        // an id, and two ids the API's alphabet makes alike.
        let mut messages = vec![Message::user("go")];
        messages.extend(turn(&["call_0"]));
        messages.extend(turn(&["call_0", "call_0"]));
        messages.extend(turn(&["a.b", "a_b"]));
        let req = Request {
            model: "claude".into(),
            messages,
            ..Default::default()
        };
        let b = body(&req);
        let all = b["messages"].as_array().expect("messages");
        let pairs: Vec<(String, String)> = all
            .iter()
            .flat_map(|m| m["content"].as_array().into_iter().flatten())
            .filter_map(|block| match block["type"].as_str() {
                Some("tool_use") => Some(("use".to_owned(), block["id"].as_str()?.to_owned())),
                Some("tool_result") => Some((
                    block["content"].as_str()?.to_owned(),
                    block["tool_use_id"].as_str()?.to_owned(),
                )),
                _ => None,
            })
            .collect();
        let ids = |what: &str| -> Vec<&str> {
            pairs
                .iter()
                .filter(|(k, _)| k == what)
                .map(|(_, id)| id.as_str())
                .collect()
        };
        assert_eq!(ids("use"), ["call_0", "call_0_2", "call_0_3", "a_b", "a_b_2"], "{b}");
        // Each result answers its own call, in order.
        let results: Vec<(&str, &str)> = pairs
            .iter()
            .filter(|(k, _)| k != "use")
            .map(|(k, id)| (k.as_str(), id.as_str()))
            .collect();
        assert_eq!(
            results,
            [
                ("r0", "call_0"),
                ("r0", "call_0_2"),
                ("r1", "call_0_3"),
                ("r0", "a_b"),
                ("r1", "a_b_2")
            ]
        );
    }

    #[test]
    fn arguments_that_did_not_parse_go_back_as_written_inside_an_object() {
        let req = Request {
            model: "claude".into(),
            messages: vec![
                Message::user("go"),
                Message {
                    role: Role::Assistant,
                    parts: vec![Part::ToolCall {
                        id: "toolu_1".into(),
                        name: "echo".into(),
                        arguments: json!("{\"text\": \"hi"),
                    }],
                },
                Message {
                    role: Role::User,
                    parts: vec![result("toolu_1", "arguments were not valid JSON")],
                },
            ],
            ..Default::default()
        };
        let b = body(&req);
        assert_eq!(
            b["messages"][1]["content"][0]["input"],
            json!({"unparsed_arguments": "{\"text\": \"hi"})
        );
    }

    #[test]
    fn a_turn_of_thinking_alone_is_not_sent_back() {
        let thought = Part::Reasoning {
            text: "Let me think".into(),
            signature: Some("sig".into()),
        };
        let req = Request {
            model: "claude-sonnet-4-5".into(),
            messages: vec![
                Message::user("hi"),
                Message {
                    role: Role::Assistant,
                    parts: vec![thought.clone()],
                },
                Message::user("hello?"),
                Message {
                    role: Role::Assistant,
                    parts: vec![thought, Part::Text { text: "Hello.".into() }],
                },
                Message::user("bye"),
            ],
            ..Default::default()
        };
        let b = body(&req);
        let roles: Vec<&str> = b["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .filter_map(|m| m["role"].as_str())
            .collect();
        assert_eq!(roles, ["user", "assistant", "user"], "{b}");
        assert_eq!(
            b["messages"][0]["content"],
            json!([{"type": "text", "text": "hi"}, {"type": "text", "text": "hello?"}])
        );
        // Thinking before an answer still goes back, signed.
        assert_eq!(b["messages"][1]["content"][0]["type"], "thinking");
    }

    #[test]
    fn whitespace_text_is_dropped_and_no_message_is_left_empty() {
        let req = Request {
            model: "claude".into(),
            system: Some(" \n".into()),
            messages: vec![
                Message::user("hi"),
                Message {
                    role: Role::Assistant,
                    parts: vec![Part::Text { text: "\n\n".into() }],
                },
                Message {
                    role: Role::User,
                    parts: vec![Part::Text { text: "  ".into() }, Part::Text { text: "again".into() }],
                },
                Message {
                    role: Role::Assistant,
                    parts: vec![Part::Text { text: " ".into() }, Part::Text { text: "Sure.".into() }],
                },
            ],
            ..Default::default()
        };
        let b = body(&req);
        assert!(b.get("system").is_none(), "{b}");
        assert_eq!(
            b["messages"],
            json!([
                {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "again"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "Sure."}]},
            ])
        );
    }
}
