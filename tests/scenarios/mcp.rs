//! MCP servers through the core against real servers installed by
//! `scripts/install.sh` (`tests/mcp/`): server-everything over stdio
//! through the pool and the run flow (results, plans, progress,
//! confirmation, disable, remove), and start errors kept with the server.
//! The helpers here are shared by [`crate::mcp_calls`],
//! [`crate::mcp_content`] and [`crate::mcp_scopes`]; every test ends with no server process left.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use atelier_core::Atelier;
use atelier_core::mcp::{McpSettings, NewServer};
use atelier_core::tools::call::{CallControl, RunEvent};
use atelier_core::tools::{Approval, RunRequest, ToolCallRecord};
use serde_json::{Value, json};

use crate::Env;

pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub(crate) fn installed(p: PathBuf) -> String {
    assert!(p.exists(), "{} is missing: run scripts/install.sh", p.display());
    p.canonicalize().expect("canonical").display().to_string()
}

pub(crate) fn everything() -> String {
    installed(repo().join("tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js"))
}

pub(crate) fn filesystem() -> String {
    installed(repo().join("tests/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"))
}

/// The venv's python as is: resolving its symlink would leave the venv.
pub(crate) fn python() -> String {
    let p = repo().join(".tools/mcp-venv/bin/python");
    assert!(p.exists(), "{} is missing: run scripts/install.sh", p.display());
    std::path::absolute(&p).expect("absolute").display().to_string()
}

pub(crate) fn fixture() -> String {
    installed(repo().join("tests/mcp/fixture_server.py"))
}

/// An app whose servers stop and restart quickly.
pub(crate) async fn app(env: &Env) -> Atelier {
    let app = env.app().await;
    app.mcp().configure(McpSettings {
        stop_grace: Duration::from_millis(500),
        backoff_start: Duration::from_millis(200),
        ..Default::default()
    });
    app
}

pub(crate) fn stdio(id: &str, command: &str, args: &[&str]) -> NewServer {
    NewServer {
        id: id.to_owned(),
        command: Some(command.to_owned()),
        args: args.iter().map(|s| (*s).to_owned()).collect(),
        ..Default::default()
    }
}

pub(crate) async fn run(app: &Atelier, chat: &str, tool: &str, args: Value, control: CallControl) -> ToolCallRecord {
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

/// A model (an OpenAI-compatible replay, provider `local`) that calls
/// `tool` (its wire name) with `arguments` and then says `answers`, one a
/// turn; and agent `agent`, whose allowlist is MCP server `server` (all its
/// tools).
pub(crate) async fn calling_model(
    app: &Atelier,
    (tool, arguments): (&str, &str),
    answers: &[&str],
    (agent, server): (&str, &str),
) -> atelier_llm::replay::ReplayServer {
    use crate::conversation::{answer, chunk};
    let call = atelier_llm::replay::Reply::sse(&[
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_m", "type": "function",
                "function": {"name": tool, "arguments": arguments}}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
        "data: [DONE]".to_owned(),
    ]);
    let replies = std::iter::once(call).chain(answers.iter().map(|a| answer(a))).collect();
    let model = atelier_llm::replay::ReplayServer::start(replies).await.expect("model");
    app.providers()
        .add(&atelier_core::providers::ProviderSpec {
            id: "local".into(),
            base_url: Some(model.url("/v1")),
            default_model: Some("tiny".into()),
            ..Default::default()
        })
        .await
        .expect("provider");
    let mut spec = atelier_core::agents::AgentSpec::new(agent, agent);
    spec.toolsets = vec![server.into()];
    app.agents().create(&spec).await.expect("agent");
    model
}

/// Whether a process is alive (a zombie is not).
pub(crate) fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(')').map(|(_, rest)| rest.trim_start().to_owned()))
        .is_some_and(|rest| !rest.starts_with('Z'))
}

/// The pids of a server's running instances.
pub(crate) async fn pids(app: &Atelier, id: &str) -> Vec<u32> {
    let details = app.mcp().details(id).await.expect("details");
    details.instances.iter().filter_map(|i| i.pid).collect()
}

pub(crate) async fn wait_until<F, Fut>(what: &str, mut check: F)
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
pub(crate) fn text_of(call: &ToolCallRecord) -> String {
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

    // Text and an image: both shown, in order (the text was once hidden
    // in the image's alt).
    let annotated = run(
        &app,
        &chat,
        "everything:get-annotated-message",
        json!({"messageType": "error", "includeImage": true}),
        CallControl::default(),
    )
    .await;
    let plan = annotated.render_plan.as_ref().expect("plan");
    assert_eq!(plan.renderer, "blocks", "{plan:?}");
    let blocks = plan.config["blocks"].as_array().expect("blocks");
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    assert_eq!(blocks[0]["config"]["content"], "Error: Operation failed");
    assert!(
        blocks[1]["config"]["url"]
            .as_str()
            .is_some_and(|u| u.starts_with("data:image/png;base64,"))
    );
    // An embedded resource between two texts: code (by its MIME type)
    // between them.
    let resource = run(
        &app,
        &chat,
        "everything:get-resource-reference",
        json!({"resourceType": "Text", "resourceId": 1}),
        CallControl::default(),
    )
    .await;
    let plan = resource.render_plan.as_ref().expect("plan");
    assert_eq!(plan.renderer, "blocks", "{plan:?}");
    let blocks = plan.config["blocks"].as_array().expect("blocks");
    let renderers: Vec<&str> = blocks.iter().filter_map(|b| b["renderer"].as_str()).collect();
    assert_eq!(renderers, ["document", "code", "document"], "{blocks:?}");
    let code = &blocks[1]["config"];
    assert_eq!(code["path"], "demo://resource/dynamic/text/1");
    assert!(code["content"].as_str().is_some_and(|t| t.starts_with("Resource 1:")));
    // A binary one: a note among the two texts, which stay.
    let blob = run(
        &app,
        &chat,
        "everything:get-resource-reference",
        json!({"resourceType": "Blob", "resourceId": 1}),
        CallControl::default(),
    )
    .await;
    let plan = blob.render_plan.as_ref().expect("plan");
    let text = plan.config["content"].as_str().unwrap_or_default();
    assert_eq!(plan.renderer, "document", "{plan:?}");
    for said in [
        "Returning resource reference for Resource 1:",
        "(binary resource `demo://resource/dynamic/blob/1`",
        "You can access this resource using the URI",
    ] {
        assert!(text.contains(said), "{said:?} in {text}");
    }
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
pub(crate) struct HttpEverything {
    child: Child,
    pub(crate) url: String,
}

impl HttpEverything {
    pub(crate) fn start() -> Self {
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
