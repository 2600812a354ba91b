//! Settings → Agents and a provider's edit form through the commands the UI
//! calls, on the real ACL and a real data dir: an unsaved definition
//! previewed (its tools under model-facing names, the warnings), created,
//! listed, edited and deleted; the Assistant refused deletion with a typed
//! error; a provider's base URL, default model and headers changed in
//! place.

mod common;

use common::{harness, invoke};
use serde_json::{Value, json};

fn spec(id: &str, name: &str, tools: &[&str]) -> Value {
    json!({
        "id": id,
        "name": name,
        "description": "",
        "model": null,
        "system_prompt": "You read files and say what is in them.",
        "toolsets": [],
        "tools": tools,
        "filters": [],
        "policies": [],
        "max_depth": 2,
        "max_steps": 8,
    })
}

fn ids(list: &Value) -> Vec<&str> {
    list.as_array()
        .expect("a list")
        .iter()
        .filter_map(|a| a["id"].as_str())
        .collect()
}

#[test]
fn an_agent_is_previewed_created_edited_and_deleted_and_the_assistant_stays() {
    let h = harness();
    assert_eq!(ids(&invoke(&h, "list_agents", json!({})).expect("list")), ["assistant"]);

    // The form's live preview: nothing is saved, an unknown pattern is a warning.
    let draft = spec("reader", "Reader", &["read_*", "ghost.*"]);
    let preview = invoke(&h, "preview_agent_tools", json!({"spec": draft})).expect("preview");
    let names: Vec<&str> = preview["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["model_name"].as_str())
        .collect();
    assert_eq!(names, ["read_file"], "{preview}");
    assert_eq!(preview["tools"][0]["source_kind"], "builtin");
    assert_eq!(preview["exposure"], "openai");
    let warnings = preview["warnings"].to_string();
    assert!(
        warnings.contains("ghost.*") && warnings.contains("matches no tool"),
        "{warnings}"
    );
    assert_eq!(ids(&invoke(&h, "list_agents", json!({})).expect("list")), ["assistant"]);

    let created = invoke(&h, "create_agent", json!({"spec": draft})).expect("create");
    assert_eq!(
        (created["name"].as_str(), created["max_steps"].as_u64()),
        (Some("Reader"), Some(8))
    );
    let again = invoke(&h, "create_agent", json!({"spec": draft})).expect_err("same id");
    assert_eq!(again["kind"], "conflict", "{again}");

    let mut edited = spec("reader", "Careful reader", &["read_file", "list_files"]);
    edited["model"] = json!({"provider": "local", "model": "tiny"});
    let updated = invoke(&h, "update_agent", json!({"spec": edited})).expect("update");
    assert_eq!(updated["name"], "Careful reader");
    assert_eq!(updated["model"]["model"], "tiny");
    assert_eq!(
        invoke(&h, "get_agent", json!({"id": "reader"})).expect("get")["tools"],
        json!(["read_file", "list_files"])
    );
    let bad = invoke(&h, "update_agent", json!({"spec": spec("reader", "  ", &[])})).expect_err("empty name");
    assert_eq!(bad["kind"], "invalid_data", "{bad}");

    let refused = invoke(&h, "delete_agent", json!({"id": "assistant"})).expect_err("the Assistant stays");
    assert_eq!(refused["kind"], "conflict");
    assert!(
        refused["message"]
            .as_str()
            .expect("words")
            .contains("cannot be deleted"),
        "{refused}"
    );
    invoke(&h, "delete_agent", json!({"id": "reader"})).expect("delete");
    assert_eq!(ids(&invoke(&h, "list_agents", json!({})).expect("list")), ["assistant"]);
    let gone = invoke(&h, "get_agent", json!({"id": "reader"})).expect_err("deleted");
    assert_eq!(gone["kind"], "agent_not_found", "{gone}");
}

#[test]
fn a_provider_is_edited_in_place_through_the_ipc() {
    let h = harness();
    invoke(
        &h,
        "add_provider",
        json!({"spec": {"id": "local", "preset": null, "kind": "openai", "base_url": "http://127.0.0.1:9/v1",
                         "default_model": null, "headers": {}}}),
    )
    .expect("add");
    let changed = invoke(
        &h,
        "update_provider",
        json!({"providerId": "local", "changes": {"base_url": "http://127.0.0.1:8080/v1/",
               "default_model": "qwen2.5:7b", "headers": {"X-Team": "research"}}}),
    )
    .expect("update");
    assert_eq!(changed["base_url"], "http://127.0.0.1:8080/v1");
    assert_eq!(changed["default_model"], "qwen2.5:7b");
    assert_eq!(changed["headers"], json!({"X-Team": "research"}));
    assert_eq!(
        invoke(&h, "list_providers", json!({})).expect("list")[0]["default_model"],
        "qwen2.5:7b"
    );
    let unknown = invoke(
        &h,
        "update_provider",
        json!({"providerId": "nope", "changes": {"base_url": "http://x/v1", "default_model": null, "headers": {}}}),
    )
    .expect_err("unknown");
    assert_eq!(unknown["kind"], "invalid_data", "{unknown}");
}
