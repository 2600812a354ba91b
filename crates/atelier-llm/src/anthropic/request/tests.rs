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
