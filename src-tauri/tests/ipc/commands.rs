//! The IPC surface on Tauri's mock runtime, with the real capability file
//! and a real data dir: every command is registered and permitted for the
//! main window, nothing else is, and failures arrive as `{kind, message}`.

use crate::common::{harness, invoke, invoke_on};
use atelier_app::AppState;
use atelier_app::COMMANDS;
use serde_json::{Value, json};

#[test]
fn every_command_is_registered_and_permitted_and_nothing_else_is() {
    let h = harness();
    for cmd in COMMANDS {
        if cmd.starts_with("pick_") || matches!(*cmd, "restart_app" | "open_workspace_folder" | "export_workspace_file")
        {
            // They open native dialogs or windows or end this process; their
            // permissions are checked by the capability test below.
            continue;
        }
        // Missing arguments fail in deserialization — after the ACL check
        // and the lookup, which are what this asserts.
        let r = invoke(&h, cmd, json!({}));
        let said = r.as_ref().err().map(Value::to_string).unwrap_or_default();
        assert!(
            !said.contains("not allowed") && !said.contains("not found"),
            "{cmd}: {said}"
        );
    }
    // A plugin command the capability does not grant, and an unknown one.
    let denied = invoke(&h, "plugin:dialog|open", json!({"options": {}}));
    assert!(
        denied
            .as_ref()
            .err()
            .map(Value::to_string)
            .unwrap_or_default()
            .contains("not allowed"),
        "{denied:?}"
    );
    assert!(invoke(&h, "delete_everything", json!({})).is_err());
}

/// The capability file grants exactly the app's commands (and event
/// listening, for drag and drop): no plugin, filesystem or shell access.
#[test]
fn the_capability_grants_the_commands_and_nothing_more() {
    let text = include_str!("../../capabilities/main.json");
    let cap: Value = serde_json::from_str(text).expect("capability JSON");
    assert_eq!(cap["windows"], json!(["main"]));
    let mut granted: Vec<String> = cap["permissions"]
        .as_array()
        .expect("permissions")
        .iter()
        .filter_map(|p| p.as_str().map(str::to_owned))
        .collect();
    granted.sort();
    let mut wanted: Vec<String> = COMMANDS
        .iter()
        .map(|c| format!("allow-{}", c.replace('_', "-")))
        .collect();
    wanted.extend([
        "core:event:allow-listen".to_owned(),
        "core:event:allow-unlisten".to_owned(),
    ]);
    wanted.sort();
    assert_eq!(granted, wanted);
}

#[test]
fn errors_arrive_as_kind_and_message() {
    let h = harness();
    let err = invoke(&h, "get_toolset", json!({"id": "no-such-toolset"})).expect_err("unknown toolset");
    assert_eq!(err["kind"], "toolset_not_found", "{err}");
    assert!(
        err["message"].as_str().is_some_and(|m| m.contains("no-such-toolset")),
        "{err}"
    );
    let err = invoke(&h, "check_bundle", json!({"path": "/etc/passwd"})).expect_err("not a bundle");
    assert_eq!(err["kind"], "invalid_bundle", "{err}");
}

#[test]
fn a_fresh_data_dir_has_the_examples_and_a_tool_runs_through_ipc() {
    let h = harness();
    let toolsets = invoke(&h, "list_toolsets", json!({})).expect("list");
    let ids: Vec<&str> = toolsets
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|t| t["id"].as_str())
        .collect();
    assert!(ids.contains(&"app-builder") && ids.contains(&"csv-report"), "{ids:?}");

    let chat = invoke(&h, "create_chat", json!({"title": "ipc"})).expect("chat");
    let chat_id = chat["id"].as_str().expect("id");
    let call = invoke(
        &h,
        "run_tool",
        json!({"chatId": chat_id, "toolId": "write_file", "args": {"path": "a.txt", "content": "hi"}, "onEvent": "__CHANNEL__:1"}),
    )
    .expect("run");
    assert_eq!(call["status"], "success", "{call}");
    let file = invoke(
        &h,
        "get_workspace_file",
        json!({"chatId": chat_id, "path": "a.txt", "manifestId": call["post_manifest_id"]}),
    )
    .expect("file");
    assert_eq!(file["text"], "hi");
    let calls = invoke(&h, "list_tool_calls", json!({"chatId": chat_id})).expect("calls");
    assert_eq!(calls.as_array().map(Vec::len), Some(1));
    let err = invoke(&h, "render_url", json!({"callId": call["id"]})).expect_err("not html");
    assert_eq!(err["kind"], "conflict");
    let url = invoke(
        &h,
        "workspace_file_url",
        json!({"chatId": chat_id, "path": "a.txt", "manifestId": call["post_manifest_id"]}),
    )
    .expect("file url");
    let url = url.as_str().expect("a URL");
    assert!(
        url.starts_with("atelier-render://localhost/") && url.ends_with("/a.txt"),
        "{url}"
    );
    let missing =
        invoke(&h, "workspace_file_url", json!({"chatId": chat_id, "path": "nope.png"})).expect_err("no such file");
    assert_eq!(missing["kind"], "file_not_found", "{missing}");
    let bad = invoke(
        &h,
        "validate_tool_args",
        json!({"toolId": "write_file", "args": {"path": 3}}),
    )
    .expect("checked");
    assert!(bad.as_array().is_some_and(|v| !v.is_empty()), "{bad}");
}

/// A confirmation tool waits in `run_tool` until `answer_approval`: Deny
/// records the denial and runs nothing, Approve runs it.
#[test]
fn a_confirmation_waits_for_the_answer_given_through_ipc() {
    let h = harness();
    let chat = invoke(&h, "create_chat", json!({"title": "confirm"})).expect("chat");
    let chat_id = chat["id"].as_str().expect("id").to_owned();
    invoke(
        &h,
        "run_tool",
        json!({"chatId": chat_id, "toolId": "write_file", "args": {"path": "doomed.txt", "content": "x"}, "onEvent": "__CHANNEL__:1"}),
    )
    .expect("write");
    for approve in [false, true] {
        let done = std::thread::scope(|s| {
            let (window, args) = (
                h.window.clone(),
                json!({"chatId": chat_id, "toolId": "delete_file", "args": {"path": "doomed.txt"}, "onEvent": "__CHANNEL__:2"}),
            );
            let run = s.spawn(move || invoke_on(&window, "run_tool", args));
            let waiting = (0..500)
                .find_map(|_| {
                    let calls = invoke(&h, "list_tool_calls", json!({"chatId": chat_id})).expect("calls");
                    let found = calls.as_array().and_then(|cs| {
                        cs.iter()
                            .find(|c| c["status"] == "awaiting_approval")
                            .map(|c| c["id"].as_str().unwrap_or_default().to_owned())
                    });
                    if found.is_none() {
                        std::thread::sleep(std::time::Duration::from_millis(10));
                    }
                    found
                })
                .expect("the call waits for an answer");
            let answered =
                invoke(&h, "answer_approval", json!({"callId": waiting, "approve": approve})).expect("answer");
            assert_eq!(answered, json!(true));
            run.join().expect("join").expect("recorded")
        });
        let files = invoke(&h, "get_workspace_files", json!({"chatId": chat_id})).expect("files");
        let still_there = files.to_string().contains("doomed.txt");
        if approve {
            assert_eq!(done["status"], "success", "{done}");
            assert!(!still_there, "{files}");
        } else {
            assert_eq!(
                (&done["status"], &done["error_kind"]),
                (&json!("error"), &json!("denied")),
                "{done}"
            );
            assert!(still_there, "{files}");
        }
    }
    let late = invoke(&h, "answer_approval", json!({"callId": "nope", "approve": true})).expect("answer");
    assert_eq!(late, json!(false), "nothing waits");
}

#[test]
fn frame_origins_are_saved_through_ipc_and_take_effect_at_the_next_start() {
    let h = harness();
    let view = invoke(&h, "allow_frame_origin", json!({"origin": "Docs.Example.com"})).expect("allowed");
    assert_eq!(view["saved"]["frame_origins"], json!(["https://docs.example.com"]));
    assert_eq!(
        view["frame_origins_in_effect"],
        json!([]),
        "this run's CSP is unchanged"
    );
    let err = invoke(&h, "allow_frame_origin", json!({"origin": "https://*.example.com"})).expect_err("wildcard");
    assert_eq!(err["kind"], "invalid_setting", "{err}");
    let view = invoke(&h, "forbid_frame_origin", json!({"origin": "https://docs.example.com"})).expect("removed");
    assert_eq!(view["saved"]["frame_origins"], json!([]));
}

/// The chat and workspace views' commands, end to end on a real data dir:
/// branch from an earlier call by saving its file, switch back, diff the
/// two nodes, drop a file, export a node.
#[test]
fn saves_branches_uploads_and_exports_go_through_ipc() {
    let h = harness();
    let chat = invoke(&h, "create_chat", json!({"title": "views"})).expect("chat");
    let chat_id = chat["id"].as_str().expect("id");
    let run = |path: &str, content: &str| {
        invoke(
            &h,
            "run_tool",
            json!({"chatId": chat_id, "toolId": "write_file", "args": {"path": path, "content": content}, "onEvent": "__CHANNEL__:1"}),
        )
        .expect("run")
    };
    let first = run("a.txt", "one\n");
    let second = run("b.txt", "two\n");
    let first_node = first["node_id"].as_str().expect("node");

    // Save a.txt from the first call's view: a branch at that call.
    let saved = invoke(
        &h,
        "save_edit",
        json!({"chatId": chat_id, "at": first_node, "changes": [{"op": "write", "path": "a.txt", "text": "ONE\n"}]}),
    )
    .expect("save");
    assert_eq!(saved["changed"], true, "{saved}");
    let edit = saved["message_id"].as_str().expect("edit node");
    let tree = invoke(&h, "chat_tree", json!({"chatId": chat_id})).expect("tree");
    let node = |id: &str| {
        tree.as_array()
            .expect("nodes")
            .iter()
            .find(|n| n["id"] == id)
            .cloned()
            .expect("node")
    };
    assert_eq!(node(first_node)["children"].as_array().map(Vec::len), Some(2), "{tree}");
    let files = invoke(&h, "get_workspace_files", json!({"chatId": chat_id})).expect("files");
    assert_eq!(
        files.as_array().map(Vec::len),
        Some(1),
        "b.txt is not on this branch: {files}"
    );

    let back = invoke(
        &h,
        "checkout",
        json!({"chatId": chat_id, "messageId": second["node_id"], "onProgress": "__CHANNEL__:2"}),
    )
    .expect("checkout");
    assert_eq!(back["active_leaf_message_id"], second["node_id"]);
    let diff = invoke(
        &h,
        "diff_nodes",
        json!({"chatId": chat_id, "from": second["node_id"], "to": edit}),
    )
    .expect("diff");
    assert_eq!(diff["removed"], json!(["b.txt"]), "{diff}");
    assert_eq!(diff["modified"][0]["path"], "a.txt", "{diff}");

    let tmp = tempfile::tempdir().expect("tmp");
    let dropped = tmp.path().join("notes.md");
    std::fs::write(&dropped, "# dropped").expect("write");
    let up = invoke(
        &h,
        "upload_files",
        json!({"chatId": chat_id, "paths": [dropped], "dest": "", "onProgress": "__CHANNEL__:3"}),
    )
    .expect("upload");
    assert_eq!(up["added"], 1, "{up}");
    let err = invoke(
        &h,
        "upload_files",
        json!({"chatId": chat_id, "paths": ["relative.txt"], "dest": "", "onProgress": "__CHANNEL__:4"}),
    )
    .expect_err("relative");
    assert_eq!(err["kind"], "invalid_path", "{err}");

    let zip = tmp.path().join("ws.zip");
    let out = invoke(
        &h,
        "export_workspace",
        json!({"chatId": chat_id, "node": edit, "path": zip, "onProgress": "__CHANNEL__:5"}),
    )
    .expect("export");
    assert_eq!(out["files"], 1, "{out}");
    assert!(zip.is_file());

    let restored = invoke(
        &h,
        "restore_file",
        json!({"chatId": chat_id, "path": "a.txt", "from": first_node}),
    )
    .expect("restore");
    assert_eq!(
        restored["changed"], false,
        "a.txt is already one\\n on this branch: {restored}"
    );
    let renamed = invoke(&h, "rename_chat", json!({"chatId": chat_id, "title": "renamed"})).expect("rename");
    assert_eq!(renamed["title"], "renamed");
    invoke(&h, "delete_chat", json!({"chatId": chat_id})).expect("delete");
    let err = invoke(&h, "chat_tree", json!({"chatId": chat_id})).expect_err("gone");
    assert_eq!(err["kind"], "chat_not_found", "{err}");
}

/// A folder imported through the app is watched: a broken edit is reported
/// by `toolset_reloads` (the last good version still installed), a good
/// one installs again; uninstalling stops the watch.
#[test]
fn a_local_folder_imported_in_the_app_reloads_on_every_edit() {
    let h = harness();
    let src = h.tmp.path().join("live");
    std::fs::create_dir_all(src.join("tools")).expect("mkdir");
    let manifest = |version: &str| {
        format!(
            "manifest_version: \"1\"\nid: live\nname: Live\nversion: \"{version}\"\ntools:\n  - id: hi\n    \
             entrypoint: tools.hi:run\n    input_schema: {{type: object}}\n"
        )
    };
    std::fs::write(src.join("tools/hi.py"), "def run(workspace):\n    return {}\n").expect("write");
    std::fs::write(src.join("toolset.yaml"), manifest("1.0.0")).expect("write");
    let import = json!({"path": src, "force": false, "agents": ["assistant"], "config": {}, "secrets": {}, "allowEnv": [], "onProgress": "__CHANNEL__:1"});
    invoke(&h, "import_toolset", import).expect("import the folder");
    let core = tauri::Manager::state::<AppState>(&h.app).app.clone();
    let assistant = tauri::async_runtime::block_on(core.agents().get("assistant")).expect("assistant");
    assert_eq!(
        assistant.toolsets,
        ["app-builder", "csv-report", "live"],
        "the consent step's checkbox put it on the Assistant's allowlist, beside the examples a fresh data dir gives it"
    );

    let reloads_until = |what: &str, done: &dyn Fn(&Value) -> bool| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let r = invoke(&h, "toolset_reloads", json!({})).expect("reloads");
            if r.as_array()
                .and_then(|a| a.iter().find(|s| s["toolset_id"] == "live"))
                .is_some_and(done)
            {
                return r;
            }
            assert!(std::time::Instant::now() < deadline, "no reload {what}: {r}");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    std::fs::write(
        src.join("toolset.yaml"),
        "manifest_version: \"1\"\nid: live\ntools: [oops\n",
    )
    .expect("break");
    let broken = reloads_until("reporting the broken edit", &|s| s["error"].is_string());
    assert!(broken.to_string().contains("toolset.yaml"), "{broken}");
    let installed = invoke(&h, "get_toolset", json!({"id": "live"})).expect("still installed");
    assert_eq!(installed["version"], "1.0.0", "the last good version stays");

    std::fs::write(src.join("toolset.yaml"), manifest("1.1.0")).expect("fix");
    reloads_until("installing the fixed folder", &|s| s["version"] == "1.1.0");
    assert_eq!(
        invoke(&h, "get_toolset", json!({"id": "live"})).expect("get")["version"],
        "1.1.0"
    );

    invoke(&h, "uninstall_toolset", json!({"id": "live"})).expect("uninstall");
    let left = invoke(&h, "toolset_reloads", json!({})).expect("reloads");
    assert_eq!(left, json!([]), "no watch left: {left}");

    // Installed again at once: the old watch ending must not take the new one.
    let again = json!({"path": src, "force": false, "agents": [], "config": {}, "secrets": {}, "allowEnv": [], "onProgress": "__CHANNEL__:2"});
    invoke(&h, "import_toolset", again).expect("import again");
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::fs::write(src.join("toolset.yaml"), manifest("1.2.0")).expect("edit");
    reloads_until("after the reinstall", &|s| s["version"] == "1.2.0");
    // And that watch stops with the next uninstall: an edit then reinstalls nothing.
    invoke(&h, "uninstall_toolset", json!({"id": "live"})).expect("uninstall again");
    std::fs::write(src.join("toolset.yaml"), manifest("1.3.0")).expect("edit after uninstall");
    std::thread::sleep(std::time::Duration::from_millis(800));
    assert_eq!(invoke(&h, "toolset_reloads", json!({})).expect("reloads"), json!([]));
    assert!(
        invoke(&h, "get_toolset", json!({"id": "live"})).is_err(),
        "an edit brought it back"
    );

    // The same toolset from another folder: that folder is watched now.
    let moved = h.tmp.path().join("live-moved");
    std::fs::create_dir_all(moved.join("tools")).expect("mkdir");
    std::fs::copy(src.join("tools/hi.py"), moved.join("tools/hi.py")).expect("copy");
    std::fs::write(moved.join("toolset.yaml"), manifest("2.0.0")).expect("write");
    invoke(
        &h,
        "import_toolset",
        json!({"path": src, "force": true, "agents": [], "config": {}, "secrets": {}, "allowEnv": [], "onProgress": "__CHANNEL__:3"}),
    )
    .expect("from the first folder");
    invoke(
        &h,
        "import_toolset",
        json!({"path": moved, "force": false, "agents": [], "config": {}, "secrets": {}, "allowEnv": [], "onProgress": "__CHANNEL__:4"}),
    )
    .expect("from the second folder");
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::fs::write(moved.join("toolset.yaml"), manifest("2.1.0")).expect("edit the second folder");
    reloads_until("from the second folder", &|s| s["version"] == "2.1.0");
}
