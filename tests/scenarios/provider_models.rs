//! Which provider and model a message goes to: the only provider answers
//! when none is named, a second one must be chosen; a provider saved
//! without a default model gets one at its first message; a base URL typed
//! without `/v1` is named as the fix.

use atelier_llm::replay::{ReplayServer, Reply};
use serde_json::json;

use crate::providers::cli;
use crate::{Env, said};

/// A run's provider without naming one: the only one set up answers; once
/// there are two, a chat that never chose says to choose, and the choice
/// it then makes stays the chat's for the messages that name none.
#[tokio::test]
async fn the_only_provider_answers_unnamed_and_a_second_one_must_be_chosen() {
    use crate::conversation::{answer, opts, send, setup};
    use atelier_core::conversation::{ChatEvent, RunStatus, SendOptions};
    use atelier_core::providers::ProviderSpec;

    let env = Env::new();
    let server = ReplayServer::cycling(vec![answer("Hi.")]).await.expect("server");
    let (app, chat) = setup(&env, &server, 5).await;
    let first = send(&app, &chat, "hello", opts()).await;
    assert_eq!(first.status, RunStatus::Complete, "{:?}", first.error);
    assert_eq!(
        app.chats().get(&chat).await.expect("chat").provider_id,
        None,
        "nothing was chosen, so nothing is the chat's"
    );

    app.providers()
        .add(&ProviderSpec {
            id: "other".into(),
            base_url: Some("http://127.0.0.1:9/v1".into()),
            default_model: Some("x".into()),
            ..Default::default()
        })
        .await
        .expect("second provider");
    let mut ignore = |_: &ChatEvent| {};
    let refused = app
        .conversation()
        .send(&chat, "again", opts(), &mut ignore)
        .await
        .expect_err("two providers and no choice");
    assert!(refused.to_string().contains("several providers"), "{refused}");
    let before = app.chats().tree(&chat).await.expect("tree").len();

    let chosen = SendOptions {
        provider_id: Some("local".into()),
        ..opts()
    };
    let out = send(&app, &chat, "again", chosen).await;
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let kept = app.chats().get(&chat).await.expect("chat");
    assert_eq!(
        (kept.provider_id.as_deref(), kept.model.as_deref()),
        (Some("local"), Some("tiny"))
    );
    let after = send(&app, &chat, "and again", opts()).await;
    assert_eq!(after.status, RunStatus::Complete, "{:?}", after.error);
    assert_eq!(
        app.chats().tree(&chat).await.expect("tree").len(),
        before + 4,
        "the refused message was not written; the two runs wrote two exchanges"
    );
    assert_eq!(server.requests().len(), 3, "one request per answered message");

    // Another provider named without a model brings its own default, not
    // the chat's model of the provider before.
    app.providers()
        .add(&ProviderSpec {
            id: "third".into(),
            base_url: Some(server.url("/v1")),
            default_model: Some("big".into()),
            ..Default::default()
        })
        .await
        .expect("third provider");
    let switched = SendOptions {
        provider_id: Some("third".into()),
        ..opts()
    };
    let out = send(&app, &chat, "over there", switched).await;
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let kept = app.chats().get(&chat).await.expect("chat");
    assert_eq!(
        (kept.provider_id.as_deref(), kept.model.as_deref()),
        (Some("third"), Some("big"))
    );
    assert_eq!(server.requests()[3].json()["model"], "big");
}

/// A provider saved with no default model (its server was down when it
/// was added, or `provider add` had no `--model`) gets one at its first
/// message, chosen as an add chooses: the message is not refused with
/// "has no default model".
#[tokio::test]
async fn a_provider_without_a_default_model_chooses_one_at_the_first_message() {
    use crate::conversation::{answer, opts, send};
    use atelier_core::agents::AgentSpec;
    use atelier_core::conversation::RunStatus;
    use atelier_core::providers::ProviderSpec;

    let env = Env::new();
    let models = json!({"data": [{"id": "nomic-embed-text:latest"}, {"id": "llama3.2:latest"}]});
    let server = ReplayServer::start(vec![Reply::json(200, &models), answer("Hi.")])
        .await
        .expect("server");
    let app = env.app().await;
    app.providers()
        .add(&ProviderSpec {
            id: "local".into(),
            base_url: Some(server.url("/v1")),
            ..Default::default()
        })
        .await
        .expect("provider");
    let mut spec = AgentSpec::new("writer", "Writer");
    spec.max_steps = 2;
    app.agents().create(&spec).await.expect("agent");
    let chat = app.chats().create(Some("Test")).await.expect("chat").id;

    let out = send(&app, &chat, "hello", opts()).await;
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let asked = server.requests();
    assert_eq!(asked[0].path, "/v1/models");
    assert_eq!(
        asked[1].json()["model"],
        "llama3.2:latest",
        "a chat model, not the embedding one listed first"
    );
    let saved = app.providers().get("local").await.expect("provider");
    assert_eq!(
        saved.default_model.as_deref(),
        Some("llama3.2:latest"),
        "kept as its default"
    );
}

/// Ollama's address as people type it, without `/v1`: the model list is
/// not found there, and the test says where the server does answer
/// rather than "no model \"\"".
#[tokio::test]
async fn a_base_url_without_v1_is_named_as_the_fix() {
    let env = Env::new();
    let not_found = json!({"error": "404 page not found"});
    let models = json!({"data": [{"id": "qwen2.5:0.5b"}]});
    let server = ReplayServer::start(vec![
        Reply::json(404, &not_found),
        Reply::json(200, &models),
        Reply::json(404, &not_found),
        Reply::json(404, &not_found),
    ])
    .await
    .expect("server");
    let origin = server.url("");
    // With its model named, the add asks the server nothing.
    let added = cli(
        &env,
        &[
            "provider",
            "add",
            "ollama",
            "--base-url",
            &origin,
            "--model",
            "qwen2.5:0.5b",
        ],
        &[],
    )
    .await;
    assert!(added.status.success(), "{}", said(&added));

    let listed = cli(&env, &["provider", "models", "ollama"], &[]).await;
    assert!(!listed.status.success(), "{}", said(&listed));
    assert!(
        said(&listed).contains(&format!(
            "but the server answers at {origin}/v1: use that as the base URL"
        )),
        "{}",
        said(&listed)
    );
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(paths, ["/models", "/v1/models"]);

    // A server that answers nowhere: the base URL is named, no model is.
    let tested = cli(&env, &["--json", "provider", "test", "ollama"], &[]).await;
    let t: serde_json::Value = serde_json::from_slice(&tested.stdout).expect("json");
    let error = t["error"].as_str().unwrap_or_default();
    assert!(
        t["ok"] == false && error.contains(&format!("no model list at {origin} (404): check the base URL")),
        "{t}"
    );
}
