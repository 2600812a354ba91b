//! After a crash the record tells the truth: a CLI killed while its tool
//! runs leaves that call as its own `tool` node holding what the tool
//! wrote (not a person's edit), and the model hears it was interrupted —
//! under the message it ran at, in its sub-agent thread, even when the
//! person had checked out another message; a fork killed before its commit
//! leaves no empty chat; an older binary on a data dir a newer one migrated
//! says so.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use atelier_core::Atelier;
use atelier_core::model::{ManifestSource, Message, Role};
use atelier_core::tools::ToolCallRecord;

use crate::Env;
use crate::conversation::{opts, send, setup};

/// The CLI on `data`, with `env`, its output thrown away.
fn spawn_cli(data: &Path, args: &[&str], env: &[(&str, &str)]) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_atelier"));
    cmd.arg("--data-dir")
        .arg(data)
        .args(args)
        .env_remove("ATELIER_DATA_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(data.join("cli.err")).expect("stderr file"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().expect("spawn atelier")
}

/// Waits (at most `secs`) for `path` to exist; the test's loopback model
/// server answers meanwhile.
async fn appears(path: &Path, secs: u64) -> bool {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !path.exists() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    path.exists()
}

fn sigkill(mut child: Child) {
    child.kill().expect("SIGKILL the CLI");
    child.wait().expect("reap");
}

#[tokio::test]
async fn a_call_killed_mid_run_is_its_own_tool_node_and_the_model_hears_it_was_interrupted() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let zip = crate::hostile_host::spin_toolset(t.path());
    let server = crate::hostile_host::spin_call_server("Noted.").await;
    let (app, chat) = setup(&env, &server, 25).await;
    app.toolsets().import(&zip, &Default::default()).await.expect("import");
    app.agents().allow_toolset("writer", "spin").await.expect("allow");
    drop(app);

    // The CLI's run calls the tool, which writes count.txt until killed.
    let cli = spawn_cli(
        env.data(),
        &["chat", "send", &chat, "spin", "--agent", "writer", "--yes"],
        &[],
    );
    let count = env.data().join("chats").join(&chat).join("workspace/count.txt");
    assert!(
        appears(&count, 60).await,
        "the tool never started: {}",
        std::fs::read_to_string(env.data().join("cli.err")).unwrap_or_default()
    );
    sigkill(cli);

    // The next start ends the call with its own node, under the model's
    // turn — once the killed CLI's worker, which dies with it, let go of
    // the chat lock (until then the call may be alive, and is left alone).
    let deadline = Instant::now() + Duration::from_secs(10);
    let app = loop {
        let app = env.app().await;
        let calls = app.tools().calls(&chat).await.expect("calls");
        if calls.iter().all(|c| c.status.as_str() != "running") || Instant::now() > deadline {
            break app;
        }
        drop(app);
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let tree = app.chats().tree(&chat).await.expect("tree");
    let roles: Vec<Role> = tree.iter().map(|n| n.message.role).collect();
    assert!(
        !roles.contains(&Role::Edit),
        "the tool's writes are not the person's edit: {roles:?}"
    );
    let node = tree.last().expect("a node");
    assert_eq!(node.message.role, Role::Tool, "{roles:?}");
    assert_eq!(node.source, ManifestSource::ToolRun, "its state is the call's");
    let chat_now = app.chats().get(&chat).await.expect("chat");
    assert_eq!(
        chat_now.active_leaf_message_id, node.message.id,
        "the chat is at the call"
    );
    let calls = app.tools().calls(&chat).await.expect("calls");
    let call = calls.first().expect("the call");
    assert_eq!(call.status.as_str(), "interrupted");
    assert_eq!(call.message_id.as_deref(), Some(node.message.id.as_str()));
    let files = app
        .workspace()
        .list_files(&chat, Some(&node.message.id))
        .await
        .expect("files at the node");
    assert!(
        files.iter().any(|f| f.path == "count.txt"),
        "what it wrote is its state"
    );

    // The model is told the call was cut off, not cancelled by the person,
    // and no edit of the person's is made up.
    let next = send(&app, &chat, "hello again", opts()).await;
    assert!(next.error.is_none(), "{:?}", next.error);
    let body = server.requests()[1].json();
    let messages = body["messages"].as_array().expect("messages");
    let result = messages
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == "call_spin")
        .expect("the call's result");
    let said = result["content"].as_str().unwrap_or_default();
    assert!(
        said.contains("interrupted (Atelier stopped while it ran)")
            && said.contains("may have changed files")
            && said.contains("count.txt"),
        "{said}"
    );
    let all = body.to_string();
    assert!(!all.contains("cancelled by the user"), "{all}");
    assert!(!all.contains("The user edited"), "{all}");
}

/// A call a crash left `running`, as the run flow writes it before the
/// call runs: placed under `parent` (in `thread`) from the state `pre`,
/// while the chat stood where it stands now.
async fn crashed_call(app: &Atelier, chat: &str, parent: &str, thread: Option<&str>, pre: &str) -> String {
    let call = atelier_core::ids::new_id();
    sqlx::query(
        "INSERT INTO tool_calls (id, chat_id, tool_id, args, status, started_at, parent_id, thread_id, \
         pre_manifest_id, chat_leaf_id, chat_manifest_id) \
         SELECT ?, id, 'write_file', '{}', 'running', ?, ?, ?, ?, active_leaf_message_id, active_manifest_id \
         FROM chats WHERE id = ?",
    )
    .bind(&call)
    .bind(atelier_core::ids::now())
    .bind(parent)
    .bind(thread)
    .bind(pre)
    .bind(chat)
    .execute(app.db())
    .await
    .expect("a running call");
    call
}

/// The call as the next start ended it, and its node.
async fn ended(app: &Atelier, chat: &str, call: &str) -> (ToolCallRecord, Message) {
    let record = app.tools().call(call).await.expect("call");
    assert_eq!(record.status.as_str(), "interrupted", "{record:?}");
    let node = app
        .chats()
        .message(chat, record.message_id.as_deref().expect("its node"))
        .await
        .expect("node");
    (record, node)
}

/// The person checked out an earlier message E while the model answered;
/// the model's call then ran under its own message L, the folder put at
/// L's state, and was killed. Its node goes under L, and only what it
/// wrote is its change — not how L's files differ from E's.
#[tokio::test]
async fn a_call_killed_after_the_person_checked_out_an_earlier_message_ends_where_it_ran() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(Some("t")).await.expect("chat").id;
    let ws = app.workspace_dir(&chat);
    crate::write(&ws, "a.txt", "one");
    let earlier = crate::snap(&app, &chat).await.message_id.expect("E");
    crate::write(&ws, "b.txt", "two");
    let later = crate::snap(&app, &chat).await.message_id.expect("L");
    let later_state = app.chats().message(&chat, &later).await.expect("L").manifest_id;
    app.workspace().checkout(&chat, &earlier).await.expect("checkout E");
    // What the crash leaves: the folder at L's state plus the call's write.
    crate::write(&ws, "b.txt", "two");
    crate::write(&ws, "c.txt", "by the call");
    let call = crashed_call(&app, &chat, &later, None, &later_state).await;
    drop(app);

    let app = env.app().await;
    let (record, node) = ended(&app, &chat, &call).await;
    assert_eq!(
        node.parent_id.as_deref(),
        Some(later.as_str()),
        "under the message it ran at"
    );
    assert_eq!(node.thread_id, None);
    let chat_now = app.chats().get(&chat).await.expect("chat");
    assert_eq!(
        chat_now.active_leaf_message_id, node.id,
        "the chat is at the call, as when a call ends"
    );
    let error = record.error.unwrap_or_default();
    assert!(
        error.contains("kept: c.txt") && !error.contains("b.txt"),
        "only what the call wrote is its change: {error}"
    );
    let files = app.workspace().list_files(&chat, Some(&node.id)).await.expect("files");
    let mut names: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["a.txt", "b.txt", "c.txt"]);
    let tree = app.chats().tree(&chat).await.expect("tree");
    let edits = tree.iter().filter(|n| n.message.role == Role::Edit).count();
    assert_eq!(edits, 2, "no edit of the person's is made up");
}

/// A sub-agent's call killed mid-run: its node stays in its thread, and
/// the chat's main line stays where it was (only its folder state moves,
/// as when a thread's call ends).
#[tokio::test]
async fn a_sub_agents_call_killed_mid_run_keeps_its_thread_and_leaves_the_main_line() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(Some("t")).await.expect("chat").id;
    let ws = app.workspace_dir(&chat);
    crate::write(&ws, "a.txt", "one");
    let leaf = crate::snap(&app, &chat).await.message_id.expect("leaf");
    let state = app.chats().message(&chat, &leaf).await.expect("leaf").manifest_id;
    // A spawn_agents call under the leaf, its task's thread and its root.
    let now = atelier_core::ids::now();
    let (spawn, thread, root) = ("spawn-1", "thread-1", "thread-root-1");
    for (sql, binds) in [
        (
            "INSERT INTO tool_calls (id, chat_id, tool_id, args, status, started_at) \
             VALUES (?, ?, 'spawn_agents', '{}', 'success', ?)",
            vec![spawn, chat.as_str(), now.as_str()],
        ),
        (
            "INSERT INTO threads (id, chat_id, parent_call_id, agent_id, depth, task, created_at) \
             VALUES (?, ?, ?, 'writer', 1, 'write t.txt', ?)",
            vec![thread, chat.as_str(), spawn, now.as_str()],
        ),
        (
            "INSERT INTO messages (id, chat_id, parent_id, role, content, manifest_id, created_at, thread_id) \
             VALUES (?, ?, NULL, 'system', '[]', ?, ?, ?)",
            vec![root, chat.as_str(), state.as_str(), now.as_str(), thread],
        ),
    ] {
        let mut q = sqlx::query(sql);
        for b in binds {
            q = q.bind(b);
        }
        q.execute(app.db()).await.expect(sql);
    }
    crate::write(&ws, "t.txt", "by the sub-agent");
    let call = crashed_call(&app, &chat, root, Some(thread), &state).await;
    drop(app);

    let app = env.app().await;
    let (record, node) = ended(&app, &chat, &call).await;
    assert_eq!(node.thread_id.as_deref(), Some(thread), "in its thread");
    assert_eq!(node.parent_id.as_deref(), Some(root));
    let chat_now = app.chats().get(&chat).await.expect("chat");
    assert_eq!(chat_now.active_leaf_message_id, leaf, "the main line stays");
    assert_eq!(
        chat_now.active_manifest_id, node.manifest_id,
        "the folder is the call's"
    );
    let error = record.error.unwrap_or_default();
    assert!(error.contains("kept: t.txt"), "{error}");
}

/// The chat ids in the list, and the entries of `chats/` on disk.
async fn chats_and_folders(env: &Env) -> (Vec<String>, Vec<String>) {
    let app = env.app().await;
    let mut ids: Vec<String> = app
        .chats()
        .list()
        .await
        .expect("list")
        .into_iter()
        .map(|c| c.id)
        .collect();
    ids.sort();
    let mut dirs: Vec<String> = std::fs::read_dir(env.data().join("chats"))
        .expect("chats dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    (ids, dirs)
}

#[tokio::test]
async fn a_fork_killed_before_its_commit_leaves_no_empty_chat() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(Some("Source")).await.expect("chat").id;
    crate::write(&app.workspace_dir(&chat), "a.txt", "one");
    let at = crate::snap(&app, &chat).await.message_id.expect("an edit node");
    drop(app);

    let flag: PathBuf = env.data().join("paused");
    let cli = spawn_cli(
        env.data(),
        &["chat", "fork", &chat, &at],
        &[
            ("ATELIER_FAILPOINT", "fork-before-commit:pause"),
            ("ATELIER_FAILPOINT_FLAG", flag.to_str().expect("utf-8")),
        ],
    );
    assert!(appears(&flag, 30).await, "the fork never reached its commit");
    sigkill(cli);
    let _ = std::fs::remove_file(&flag);

    let (ids, dirs) = chats_and_folders(&env).await;
    assert_eq!(ids, [chat.as_str()], "no half-made fork in the list");
    assert_eq!(dirs, [chat.as_str()], "nor its folder on disk");
    // And a fork that is not killed is whole.
    let fork = env.json(&["chat", "fork", &chat, &at]);
    let fork_id = fork["id"].as_str().expect("id");
    assert_eq!(fork["title"], "Source (fork)");
    assert_eq!(
        std::fs::read_to_string(env.data().join("chats").join(fork_id).join("workspace/a.txt")).expect("file"),
        "one"
    );
}

#[tokio::test]
async fn an_older_atelier_on_a_data_dir_a_newer_one_migrated_says_so() {
    let env = Env::new();
    let app = env.app().await;
    let known: i64 = sqlx::query_scalar("SELECT max(version) FROM _sqlx_migrations")
        .fetch_one(app.db())
        .await
        .expect("schema");
    // What a newer version's migration leaves.
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, installed_on, success, checksum, execution_time) \
         VALUES (?, 'from a newer version', CURRENT_TIMESTAMP, 1, x'00', 1)",
    )
    .bind(known + 3)
    .execute(app.db())
    .await
    .expect("a newer migration");
    drop(app);
    let out = env.cli(&["chat", "list"]);
    assert!(!out.status.success());
    let said = crate::said(&out);
    assert!(
        said.contains(&format!(
            "this data dir was used by a newer Atelier (schema {}; this one knows up to {known}): use that version, or another data dir",
            known + 3
        )) && said.contains(&env.data().display().to_string()),
        "{said}"
    );
    assert!(!said.contains("previously applied"), "{said}");
}
