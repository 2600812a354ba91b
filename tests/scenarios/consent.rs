//! What the consent step is told of a bundle before it installs: its
//! description, which tools ask first, a server's env and headers (names,
//! and values only when made of references), and how its version stands to
//! the installed one — a downgrade said as one, by `validate` and `import`.

use crate::{Env, write};

fn bundle(root: &std::path::Path, version: &str) -> std::path::PathBuf {
    let dir = root.join(format!("v{version}"));
    write(
        &dir,
        "toolset.yaml",
        format!(
            r#"manifest_version: "1"
id: ask
name: Ask
version: "{version}"
description: Tools that ask before they delete
tools:
  - id: purge
    name: Purge
    entrypoint: tools.t:purge
    requires_confirmation: true
    input_schema: {{type: object}}
  - id: look
    name: Look
    entrypoint: tools.t:look
    input_schema: {{type: object}}
mcp_servers:
  - id: files
    command: npx
    args: [server]
    env:
      API_KEY: sk-live-do-not-show
      AUTH: "Bearer sk-live-do-not-show-${{X}}"
      ROOT: "${{HOME}}/data"
"#
        ),
    );
    write(
        &dir,
        "tools/t.py",
        "def purge(workspace):\n    return {}\n\ndef look(workspace):\n    return {}\n",
    );
    dir
}

#[test]
fn the_report_says_what_the_card_needs_and_a_downgrade_is_one() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let newer = bundle(src.path(), "1.10.0");
    let older = bundle(src.path(), "1.9.0");
    let report = env.json(&["toolset", "validate", newer.to_str().expect("utf-8")]);
    assert_eq!(report["description"], "Tools that ask before they delete");
    assert_eq!(report["version_change"], "new");
    let entries = &report["will_run"]["python_entrypoints"];
    assert_eq!(entries[0]["tool_id"], "ask:purge");
    assert_eq!(entries[0]["requires_confirmation"], true);
    assert_eq!(entries[1]["requires_confirmation"], false);
    let server = &report["will_run"]["mcp_servers"][0];
    assert_eq!(
        server["env"],
        serde_json::json!([
            {"name": "API_KEY", "shown": null},
            {"name": "AUTH", "shown": null},
            {"name": "ROOT", "shown": "${HOME}/data"}
        ])
    );
    let out = env.ok(&["toolset", "validate", newer.to_str().expect("utf-8")]);
    assert!(out.contains("ask:purge") && out.contains("(asks first)"), "{out}");
    assert!(out.contains("env API_KEY = (a value is set; not shown)"), "{out}");
    assert!(!out.contains("sk-live"), "a plain value is never printed: {out}");

    // Folders install as local toolsets; 1.10.0 is newer than 1.9.0. The
    // CLI starts none of its servers, and says how to list their tools.
    let out = env.ok(&["toolset", "import", newer.to_str().expect("utf-8")]);
    let id = server["id"].as_str().expect("server id");
    assert!(
        out.contains(&format!("`atelier mcp restart {id}` lists its tools")),
        "{out}"
    );
    let report = env.json(&["toolset", "validate", older.to_str().expect("utf-8")]);
    assert_eq!(report["installed_version"], "1.10.0");
    assert_eq!(report["version_change"], "downgrade");
    let imported = env.json(&["toolset", "import", older.to_str().expect("utf-8")]);
    assert_eq!(imported["action"], "downgraded");
    let again = env.json(&["toolset", "validate", newer.to_str().expect("utf-8")]);
    assert_eq!(again["version_change"], "upgrade");
}
