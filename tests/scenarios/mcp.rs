//! MCP servers through the core against real servers installed by
//! `scripts/install.sh`: `@modelcontextprotocol/server-everything` over
//! stdio and streamable HTTP, `@modelcontextprotocol/server-filesystem`
//! with the chat's workspace as its root, and `tests/mcp/fixture_server.py`
//! (the PyPI `mcp` package) for the hard cases. Every test ends with no
//! server process left.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use atelier_core::Atelier;
use atelier_core::mcp::{McpSettings, NewServer};
use atelier_core::tools::call::{CallControl, RunEvent};
use atelier_core::tools::{Approval, RunRequest, ToolCallRecord};
use atelier_core::toolsets::ImportOptions;
use serde_json::{Value, json};

use crate::{Env, write};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn installed(p: PathBuf) -> String {
    assert!(p.exists(), "{} is missing: run scripts/install.sh", p.display());
    p.canonicalize().expect("canonical").display().to_string()
}

fn everything() -> String {
    installed(repo().join("tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js"))
}

fn filesystem() -> String {
    installed(repo().join("tests/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"))
}

/// The venv's python as is: resolving its symlink would leave the venv.
fn python() -> String {
    let p = repo().join(".tools/mcp-venv/bin/python");
    assert!(p.exists(), "{} is missing: run scripts/install.sh", p.display());
    std::path::absolute(&p).expect("absolute").display().to_string()
}

fn fixture() -> String {
    installed(repo().join("tests/mcp/fixture_server.py"))
}

/// An app whose servers stop and restart quickly.
async fn app(env: &Env) -> Atelier {
    let app = env.app().await;
    app.mcp().configure(McpSettings {
        stop_grace: Duration::from_millis(500),
        backoff_start: Duration::from_millis(200),
        ..Default::default()
    });
    app
}

fn stdio(id: &str, command: &str, args: &[&str]) -> NewServer {
    NewServer {
        id: id.to_owned(),
        command: Some(command.to_owned()),
        args: args.iter().map(|s| (*s).to_owned()).collect(),
        ..Default::default()
    }
}

async fn run(app: &Atelier, chat: &str, tool: &str, args: Value, control: CallControl) -> ToolCallRecord {
    app.tools()
        .run(RunRequest {
            chat_id: chat.to_owned(),
            tool_id: tool.to_owned(),
            args,
            approval: Approval::Approved,
            control,
            ..Default::default()
        })
        .await
        .expect("the call is recorded")
}

/// Whether a process is alive (a zombie is not).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(')').map(|(_, rest)| rest.trim_start().to_owned()))
        .is_some_and(|rest| !rest.starts_with('Z'))
}

/// The pids of a server's running instances.
async fn pids(app: &Atelier, id: &str) -> Vec<u32> {
    let details = app.mcp().details(id).await.expect("details");
    details.instances.iter().filter_map(|i| i.pid).collect()
}

async fn wait_until<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + Duration::from_secs(20);
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A text result: the text, or `{"result": text}` (how the Python SDK
/// returns a string as structured content).
fn text_of(call: &ToolCallRecord) -> String {
    match &call.result {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Object(o)) if o.len() == 1 && o.get("result").is_some_and(Value::is_string) => {
            o["result"].as_str().unwrap_or_default().to_owned()
        }
        other => panic!("expected a text result, got {other:?} ({call:?})"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_over_stdio_joins_the_pool_and_runs_through_the_run_flow() {
    let env = Env::new();
    let app = app(&env).await;
    let server = everything();
    app.mcp()
        .add(stdio("everything", "node", &[&server, "stdio"]))
        .await
        .expect("add");
    // Added, not yet listed: nothing in the pool.
    let pool = app.routing().snapshot().await.expect("pool");
    assert!(!pool.tools.iter().any(|t| t.canonical_id.starts_with("everything:")));

    let listed = app.mcp().refresh("everything").await.expect("connects and lists");
    let names: Vec<&str> = listed.tools.iter().flatten().map(|t| t.name.as_str()).collect();
    for t in [
        "echo",
        "get-sum",
        "trigger-long-running-operation",
        "get-annotated-message",
        "get-resource-reference",
    ] {
        assert!(names.contains(&t), "{t} missing from {names:?}");
    }
    assert_eq!(listed.server_name.as_deref(), Some("mcp-servers/everything"));
    assert!(listed.protocol_version.is_some() && listed.last_error.is_none());
    let pool = app.routing().snapshot().await.expect("pool");
    let echo = pool
        .tools
        .iter()
        .find(|t| t.canonical_id == "everything:echo")
        .expect("echo in the pool");
    assert_eq!(echo.model_name, "everything.echo");
    assert!(echo.def.read_only);

    let chat = app.chats().create(None).await.expect("chat").id;
    let call = run(
        &app,
        &chat,
        "everything:echo",
        json!({"message": "hello"}),
        CallControl::default(),
    )
    .await;
    assert_eq!(call.status.as_str(), "success", "{call:?}");
    assert_eq!(text_of(&call), "Echo: hello");
    let plan = call.render_plan.as_ref().expect("plan");
    assert_eq!(
        (plan.renderer.as_str(), &plan.config["content"]),
        ("document", &json!("Echo: hello"))
    );
    assert!(call.node_id.is_some() && call.post_manifest_id.is_some());

    let sum = run(
        &app,
        &chat,
        "everything:get-sum",
        json!({"a": 2, "b": 3}),
        CallControl::default(),
    )
    .await;
    assert!(text_of(&sum).contains('5'), "{sum:?}");

    // Arguments are checked against the server's inputSchema first.
    let bad = run(
        &app,
        &chat,
        "everything:get-sum",
        json!({"a": "two"}),
        CallControl::default(),
    )
    .await;
    assert_eq!(bad.error_kind.map(|k| k.as_str()), Some("invalid_args"), "{bad:?}");

    // Progress notifications arrive as events while the call runs.
    let seen: Arc<Mutex<Vec<f64>>> = Arc::default();
    let sink = Arc::clone(&seen);
    let control = CallControl::with_events(move |e| {
        if let RunEvent::Progress { progress, .. } = e {
            sink.lock().expect("test").push(progress);
        }
    });
    let long = run(
        &app,
        &chat,
        "everything:trigger-long-running-operation",
        json!({"duration": 1, "steps": 4}),
        control,
    )
    .await;
    assert_eq!(long.status.as_str(), "success", "{long:?}");
    assert!(
        seen.lock().expect("test").len() >= 3,
        "progress: {:?}",
        seen.lock().expect("test")
    );

    // An image in the content: the image plan, with the text as caption.
    let annotated = run(
        &app,
        &chat,
        "everything:get-annotated-message",
        json!({"messageType": "error", "includeImage": true}),
        CallControl::default(),
    )
    .await;
    let plan = annotated.render_plan.as_ref().expect("plan");
    assert_eq!(plan.renderer, "image", "{plan:?}");
    assert!(
        plan.config["url"]
            .as_str()
            .is_some_and(|u| u.starts_with("data:image/png;base64,"))
    );
    assert_eq!(plan.config["alt"], "Error: Operation failed");
    // An embedded resource: code, by its MIME type.
    let resource = run(
        &app,
        &chat,
        "everything:get-resource-reference",
        json!({"resourceType": "Text", "resourceId": 1}),
        CallControl::default(),
    )
    .await;
    let plan = resource.render_plan.as_ref().expect("plan");
    assert_eq!(plan.renderer, "code");
    assert_eq!(plan.config["path"], "demo://resource/dynamic/text/1");
    assert!(
        plan.config["content"]
            .as_str()
            .is_some_and(|t| t.starts_with("Resource 1:"))
    );
    // Structured content is the result (`$return`).
    let structured = run(
        &app,
        &chat,
        "everything:get-structured-content",
        json!({"location": "Chicago"}),
        CallControl::default(),
    )
    .await;
    assert!(
        structured
            .result
            .as_ref()
            .is_some_and(|r| r.get("temperature").is_some()),
        "{structured:?}"
    );

    // A tool the server does not mark read-only asks first.
    let asked = app
        .tools()
        .run(RunRequest {
            chat_id: chat.clone(),
            tool_id: "everything:toggle-simulated-logging".into(),
            args: json!({}),
            approval: Approval::NotGiven,
            ..Default::default()
        })
        .await
        .expect("recorded");
    assert_eq!(asked.error_kind.map(|k| k.as_str()), Some("denied"));

    // A shared server: one instance, still up after the calls.
    let details = app.mcp().details("everything").await.expect("details");
    assert_eq!(details.status, "connected");
    assert_eq!(details.instances.len(), 1);
    assert_eq!(details.instances[0].chat_id, None);
    let pid = details.instances[0].pid.expect("pid");
    assert!(alive(pid));

    // Disabled: out of the pool, calls refused, the process stopped.
    app.mcp().set_enabled("everything", false).await.expect("disable");
    assert!(!alive(pid), "disabling stops the server");
    let pool = app.routing().snapshot().await.expect("pool");
    assert!(!pool.tools.iter().any(|t| t.canonical_id.starts_with("everything:")));
    let refused = app
        .tools()
        .run(RunRequest {
            chat_id: chat.clone(),
            tool_id: "everything:echo".into(),
            args: json!({"message": "x"}),
            approval: Approval::Approved,
            ..Default::default()
        })
        .await
        .expect_err("disabled");
    assert!(refused.to_string().contains("enable its MCP server"), "{refused}");
    app.mcp().remove("everything").await.expect("remove");
    assert!(app.mcp().list().await.expect("list").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_toolset_server_runs_per_chat_in_its_workspace_and_stops_with_the_chat() {
    let env = Env::new();
    let app = app(&env).await;
    let src = env.data().join("src-fx");
    write(
        &src,
        "toolset.yaml",
        format!(
            "manifest_version: 1\nid: fx-tools\nname: Fixture\nversion: 1.0.0\ntools: []\n\
             mcp_servers:\n  - id: fx\n    command: {}\n    args: [{:?}]\n",
            python(),
            fixture()
        ),
    );
    app.toolsets()
        .import(&src, &ImportOptions::default())
        .await
        .expect("import");
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
async fn crashes_timeouts_and_cancels_end_calls_like_python_ones() {
    let env = Env::new();
    let app = app(&env).await;
    let (py, fx) = (python(), fixture());
    app.mcp().add(stdio("fx", &py, &[&fx])).await.expect("add");
    app.mcp().refresh("fx").await.expect("lists");
    let chat = app.chats().create(None).await.expect("chat").id;

    let crashed = run(&app, &chat, "fx:crash", json!({"code": 3}), CallControl::default()).await;
    assert_eq!(crashed.status.as_str(), "error");
    assert_eq!(crashed.error_kind.map(|k| k.as_str()), Some("crash"));
    assert_eq!(crashed.error.as_deref(), Some("MCP server fx exited (code 3)"));
    // It comes back by itself.
    wait_until("the server restarts", || async {
        app.mcp()
            .details("fx")
            .await
            .map(|d| d.status == "connected")
            .unwrap_or(false)
    })
    .await;
    let again = run(&app, &chat, "fx:echo", json!({"text": "back"}), CallControl::default()).await;
    assert_eq!(text_of(&again), "back");

    let timed = run(
        &app,
        &chat,
        "fx:slow",
        json!({"seconds": 30}),
        CallControl {
            timeout: Some(Duration::from_millis(400)),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(timed.error_kind.map(|k| k.as_str()), Some("timeout"));
    assert_eq!(timed.error.as_deref(), Some("timed out after 0.4 s"));

    let control = CallControl::default();
    let cancel = control.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(400)).await;
        cancel.cancel();
    });
    let t0 = Instant::now();
    let stopped = run(&app, &chat, "fx:stubborn", json!({"seconds": 30}), control).await;
    assert_eq!(stopped.status.as_str(), "cancelled", "{stopped:?}");
    assert!(t0.elapsed() < Duration::from_secs(5));

    // What the server printed during a call is kept with it, bounded.
    let flood = run(
        &app,
        &chat,
        "fx:flood",
        json!({"megabytes": 10}),
        CallControl::default(),
    )
    .await;
    assert_eq!(text_of(&flood), "flooded");
    let stderr = flood.stderr.as_deref().unwrap_or_default();
    assert!(stderr.lines().count() <= 200 && !stderr.is_empty());

    // A new tool announced by the server joins the pool.
    run(&app, &chat, "fx:grow", json!({}), CallControl::default()).await;
    wait_until("the pool has fx:extra", || async {
        app.routing()
            .snapshot()
            .await
            .map(|p| p.tools.iter().any(|t| t.canonical_id == "fx:extra"))
            .unwrap_or(false)
    })
    .await;
    assert_eq!(
        text_of(&run(&app, &chat, "fx:extra", json!({}), CallControl::default()).await),
        "extra"
    );

    let pid = pids(&app, "fx").await[0];
    app.mcp().stop_everything().await;
    assert!(!alive(pid));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_errors_are_kept_with_the_server_and_name_it() {
    let env = Env::new();
    let app = app(&env).await;
    app.mcp()
        .add(stdio("ghost", "atelier-no-such-server", &["--x"]))
        .await
        .expect("add");
    let err = app.mcp().refresh("ghost").await.expect_err("cannot start");
    let text = err.to_string();
    assert!(
        text.contains("MCP server ghost") && text.contains("atelier-no-such-server") && text.contains("not found"),
        "{text}"
    );
    let row = app.mcp().get("ghost").await.expect("kept");
    assert_eq!(row.last_error.as_deref(), Some(text.as_str()));
    assert!(row.tools.is_none());
    let details = app.mcp().details("ghost").await.expect("details");
    assert_eq!(
        (details.status.as_str(), details.message.as_deref()),
        ("error", Some(text.as_str()))
    );

    // One that never answers: the handshake timeout names it.
    app.mcp().configure(McpSettings {
        handshake: Duration::from_secs(2),
        stop_grace: Duration::from_millis(300),
        ..Default::default()
    });
    let (py, fx) = (python(), fixture());
    app.mcp()
        .add(stdio("mute", &py, &[&fx, "--no-handshake"]))
        .await
        .expect("add");
    let err = app.mcp().refresh("mute").await.expect_err("no answer");
    assert!(
        err.to_string()
            .starts_with("MCP server mute did not answer the handshake within 2 s"),
        "{err}"
    );

    // Ids share one namespace with toolsets; a second server with an id is refused.
    let clash = app.mcp().add(stdio("ghost", "x", &[])).await.expect_err("taken");
    assert!(clash.to_string().contains("already used"), "{clash}");
}

/// `server-everything streamableHttp` on a free port, until dropped.
struct HttpEverything {
    child: Child,
    url: String,
}

impl HttpEverything {
    fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut child = Command::new("node")
            .args([everything().as_str(), "streamableHttp"])
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("node");
        let mut err = BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        while !line.contains("listening") {
            line.clear();
            assert!(err.read_line(&mut line).expect("read") > 0, "server-everything exited");
        }
        // Keep draining its stderr so it never blocks on a full pipe.
        std::thread::spawn(move || for _ in err.lines() {});
        Self {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpEverything {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_over_streamable_http() {
    let env = Env::new();
    let app = app(&env).await;
    let server = HttpEverything::start();
    app.mcp()
        .add(NewServer {
            id: "remote".into(),
            url: Some(server.url.clone()),
            ..Default::default()
        })
        .await
        .expect("add");
    let listed = app.mcp().refresh("remote").await.expect("lists over HTTP");
    assert!(listed.tools.iter().flatten().any(|t| t.name == "echo"));
    let chat = app.chats().create(None).await.expect("chat").id;
    let call = run(
        &app,
        &chat,
        "remote:echo",
        json!({"message": "over http"}),
        CallControl::default(),
    )
    .await;
    assert_eq!(text_of(&call), "Echo: over http");
    let seen: Arc<Mutex<usize>> = Arc::default();
    let sink = Arc::clone(&seen);
    let control = CallControl::with_events(move |e| {
        if matches!(e, RunEvent::Progress { .. }) {
            *sink.lock().expect("test") += 1;
        }
    });
    let long = run(
        &app,
        &chat,
        "remote:trigger-long-running-operation",
        json!({"duration": 1, "steps": 3}),
        control,
    )
    .await;
    assert_eq!(long.status.as_str(), "success", "{long:?}");
    assert!(*seen.lock().expect("test") >= 2);
    app.mcp().stop_everything().await;

    // A server that is gone: the error says where.
    drop(server);
    let err = app.mcp().refresh("remote").await.expect_err("gone");
    assert!(err.to_string().contains("MCP server remote"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_filesystem_works_in_the_workspace_it_is_given_as_root() {
    let env = Env::new();
    let app = app(&env).await;
    let src = env.data().join("src-files");
    write(
        &src,
        "toolset.yaml",
        format!(
            "manifest_version: 1\nid: files-kit\nname: Files\nversion: 1.0.0\ntools: []\n\
             mcp_servers:\n  - id: files\n    command: node\n    args: [{:?}]\n",
            filesystem()
        ),
    );
    app.toolsets()
        .import(&src, &ImportOptions::default())
        .await
        .expect("import");
    // Listed outside any chat: no root, so nothing is allowed yet.
    app.mcp().refresh("files").await.expect("lists");
    let chat = app.chats().create(None).await.expect("chat").id;
    let ws = app.workspace_dir(&chat).canonicalize().expect("ws");
    // The root arrives after the handshake: ask until the server has it.
    wait_until("the workspace is the server's root", || async {
        let listed = run(
            &app,
            &chat,
            "files:list_allowed_directories",
            json!({}),
            CallControl::default(),
        )
        .await;
        // Its answer has structured content: the result is that object.
        listed
            .result
            .as_ref()
            .is_some_and(|r| r.to_string().contains(&ws.display().to_string()))
    })
    .await;
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
        let src = env.data().join(format!("src-{ts}"));
        write(
            &src,
            "toolset.yaml",
            format!(
                "manifest_version: 1\nid: {ts}\nname: {ts}\nversion: 1.0.0\ntools: []\n\
                 mcp_servers:\n  - id: fx\n    command: {}\n    args: [{:?}]\n",
                python(),
                fixture()
            ),
        );
        app.toolsets()
            .import(&src, &ImportOptions::default())
            .await
            .expect("import");
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
async fn a_model_calls_an_mcp_tool_and_reads_its_text() {
    use atelier_core::agents::AgentSpec;
    use atelier_core::conversation::{RunStatus, SendOptions};
    use atelier_core::providers::ProviderSpec;
    use atelier_llm::replay::ReplayServer;

    use crate::conversation::{answer, chunk};

    let env = Env::new();
    let app = app(&env).await;
    let server = everything();
    app.mcp()
        .add(stdio("everything", "node", &[&server, "stdio"]))
        .await
        .expect("add");
    app.mcp().refresh("everything").await.expect("lists");
    let call = atelier_llm::replay::Reply::sse(&[
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_e", "type": "function", "function": {
                "name": "everything__echo", "arguments": "{\"message\": \"from the model\"}"}}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
        "data: [DONE]".to_owned(),
    ]);
    let model = ReplayServer::start(vec![call, answer("It said: Echo: from the model.")])
        .await
        .expect("model");
    app.providers()
        .add(&ProviderSpec {
            id: "local".into(),
            base_url: Some(model.url("/v1")),
            default_model: Some("tiny".into()),
            ..Default::default()
        })
        .await
        .expect("provider");
    // The server's id on the allowlist gives the agent all its tools.
    let mut spec = AgentSpec::new("echoer", "Echoer");
    spec.toolsets = vec!["everything".into()];
    app.agents().create(&spec).await.expect("agent");
    let chat = app.chats().create(Some("Test")).await.expect("chat").id;
    let out = app
        .conversation()
        .send(
            &chat,
            "echo something",
            SendOptions {
                agent_id: Some("echoer".into()),
                approval: Approval::NotGiven,
                ..Default::default()
            },
            &mut |_| {},
        )
        .await
        .expect("send");
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let reqs = model.requests();
    let tools: Vec<String> = reqs[0].json()["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .collect();
    assert!(tools.contains(&"everything__echo".to_owned()), "{tools:?}");
    // echo is read-only: it ran without a question, and the model got its
    // text as the result, not a quoted JSON string.
    let second = reqs[1].json();
    let result = second["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["role"] == "tool")
        .cloned()
        .expect("a tool result");
    assert_eq!(result["content"], "Echo: from the model");
    app.mcp().stop_everything().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_announces_a_new_tool_and_the_pool_follows() {
    let env = Env::new();
    let app = app(&env).await;
    let src = env.data().join("src-everything");
    write(
        &src,
        "toolset.yaml",
        format!(
            "manifest_version: 1\nid: demo-kit\nname: Demo\nversion: 1.0.0\ntools: []\n\
             mcp_servers:\n  - id: everything\n    command: node\n    args: [{:?}, stdio]\n",
            everything()
        ),
    );
    app.toolsets()
        .import(&src, &ImportOptions::default())
        .await
        .expect("import");
    let listed = app.mcp().refresh("everything").await.expect("lists");
    let has =
        |tools: &Option<Vec<atelier_core::mcp::McpTool>>| tools.iter().flatten().any(|t| t.name == "get-roots-list");
    // Listed outside a chat (no roots offered): no roots tool.
    assert!(!has(&listed.tools));
    // In a chat it is offered the workspace as its root, adds a tool that
    // reads it and says so (`tools/list_changed`): the listing follows.
    let chat = app.chats().create(None).await.expect("chat").id;
    let echo = run(
        &app,
        &chat,
        "everything:echo",
        json!({"message": "hi"}),
        CallControl::default(),
    )
    .await;
    assert_eq!(text_of(&echo), "Echo: hi");
    wait_until("the new tool is listed", || async {
        app.mcp()
            .get("everything")
            .await
            .map(|s| has(&s.tools))
            .unwrap_or(false)
    })
    .await;
    let pool = app.routing().snapshot().await.expect("pool");
    assert!(pool.tools.iter().any(|t| t.canonical_id == "everything:get-roots-list"));
    let roots = run(
        &app,
        &chat,
        "everything:get-roots-list",
        json!({}),
        CallControl::default(),
    )
    .await;
    let shown = roots
        .render_plan
        .as_ref()
        .map(|p| p.config.to_string())
        .unwrap_or_default();
    let ws = app.workspace_dir(&chat).display().to_string();
    assert!(shown.contains(&ws), "{shown}");
    app.mcp().stop_everything().await;
}
