//! Settings through the commands the UI calls, on the real ACL and a real
//! data dir. Agents: an unsaved definition previewed (its tools under
//! model-facing names, the warnings), created, listed, edited and deleted;
//! a save's warnings, the id a name gives; the Assistant refused deletion
//! with a typed error. A provider's base
//! URL, default model and headers changed in place. A toolset's settings
//! and secrets at import and later.

use crate::common::{harness, invoke};
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

    let created = &invoke(&h, "create_agent", json!({"spec": draft})).expect("create")["agent"];
    assert_eq!(
        (created["name"].as_str(), created["max_steps"].as_u64()),
        (Some("Reader"), Some(8))
    );
    let again = invoke(&h, "create_agent", json!({"spec": draft})).expect_err("same id");
    assert_eq!(again["kind"], "conflict", "{again}");

    let mut edited = spec("reader", "Careful reader", &["read_file", "list_files"]);
    edited["model"] = json!({"provider": "local", "model": "tiny"});
    let updated = &invoke(&h, "update_agent", json!({"spec": edited})).expect("update")["agent"];
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

/// What a save answers: the agent, and what its rules give now that the
/// person should hear — the words the CLI prints after `agent create`.
/// A new agent without an id gets the one its name gives, the rule the
/// form's Id field shows as the name is typed.
#[test]
fn a_save_answers_its_warnings_and_an_agent_without_an_id_gets_the_one_its_name_gives() {
    let h = harness();
    let id_of = |name: &str| invoke(&h, "agent_id_from_name", json!({"name": name})).expect("id from a name");
    assert_eq!(id_of("Straße Reader"), "strasse-reader");
    assert_eq!(id_of("Guðrún Ørsted"), "gudrun-orsted");
    assert_eq!(id_of("数据"), Value::Null);

    let mut draft = spec("", "Straße Reader", &["read_file", "ghost.*"]);
    draft["toolsets"] = json!(["gone"]);
    draft["model"] = json!({"provider": "nowhere", "model": "tiny"});
    let saved = invoke(&h, "create_agent", json!({"spec": draft})).expect("create");
    assert_eq!(saved["agent"]["id"], "strasse-reader", "{saved}");
    assert_eq!(saved["exposure"], "openai", "{saved}");
    let warnings: Vec<&str> = saved["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(warnings.len(), 3, "{saved}");
    assert!(warnings[0].contains("\"gone\"") && warnings[0].contains("not in the tool pool"));
    assert!(warnings[1].contains("\"ghost.*\"") && warnings[1].contains("matches no tool"));
    assert!(warnings[2].contains("\"nowhere\" is not set up"));
    assert_eq!(
        invoke(&h, "get_agent", json!({"id": "strasse-reader"})).expect("saved")["tools"],
        json!(["read_file", "ghost.*"])
    );

    // Fixed: nothing to say.
    let fixed = spec("strasse-reader", "Straße Reader", &["read_file"]);
    let saved = invoke(&h, "update_agent", json!({"spec": fixed})).expect("update");
    assert_eq!(saved["warnings"], json!([]), "{saved}");
    assert_eq!(saved["feature_loss"], json!([]), "{saved}");

    let none = invoke(&h, "create_agent", json!({"spec": spec("", "数据", &[])})).expect_err("no id");
    assert_eq!(none["kind"], "invalid_data", "{none}");
    assert!(
        none["message"]
            .as_str()
            .is_some_and(|m| m.contains("give the agent an id")),
        "{none}"
    );
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

/// A toolset's settings through the IPC: the consent step lists them; an
/// import takes plain values, sensitive ones (never as plain values) and
/// environment allowances; the form never sends a secret back.
#[test]
fn toolset_settings_and_secrets_go_through_ipc() {
    let h = harness();
    let src = h.tmp.path().join("weather");
    std::fs::create_dir_all(src.join("tools")).expect("mkdir");
    std::fs::write(src.join("tools/hi.py"), "def run(workspace):\n    return {}\n").expect("write");
    std::fs::write(
        src.join("toolset.yaml"),
        "manifest_version: \"1\"\nid: weather\nname: Weather\nversion: \"1.0.0\"\n\
         user_config:\n  city: {type: string, title: City, required: true}\n  \
         days: {type: number, title: Days, min: 1, max: 14, default: 3}\n  \
         api_key: {type: string, title: API key, sensitive: true}\n\
         tools:\n  - id: hi\n    entrypoint: tools.hi:run\n    input_schema: {type: object}\n",
    )
    .expect("write");
    let report = invoke(&h, "check_bundle", json!({"path": src})).expect("check");
    let settings = &report["consent"]["settings"];
    assert_eq!(settings["missing"], json!(["city"]), "{report}");
    assert_eq!(settings["fields"].as_array().map(Vec::len), Some(3), "{report}");

    let import = |config: Value, secrets: Value| {
        invoke(
            &h,
            "import_toolset",
            json!({"path": src, "force": false, "agents": [], "config": config, "secrets": secrets,
                   "allowEnv": ["WEATHER_TOKEN"], "onProgress": "__CHANNEL__:1"}),
        )
    };
    let plain = import(json!({"city": "Oslo", "api_key": "sk-plain-1234"}), json!({})).expect_err("a plain secret");
    assert_eq!(plain["kind"], "config_invalid", "{plain}");
    assert!(
        plain.to_string().contains("api_key") && !plain.to_string().contains("sk-plain-1234"),
        "{plain}"
    );
    let missing = import(json!({}), json!({})).expect_err("no city");
    assert_eq!(missing["kind"], "config_missing", "{missing}");
    assert!(
        missing["message"].as_str().is_some_and(|m| m.contains("city")),
        "{missing}"
    );

    // Where no keychain answers (a test machine), the person's consent to the file.
    let status = invoke(&h, "allow_file_secrets", json!({"allowed": true})).expect("allow the file");
    assert_eq!(status["file_allowed"], true, "{status}");
    assert!(status["store"].is_string(), "{status}");
    import(json!({"city": "Oslo", "days": "5"}), json!({"api_key": "sk-ipc-5678"})).expect("import");

    let config = invoke(&h, "toolset_config", json!({"id": "weather"})).expect("config");
    assert!(
        !config.to_string().contains("sk-ipc-5678"),
        "a secret came back: {config}"
    );
    let field = |c: &Value, key: &str| {
        c["fields"]
            .as_array()
            .and_then(|f| f.iter().find(|f| f["key"] == key).cloned())
            .unwrap_or_else(|| panic!("no field {key}: {c}"))
    };
    assert_eq!(field(&config, "city")["value"], "Oslo");
    assert_eq!(field(&config, "days")["value"], 5.0);
    assert_eq!(field(&config, "api_key")["is_set"], true);
    assert_eq!(field(&config, "api_key")["value"], Value::Null);
    assert_eq!(config["missing"], json!([]));

    let changed = invoke(
        &h,
        "set_toolset_config",
        json!({"id": "weather", "values": {"days": "7"}, "secrets": {}, "unset": ["api_key"]}),
    )
    .expect("set");
    assert_eq!(field(&changed, "days")["value"], 7.0);
    assert_eq!(field(&changed, "api_key")["is_set"], false);
    let refused = invoke(
        &h,
        "set_toolset_config",
        json!({"id": "weather", "values": {"days": "99"}, "secrets": {}, "unset": []}),
    )
    .expect_err("out of range");
    assert_eq!(refused["kind"], "config_invalid", "{refused}");

    let env = invoke(&h, "toolset_allowed_env", json!({"id": "weather"})).expect("allowed env");
    assert_eq!(env, json!(["WEATHER_TOKEN"]));
    let env = invoke(
        &h,
        "allow_toolset_env",
        json!({"id": "weather", "var": "WEATHER_TOKEN", "allowed": false}),
    )
    .expect("forbid");
    assert_eq!(env, json!([]));
    let status = invoke(&h, "secrets_status", json!({})).expect("status");
    assert_eq!(status["count"], 0, "{status}");
}
