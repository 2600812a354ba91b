//! The run flow with builtin tools, through the `atelier` binary.

use serde_json::Value;

use crate::Env;

fn new_chat(env: &Env) -> String {
    env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned()
}

fn run(env: &Env, chat: &str, tool: &str, args: &str, extra: &[&str]) -> Value {
    let mut a = vec!["run", tool, "--chat", chat, "--args", args];
    a.extend_from_slice(extra);
    env.json(&a)
}

#[test]
fn a_builtin_call_is_recorded_with_its_plan_and_a_tool_node() {
    let env = Env::new();
    let chat = new_chat(&env);
    let call = run(
        &env,
        &chat,
        "write_file",
        r#"{"path": "notes/a.txt", "content": "one\n"}"#,
        &[],
    );
    assert_eq!(call["status"], "success", "{call}");
    assert_eq!(call["result"], serde_json::json!({"written": "notes/a.txt", "size": 4}));
    let plan = &call["render_plan"];
    assert_eq!(plan["renderer"], "code");
    assert_eq!(plan["config"]["file"], "notes/a.txt", "$args.path interpolated");
    assert_eq!(plan["manifest_id"], call["post_manifest_id"]);
    assert_ne!(call["pre_manifest_id"], call["post_manifest_id"]);
    // The call is a node of the tree, and the chat's workspace has the file.
    let node = call["node_id"].as_str().expect("node");
    let chat_now = env.json(&["chat", "show", &chat]);
    assert_eq!(chat_now["chat"]["active_leaf_message_id"], node);
    let last = chat_now["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned()
        .expect("message");
    assert_eq!(last["role"], "tool");
    assert_eq!(last["content"][0]["tool_call_id"], call["id"]);
    assert_eq!(env.ok(&["workspace", "cat", &chat, "notes/a.txt"]), "one\n");

    let read = run(&env, &chat, "read_file", r#"{"path": "notes/a.txt"}"#, &[]);
    assert_eq!(read["result"]["content"], "one\n");
    let listed = run(&env, &chat, "list_files", "{}", &[]);
    assert_eq!(listed["result"]["count"], 1);
    let shown = env.json(&["call", "show", call["id"].as_str().expect("id")]);
    assert_eq!(shown, call);
}

#[test]
fn a_plan_shows_the_file_as_it_was_after_its_call() {
    let env = Env::new();
    let chat = new_chat(&env);
    let first = run(&env, &chat, "write_file", r#"{"path": "a.txt", "content": "v1"}"#, &[]);
    run(
        &env,
        &chat,
        "write_file",
        r#"{"path": "a.txt", "content": "v2, later"}"#,
        &[],
    );
    let id = first["id"].as_str().expect("id");
    let plan = env.json(&["call", "render", id]);
    let m = plan["manifest_id"].as_str().expect("manifest");
    assert_eq!(env.ok(&["workspace", "cat", &chat, "a.txt", "--manifest", m]), "v1");
    assert_eq!(env.ok(&["workspace", "cat", &chat, "a.txt"]), "v2, later");
}

#[test]
fn invalid_arguments_and_denials_are_recorded_and_nothing_runs() {
    let env = Env::new();
    let chat = new_chat(&env);
    let bad = run(&env, &chat, "write_file", r#"{"path": "x.txt", "colour": 3}"#, &[]);
    assert_eq!(
        (bad["status"].as_str(), bad["error_kind"].as_str()),
        (Some("error"), Some("invalid_args"))
    );
    let msg = bad["error"].as_str().expect("error");
    assert!(
        msg.contains("\"content\" is a required property") && msg.contains("colour"),
        "{msg}"
    );
    assert_eq!(bad["render_plan"]["renderer"], "error");
    assert!(
        env.json(&["workspace", "ls", &chat])
            .as_array()
            .is_some_and(Vec::is_empty),
        "nothing ran"
    );

    run(
        &env,
        &chat,
        "write_file",
        r#"{"path": "keep.txt", "content": "k"}"#,
        &[],
    );
    let denied = run(&env, &chat, "delete_file", r#"{"path": "keep.txt"}"#, &[]);
    assert_eq!(
        (denied["status"].as_str(), denied["error_kind"].as_str()),
        (Some("error"), Some("denied"))
    );
    assert_eq!(
        denied["error"],
        "not run: it asks first, and no one could be asked (with the CLI: --yes allows it)"
    );
    assert_eq!(env.ok(&["workspace", "cat", &chat, "keep.txt"]), "k");
    let approved = run(&env, &chat, "delete_file", r#"{"path": "keep.txt"}"#, &["--yes"]);
    assert_eq!(approved["status"], "success");
    assert!(env.cli(&["workspace", "cat", &chat, "keep.txt"]).status.code() == Some(1));

    let out = env.cli(&["run", "no_such_tool", "--chat", &chat]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: tool not found: no_such_tool\n"
    );
}

#[test]
fn builtins_never_write_outside_the_workspace() {
    let env = Env::new();
    let outside = tempfile::tempdir().expect("outside");
    let chat = new_chat(&env);
    let ws = env.data().join("chats").join(&chat).join("workspace");
    std::os::unix::fs::symlink(outside.path(), ws.join("link")).expect("symlink");
    for path in ["../escape.txt", "/tmp/abs.txt", "link/x.txt"] {
        let call = run(
            &env,
            &chat,
            "write_file",
            &serde_json::json!({"path": path, "content": "x"}).to_string(),
            &[],
        );
        assert_eq!(call["status"], "error", "{path}: {call}");
        assert!(call["error"].as_str().is_some_and(|e| e.contains(path)), "{call}");
    }
    assert_eq!(std::fs::read_dir(outside.path()).expect("dir").count(), 0);
    assert!(!env.data().join("chats").join(&chat).join("escape.txt").exists());
}

#[test]
fn a_call_under_an_earlier_message_branches() {
    let env = Env::new();
    let chat = new_chat(&env);
    let a = run(&env, &chat, "write_file", r#"{"path": "a.txt", "content": "a"}"#, &[]);
    run(&env, &chat, "write_file", r#"{"path": "b.txt", "content": "b"}"#, &[]);
    let a_node = a["node_id"].as_str().expect("node");
    let c = run(
        &env,
        &chat,
        "write_file",
        r#"{"path": "c.txt", "content": "c"}"#,
        &["--parent", a_node],
    );
    let files: Vec<String> = env
        .json(&["workspace", "ls", &chat])
        .as_array()
        .expect("ls")
        .iter()
        .map(|f| f["path"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(files, ["a.txt", "c.txt"], "the branch starts from a's workspace");
    let tree = env.json(&["chat", "show", &chat, "--tree"]);
    let a_children = tree["messages"]
        .as_array()
        .expect("m")
        .iter()
        .find(|m| m["id"] == a_node)
        .expect("a")["children"]
        .clone();
    assert_eq!(a_children.as_array().map(Vec::len), Some(2));
    assert!(a_children.as_array().expect("c").contains(&c["node_id"]));
}

#[tokio::test]
async fn calls_left_running_by_a_crash_are_marked_interrupted_on_start() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    // A process died mid-call: its row says running, it left a file behind.
    sqlx::query("INSERT INTO tool_calls (id, chat_id, tool_id, status, started_at) VALUES ('dead', ?, 'write_file', 'running', 'x')")
        .bind(&chat.id)
        .execute(app.db())
        .await
        .expect("row");
    crate::write(&app.workspace_dir(&chat.id), "half.txt", "partial");
    app.close().await;

    let app = env.app().await;
    let call = app.tools().call("dead").await.expect("call");
    assert_eq!(
        (
            call.status.as_str(),
            call.error_kind.map(atelier_core::tools::ErrorKind::as_str)
        ),
        ("interrupted", Some("interrupted"))
    );
    let post = call.post_manifest_id.expect("post manifest");
    let files = app.workspace().list_files(&chat.id, Some(&post)).await.expect("ls");
    assert_eq!(
        files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
        ["half.txt"],
        "its leftovers are recorded"
    );
}

#[tokio::test]
async fn a_call_that_cannot_be_recovered_never_stops_the_app_from_opening() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    sqlx::query("INSERT INTO tool_calls (id, chat_id, tool_id, status, started_at) VALUES ('stuck', ?, 'write_file', 'running', 'x')")
        .bind(&chat.id)
        .execute(app.db())
        .await
        .expect("row");
    app.close().await;
    // Someone removed the chat's folder by hand: recovery cannot lock it.
    std::fs::remove_dir_all(env.data().join("chats").join(&chat.id)).expect("rm");
    let app = env.app().await;
    assert_eq!(app.chats().list().await.expect("the app opens").len(), 1);
}

#[tokio::test]
async fn a_call_that_fails_on_our_side_is_closed_with_the_reason_not_left_running() {
    use atelier_core::tools::{Approval, RunRequest};
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let write = |content: &str, parent: Option<String>| RunRequest {
        chat_id: chat.id.clone(),
        tool_id: "write_file".into(),
        args: serde_json::json!({"path": "a.txt", "content": content}),
        parent_id: parent,
        approval: Approval::NotGiven,
        ..Default::default()
    };
    let first = app.tools().run(write("v1", None)).await.expect("first");
    app.tools().run(write("v2", None)).await.expect("second");
    // v1's blob vanishes: branching from the first call cannot restore it.
    let sha = app
        .workspace()
        .list_files(&chat.id, first.post_manifest_id.as_deref())
        .await
        .expect("ls")[0]
        .sha256
        .clone();
    std::fs::remove_file(crate::blob_path(env.data(), &chat.id, &sha)).expect("rm blob");
    let err = app
        .tools()
        .run(write("v3", first.node_id.clone()))
        .await
        .expect_err("cannot materialize");
    assert_eq!(err.kind(), "missing_blob");
    let (status, kind, error): (String, Option<String>, Option<String>) = sqlx::query_as(
        "SELECT status, error_kind, error FROM tool_calls WHERE chat_id = ? ORDER BY started_at DESC, rowid DESC LIMIT 1",
    )
    .bind(&chat.id)
    .fetch_one(app.db())
    .await
    .expect("row");
    assert_eq!((status.as_str(), kind.as_deref()), ("error", Some("internal")));
    assert!(error.is_some_and(|e| e.contains(&sha)), "the reason names the blob");
    let missing = app.tools().call("no-such-call").await.expect_err("unknown call");
    assert_eq!(missing.kind(), "tool_call_not_found");
}

/// In a long-lived process the run flow skips the pre-call walk while a
/// watcher has seen nothing change; an edit made outside between two calls
/// must still become its own `edit` node, not part of the next call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_made_outside_between_calls_are_recorded_before_the_next_call() {
    use atelier_core::model::Role;
    use atelier_core::tools::RunRequest;
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let write = |path: &str| RunRequest {
        chat_id: chat.id.clone(),
        tool_id: "write_file".into(),
        args: serde_json::json!({"path": path, "content": "by the tool"}),
        ..Default::default()
    };
    for round in 0..3 {
        let call = app
            .tools()
            .run(write(&format!("tool-{round}.txt")))
            .await
            .expect("call");
        assert_eq!(call.status, atelier_core::tools::CallStatus::Success);
        // Someone edits the folder and runs the next tool at once, before
        // the watcher's thread may have reported the edit.
        std::fs::write(
            app.workspace_dir(&chat.id).join(format!("outside-{round}.txt")),
            "by hand",
        )
        .expect("edit");
        let next = app
            .tools()
            .run(write(&format!("after-{round}.txt")))
            .await
            .expect("call");
        let tree = app.chats().tree(&chat.id).await.expect("tree");
        let node = |id: &str| tree.iter().find(|n| n.message.id == id).expect("node").message.clone();
        let tool_node = node(next.node_id.as_deref().expect("node"));
        let edit = node(tool_node.parent_id.as_deref().expect("parent"));
        assert_eq!(edit.role, Role::Edit, "round {round}: the outside edit is its own node");
        let before: Vec<String> = app
            .workspace()
            .list_files(&chat.id, Some(&edit.id))
            .await
            .expect("ls")
            .into_iter()
            .map(|f| f.path)
            .collect();
        assert!(before.contains(&format!("outside-{round}.txt")), "{before:?}");
        assert!(!before.contains(&format!("after-{round}.txt")), "{before:?}");
    }
}

/// The bundled App Builder, tried as a new user would through the CLI, with
/// real Python: write a file, read it back, a command refused without
/// `--yes` and run with it, then a branch from an earlier message, each
/// branch keeping its own workspace.
#[test]
fn the_app_builder_example_writes_reads_runs_commands_and_branches() {
    let env = Env::new();
    env.ok(&["toolset", "install-examples"]);
    let chat = new_chat(&env);
    let first = run(
        &env,
        &chat,
        "app-builder:write_file",
        r#"{"path": "index.html", "content": "<h1>v1</h1>"}"#,
        &[],
    );
    assert_eq!(first["status"], "success", "{first}");
    assert_eq!(first["render_plan"]["config"]["file"], "index.html");
    let read = run(&env, &chat, "app-builder:read_file", r#"{"path": "index.html"}"#, &[]);
    assert_eq!(read["result"]["content"], "<h1>v1</h1>", "{read}");

    let cmd = r#"{"command": "ls > listing.txt; echo done"}"#;
    let denied = run(&env, &chat, "app-builder:run_command", cmd, &[]);
    assert_eq!(
        (denied["status"].as_str(), denied["error_kind"].as_str()),
        (Some("error"), Some("denied"))
    );
    assert!(
        !env.ok(&["workspace", "ls", &chat]).contains("listing.txt"),
        "nothing ran"
    );
    let ran = run(&env, &chat, "app-builder:run_command", cmd, &["--yes"]);
    assert_eq!(ran["status"], "success", "{ran}");
    assert_eq!(ran["render_plan"]["config"]["content"], "done\n");
    // Printed as it came, so the app shows it live; kept with the call.
    assert_eq!(ran["stdout"], "done\n", "{ran}");
    // The shell creates listing.txt before ls lists the folder.
    assert_eq!(
        env.ok(&["workspace", "cat", &chat, "listing.txt"]),
        "index.html\nlisting.txt\n"
    );

    // Main line: v2. Branch from the first call: about.html beside v1.
    let main = run(
        &env,
        &chat,
        "app-builder:write_file",
        r#"{"path": "index.html", "content": "<h1>v2</h1>"}"#,
        &[],
    );
    let first_node = first["node_id"].as_str().expect("node");
    let branch = run(
        &env,
        &chat,
        "app-builder:write_file",
        r#"{"path": "about.html", "content": "branch"}"#,
        &["--parent", first_node],
    );
    assert_eq!(branch["status"], "success", "{branch}");
    assert_eq!(env.ok(&["workspace", "cat", &chat, "index.html"]), "<h1>v1</h1>");
    assert!(!env.ok(&["workspace", "ls", &chat]).contains("listing.txt"));
    env.ok(&["chat", "checkout", &chat, main["node_id"].as_str().expect("node")]);
    assert_eq!(env.ok(&["workspace", "cat", &chat, "index.html"]), "<h1>v2</h1>");
    let ls = env.ok(&["workspace", "ls", &chat]);
    assert!(ls.contains("listing.txt") && !ls.contains("about.html"), "{ls}");
}

/// The app shows how far the walks of a big workspace are, and offers
/// Cancel as soon as the call is recorded; the run flow reports both
/// through `CallControl`.
#[tokio::test]
async fn a_run_reports_its_id_and_the_progress_of_its_workspace_walks() {
    use std::sync::{Arc, Mutex};

    use atelier_core::tools::{Approval, CallControl, RunEvent, RunRequest};

    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    for i in 0..120 {
        crate::write(&ws, &format!("d{}/f{i}.txt", i % 7), format!("file {i}\n"));
    }
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let started = Arc::new(Mutex::new(Vec::<String>::new()));
    let started_sink = Arc::clone(&started);
    let control = CallControl::with_events(move |event| match event {
        RunEvent::Workspace { files_done, .. } => sink.lock().expect("lock").push(files_done),
        RunEvent::Started { call_id } => started_sink.lock().expect("lock").push(call_id),
        _ => {}
    });
    let call = app
        .tools()
        .run(RunRequest {
            chat_id: chat.id.clone(),
            tool_id: "write_file".into(),
            args: serde_json::json!({"path": "new.txt", "content": "x"}),
            approval: Approval::NotGiven,
            control,
            ..Default::default()
        })
        .await
        .expect("run");
    assert_eq!(call.status, atelier_core::tools::CallStatus::Success);
    assert_eq!(
        started.lock().expect("lock").as_slice(),
        std::slice::from_ref(&call.id),
        "told the id once, when recorded"
    );
    let seen = seen.lock().expect("lock");
    assert!(
        seen.iter().any(|&n| n >= 120),
        "the walks reported {} updates, the largest {:?}",
        seen.len(),
        seen.iter().max()
    );
}

/// A provider key in the environment of the process that runs a tool is
/// not visible to the tool, nor to a command it starts: `env` through the
/// app-builder's `run_command` prints only the minimal environment, with
/// the chat's own `TMPDIR`.
#[test]
fn a_tool_and_its_commands_see_no_secret_of_the_callers_environment() {
    let env = Env::new();
    env.ok(&["toolset", "install-examples"]);
    let chat = new_chat(&env);
    let out = env.cli_env(
        &[
            "--json",
            "run",
            "app-builder:run_command",
            "--chat",
            &chat,
            "--args",
            r#"{"command": "env"}"#,
            "--yes",
        ],
        &[
            ("OPENAI_API_KEY", "sk-caller-secret-1"),
            ("ANTHROPIC_API_KEY", "sk-ant-caller-secret-2"),
            ("AWS_SECRET_ACCESS_KEY", "caller-secret-3"),
            ("https_proxy", "http://127.0.0.1:3128"),
        ],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let call: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(call["status"], "success", "{call}");
    let printed = call["stdout"].as_str().expect("stdout");
    assert!(!printed.contains("caller-secret"), "a secret leaked: {printed}");
    let vars: std::collections::HashMap<&str, &str> = printed.lines().filter_map(|l| l.split_once('=')).collect();
    assert!(vars.get("PATH").is_some_and(|p| !p.is_empty()), "{printed}");
    assert_eq!(vars.get("https_proxy"), Some(&"http://127.0.0.1:3128"), "proxies pass");
    let tmp = env.data().join("chats").join(&chat).join("tmp").join("app-builder");
    assert_eq!(vars.get("TMPDIR").copied(), tmp.to_str(), "its own TMPDIR");
    assert!(
        !vars.keys().any(|k| k.starts_with("ATELIER_") || k.starts_with("CARGO")),
        "nothing of the app's own: {printed}"
    );
}
