//! MCP servers a toolset declares: one instance per chat in its
//! workspace (its only root), stopped with the chat, when idle, when its
//! toolset no longer needs it; server-filesystem writing into the
//! workspace; server-everything's tool for clients with roots listed
//! before any chat started it, and kept by a restart.

use std::path::Path;
use std::time::Duration;

use atelier_core::mcp::McpSettings;
use atelier_core::tools::call::CallControl;
use atelier_core::toolsets::ImportOptions;
use serde_json::json;

use crate::mcp::{
    alive, app, everything, filesystem, fixture, installed, pids, python, repo, run, text_of, wait_until,
};
use crate::{Env, write};

/// Installs toolset `toolset` (a local folder) declaring one stdio server.
async fn install(env: &Env, app: &atelier_core::Atelier, toolset: &str, server: &str, command: &str, args: &[&str]) {
    let src = env.data().join(format!("src-{toolset}"));
    let args: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
    write(
        &src,
        "toolset.yaml",
        format!(
            "manifest_version: 1\nid: {toolset}\nname: {toolset}\nversion: 1.0.0\ntools: []\n\
             mcp_servers:\n  - id: {server}\n    command: {command}\n    args: [{}]\n",
            args.join(", ")
        ),
    );
    app.toolsets()
        .import(&src, &ImportOptions::default())
        .await
        .expect("import");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_toolset_server_runs_per_chat_in_its_workspace_and_stops_with_the_chat() {
    let env = Env::new();
    let app = app(&env).await;
    install(&env, &app, "fx-tools", "fx", &python(), &[&fixture()]).await;
    let listed = app.mcp().refresh("fx").await.expect("lists");
    assert_eq!(listed.scope.as_str(), "chat");
    assert_eq!(listed.toolsets, vec!["fx-tools".to_owned()]);
    // Listing does not leave a chat server running.
    assert!(pids(&app, "fx").await.is_empty());

    let a = app.chats().create(None).await.expect("chat").id;
    let b = app.chats().create(None).await.expect("chat").id;
    let wrote = run(
        &app,
        &a,
        "fx:write_file",
        json!({"path": "out/a.txt", "text": "from the server"}),
        CallControl::default(),
    )
    .await;
    assert_eq!(wrote.status.as_str(), "success", "{wrote:?}");
    // The write is in the tool node's workspace state.
    assert_ne!(wrote.pre_manifest_id, wrote.post_manifest_id);
    let bytes = app
        .workspace()
        .read_file(&a, "out/a.txt", wrote.post_manifest_id.as_deref())
        .await
        .expect("in the snapshot");
    assert_eq!(bytes, b"from the server");

    for chat in [&a, &b] {
        let here = run(&app, chat, "fx:whereami", json!({}), CallControl::default()).await;
        let cwd = here
            .result
            .as_ref()
            .and_then(|r| r["cwd"].as_str())
            .expect("cwd")
            .to_owned();
        assert_eq!(
            Path::new(&cwd).canonicalize().expect("cwd"),
            app.workspace_dir(chat).canonicalize().expect("ws")
        );
    }
    let details = app.mcp().details("fx").await.expect("details");
    assert_eq!(details.instances.len(), 2, "{details:?}");
    let by_chat = |c: &str| {
        details
            .instances
            .iter()
            .find(|i| i.chat_id.as_deref() == Some(c))
            .and_then(|i| i.pid)
            .expect("pid")
    };
    let (pid_a, pid_b) = (by_chat(&a), by_chat(&b));
    assert_ne!(pid_a, pid_b);

    app.chats().delete(&b).await.expect("delete chat");
    assert!(!alive(pid_b), "deleting a chat stops its server");
    assert!(alive(pid_a));

    // Disabling the toolset stops its servers and takes their tools away.
    app.toolsets().set_enabled("fx-tools", false).await.expect("disable");
    assert!(!alive(pid_a));
    let server = app.mcp().get("fx").await.expect("row");
    assert!(!server.active && server.enabled);
    let pool = app.routing().snapshot().await.expect("pool");
    assert!(!pool.tools.iter().any(|t| t.canonical_id.starts_with("fx:")));
    app.toolsets().set_enabled("fx-tools", true).await.expect("enable");
    assert!(app.mcp().get("fx").await.expect("row").active);

    // An idle chat server stops by itself.
    app.mcp().configure(McpSettings {
        idle: Duration::from_millis(300),
        stop_grace: Duration::from_millis(500),
        ..Default::default()
    });
    // A call longer than that is not cut: a busy server is not idle.
    let slow = {
        let (app, a) = (app.clone(), a.clone());
        tokio::spawn(async move { run(&app, &a, "fx:slow", json!({"seconds": 1.0}), CallControl::default()).await })
    };
    wait_until("the call's server is up", || async {
        !pids(&app, "fx").await.is_empty()
    })
    .await;
    let pid = pids(&app, "fx").await[0];
    let long = slow.await.expect("the call");
    assert_eq!(long.status.as_str(), "success", "{long:?}");
    wait_until("the idle server stops", || async { !alive(pid) }).await;
    app.toolsets().uninstall("fx-tools").await.expect("uninstall");
    assert!(
        app.mcp().list().await.expect("list").is_empty(),
        "its server goes with it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_filesystem_works_in_the_workspace_it_is_given_as_root() {
    let env = Env::new();
    let app = app(&env).await;
    install(&env, &app, "files-kit", "files", "node", &[&filesystem()]).await;
    // Listed outside any chat: no root, so nothing is allowed yet.
    app.mcp().refresh("files").await.expect("lists");
    let chat = app.chats().create(None).await.expect("chat").id;
    let ws = app.workspace_dir(&chat).canonicalize().expect("ws");
    // The server asks for its roots only after the handshake: the first
    // call waits for that (before, it usually found no root at all).
    let listed = run(
        &app,
        &chat,
        "files:list_allowed_directories",
        json!({}),
        CallControl::default(),
    )
    .await;
    // Its answer has structured content: the result is that object.
    assert!(
        listed
            .result
            .as_ref()
            .is_some_and(|r| r.to_string().contains(&ws.display().to_string())),
        "the first call finds the workspace as its root: {listed:?}"
    );
    let path = ws.join("notes.md").display().to_string();
    let wrote = run(
        &app,
        &chat,
        "files:write_file",
        json!({"path": path, "content": "# from the server\n"}),
        CallControl::default(),
    )
    .await;
    assert_eq!(wrote.status.as_str(), "success", "{wrote:?}");
    let in_node = app
        .workspace()
        .read_file(&chat, "notes.md", wrote.post_manifest_id.as_deref())
        .await
        .expect("the write is in the tool node's manifest");
    assert_eq!(in_node, b"# from the server\n");
    // Outside the root: refused by the server, an error the person reads.
    let outside = run(
        &app,
        &chat,
        "files:read_text_file",
        json!({"path": "/etc/hostname"}),
        CallControl::default(),
    )
    .await;
    assert_eq!(outside.status.as_str(), "error", "{outside:?}");
    let pid = pids(&app, "files").await[0];
    app.mcp().stop_everything().await;
    assert!(!alive(pid));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_two_toolsets_declare_runs_until_neither_needs_it() {
    let env = Env::new();
    let app = app(&env).await;
    for ts in ["kit-a", "kit-b"] {
        install(&env, &app, ts, "fx", &python(), &[&fixture()]).await;
    }
    app.mcp().refresh("fx").await.expect("lists");
    let chat = app.chats().create(None).await.expect("chat").id;
    run(&app, &chat, "fx:echo", json!({"text": "x"}), CallControl::default()).await;
    let pid = pids(&app, "fx").await[0];
    app.toolsets().set_enabled("kit-a", false).await.expect("disable a");
    assert!(alive(pid), "kit-b still needs it");
    assert!(app.mcp().get("fx").await.expect("row").active);
    app.toolsets().uninstall("kit-b").await.expect("uninstall b");
    assert!(!alive(pid), "nothing needs it now");
    assert!(!app.mcp().get("fx").await.expect("row").active);
    app.mcp().stop_everything().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_offers_its_roots_tool_to_every_chat_from_the_listing_on() {
    let env = Env::new();
    let app = app(&env).await;
    install(&env, &app, "demo-kit", "everything", "node", &[&everything(), "stdio"]).await;
    let has =
        |tools: &Option<Vec<atelier_core::mcp::McpTool>>| tools.iter().flatten().any(|t| t.name == "get-roots-list");
    let in_pool = || async {
        let pool = app.routing().snapshot().await.expect("pool");
        pool.tools.iter().any(|t| t.canonical_id == "everything:get-roots-list")
    };
    // It adds the tool only for a client that offers roots, as a chat's
    // instance does: the listing offers an empty folder, so the tool is
    // there before any chat has started the server.
    let listed = app.mcp().refresh("everything").await.expect("lists");
    assert!(has(&listed.tools), "{:?}", listed.tools);
    assert!(in_pool().await);
    assert!(pids(&app, "everything").await.is_empty());
    // The folder it was offered goes with the listing.
    let own = app.data_dir().root().join("mcp").join("everything");
    let left: Vec<_> = std::fs::read_dir(&own)
        .expect("its folder")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.starts_with("listing-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");

    // In a chat its root is the chat's workspace.
    let chat = app.chats().create(None).await.expect("chat").id;
    let roots = run(
        &app,
        &chat,
        "everything:get-roots-list",
        json!({}),
        CallControl::default(),
    )
    .await;
    assert_eq!(roots.status.as_str(), "success", "{roots:?}");
    let shown = roots
        .render_plan
        .as_ref()
        .map(|p| p.config.to_string())
        .unwrap_or_default();
    let ws = app.workspace_dir(&chat).display().to_string();
    assert!(shown.contains(&ws), "{shown}");
    assert!(!shown.contains("listing-root"), "{shown}");

    // A restart lists it again the same way: the tool stays.
    let again = app.mcp().refresh("everything").await.expect("lists again");
    assert!(has(&again.tools), "{:?}", again.tools);
    assert!(in_pool().await);
    app.mcp().stop_everything().await;
}

/// An old server (it answers `server/discover` with `{}`, so a probe costs
/// a second process) learnt once by the listing: every chat's instance
/// greets it with `initialize` at once, and so does the next process on
/// the same data, from the record the listing left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_chat_greets_an_old_server_the_way_its_listing_learnt() {
    let env = Env::new();
    let app = app(&env).await;
    let legacy = installed(repo().join("tests/mcp/legacy_server.py"));
    install(&env, &app, "old-tools", "old", &python(), &[&legacy]).await;
    let listed = app.mcp().refresh("old").await.expect("lists");
    assert_eq!(listed.scope.as_str(), "chat");
    for chat in ["a", "b"] {
        let id = app.chats().create(Some(chat)).await.expect("chat").id;
        let out = run(&app, &id, "old:shout", json!({"text": chat}), CallControl::default()).await;
        assert_eq!(out.status.as_str(), "success", "{out:?}");
        assert_eq!(text_of(&out), chat.to_uppercase());
    }
    let details = app.mcp().details("old").await.expect("details");
    assert_eq!(details.instances.len(), 2, "{details:?}");
    let requests: Vec<&String> = details.stderr.iter().filter(|l| l.starts_with("request ")).collect();
    // The ping: a chat's server is offered roots, and asked whether it
    // wants them before the first call (`roots_wait`).
    assert_eq!(
        requests,
        [
            "request initialize",
            "request ping",
            "request tools/list",
            "request tools/call"
        ],
        "{details:?}"
    );
    app.mcp().stop_everything().await;

    // Another process on the same data (a CLI command, the app started
    // again) starts from what the record says: no probe, no second process.
    let next = env.app().await;
    let id = next.chats().create(Some("c")).await.expect("chat").id;
    let out = run(&next, &id, "old:shout", json!({"text": "c"}), CallControl::default()).await;
    assert_eq!(out.status.as_str(), "success", "{out:?}");
    let details = next.mcp().details("old").await.expect("details");
    let requests: Vec<&String> = details.stderr.iter().filter(|l| l.starts_with("request ")).collect();
    assert_eq!(
        requests,
        [
            "request initialize",
            "request ping",
            "request tools/list",
            "request tools/call"
        ],
        "{details:?}"
    );
    next.mcp().stop_everything().await;
}
