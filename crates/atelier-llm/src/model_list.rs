//! Which of a provider's models can chat. `GET …/models` lists everything
//! a key may call, in the API's order: OpenAI's list holds embedding,
//! speech, transcription, image, moderation and realtime models beside the
//! chat ones, and a local server may hold an embedding model. A chat sent to
//! one of those fails, so the list a provider gives is cut to the models
//! that can answer a chat: those whose id is of a family documented as
//! something else are left out, and OpenAI's models that its chat
//! completions API refuses (they answer only on its Responses API) go last.
//! An id this does not know stays where the server put it: a gateway's or a
//! local server's chat models are never lost to a guess.

/// Whether `id` (any gateway prefix, `openai/…`, any Ollama tag, `…:latest`)
/// names a model of a family that is not a chat model on any server: by
/// OpenAI's model pages (embeddings, text to speech, speech to text, images,
/// video, moderation, the Realtime API, the completions-only base models)
/// and the local servers' embedding and reranking models.
fn not_for_chat(id: &str) -> bool {
    let name = id.rsplit('/').next().unwrap_or(id).to_ascii_lowercase();
    const PREFIXES: [&str; 11] = [
        "tts-",
        "whisper",
        "dall-e",
        "gpt-image",
        "chatgpt-image",
        "sora",
        "babbage-",
        "davinci-",
        "text-davinci",
        "gpt-3.5-turbo-instruct",
        "text-moderation",
    ];
    const PARTS: [&str; 6] = ["embed", "-tts", "transcribe", "moderation", "realtime", "rerank"];
    PREFIXES.iter().any(|p| name.starts_with(p)) || PARTS.iter().any(|p| name.contains(p))
}

/// Whether `id` is one of OpenAI's models that answer only on its
/// Responses API ("This model is only supported in v1/responses"): the pro
/// reasoning models, the Codex models, deep research and computer use. Read
/// only for OpenAI's own API: a gateway (OpenRouter's `openai/o1-pro`) takes
/// them as chat completions.
fn responses_only(id: &str) -> bool {
    let name = id.to_ascii_lowercase();
    name.ends_with("-pro")
        || name.contains("-pro-")
        || name.contains("codex")
        || name.contains("deep-research")
        || name.starts_with("computer-use")
}

/// `ids` as the models a chat can use, in the server's order: those that
/// are clearly not chat models left out, and (on OpenAI's own API,
/// `openai_itself`) the Responses-only ones after the rest.
pub(crate) fn chat_first(ids: Vec<String>, openai_itself: bool) -> Vec<String> {
    let (last, first): (Vec<String>, Vec<String>) = ids
        .into_iter()
        .filter(|id| !not_for_chat(id))
        .partition(|id| openai_itself && responses_only(id));
    first.into_iter().chain(last).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::chat_first;
    use crate::openai::models;

    /// `GET https://api.openai.com/v1/models` as it answers (the shape of
    /// the API reference's example, the ids of its model pages), in its
    /// order: an image model first.
    fn openai_body() -> serde_json::Value {
        let ids = [
            "dall-e-3",
            "text-embedding-3-small",
            "tts-1-hd",
            "whisper-1",
            "omni-moderation-latest",
            "gpt-4o-realtime-preview-2025-06-03",
            "gpt-realtime-mini",
            "gpt-4o-mini-transcribe",
            "gpt-4o-mini-tts",
            "gpt-image-1",
            "babbage-002",
            "davinci-002",
            "gpt-3.5-turbo-instruct",
            "sora-2",
            "o1-pro",
            "codex-mini-latest",
            "gpt-5-codex",
            "o3-deep-research",
            "computer-use-preview",
            "gpt-4.1-mini",
            "gpt-4o-mini",
            "o4-mini",
            "gpt-5",
            "gpt-4o-audio-preview",
            "gpt-3.5-turbo",
            "ft:gpt-4.1-mini-2025-04-14:acme::B2x9",
        ];
        json!({
            "object": "list",
            "data": ids.iter().map(|id| json!({
                "id": id, "object": "model", "created": 1_698_785_189, "owned_by": "system"
            })).collect::<Vec<_>>(),
        })
    }

    #[test]
    fn openai_lists_its_chat_models_first_and_none_that_cannot_chat() {
        let listed = chat_first(models(&openai_body()), true);
        assert_eq!(
            listed,
            [
                "gpt-4.1-mini",
                "gpt-4o-mini",
                "o4-mini",
                "gpt-5",
                "gpt-4o-audio-preview",
                "gpt-3.5-turbo",
                "ft:gpt-4.1-mini-2025-04-14:acme::B2x9",
                // Chat models, but only on the Responses API: last.
                "o1-pro",
                "codex-mini-latest",
                "gpt-5-codex",
                "o3-deep-research",
                "computer-use-preview",
            ]
        );
    }

    /// `GET https://api.anthropic.com/v1/models`: every model chats; the
    /// newest comes first and stays first.
    #[test]
    fn anthropic_keeps_its_list_and_its_order() {
        let body = json!({
            "data": [
                {"type": "model", "id": "claude-sonnet-4-5-20250929", "display_name": "Claude Sonnet 4.5", "created_at": "2025-09-29T00:00:00Z"},
                {"type": "model", "id": "claude-opus-4-1-20250805", "display_name": "Claude Opus 4.1", "created_at": "2025-08-05T00:00:00Z"},
                {"type": "model", "id": "claude-3-5-haiku-20241022", "display_name": "Claude Haiku 3.5", "created_at": "2024-10-22T00:00:00Z"},
            ],
            "has_more": false,
            "first_id": "claude-sonnet-4-5-20250929",
            "last_id": "claude-3-5-haiku-20241022",
        });
        assert_eq!(
            chat_first(models(&body), false),
            [
                "claude-sonnet-4-5-20250929",
                "claude-opus-4-1-20250805",
                "claude-3-5-haiku-20241022"
            ]
        );
    }

    /// Gateways and local servers: their chat models stay, in their order,
    /// OpenRouter's pro and Codex models too (it takes them as chat
    /// completions); only what cannot chat goes.
    #[test]
    fn gateways_and_local_servers_keep_every_chat_model() {
        let ids = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let openrouter = ids(&[
            "openrouter/auto",
            "openai/o1-pro",
            "openai/gpt-5-codex",
            "qwen/qwen3-coder",
            "openai/text-embedding-3-small",
        ]);
        assert_eq!(
            chat_first(openrouter, false),
            [
                "openrouter/auto",
                "openai/o1-pro",
                "openai/gpt-5-codex",
                "qwen/qwen3-coder"
            ]
        );
        let ollama = ids(&[
            "nomic-embed-text:latest",
            "llama3.2:latest",
            "qwen2.5-coder:7b-instruct",
            "mxbai-embed-large:latest",
            "deepseek-r1:8b",
        ]);
        assert_eq!(
            chat_first(ollama, false),
            ["llama3.2:latest", "qwen2.5-coder:7b-instruct", "deepseek-r1:8b"]
        );
        let lmstudio = ids(&[
            "text-embedding-nomic-embed-text-v1.5",
            "meta-llama-3.1-8b-instruct",
            "google/gemma-3-12b",
        ]);
        assert_eq!(
            chat_first(lmstudio, false),
            ["meta-llama-3.1-8b-instruct", "google/gemma-3-12b"]
        );
    }
}
