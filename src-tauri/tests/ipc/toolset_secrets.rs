//! A value a toolset's MCP server reads (`${FIXTURE_TOKEN}`) that its
//! bundle does not bring, set through the commands the install screen and
//! the toolset's details call, on the real ACL, a real data dir, the file
//! secret store and the Python fixture server: the server cannot start
//! without it, starts once it is set, and the value never comes back.

use std::path::PathBuf;

use crate::common::{Harness, harness, invoke};
use atelier_app::AppState;
use serde_json::{Value, json};
use tauri::Manager;

const TOKEN: &str = "tok-ipc-set-9137";

fn absolute(rel: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    assert!(p.exists(), "{} is missing: run scripts/install.sh", p.display());
    std::path::absolute(&p).expect("absolute").display().to_string()
}

/// Stops every server this app started, whatever the test's outcome.
struct StopAll<'a>(&'a Harness);

impl Drop for StopAll<'_> {
    fn drop(&mut self) {
        let state = self.0.app.state::<AppState>();
        tauri::async_runtime::block_on(state.app.mcp().stop_everything());
    }
}

fn stored(refs: &Value, name: &str) -> bool {
    refs.as_array()
        .and_then(|r| r.iter().find(|r| r["name"] == name))
        .unwrap_or_else(|| panic!("no {name} in {refs}"))["stored"]
        .as_bool()
        .expect("stored")
}

#[test]
fn a_value_its_server_reads_is_set_without_a_terminal_and_the_server_then_starts() {
    let h = harness();
    let _stop = StopAll(&h);
    // Where no keychain answers (a test machine), the person's consent to the file.
    invoke(&h, "allow_file_secrets", json!({"allowed": true})).expect("allow the file");
    let src = h.tmp.path().join("fixture-ts");
    std::fs::create_dir_all(&src).expect("mkdir");
    std::fs::write(
        src.join("toolset.yaml"),
        format!(
            "manifest_version: \"1\"\nid: fixture-ts\nname: Fixture\nversion: \"1.0.0\"\n\
             mcp_servers:\n  - id: fixture-s\n    command: {:?}\n    args: [{:?}]\n    \
             env: {{FIXTURE_TOKEN: \"${{FIXTURE_TOKEN}}\"}}\n",
            absolute(".tools/mcp-venv/bin/python"),
            absolute("tests/mcp/fixture_server.py"),
        ),
    )
    .expect("write");
    let report = invoke(&h, "check_bundle", json!({"path": src})).expect("check");
    assert_eq!(
        report["consent"]["env_references"][0]["name"], "FIXTURE_TOKEN",
        "{report}"
    );
    invoke(
        &h,
        "import_toolset",
        json!({"path": src, "force": false, "agents": [], "config": {}, "secrets": {},
               "allowEnv": [], "onProgress": "__CHANNEL__:1"}),
    )
    .expect("import");

    // Installed without it: the server cannot start, and says what it needs.
    let refs = invoke(&h, "toolset_env_references", json!({"id": "fixture-ts"})).expect("references");
    assert!(!stored(&refs, "FIXTURE_TOKEN"), "{refs}");
    assert_eq!(refs[0]["server_ids"], json!(["fixture-s"]), "{refs}");
    let failed = invoke(&h, "list_mcp_server", json!({"id": "fixture-s"})).expect_err("no value yet");
    assert!(failed.to_string().contains("FIXTURE_TOKEN"), "{failed}");

    let typo = invoke(
        &h,
        "set_toolset_env_secret",
        json!({"id": "fixture-ts", "name": "FIXTURE_TOKNE", "value": TOKEN}),
    )
    .expect_err("a name its servers do not read");
    assert_eq!(typo["kind"], "invalid_data", "{typo}");
    assert!(!typo.to_string().contains(TOKEN), "the value came back: {typo}");

    let refs = invoke(
        &h,
        "set_toolset_env_secret",
        json!({"id": "fixture-ts", "name": "FIXTURE_TOKEN", "value": TOKEN}),
    )
    .expect("set");
    assert!(stored(&refs, "FIXTURE_TOKEN"), "{refs}");
    assert!(!refs.to_string().contains(TOKEN), "the value came back: {refs}");

    // Listed again, as the screens do once it is set: it starts.
    let listed = invoke(&h, "list_mcp_server", json!({"id": "fixture-s"})).expect("starts now");
    assert!(listed["tools"].to_string().contains("\"whereami\""), "{listed}");
    assert!(!listed.to_string().contains(TOKEN), "the value came back: {listed}");
    let names = invoke(&h, "list_mcp_servers", json!({})).expect("servers").to_string();
    assert!(!names.contains(TOKEN), "the value came back: {names}");

    let refs = invoke(
        &h,
        "unset_toolset_env_secret",
        json!({"id": "fixture-ts", "name": "FIXTURE_TOKEN"}),
    )
    .expect("remove");
    assert!(!stored(&refs, "FIXTURE_TOKEN"), "{refs}");
    let status = invoke(&h, "secrets_status", json!({})).expect("status");
    assert_eq!(status["count"], 0, "{status}");
}
