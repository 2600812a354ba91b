//! The conversation's commands as the UI calls them, against a loopback
//! model server: providers added and tested, a message answered with its
//! events on a channel, settings, fork, Stop with nothing running, and
//! failures as `{kind, message}`.

use crate::common::{harness, invoke};
use atelier_llm::replay::{ReplayServer, Reply};
use serde_json::{Value, json};

fn answer(text: &str) -> Reply {
    let chunk = |delta: Value, finish: Option<&str>| {
        format!(
            "data: {}",
            json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    Reply::sse(&[
        chunk(json!({"content": text}), None),
        chunk(json!({}), Some("stop")),
        "data: [DONE]".to_owned(),
    ])
}

#[test]
fn a_message_is_answered_through_the_ipc_with_a_provider_added_there() {
    let server = tauri::async_runtime::block_on(ReplayServer::start(vec![
        Reply::json(200, &json!({"data": [{"id": "tiny"}, {"id": "bigger"}]})),
        answer("Hello from the model."),
    ]))
    .expect("server");
    let h = harness();
    let presets = invoke(&h, "provider_presets", json!({})).expect("presets");
    assert!(presets.as_array().expect("list").iter().any(|p| p["name"] == "ollama"));
    let added = invoke(
        &h,
        "add_provider",
        json!({"spec": {"id": "local", "base_url": server.url("/v1"), "default_model": "tiny"}}),
    )
    .expect("add");
    assert_eq!(added["kind"], "openai");
    let test = invoke(&h, "test_provider", json!({"providerId": "local"})).expect("test");
    assert_eq!(test["ok"], true, "{test}");
    assert_eq!(test["models"], json!(["tiny", "bigger"]));
    assert_eq!(invoke(&h, "list_providers", json!({})).expect("list")[0]["id"], "local");

    let chat = invoke(&h, "create_chat", json!({"title": "Via IPC"})).expect("chat");
    let chat_id = chat["id"].as_str().expect("id");
    let out = invoke(
        &h,
        "send_message",
        json!({"chatId": chat_id, "text": "hi", "options": {"agent_id": null, "images": []}, "onEvent": "__CHANNEL__:1"}),
    )
    .expect("send");
    assert_eq!(out["status"], "complete", "{out}");
    assert_eq!(out["messages"][1]["content"][0]["text"], "Hello from the model.");
    assert_eq!(out["messages"][1]["meta"]["model"], "tiny");
    let answer_id = out["messages"][1]["id"].as_str().expect("id").to_owned();

    let set = invoke(
        &h,
        "set_chat_model_settings",
        json!({"chatId": chat_id, "settings": {"temperature": 0.4}}),
    )
    .expect("settings");
    assert_eq!(set["model_settings"], json!({"temperature": 0.4}));
    let bad = invoke(
        &h,
        "set_chat_model_settings",
        json!({"chatId": chat_id, "settings": {"temperature": 9}}),
    )
    .expect_err("refused");
    assert_eq!(bad["kind"], "invalid_data", "{bad}");
    assert!(bad["message"].as_str().unwrap_or("").contains("temperature"), "{bad}");

    let fork = invoke(&h, "fork_chat", json!({"chatId": chat_id, "messageId": answer_id})).expect("fork");
    assert_eq!(fork["title"], "Via IPC (fork)");
    assert_eq!(
        invoke(&h, "stop_run", json!({"chatId": chat_id})).expect("stop"),
        json!(false),
        "nothing is running"
    );
    // A provider that is gone: a typed error, nothing half-done.
    invoke(&h, "remove_provider", json!({"providerId": "local"})).expect("remove");
    let err = invoke(
        &h,
        "send_message",
        json!({"chatId": chat_id, "text": "again", "options": {}, "onEvent": "__CHANNEL__:2"}),
    )
    .expect_err("no provider");
    assert_eq!(err["kind"], "invalid_data", "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap_or("")
            .contains("no LLM provider is set up"),
        "{err}"
    );
}
