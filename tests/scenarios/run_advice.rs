//! What a person and a model are told when a run goes wrong: a message
//! that alone is more than the context window holds (the provider's own
//! `context_length`, or a long agent loop's newest step) is told to be
//! shortened or the window raised — a branch from an earlier message
//! would fail the same way.

use atelier_core::conversation::RunStatus;
use atelier_core::model::ModelSettings;
use atelier_llm::replay::{ReplayServer, Reply};
use serde_json::json;

use crate::Env;
use crate::conversation::{calls, opts, send, setup};

/// What an OpenAI-compatible server answers a request over its window.
fn over_the_window() -> Reply {
    Reply::json(
        400,
        &json!({"error": {
            "message": "This model's maximum context length is 4096 tokens. However, your messages resulted in 9012 tokens.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded"
        }}),
    )
}

async fn window_of_4096(app: &atelier_core::Atelier, chat: &str) {
    app.chats()
        .set_model_settings(
            chat,
            &ModelSettings {
                context_window: Some(4096),
                ..Default::default()
            },
        )
        .await
        .expect("settings");
}

fn said_to_shorten(out: &atelier_core::conversation::RunOutcome) {
    assert_eq!(out.status, RunStatus::Failed);
    // Its own kind: the UI offers Model options, not a branch.
    assert_eq!(out.error_kind.as_deref(), Some("message_too_long"), "{:?}", out.error);
    let said = out.error.as_deref().unwrap_or_default();
    assert!(
        said.contains("This model's maximum context length"),
        "the provider's words: {said}"
    );
    assert!(
        said.contains("shorten the message, or raise the context window (Model options)")
            && said.contains("context window (4096)"),
        "{said}"
    );
    assert!(!said.contains("branch"), "no earlier message would help: {said}");
}

#[tokio::test]
async fn a_first_message_over_the_window_is_told_to_be_shortened_not_branched() {
    let env = Env::new();
    let server = ReplayServer::start(vec![over_the_window()]).await.expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    window_of_4096(&app, &chat).await;
    let out = send(&app, &chat, &"lorem ipsum ".repeat(2_250), opts()).await;
    said_to_shorten(&out);
}

#[tokio::test]
async fn an_agent_loops_newest_step_over_the_window_is_said_so_too() {
    // The loop's newest step alone (a call writing 16,000 characters) is
    // over the room; its older steps are gone already.
    let env = Env::new();
    let big = "x".repeat(16_000);
    let server = ReplayServer::start(vec![calls(&[("call_big", "big.txt", &big)]), over_the_window()])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    window_of_4096(&app, &chat).await;
    let out = send(&app, &chat, "write the big file", opts()).await;
    said_to_shorten(&out);
    assert_eq!(server.requests().len(), 2, "the loop's second request was refused");
}
