//! The chat engine's settings and its lifecycle around a run: model
//! settings in the request body, a forced first call, fitting a long branch
//! into the context window, forking a chat, and a turn cut off by a crash.
//! (A run's calls and its stops: [`crate::run_control`].)

use std::time::Duration;

use atelier_core::conversation::{ChatEvent, RunStatus, SendOptions};
use atelier_core::model::{ModelSettings, ReasoningEffort, Role};
use atelier_core::providers::ProviderSpec;
use atelier_core::tools::Approval;
use atelier_llm::replay::{ReplayServer, Reply};
use serde_json::json;

use crate::Env;
use crate::conversation::{answer, calls, chunk, opts, send, send_streaming, setup};

#[tokio::test]
async fn model_settings_reach_the_request_and_a_chat_overrides_its_agent() {
    let env = Env::new();
    let server = ReplayServer::start(vec![calls(&[("call_f", "f.txt", "forced")]), answer("done")])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let mut spec = app.agents().get("writer").await.expect("agent").spec();
    spec.model_settings = ModelSettings {
        temperature: Some(0.3),
        max_tokens: Some(500),
        reasoning_effort: Some(ReasoningEffort::Low),
        ..Default::default()
    };
    app.agents().update(&spec).await.expect("update");
    let over = ModelSettings {
        temperature: Some(0.9),
        ..Default::default()
    };
    app.chats()
        .set_model_settings(&chat, &over)
        .await
        .expect("chat settings");
    let out = send(
        &app,
        &chat,
        "write f.txt",
        SendOptions {
            force_tool: Some("write_file".into()),
            ..opts()
        },
    )
    .await;
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let (first, second) = (server.requests()[0].json(), server.requests()[1].json());
    assert_eq!(first["temperature"], json!(0.9), "the chat's override wins");
    assert_eq!(
        first["max_tokens"],
        json!(500),
        "the agent's value where the chat sets none"
    );
    assert_eq!(first["reasoning_effort"], json!("low"));
    assert_eq!(
        first["tool_choice"],
        json!({"type": "function", "function": {"name": "write_file"}}),
        "the first turn is forced"
    );
    assert_eq!(second["tool_choice"], json!("auto"), "only the first");
    // Out-of-range values are refused with the field named.
    let bad = ModelSettings {
        temperature: Some(3.0),
        ..Default::default()
    };
    let err = app.chats().set_model_settings(&chat, &bad).await.expect_err("refused");
    assert!(err.to_string().contains("temperature"), "{err}");
    // A tool the agent does not have cannot be forced.
    let err = app
        .conversation()
        .send(
            &chat,
            "x",
            SendOptions {
                force_tool: Some("delete_everything".into()),
                ..opts()
            },
            &mut |_| {},
        )
        .await
        .expect_err("unknown tool");
    assert!(err.to_string().contains("delete_everything"), "{err}");
}

#[tokio::test]
async fn a_long_branch_drops_its_oldest_exchanges_whole_to_fit_the_window() {
    let env = Env::new();
    let big = "OLD-CONTENT ".repeat(300); // ~3,600 characters: over 1,000 tokens
    let server = ReplayServer::start(vec![
        calls(&[("call_old", "old.txt", &big)]),
        answer("Saved the OLD file."),
        answer("Fresh answer."),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    app.chats()
        .set_model_settings(
            &chat,
            &ModelSettings {
                context_window: Some(1024),
                max_tokens: Some(200),
                ..Default::default()
            },
        )
        .await
        .expect("settings");
    let first = send(&app, &chat, "save the old file", opts()).await;
    assert_eq!(first.status, RunStatus::Complete, "{:?}", first.error);
    let mut events = Vec::new();
    let out = app
        .conversation()
        .send(&chat, "a new question", opts(), &mut |e: &ChatEvent| {
            events.push(e.clone())
        })
        .await
        .expect("send");
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let body = server.requests()[2].json();
    let text = body.to_string();
    // The whole first exchange went: the question, the call and its result.
    for gone in ["save the old file", "call_old", "OLD-CONTENT", "Saved the OLD"] {
        assert!(!text.contains(gone), "{gone} was sent: {text}");
    }
    let messages = body["messages"].as_array().expect("messages");
    let first_user = messages.iter().find(|m| m["role"] == "user").expect("a user message");
    assert!(
        first_user
            .to_string()
            .contains("left out to fit the model's context window of 1024 tokens"),
        "{first_user}"
    );
    assert!(text.contains("a new question"));
    assert!(events.iter().any(|e| matches!(
        e,
        ChatEvent::ContextTrimmed {
            dropped_messages: 4,
            context_window: 1024
        }
    )));
    assert!(events.iter().any(|e| matches!(
        e,
        ChatEvent::RunStarted {
            context_window: Some(1024),
            ..
        }
    )));
}

#[tokio::test]
async fn a_local_server_with_no_settings_still_gets_the_history() {
    // Ollama's preset: a 4,096-token window assumed, no answer limit set.
    // The answer's share must not leave the history no room.
    let env = Env::new();
    let server = ReplayServer::start(vec![answer("Paris."), answer("About 2 million.")])
        .await
        .expect("server");
    let app = env.app().await;
    app.providers()
        .add(&ProviderSpec {
            id: "ollama".into(),
            preset: Some("ollama".into()),
            base_url: Some(server.url("/v1")),
            default_model: Some("qwen2.5:0.5b".into()),
            ..Default::default()
        })
        .await
        .expect("provider");
    let chat = app.chats().create(Some("Local")).await.expect("chat").id;
    let o = || SendOptions {
        approval: Approval::Approved,
        ..Default::default()
    };
    send(&app, &chat, "What is the capital of France?", o()).await;
    let mut events = Vec::new();
    let out = app
        .conversation()
        .send(&chat, "How many people live there?", o(), &mut |e: &ChatEvent| {
            events.push(e.clone())
        })
        .await
        .expect("send");
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let body = server.requests()[1].body.clone();
    assert!(
        body.contains("capital of France") && body.contains("Paris."),
        "the first exchange is sent: {body}"
    );
    assert!(!events.iter().any(|e| matches!(e, ChatEvent::ContextTrimmed { .. })));
    assert!(events.iter().any(|e| matches!(
        e,
        ChatEvent::RunStarted {
            context_window: Some(4096),
            ..
        }
    )));
}

#[tokio::test]
async fn a_fork_keeps_the_path_and_its_files_and_outlives_its_source() {
    let env = Env::new();
    let server = ReplayServer::start(vec![
        calls(&[("call_a", "a.txt", "kept")]),
        answer("Wrote a.txt."),
        calls(&[("call_s", "sibling.txt", "SIBLING")]),
        answer("Wrote the SIBLING file."),
        answer("Forked answer."),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let first = send(&app, &chat, "write a.txt", opts()).await;
    let at = first.messages.last().expect("answer").id.clone();
    // A later turn on the same branch, after the fork point.
    send(&app, &chat, "write the sibling", opts()).await;
    let source = app.chats().get(&chat).await.expect("source");

    let fork = app.conversation().fork(&chat, &at, None).await.expect("fork");
    assert_eq!(fork.title, "Test (fork)");
    assert_ne!(fork.id, source.id);
    let ws = app.workspace_dir(&fork.id);
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).expect("a.txt"), "kept");
    assert!(!ws.join("sibling.txt").exists(), "the fork is at its message");
    let tree = app.chats().active_branch(&fork.id).await.expect("messages");
    let roles: Vec<Role> = tree.iter().map(|m| m.role).collect();
    use Role::{Assistant as A, System as S, Tool as T, User as U};
    assert_eq!(
        roles,
        [S, U, A, T, A],
        "the path root → the forked message, nothing after"
    );
    let calls = app.tools().calls(&fork.id).await.expect("calls");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].args["path"], "a.txt");
    assert_eq!(
        Some(calls[0].id.clone()).as_deref(),
        tree[3].content.iter().find_map(|p| match p {
            atelier_core::model::ContentPart::ToolCall { tool_call_id } => Some(tool_call_id.as_str()),
            _ => None,
        })
    );

    // The source can go: the fork's rows and blobs are its own.
    app.chats().delete(&source.id).await.expect("delete source");
    let root = app.chats().get(&fork.id).await.expect("fork").root_message_id;
    app.workspace().checkout(&fork.id, &root).await.expect("to the root");
    assert!(!ws.join("a.txt").exists());
    let leaf = tree.last().expect("leaf").id.clone();
    app.workspace().checkout(&fork.id, &leaf).await.expect("back");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).expect("a.txt again"), "kept");
    // The call's renderer reads its files from a state of the fork.
    let plan = calls[0].render_plan.clone().expect("write_file has a render plan");
    let state = plan.manifest_id.expect("the plan names a workspace state");
    let shown = app
        .workspace()
        .read_file(&fork.id, "a.txt", Some(&state))
        .await
        .expect("the renderer's file");
    assert_eq!(shown, b"kept");

    // And it goes on as a chat of its own, with only its path as context.
    let out = send(&app, &fork.id, "go on", opts()).await;
    assert_eq!(out.messages.last().map(|m| m.text()), Some("Forked answer.".to_owned()));
    let body = server.requests()[4].body.clone();
    assert!(body.contains("call_a") && !body.contains("SIBLING"), "{body}");
}

#[tokio::test]
async fn a_turn_cut_off_by_a_crash_is_kept_on_the_next_start() {
    let env = Env::new();
    let words: Vec<String> = (0..120)
        .map(|i| chunk(json!({"content": format!("w{i} ")}), None))
        .collect();
    let server = ReplayServer::start(vec![
        Reply::sse(&words).delayed(Duration::from_millis(50)),
        answer("After the crash."),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let running = send_streaming(&app, &chat, "talk for a while", opts()).await;
    // The journal writes about once a second.
    tokio::time::sleep(Duration::from_millis(2200)).await;
    // Another process starting now leaves the live turn alone.
    let other = env.app().await;
    let live = other.chats().active_branch(&chat).await.expect("messages");
    assert!(
        live.iter().all(|m| m.role != Role::Assistant),
        "a live turn is not recovered"
    );
    drop(other);
    // The process dies mid-stream.
    running.abort();
    let _ = running.await;
    drop(app);

    let app = env.app().await;
    let tree = app.chats().active_branch(&chat).await.expect("messages");
    let kept = tree
        .iter()
        .find(|m| m.role == Role::Assistant)
        .expect("the partial turn is kept");
    assert!(kept.text().starts_with("w0 w1 "), "{}", kept.text());
    let meta = kept.meta.clone().expect("meta");
    assert_eq!(meta.status.as_deref(), Some("interrupted"));
    assert_eq!(
        meta.error.as_deref(),
        Some(
            "this answer was not saved whole (Atelier stopped, or could not write it, while it streamed); \
             what had arrived is kept"
        )
    );
    assert_eq!(meta.model.as_deref(), Some("tiny"));
    let c = app.chats().get(&chat).await.expect("chat");
    assert_eq!(c.active_leaf_message_id, kept.id, "the chat is at the kept turn");
    // A second start changes nothing more.
    drop(app);
    let app = env.app().await;
    assert_eq!(
        app.chats().active_branch(&chat).await.expect("messages").len(),
        tree.len()
    );
    // And the chat goes on from it.
    let out = send(&app, &chat, "go on", opts()).await;
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    assert!(server.requests()[1].body.contains("w0 w1"));
}

#[tokio::test]
async fn the_cli_sets_a_chats_model_settings_and_forks_it() {
    let env = Env::new();
    let chat: serde_json::Value =
        serde_json::from_str(&env.ok(&["--json", "chat", "new", "--title", "Plans"])).expect("json");
    let id = chat["id"].as_str().expect("id");
    let set: serde_json::Value = serde_json::from_str(&env.ok(&[
        "--json",
        "chat",
        "settings",
        id,
        "--temperature",
        "0.5",
        "--max-tokens",
        "900",
    ]))
    .expect("json");
    assert_eq!(set, json!({"temperature": 0.5, "max_tokens": 900}));
    // Only what is given changes.
    let set: serde_json::Value =
        serde_json::from_str(&env.ok(&["--json", "chat", "settings", id, "--reasoning-effort", "high"])).expect("json");
    assert_eq!(
        set,
        json!({"temperature": 0.5, "max_tokens": 900, "reasoning_effort": "high"})
    );
    let out = env.cli(&["chat", "settings", id, "--temperature", "7"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("temperature must be between 0 and 2"));
    let said: serde_json::Value = serde_json::from_str(&env.ok(&["--json", "chat", "say", id, "hello"])).expect("json");
    let fork: serde_json::Value =
        serde_json::from_str(&env.ok(&["--json", "chat", "fork", id, said["id"].as_str().expect("msg")]))
            .expect("json");
    assert_eq!(fork["title"], "Plans (fork)");
    assert_eq!(
        fork["model_settings"]["temperature"],
        json!(0.5),
        "settings travel with the fork"
    );
    assert_ne!(fork["id"], chat["id"]);
}

#[tokio::test]
async fn a_message_too_long_for_the_window_that_the_server_drops_says_so_with_sizes() {
    // llama.cpp's server given more than its window ends the stream with
    // nothing: the person reads why, not "the stream ended".
    let env = Env::new();
    let empty: [&str; 0] = [];
    let server = ReplayServer::cycling(vec![Reply::sse(&empty)]).await.expect("server");
    let app = env.app().await;
    app.providers()
        .add(&ProviderSpec {
            id: "llamacpp".into(),
            preset: Some("llamacpp".into()),
            base_url: Some(server.url("/v1")),
            default_model: Some("qwen".into()),
            ..Default::default()
        })
        .await
        .expect("provider");
    let chat = app.chats().create(Some("Long")).await.expect("chat").id;
    let o = SendOptions {
        approval: Approval::Approved,
        ..Default::default()
    };
    let out = send(&app, &chat, &"word ".repeat(40_000), o).await;
    assert_eq!(out.status, RunStatus::Failed);
    assert_eq!(out.error_kind.as_deref(), Some("message_too_long"), "{:?}", out.error);
    let said = out.error.as_deref().unwrap_or_default();
    assert!(
        said.contains("more than the") && said.contains("context window (4096)"),
        "{said}"
    );
}
