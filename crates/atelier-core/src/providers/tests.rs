//! The model a new provider starts with: chosen from what it lists, saved as
//! its default by the app's add forms, and first in the list it gives.

use atelier_llm::replay::{ReplayServer, Reply};
use serde_json::json;

use super::{ProviderSpec, choose_model, preset};
use crate::{Atelier, DataDir};

/// `GET /v1/models` as OpenAI answers it: an image model first, then
/// embedding, speech and moderation models among the chat ones.
fn openai_models() -> serde_json::Value {
    let ids = [
        "dall-e-3",
        "text-embedding-3-large",
        "tts-1",
        "gpt-4o-mini",
        "omni-moderation-latest",
        "gpt-4.1-mini",
        "gpt-5",
    ];
    json!({"object": "list", "data": ids.iter().map(|id| json!({
        "id": id, "object": "model", "created": 1_712_361_441, "owned_by": "system"
    })).collect::<Vec<_>>()})
}

fn spec(id: &str, preset: Option<&str>, base_url: String, default_model: Option<&str>) -> ProviderSpec {
    ProviderSpec {
        id: id.into(),
        preset: preset.map(str::to_owned),
        base_url: Some(base_url),
        default_model: default_model.map(str::to_owned),
        ..Default::default()
    }
}

/// The first-run form saves only a key: the provider gets its preset's chat
/// model, not the image model its server lists first, and its model list
/// gives that one first (what the chat's model switcher starts with).
#[tokio::test]
async fn a_provider_added_without_a_model_gets_a_chat_model_as_its_default() {
    let server = ReplayServer::start(vec![Reply::json(200, &openai_models())])
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let app = Atelier::open(DataDir::new(dir.path().join("data"))).await.expect("app");

    let added = app
        .providers()
        .add_with_key(&spec("openai", Some("openai"), server.url("/v1"), None), None)
        .await
        .expect("add");
    assert_eq!(added.default_model.as_deref(), Some("gpt-4.1-mini"));
    let test = app.providers().test("openai").await.expect("test");
    assert_eq!(
        test.models,
        ["gpt-4.1-mini", "gpt-4o-mini", "gpt-5"],
        "the default first, and no model that cannot chat"
    );

    // A server with no preset: its first chat model.
    let local = ReplayServer::start(vec![Reply::json(
        200,
        &json!({"data": [{"id": "nomic-embed-text:latest"}, {"id": "llama3.2:latest"}, {"id": "qwen3:8b"}]}),
    )])
    .await
    .expect("server");
    let added = app
        .providers()
        .add_with_key(&spec("box", None, local.url("/v1"), Some(" ")), None)
        .await
        .expect("add");
    assert_eq!(added.default_model.as_deref(), Some("llama3.2:latest"));

    // A default given is kept, and nothing is asked for it.
    let asked = local.requests().len();
    let added = app
        .providers()
        .add_with_key(&spec("box2", None, local.url("/v1"), Some("qwen3:8b")), None)
        .await
        .expect("add");
    assert_eq!(added.default_model.as_deref(), Some("qwen3:8b"));
    assert_eq!(local.requests().len(), asked);

    // A server that does not answer: added all the same, with no default.
    let dead = ReplayServer::start(vec![]).await.expect("server");
    let dead_url = dead.url("/v1");
    drop(dead);
    let added = app
        .providers()
        .add_with_key(&spec("gone", None, dead_url, None), None)
        .await
        .expect("added without a model list");
    assert_eq!(added.default_model, None);
}

/// The preset's model when listed (as an alias or a dated snapshot of it),
/// else the first listed; a listed id that only begins like it is not it.
#[test]
fn the_preset_model_is_chosen_only_when_the_provider_lists_it() {
    let ids = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let anthropic = preset("anthropic");
    let listed = ids(&[
        "claude-opus-4-1-20250805",
        "claude-sonnet-4-5-20250929",
        "claude-3-5-haiku-20241022",
    ]);
    assert_eq!(
        choose_model(anthropic, &listed).as_deref(),
        Some("claude-sonnet-4-5-20250929")
    );
    let listed = ids(&["claude-opus-4-1-20250805", "claude-sonnet-4-5-extended"]);
    assert_eq!(
        choose_model(anthropic, &listed).as_deref(),
        Some("claude-opus-4-1-20250805")
    );
    let openai = preset("openai");
    assert_eq!(
        choose_model(openai, &ids(&["gpt-5", "gpt-4o-mini"])).as_deref(),
        Some("gpt-4o-mini")
    );
    assert_eq!(choose_model(openai, &ids(&["gpt-5"])).as_deref(), Some("gpt-5"));
    assert_eq!(choose_model(openai, &[]), None);
    assert_eq!(
        choose_model(preset("ollama"), &ids(&["llama3.2"])).as_deref(),
        Some("llama3.2")
    );
}
