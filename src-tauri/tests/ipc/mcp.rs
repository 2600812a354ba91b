//! MCP servers through the commands Settings calls, against the Python
//! fixture server (`.tools/mcp-venv/bin/python tests/mcp/fixture_server.py`):
//! added with a secret env value and on the Assistant's allowlist,
//! connected (restart), listed with its status and tools, disabled,
//! removed; a server that cannot start stays with its error; a config
//! previewed and imported. Everything started is stopped at the end.

use std::path::PathBuf;

use crate::common::{Harness, harness, harness_in, invoke};
use atelier_app::AppState;
use serde_json::{Value, json};
use tauri::{Listener, Manager};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The venv's python as is: resolving its symlink would leave the venv.
fn python() -> String {
    let p = repo().join(".tools/mcp-venv/bin/python");
    assert!(p.exists(), "{} is missing: run scripts/install.sh", p.display());
    std::path::absolute(&p).expect("absolute").display().to_string()
}

fn fixture() -> String {
    let p = repo().join("tests/mcp/fixture_server.py");
    assert!(p.exists(), "{}", p.display());
    std::path::absolute(&p).expect("absolute").display().to_string()
}

fn server<'a>(list: &'a Value, id: &str) -> &'a Value {
    list.as_array()
        .and_then(|l| l.iter().find(|d| d["server"]["id"] == id))
        .unwrap_or_else(|| panic!("no server {id} in {list}"))
}

/// Stops every server this app started, whatever the test's outcome.
struct StopAll<'a>(&'a Harness);

impl Drop for StopAll<'_> {
    fn drop(&mut self) {
        let state = self.0.app.state::<AppState>();
        tauri::async_runtime::block_on(state.app.mcp().stop_everything());
    }
}

#[test]
fn a_server_is_added_connected_listed_restarted_disabled_and_removed_through_the_ipc() {
    let h = harness();
    let _stop = StopAll(&h);
    // Where no keychain answers (a test machine), the person's consent to the file.
    invoke(&h, "allow_file_secrets", json!({"allowed": true})).expect("allow the file");

    let added = invoke(
        &h,
        "add_mcp_server",
        json!({"server": {"id": "fixture", "command": python(), "args": [fixture()], "url": null,
                          "env": {"FIXTURE_TOKEN": "tok-ipc-4321"}, "headers": {}},
               "addToAssistant": true}),
    )
    .expect("add");
    assert_eq!(added["transport"], "stdio", "{added}");
    assert_eq!(added["env_keys"], json!(["FIXTURE_TOKEN"]));
    assert_eq!(added["user_declared"], true);
    assert_eq!(added["tools"], Value::Null, "not listed before a restart: {added}");
    assert!(
        !added.to_string().contains("tok-ipc-4321"),
        "a secret came back: {added}"
    );
    let assistant =
        tauri::async_runtime::block_on(h.app.state::<AppState>().app.agents().get("assistant")).expect("the assistant");
    assert!(
        assistant.toolsets.iter().any(|t| t == "fixture"),
        "{:?}",
        assistant.toolsets
    );

    let listed = invoke(&h, "restart_mcp_server", json!({"id": "fixture"})).expect("connect");
    let tools: Vec<&str> = listed["tools"]
        .as_array()
        .expect("listed")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(tools.contains(&"echo") && tools.contains(&"whereami"), "{tools:?}");

    let all = invoke(&h, "list_mcp_servers", json!({})).expect("list");
    let d = server(&all, "fixture");
    assert_eq!(d["status"], "connected", "{d}");
    assert!(d["instances"][0]["pid"].as_u64().is_some(), "{d}");
    assert!(!all.to_string().contains("tok-ipc-4321"), "a secret came back: {all}");
    let tool_ids = invoke(&h, "list_tools", json!({})).expect("tools").to_string();
    assert!(tool_ids.contains("\"fixture:echo\""), "{tool_ids}");

    // Its tools get a confirmation policy like any other, which an agent's
    // preview in Settings shows.
    let policy = invoke(
        &h,
        "set_tool_policy",
        json!({"toolId": "fixture:echo", "policy": "ask"}),
    )
    .expect("policy");
    assert_eq!(
        (policy["policy"].clone(), policy["asks"].clone()),
        (json!("ask"), json!(true))
    );
    assert_eq!(
        invoke(&h, "tool_policy", json!({"toolId": "fixture:echo"})).expect("policy")["policy"],
        "ask"
    );
    let spec = json!({"id": "x", "name": "X", "toolsets": ["fixture"], "max_depth": 2, "max_steps": 5});
    let preview = invoke(&h, "preview_agent_tools", json!({"spec": spec})).expect("preview");
    let echo = preview["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["canonical_id"] == "fixture:echo"))
        .unwrap_or_else(|| panic!("echo in {preview}"));
    assert_eq!(
        (echo["model_name"].clone(), echo["policy"].clone()),
        (json!("fixture.echo"), json!("ask"))
    );

    // Listing a running server (as after a toolset's install) leaves it
    // running, with its tools.
    let pid = d["instances"][0]["pid"].clone();
    let kept = invoke(&h, "list_mcp_server", json!({"id": "fixture"})).expect("list");
    assert!(kept["tools"].to_string().contains("\"echo\""), "{kept}");
    let d = invoke(&h, "get_mcp_server", json!({"id": "fixture"})).expect("details");
    assert_eq!(d["instances"][0]["pid"], pid, "{d}");

    // Restart again: a fresh instance.
    invoke(&h, "restart_mcp_server", json!({"id": "fixture"})).expect("restart");
    let d = invoke(&h, "get_mcp_server", json!({"id": "fixture"})).expect("details");
    assert_eq!(d["status"], "connected", "{d}");
    assert_ne!(d["instances"][0]["pid"], pid, "{d}");

    let off = invoke(&h, "set_mcp_server_enabled", json!({"id": "fixture", "enabled": false})).expect("disable");
    assert_eq!(
        (off["enabled"].clone(), off["active"].clone()),
        (json!(false), json!(false))
    );
    let d = invoke(&h, "get_mcp_server", json!({"id": "fixture"})).expect("details");
    assert_eq!(d["status"], "stopped", "{d}");
    assert_eq!(d["instances"], json!([]));
    let refused = invoke(&h, "restart_mcp_server", json!({"id": "fixture"})).expect_err("disabled");
    assert_eq!(refused["kind"], "conflict", "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.contains("enable it first")),
        "{refused}"
    );
    let tool_ids = invoke(&h, "list_tools", json!({})).expect("tools").to_string();
    assert!(!tool_ids.contains("\"fixture:echo\""), "{tool_ids}");

    invoke(&h, "remove_mcp_server", json!({"id": "fixture"})).expect("remove");
    let err = invoke(&h, "get_mcp_server", json!({"id": "fixture"})).expect_err("gone");
    assert!(err["message"].as_str().is_some_and(|m| m.contains("fixture")), "{err}");
    assert_eq!(invoke(&h, "list_mcp_servers", json!({})).expect("list"), json!([]));
}

#[test]
fn a_server_that_cannot_start_stays_with_its_error_and_a_config_is_previewed_then_imported() {
    let h = harness();
    let _stop = StopAll(&h);
    invoke(
        &h,
        "add_mcp_server",
        json!({"server": {"id": "missing", "command": "/nonexistent/mcp-server", "args": [], "url": null,
                          "env": {}, "headers": {}},
               "addToAssistant": false}),
    )
    .expect("added");
    let err = invoke(&h, "restart_mcp_server", json!({"id": "missing"})).expect_err("cannot start");
    assert!(
        err["message"].as_str().is_some_and(|m| m.contains("missing")),
        "the error names the server: {err}"
    );
    let d = invoke(&h, "get_mcp_server", json!({"id": "missing"})).expect("still there");
    assert!(d["server"]["last_error"].is_string(), "{d}");
    assert!(d["status"] == "error" || d["status"] == "stopped", "{d}");

    let bad = invoke(
        &h,
        "add_mcp_server",
        json!({"server": {"id": "web", "command": null, "args": [], "url": "ftp://example.invalid",
                          "env": {}, "headers": {}},
               "addToAssistant": false}),
    )
    .expect_err("not http");
    assert_eq!(bad["kind"], "invalid_data", "{bad}");
    let taken = invoke(
        &h,
        "add_mcp_server",
        json!({"server": {"id": "missing", "command": "x", "env": {}, "headers": {}}, "addToAssistant": false}),
    )
    .expect_err("id in use");
    assert_eq!(taken["kind"], "conflict", "{taken}");

    let config = json!({"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
        "remote": {"url": "https://example.invalid/mcp", "headers": {"Authorization": "Bearer t-secret"}},
        "missing": {"command": "other"},
        "old": {"type": "sse", "url": "https://example.invalid/sse"}
    }})
    .to_string();
    let preview = invoke(&h, "preview_mcp_config", json!({"text": config})).expect("preview");
    let find = |id: &str| {
        preview
            .as_array()
            .and_then(|p| p.iter().find(|c| c["id"] == id).cloned())
            .unwrap_or_else(|| panic!("no {id} in {preview}"))
    };
    assert_eq!(
        find("files")["runs"],
        "npx -y @modelcontextprotocol/server-filesystem /tmp"
    );
    assert_eq!(find("remote")["header_keys"], json!(["Authorization"]));
    assert!(find("missing")["problem"].is_string(), "{preview}");
    assert!(find("old")["problem"].is_string(), "{preview}");
    assert!(!preview.to_string().contains("t-secret"), "{preview}");
    assert_eq!(
        invoke(&h, "list_mcp_servers", json!({}))
            .expect("list")
            .as_array()
            .map(Vec::len),
        Some(1),
        "a preview adds nothing"
    );
    let not_json = invoke(&h, "preview_mcp_config", json!({"text": "{"})).expect_err("not JSON");
    assert_eq!(not_json["kind"], "invalid_data", "{not_json}");

    let imported = invoke(&h, "import_mcp_config", json!({"text": config, "only": ["files"]})).expect("import");
    assert_eq!(imported.as_array().map(Vec::len), Some(1), "{imported}");
    assert_eq!(imported[0]["id"], "files");
    assert_eq!(imported[0]["command"], "npx");
    let ids: Vec<Value> = invoke(&h, "list_mcp_servers", json!({}))
        .expect("list")
        .as_array()
        .expect("list")
        .iter()
        .map(|d| d["server"]["id"].clone())
        .collect();
    assert_eq!(ids, vec![json!("files"), json!("missing")]);
}

#[test]
fn a_toolset_server_never_listed_is_listed_when_the_app_starts() {
    // A toolset imported by the CLI (here: the core, as the CLI does) while
    // the app was closed: its server's tools are not known yet.
    let tmp = tempfile::tempdir().expect("tempdir");
    let src = tmp.path().join("fx-kit");
    std::fs::create_dir_all(&src).expect("folder");
    std::fs::write(
        src.join("toolset.yaml"),
        format!(
            "manifest_version: 1\nid: fx-kit\nname: fx kit\nversion: 1.0.0\ntools: []\n\
             mcp_servers:\n  - id: fx\n    command: {:?}\n    args: [{:?}]\n",
            python(),
            fixture()
        ),
    )
    .expect("manifest");
    tauri::async_runtime::block_on(async {
        let core = atelier_core::Atelier::open(atelier_core::DataDir::new(tmp.path().join("data")))
            .await
            .expect("open");
        core.toolsets()
            .import(&src, &atelier_core::toolsets::ImportOptions::default())
            .await
            .expect("import");
        assert!(core.mcp().get("fx").await.expect("row").tools.is_none());
    });

    let h = harness_in(tmp);
    let _stop = StopAll(&h);
    // What the app's setup starts once its event loop runs (the mock
    // runtime has none): the listing, then an event for the tool picker.
    let (tx, rx) = std::sync::mpsc::channel();
    h.app.listen(atelier_app::mcp_commands::TOOLS_LISTED, move |e| {
        let _ = tx.send(e.payload().to_owned());
    });
    atelier_app::mcp_commands::list_unlisted_at_start(h.app.handle());
    let said = rx.recv_timeout(std::time::Duration::from_secs(30)).expect("the event");
    assert_eq!(said, r#"["fx"]"#);
    let mut tools = Value::Null;
    for _ in 0..300 {
        tools = invoke(&h, "get_mcp_server", json!({"id": "fx"})).expect("details")["server"]["tools"].clone();
        if !tools.is_null() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(tools.to_string().contains("\"echo\""), "not listed at start: {tools}");
    let tool_ids = invoke(&h, "list_tools", json!({})).expect("tools").to_string();
    assert!(tool_ids.contains("\"fx:echo\""), "{tool_ids}");
}
