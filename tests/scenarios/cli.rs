//! The `atelier` command, driven as a person would.

use serde_json::Value;

use crate::{Env, write};

fn s(v: &Value) -> String {
    v.as_str()
        .unwrap_or_else(|| panic!("expected a string, got {v}"))
        .to_owned()
}

#[test]
fn the_new_user_walkthrough_of_branches_and_workspaces() {
    let env = Env::new();
    let chat = env.json(&["chat", "new", "--title", "Walkthrough"]);
    for key in [
        "id",
        "title",
        "root_message_id",
        "active_leaf_message_id",
        "active_manifest_id",
        "created_at",
        "updated_at",
    ] {
        assert!(chat.get(key).is_some(), "chat new --json lacks {key}: {chat}");
    }
    assert_eq!(chat["title"], "Walkthrough");
    assert_eq!(chat["agent_id"], Value::Null);
    let id = s(&chat["id"]);
    let root = s(&chat["root_message_id"]);
    let ws = std::path::PathBuf::from(env.ok(&["workspace", "path", &id]).trim());
    assert_eq!(ws, env.data().join("chats").join(&id).join("workspace"));

    write(&ws, "a.txt", "A\n");
    let snap = env.json(&["workspace", "snapshot", &id]);
    assert_eq!(snap["changed"], true);
    let edit = s(&snap["message_id"]);

    env.ok(&["chat", "checkout", &id, &root]);
    assert!(!ws.join("a.txt").exists(), "a.txt is gone at the root");

    write(&ws, "b.txt", "B\n");
    let say = env.json(&["chat", "say", &id, "hello"]);
    for key in [
        "id",
        "parent_id",
        "role",
        "manifest_id",
        "content",
        "chat_id",
        "created_at",
    ] {
        assert!(say.get(key).is_some(), "chat say --json lacks {key}: {say}");
    }
    assert_eq!(say["role"], "user");
    assert_eq!(say["content"], serde_json::json!([{"type": "text", "text": "hello"}]));
    let say_id = s(&say["id"]);
    // b.txt was captured first, as an edit node under the root, and the
    // message was appended under that node.
    let captured = s(&say["parent_id"]);
    assert_ne!(captured, root);
    let tree = env.json(&["chat", "show", &id, "--tree"]);
    let nodes = tree["messages"].as_array().expect("messages");
    let cap = nodes
        .iter()
        .find(|n| n["id"] == captured.as_str())
        .expect("captured node");
    assert_eq!(cap["role"], "edit");
    assert_eq!(cap["parent_id"], root.as_str());
    assert_eq!(
        nodes.iter().find(|n| n["id"] == root.as_str()).expect("root")["children"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );

    env.ok(&["chat", "checkout", &id, &edit]);
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).expect("a"), "A\n");
    assert!(!ws.join("b.txt").exists());

    env.ok(&["chat", "checkout", &id, &say_id]);
    assert_eq!(std::fs::read_to_string(ws.join("b.txt")).expect("b"), "B\n");
    assert!(!ws.join("a.txt").exists());

    let diff = env.json(&["workspace", "diff", &id, &edit, &say_id]);
    assert_eq!(
        diff,
        serde_json::json!({"added": ["b.txt"], "removed": ["a.txt"], "modified": []})
    );
    let human = env.ok(&["workspace", "diff", &id, &edit, &say_id]);
    assert!(human.contains("A b.txt") && human.contains("D a.txt"), "{human}");

    // Listings and reads at any node, by message id.
    let ls = env.json(&["workspace", "ls", &id, "--manifest", &edit]);
    assert_eq!(ls[0]["path"], "a.txt");
    assert_eq!(ls[0]["size"], 2);
    assert_eq!(ls[0]["sha256"].as_str().map(str::len), Some(64));
    assert_eq!(env.ok(&["workspace", "cat", &id, "a.txt", "--manifest", &edit]), "A\n");
    let nothing = env.json(&["workspace", "snapshot", &id]);
    assert_eq!(nothing["changed"], false);
    assert_eq!(nothing["message_id"], Value::Null);

    let manifest = env.json(&["workspace", "manifest", &id]);
    assert!(
        manifest["files"]["b.txt"].is_string(),
        "files is nested JSON: {manifest}"
    );
    assert_eq!(manifest["source"], "edit");

    let human_tree = env.ok(&["chat", "show", &id, "--tree"]);
    assert!(
        human_tree.contains(&format!("* {say_id}")),
        "the active leaf is starred:\n{human_tree}"
    );
    let list = env.json(&["chat", "list"]);
    assert_eq!(list.as_array().map(Vec::len), Some(1));

    env.ok(&["chat", "delete", &id]);
    assert!(!ws.exists());
}

#[test]
fn errors_are_one_line_with_exit_code_1_and_usage_errors_exit_2() {
    let env = Env::new();
    let out = env.cli(&["chat", "show", "no-such-chat", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "errors never go to stdout, even with --json");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: chat not found: no-such-chat\n"
    );

    let chat = s(&env.json(&["chat", "new"])["id"]);
    let out = env.cli(&["workspace", "cat", &chat, "../../etc/passwd"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("../../etc/passwd") && err.contains("not allowed"), "{err}");

    let out = env.cli(&["workspace", "cat", &chat, "missing.txt"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.txt: no such file"));

    let out = env.cli(&["chat", "checkout", &chat, "nope"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("error: message nope not found in chat {chat}\n")
    );
    // A call with two mistakes names the tool first, then the parent.
    let out = env.cli(&[
        "run",
        "no_such_tool",
        "--chat",
        &chat,
        "--args",
        "{}",
        "--parent",
        "nope",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no_such_tool") && !err.contains("message nope"), "{err}");
    let out = env.cli(&["run", "read_file", "--chat", &chat, "--args", "{}", "--parent", "nope"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("message nope not found"), "{err}");

    assert_eq!(env.cli(&["chat", "frobnicate"]).status.code(), Some(2));
    assert_eq!(env.cli(&["chat", "say", &chat]).status.code(), Some(2));
}

#[test]
fn the_data_dir_comes_from_the_environment_when_not_given() {
    let env = Env::new();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_atelier"))
        .args(["chat", "new", "--json"])
        .env("ATELIER_DATA_DIR", env.data())
        .output()
        .expect("run");
    assert!(out.status.success());
    assert!(env.data().join("atelier.db").is_file());
    assert_eq!(env.json(&["chat", "list"]).as_array().map(Vec::len), Some(1));
}

#[test]
fn the_demo_builds_two_branches() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_atelier"))
        .args(["demo", "--json"])
        .output()
        .expect("demo");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let plan = |b: &str| {
        v[b]["files"]
            .as_array()
            .expect("files")
            .iter()
            .find(|f| f["path"] == "plan.md")
            .map(|f| f["sha256"].clone())
    };
    assert!(plan("branch_a").is_some() && plan("branch_b").is_some());
    assert_ne!(plan("branch_a"), plan("branch_b"), "each branch has its own plan.md");
    assert_eq!(v["diff"]["modified"][0]["path"], "plan.md");
    assert!(
        !std::path::Path::new(&s(&v["data_dir"])).exists(),
        "the demo cleans up after itself"
    );
}

#[test]
fn an_os_error_is_said_once() {
    let env = Env::new();
    let out = env.cli(&["toolset", "validate", "/nonexistent/bundle.zip"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
    assert!(err.contains("/nonexistent/bundle.zip"), "{err}");
}

#[test]
fn a_closed_pipe_ends_the_command_quietly_and_cat_streams() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let env = Env::new();
    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let ws = env.data().join("chats").join(&chat).join("workspace");
    let big: Vec<u8> = (0..4u32 << 20).map(|i| b'a' + (i % 26) as u8).collect();
    crate::write(&ws, "big.txt", &big);
    env.ok(&["workspace", "snapshot", &chat]);
    // The whole file, byte for byte.
    let out = env.cli(&["workspace", "cat", &chat, "big.txt"]);
    assert!(
        out.status.success() && out.stdout == big,
        "cat gave {} bytes",
        out.stdout.len()
    );

    // `atelier workspace cat … | head -c 10`: the reader goes away early.
    let mut child = Command::new(env!("CARGO_BIN_EXE_atelier"))
        .args(["--data-dir"])
        .arg(env.data())
        .args(["workspace", "cat", &chat, "big.txt"])
        .env_remove("ATELIER_DATA_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut head = [0u8; 10];
    child
        .stdout
        .take()
        .expect("stdout")
        .read_exact(&mut head)
        .expect("read");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(&head, b"abcdefghij");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "nothing said about the closed pipe"
    );
    assert_eq!(out.status.code(), Some(141), "the status a SIGPIPE death gives");

    // `--json` output to a reader already gone (it goes through serde_json).
    let mut child = Command::new(env!("CARGO_BIN_EXE_atelier"))
        .args(["--data-dir"])
        .arg(env.data())
        .args(["--json", "agent", "show", "assistant"])
        .env_remove("ATELIER_DATA_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "nothing said about the closed pipe"
    );
    assert_eq!(out.status.code(), Some(141));
}

#[test]
fn an_ambiguous_id_prefix_says_so_and_lists_the_candidates() {
    let env = Env::new();
    let a = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let b = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    // UUIDv7 ids of chats made a moment apart share their first characters.
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    assert!(common >= 4, "{a} {b}");
    let prefix = &a[..4];
    let out = env.cli(&["chat", "show", prefix]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is ambiguous") && err.contains(&a) && err.contains(&b),
        "{err}"
    );
    // A longer prefix that is unique still works.
    env.ok(&["chat", "show", &a[..common + 1]]);
}

#[test]
fn call_list_shows_a_chats_calls_and_a_call_is_found_by_a_prefix() {
    let env = Env::new();
    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let args = r#"{"path": "a.txt", "content": "x"}"#;
    env.ok(&["run", "--chat", &chat, "write_file", "--args", args, "--yes"]);
    env.cli(&["run", "--chat", &chat, "read_file", "--args", r#"{"path": "nope.txt"}"#]);
    let listed = env.ok(&["call", "list", &chat]);
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 2, "{listed}");
    assert!(
        lines[0].contains("write_file") && lines[0].contains("success"),
        "{listed}"
    );
    assert!(lines[1].contains("read_file") && lines[1].contains("error"), "{listed}");
    let calls = env.json(&["call", "list", &chat]);
    let id = calls[1]["id"].as_str().expect("id").to_owned();
    let common = calls[0]["id"]
        .as_str()
        .expect("id")
        .chars()
        .zip(id.chars())
        .take_while(|(x, y)| x == y)
        .count();
    // The shortest prefix that tells the two apart finds the call.
    let shown = env.ok(&["call", "show", &id[..common + 1]]);
    assert!(shown.starts_with(&id) && shown.contains("read_file"), "{shown}");
}
