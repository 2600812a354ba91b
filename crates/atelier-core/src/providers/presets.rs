//! The providers Atelier knows by name: their wire format, default URL,
//! the environment variable their users already set, whether they run on
//! this computer (then `detect` probes them), and the chat model a new one
//! starts with when it lists it ([`choose_model`]).

use serde::Serialize;

use atelier_llm::Kind;

/// A provider known by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Preset {
    pub name: &'static str,
    pub title: &'static str,
    #[ts(type = "\"openai\" | \"anthropic\"")]
    pub kind: Kind,
    pub base_url: &'static str,
    /// The variable its users set (`OPENAI_API_KEY`); read only for this provider.
    pub key_env: Option<&'static str>,
    /// A server on this computer: probed by `detect`, needs no key.
    pub local: bool,
    /// The chat models a new provider of this preset starts with, best
    /// first: the first the provider lists (itself or as a dated snapshot,
    /// `claude-sonnet-4-5-20250929`) becomes its default model. A local
    /// server has none: its models are whatever was downloaded.
    #[serde(skip)]
    #[ts(skip)]
    pub default_models: &'static [&'static str],
}

/// Every preset; `detect` probes the local ones.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "openai",
        title: "OpenAI",
        kind: Kind::Openai,
        base_url: "https://api.openai.com/v1",
        key_env: Some("OPENAI_API_KEY"),
        local: false,
        default_models: &["gpt-4.1-mini", "gpt-4o-mini"],
    },
    Preset {
        name: "anthropic",
        title: "Anthropic",
        kind: Kind::Anthropic,
        base_url: "https://api.anthropic.com",
        key_env: Some("ANTHROPIC_API_KEY"),
        local: false,
        default_models: &["claude-sonnet-4-6", "claude-sonnet-4-5", "claude-sonnet-4"],
    },
    Preset {
        name: "openrouter",
        title: "OpenRouter",
        kind: Kind::Openai,
        base_url: "https://openrouter.ai/api/v1",
        key_env: Some("OPENROUTER_API_KEY"),
        local: false,
        default_models: &["openai/gpt-4.1-mini", "openai/gpt-4o-mini"],
    },
    Preset {
        name: "ollama",
        title: "Ollama",
        kind: Kind::Openai,
        base_url: "http://localhost:11434/v1",
        key_env: None,
        local: true,
        default_models: &[],
    },
    Preset {
        name: "lmstudio",
        title: "LM Studio",
        kind: Kind::Openai,
        base_url: "http://localhost:1234/v1",
        key_env: None,
        local: true,
        default_models: &[],
    },
    Preset {
        name: "llamacpp",
        title: "llama.cpp server",
        kind: Kind::Openai,
        base_url: "http://localhost:8080/v1",
        key_env: None,
        local: true,
        default_models: &[],
    },
    Preset {
        name: "vllm",
        title: "vLLM",
        kind: Kind::Openai,
        base_url: "http://localhost:8000/v1",
        key_env: None,
        local: true,
        default_models: &[],
    },
];

/// A preset by name.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// The model a provider with no default model chats with, of those it
/// lists (`models`: chat models first, as `atelier_llm::Client::models`
/// gives them): its preset's first default model that is listed, itself
/// or as a dated snapshot of it (Anthropic lists `claude-sonnet-4-5-20250929`
/// for the alias `claude-sonnet-4-5`); else the first listed. The one rule:
/// the app's forms save it as the default, and the model list a provider
/// gives puts it first.
pub fn choose_model(preset: Option<&Preset>, models: &[String]) -> Option<String> {
    let wanted = preset.map_or(&[][..], |p| p.default_models);
    wanted
        .iter()
        .find_map(|w| {
            models.iter().find(|m| {
                m.as_str() == *w
                    || m.strip_prefix(w)
                        .and_then(|rest| rest.strip_prefix('-'))
                        .is_some_and(|date| date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()))
            })
        })
        .or_else(|| models.first())
        .cloned()
}
