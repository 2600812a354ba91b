//! LLM providers through the `atelier` binary, against a loopback server
//! that records what it was sent: keys resolved for their own provider only
//! and never printed, typed errors, model lists, local servers detected.

use std::process::Output;

use atelier_llm::replay::{ReplayServer, Reply};
use serde_json::json;

use crate::{Env, said};

pub(crate) async fn cli(env: &Env, args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_atelier"));
    cmd.arg("--data-dir")
        .arg(env.data())
        .args(args)
        .env_remove("ATELIER_DATA_DIR")
        .env_remove("OPENAI_API_KEY")
        .env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/atelier-test-bus");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.output().await.expect("run atelier")
}

#[tokio::test]
async fn keys_reach_only_their_provider_and_errors_say_what_to_fix() {
    let env = Env::new();
    let models = json!({"object": "list", "data": [{"id": "tiny"}, {"id": "small"}]});
    let server = ReplayServer::start(vec![Reply::json(200, &models)])
        .await
        .expect("server");
    let base = server.url("/v1");

    let added = cli(
        &env,
        &[
            "--json",
            "provider",
            "add",
            "local",
            "--base-url",
            &base,
            "--model",
            "tiny",
        ],
        &[],
    )
    .await;
    assert!(added.status.success(), "{}", said(&added));
    let rec: serde_json::Value = serde_json::from_slice(&added.stdout).expect("json");
    assert_eq!(
        (rec["kind"].as_str(), rec["key_from"].as_str()),
        (Some("openai"), None),
        "{rec}"
    );

    // The key from the variable named for this provider, sent as a bearer token.
    let vars = [
        ("ATELIER_SECRET_PROVIDER_LOCAL__API_KEY", "sk-env-local-5521"),
        ("OPENAI_API_KEY", "sk-openai-9"),
    ];
    let listed = cli(&env, &["provider", "models", "local"], &vars).await;
    assert_eq!(
        String::from_utf8_lossy(&listed.stdout),
        "tiny\nsmall\n",
        "{}",
        said(&listed)
    );
    assert_eq!(server.requests()[0].path, "/v1/models");
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-env-local-5521")
    );
    let shown = cli(&env, &["--json", "provider", "show", "local"], &vars).await;
    let rec: serde_json::Value = serde_json::from_slice(&shown.stdout).expect("json");
    assert_eq!(rec["key_from"], "ATELIER_SECRET_PROVIDER_LOCAL__API_KEY");

    // A preset reads its usual variable, for that provider only.
    let oa = cli(
        &env,
        &["provider", "add", "oa", "--preset", "openai", "--base-url", &base],
        &[],
    )
    .await;
    assert!(oa.status.success(), "{}", said(&oa));
    // Added with no --model: it asked for its list to choose one.
    let rec: serde_json::Value =
        serde_json::from_slice(&cli(&env, &["--json", "provider", "show", "oa"], &[]).await.stdout).expect("json");
    assert_eq!(rec["default_model"], "tiny", "{rec}");
    let only_openai = [("OPENAI_API_KEY", "sk-openai-9")];
    let asked = server.requests().len();
    assert!(
        cli(&env, &["provider", "test", "oa"], &only_openai)
            .await
            .status
            .success()
    );
    assert_eq!(
        server.requests()[asked].header("authorization"),
        Some("Bearer sk-openai-9")
    );
    assert!(
        cli(&env, &["provider", "test", "local"], &only_openai)
            .await
            .status
            .success()
    );
    assert_eq!(
        server.requests()[asked + 1].header("authorization"),
        None,
        "provider local never gets OpenAI's key"
    );
    for o in [&added, &listed, &shown, &oa] {
        assert!(
            !said(o).contains("sk-env-local") && !said(o).contains("sk-openai"),
            "{}",
            said(o)
        );
    }

    // A refused key: the error says which provider's key to check.
    let refusing = ReplayServer::start(vec![Reply::json(
        401,
        &json!({"error": {"message": "Incorrect API key provided"}}),
    )])
    .await
    .expect("server");
    let url = refusing.url("/v1");
    assert!(
        cli(&env, &["provider", "add", "bad", "--base-url", &url], &[])
            .await
            .status
            .success()
    );
    let tested = cli(&env, &["provider", "test", "bad"], &[]).await;
    assert_eq!(tested.status.code(), Some(1));
    assert!(
        said(&tested).contains("bad failed (auth)") && said(&tested).contains("check the API key of provider bad"),
        "{}",
        said(&tested)
    );

    // Nobody listening: it asks whether the server runs.
    drop(server);
    let gone = cli(&env, &["provider", "models", "local"], &[]).await;
    assert!(
        said(&gone).contains(&format!("could not connect to {base}")),
        "{}",
        said(&gone)
    );

    let removed = cli(&env, &["provider", "remove", "oa"], &[]).await;
    assert!(removed.status.success());
    let list = cli(&env, &["--json", "provider", "list"], &[]).await;
    let ids: Vec<String> = serde_json::from_slice::<Vec<serde_json::Value>>(&list.stdout)
        .expect("json")
        .iter()
        .filter_map(|p| p["id"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(ids, ["bad", "local"]);
}

#[tokio::test]
async fn servers_running_on_this_computer_are_found() {
    let models = json!({"data": [{"id": "qwen2.5:0.5b"}]});
    let server = ReplayServer::start(vec![Reply::json(200, &models)])
        .await
        .expect("server");
    let dead = ReplayServer::start(vec![]).await.expect("server");
    let dead_url = dead.url("/v1");
    drop(dead);
    let ollama = atelier_core::providers::preset("ollama").expect("preset");
    let lmstudio = atelier_core::providers::preset("lmstudio").expect("preset");
    let found =
        atelier_core::providers::detect_at([(lmstudio, dead_url), (ollama, server.url("/v1"))].into_iter()).await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].preset.as_str(), found[0].models.clone()),
        ("ollama", vec!["qwen2.5:0.5b".to_owned()])
    );
}

/// Settings' edit form: base URL, default model and plain headers change in
/// place; the kind, the preset and the key stay; a bad URL or an unknown
/// provider change nothing.
#[tokio::test]
async fn a_provider_is_edited_in_place_and_keeps_its_kind_and_key() {
    use atelier_core::providers::{ProviderChanges, ProviderSpec};
    let env = Env::new();
    let app = env.app().await;
    app.secrets().allow_file_fallback(true).await.expect("file store");
    let p = app.providers();
    p.add(&ProviderSpec {
        id: "oa".into(),
        preset: Some("openai".into()),
        ..Default::default()
    })
    .await
    .expect("add");
    p.set_secret("oa", None, atelier_core::secrets::Secret::new("sk-kept-1"))
        .await
        .expect("key");
    let changed = p
        .update(
            "oa",
            &ProviderChanges {
                base_url: " https://proxy.example/v1/ ".into(),
                default_model: Some("gpt-4o".into()),
                headers: [("X-Team".to_owned(), "research".to_owned())].into(),
            },
            None,
        )
        .await
        .expect("update");
    assert_eq!(changed.base_url, "https://proxy.example/v1");
    assert_eq!(changed.default_model.as_deref(), Some("gpt-4o"));
    assert_eq!(changed.headers.get("X-Team").map(String::as_str), Some("research"));
    assert_eq!(
        (changed.kind.as_str(), changed.preset.as_deref()),
        ("openai", Some("openai"))
    );
    assert!(changed.key_from.is_some(), "the key stays: {changed:?}");

    // A credential as a plain header would be stored and shown: refused,
    // whichever way it comes (an edit, an add), with where it goes instead.
    for name in ["Authorization", "x-api-key", "X-Proxy-Token"] {
        let err = p
            .update(
                "oa",
                &ProviderChanges {
                    base_url: changed.base_url.clone(),
                    default_model: None,
                    headers: [(name.to_owned(), "sk-live-123".to_owned())].into(),
                },
                None,
            )
            .await
            .expect_err("refused");
        assert!(
            err.to_string().contains(&format!("{name} looks like a credential"))
                && err.to_string().contains("provider secret ID --header"),
            "{err}"
        );
    }
    let err = p
        .add(&ProviderSpec {
            id: "proxy".into(),
            base_url: Some("https://proxy.example/v1".into()),
            headers: [("Api-Key".to_owned(), "sk-live-123".to_owned())].into(),
            ..Default::default()
        })
        .await
        .expect_err("refused");
    assert!(err.to_string().contains("Api-Key looks like a credential"), "{err}");
    assert_eq!(
        p.get("oa")
            .await
            .expect("kept")
            .headers
            .get("X-Team")
            .map(String::as_str),
        Some("research")
    );

    // An empty model means none.
    let cleared = p
        .update(
            "oa",
            &ProviderChanges {
                base_url: changed.base_url.clone(),
                default_model: Some("  ".into()),
                headers: Default::default(),
            },
            None,
        )
        .await
        .expect("update");
    assert_eq!((cleared.default_model, cleared.headers.len()), (None, 0));

    let bad = p
        .update(
            "oa",
            &ProviderChanges {
                base_url: "proxy.example".into(),
                ..Default::default()
            },
            None,
        )
        .await
        .expect_err("bad URL");
    assert!(bad.to_string().contains("expected http"), "{bad}");
    assert_eq!(p.get("oa").await.expect("get").base_url, "https://proxy.example/v1");
    let unknown = p
        .update(
            "nope",
            &ProviderChanges {
                base_url: "http://x/v1".into(),
                ..Default::default()
            },
            None,
        )
        .await
        .expect_err("unknown");
    assert!(unknown.to_string().contains("no provider \"nope\""), "{unknown}");
    let ids: Vec<String> = p.list().await.expect("list").into_iter().map(|r| r.id).collect();
    assert_eq!(ids, ["oa"]);
}

/// The app's add form sends the key with the provider: when the key cannot
/// be kept (no keychain here, no file allowed yet), no half-added provider
/// stays behind to refuse the same form sent again.
#[tokio::test]
async fn a_provider_whose_key_cannot_be_stored_is_not_left_half_added() {
    use atelier_core::providers::ProviderSpec;
    use atelier_core::secrets::Secret;
    let env = Env::new();
    let app = env.app().await;
    let p = app.providers();
    // A default model given: an add without one would ask api.openai.com
    // for its models to choose one.
    let spec = ProviderSpec {
        id: "openai".into(),
        preset: Some("openai".into()),
        default_model: Some("gpt-4.1-mini".into()),
        ..Default::default()
    };
    let err = p
        .add_with_key(&spec, Some(Secret::new("sk-test-123")))
        .await
        .expect_err("no store for the key");
    assert!(!err.to_string().contains("sk-test-123"), "{err}");
    assert!(p.get("openai").await.is_err(), "the provider is not left behind");
    // Once a store is allowed, the same form goes through.
    app.secrets().allow_file_fallback(true).await.expect("file store");
    let added = p
        .add_with_key(&spec, Some(Secret::new("sk-test-123")))
        .await
        .expect("added");
    assert!(added.key_from.is_some(), "{added:?}");

    // The edit form saves its fields and a new key in one step too: a key
    // the store refuses leaves the fields as they were (nothing half-saved
    // under an error that says the save failed).
    app.secrets().allow_file_fallback(false).await.expect("no file store");
    let changes = atelier_core::providers::ProviderChanges {
        base_url: "https://proxy.example/v1".into(),
        default_model: Some("gpt-4o".into()),
        headers: Default::default(),
    };
    let err = p
        .update("openai", &changes, Some(Secret::new("sk-new-456")))
        .await
        .expect_err("no store for the new key");
    assert!(!err.to_string().contains("sk-new-456"), "{err}");
    let kept = p.get("openai").await.expect("kept");
    assert_eq!(
        (kept.base_url.as_str(), kept.default_model.as_deref()),
        ("https://api.openai.com/v1", added.default_model.as_deref())
    );
    app.secrets().allow_file_fallback(true).await.expect("file store");
    let saved = p
        .update("openai", &changes, Some(Secret::new("sk-new-456")))
        .await
        .expect("saved");
    assert_eq!(saved.base_url, "https://proxy.example/v1");
    let (key, _) = app
        .secrets()
        .resolve(
            &atelier_core::secrets::Owner::Provider("openai".into()),
            atelier_core::providers::API_KEY,
            &[],
            "the API key",
        )
        .await
        .expect("the new key");
    assert_eq!(key.expose(), "sk-new-456");
}
