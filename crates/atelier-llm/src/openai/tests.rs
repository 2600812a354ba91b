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
    // The same model on Azure or behind a gateway takes the new name
    // too; another model there, the old one.
    let field = |model: &str| {
        let b = body(
            &Request {
                model: model.into(),
                ..req.clone()
            },
            false,
        );
        let set = |f: &str| b.get(f).is_some_and(|n| n == 500);
        match (set("max_completion_tokens"), set("max_tokens")) {
            (true, false) => "max_completion_tokens",
            (false, true) => "max_tokens",
            _ => "both or neither",
        }
    };
    for model in ["gpt-5", "openai/o3-mini", "o1", "gpt-5.1-codex"] {
        assert_eq!(field(model), "max_completion_tokens", "{model}");
    }
    for model in ["qwen3:8b", "openchat", "gpt-4o", "llama3.1:8b-o1"] {
        assert_eq!(field(model), "max_tokens", "{model}");
    }
}

#[test]
fn a_reasoning_model_gets_no_temperature_but_its_default() {
    let ask = |model: &str, temperature: f64| {
        body(
            &Request {
                model: model.into(),
                temperature: Some(temperature),
                ..Default::default()
            },
            false,
        )
    };
    // OpenAI: "Unsupported value: 'temperature' does not support 0.2
    // with this model. Only the default (1) value is supported."
    assert!(ask("o3", 0.2).get("temperature").is_none());
    assert!(ask("azure/gpt-5-mini", 0.2).get("temperature").is_none());
    assert_eq!(ask("o3", 1.0)["temperature"], 1.0);
    assert_eq!(ask("gpt-5-chat-latest", 0.2)["temperature"], 0.2);
    assert_eq!(ask("gpt-4o", 0.2)["temperature"], 0.2);
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
#[test]
fn a_failed_call_says_error_once() {
    let result = |content: &str| Message {
        role: Role::User,
        parts: vec![Part::ToolResult {
            call_id: "c1".into(),
            content: content.into(),
            is_error: true,
        }],
    };
    let req = Request {
        model: "gpt-4o".into(),
        messages: vec![
            result("Error (exception): ValueError: no such row"),
            result("the user denied this call"),
        ],
        ..Default::default()
    };
    let b = body(&req, true);
    assert_eq!(
        b["messages"][0]["content"],
        json!("Error (exception): ValueError: no such row")
    );
    assert_eq!(b["messages"][1]["content"], json!("Error: the user denied this call"));
}
