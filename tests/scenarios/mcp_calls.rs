//! Calls of MCP tools that end badly or travel far: a crash mid-call (and
//! the restart), a timeout, a cancel a server ignores, 10 MB of stderr, a
//! tool list that grows; server-everything over streamable HTTP; and a
//! model calling a server's tool through the chat engine.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use atelier_core::mcp::NewServer;
use atelier_core::tools::Approval;
use atelier_core::tools::call::{CallControl, RunEvent};
use serde_json::json;

use crate::Env;
use crate::mcp::{
    HttpEverything, alive, app, calling_model, everything, fixture, pids, python, run, stdio, text_of, wait_until,
};

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

    // No progress (a call that reports some is given more time).
    let timed = run(
        &app,
        &chat,
        "fx:stubborn",
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

/// A server's `timeout_s` (set when it is added, or imported from a
/// config's `"timeout"`) is the limit of its tools' calls; a server added
/// without one, or with one that is no duration, keeps the app's default.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_timeout_limits_its_tools_calls() {
    let env = Env::new();
    let app = app(&env).await;
    let (py, fx) = (python(), fixture());
    app.mcp()
        .add(NewServer {
            timeout_s: Some(0.5),
            ..stdio("quick", &py, &[&fx])
        })
        .await
        .expect("add");
    assert_eq!(app.mcp().get("quick").await.expect("get").timeout_s, Some(0.5));
    app.mcp().refresh("quick").await.expect("lists");
    let chat = app.chats().create(None).await.expect("chat").id;
    let t0 = Instant::now();
    let timed = run(
        &app,
        &chat,
        "quick:stubborn",
        json!({"seconds": 30}),
        CallControl::default(),
    )
    .await;
    assert_eq!(timed.error_kind.map(|k| k.as_str()), Some("timeout"), "{timed:?}");
    assert_eq!(timed.error.as_deref(), Some("timed out after 0.5 s"));
    assert!(t0.elapsed() < Duration::from_secs(10));

    for bad in [0.0, -1.0, f64::NAN, 86_401.0] {
        let refused = app
            .mcp()
            .add(NewServer {
                timeout_s: Some(bad),
                ..stdio("odd", &py, &[&fx])
            })
            .await
            .expect_err("no duration");
        assert!(refused.to_string().contains("timeout"), "{refused}");
    }
    assert!(app.mcp().get("odd").await.is_err(), "nothing was added");
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
async fn a_model_calls_an_mcp_tool_and_reads_its_text() {
    use atelier_core::conversation::{RunStatus, SendOptions};

    let env = Env::new();
    let app = app(&env).await;
    let server = everything();
    app.mcp()
        .add(stdio("everything", "node", &[&server, "stdio"]))
        .await
        .expect("add");
    app.mcp().refresh("everything").await.expect("lists");
    // The server's id on the allowlist gives the agent all its tools.
    let model = calling_model(
        &app,
        ("everything__echo", "{\"message\": \"from the model\"}"),
        &["It said: Echo: from the model."],
        ("echoer", "everything"),
    )
    .await;
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
