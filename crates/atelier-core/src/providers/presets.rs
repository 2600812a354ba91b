//! The providers Atelier knows by name: their wire format, default URL,
//! the environment variable their users already set, and whether they run
//! on this computer (then `detect` probes them).

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
    },
    Preset {
        name: "anthropic",
        title: "Anthropic",
        kind: Kind::Anthropic,
        base_url: "https://api.anthropic.com",
        key_env: Some("ANTHROPIC_API_KEY"),
        local: false,
    },
    Preset {
        name: "openrouter",
        title: "OpenRouter",
        kind: Kind::Openai,
        base_url: "https://openrouter.ai/api/v1",
        key_env: Some("OPENROUTER_API_KEY"),
        local: false,
    },
    Preset {
        name: "ollama",
        title: "Ollama",
        kind: Kind::Openai,
        base_url: "http://localhost:11434/v1",
        key_env: None,
        local: true,
    },
    Preset {
        name: "lmstudio",
        title: "LM Studio",
        kind: Kind::Openai,
        base_url: "http://localhost:1234/v1",
        key_env: None,
        local: true,
    },
    Preset {
        name: "llamacpp",
        title: "llama.cpp server",
        kind: Kind::Openai,
        base_url: "http://localhost:8080/v1",
        key_env: None,
        local: true,
    },
    Preset {
        name: "vllm",
        title: "vLLM",
        kind: Kind::Openai,
        base_url: "http://localhost:8000/v1",
        key_env: None,
        local: true,
    },
];

/// A preset by name.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}
