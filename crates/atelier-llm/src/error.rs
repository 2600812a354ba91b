//! The one error type of this crate: a kind a person (and the retry rule)
//! can act on, and a sentence that names the provider, model or URL.

use std::time::Duration;

/// What went wrong, as a person would act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// 401/403: the key is missing or wrong.
    Auth,
    /// 404: the model (or the endpoint) does not exist.
    ModelNotFound,
    /// 429.
    RateLimited,
    /// 529, or a provider's `overloaded_error`.
    Overloaded,
    /// 500, 502, 503, 504.
    Server,
    /// The conversation does not fit the model.
    ContextLength,
    /// The newest message alone (with its tools' latest results) does not
    /// fit the window, every earlier one left out: a branch from an
    /// earlier message would fail the same way (set by the caller that
    /// fitted the request, never by a provider's answer).
    MessageTooLong,
    /// The server could not be reached, or the connection dropped.
    Network,
    /// A reply this client cannot read (malformed SSE or JSON).
    BadResponse,
    /// Any other 4xx: the request was refused.
    InvalidRequest,
    /// The person stopped it.
    Cancelled,
    /// The answer reached the output limit (`max_tokens`) and was cut:
    /// the stream itself went well, so the caller decides (see
    /// `Turn::stop`).
    OutputLimit,
    /// The model declined to answer, or a content filter stopped the
    /// answer: the stream went well, the turn did not (see `Turn::stop`).
    Refused,
    /// The stream went well but the turn holds no answer: no text and no
    /// tool call (nothing, or reasoning alone). Told by the caller, which
    /// judges a whole turn.
    EmptyAnswer,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auth => "auth",
            Self::ModelNotFound => "model_not_found",
            Self::RateLimited => "rate_limited",
            Self::Overloaded => "overloaded",
            Self::Server => "server",
            Self::ContextLength => "context_length",
            Self::MessageTooLong => "message_too_long",
            Self::Network => "network",
            Self::BadResponse => "bad_response",
            Self::InvalidRequest => "invalid_request",
            Self::Cancelled => "cancelled",
            Self::OutputLimit => "output_limit",
            Self::Refused => "refused",
            Self::EmptyAnswer => "empty_answer",
        }
    }

    /// Worth another try (before anything streamed to the person).
    pub fn is_transient(self) -> bool {
        matches!(
            self,
            Self::RateLimited | Self::Overloaded | Self::Server | Self::Network
        )
    }
}

/// A provider error.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    /// The HTTP status, when there was one.
    pub status: Option<u16>,
    /// How long the server asked to wait (`Retry-After`).
    pub retry_after: Option<Duration>,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            status: None,
            retry_after: None,
        }
    }

    pub fn cancelled() -> Self {
        Self::new(ErrorKind::Cancelled, "stopped")
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// An error body as JSON: Gemini's OpenAI endpoint sends a list of one
/// error (`[{"error": {…}}]`), read as that one.
fn body_json(body: &str) -> Option<serde_json::Value> {
    match serde_json::from_str(body).ok()? {
        serde_json::Value::Array(mut list) if !list.is_empty() => Some(list.swap_remove(0)),
        v => Some(v),
    }
}

/// The provider's own words from an error body (`{"error": {"message"}}`,
/// Anthropic's `{"error": {"type", "message"}}`, Gemini's list of one, or
/// the text itself).
pub(crate) fn body_message(body: &str) -> String {
    let v = body_json(body);
    let msg = v.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("message"))
            .or_else(|| v.get("error"))
            .and_then(|m| m.as_str())
            .map(str::to_owned)
    });
    let text = msg.unwrap_or_else(|| body.trim().to_owned());
    text.chars().take(400).collect()
}

/// The names an error body gives its error (`error.code`, `error.type`,
/// or the body's own `code`, `type`), lowercase, space-separated.
fn body_names(body: &str) -> String {
    let Some(v) = body_json(body) else {
        return String::new();
    };
    let err = v.get("error").filter(|e| e.is_object()).unwrap_or(&v);
    ["code", "type"]
        .iter()
        .filter_map(|k| err.get(k).and_then(|c| c.as_str()))
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase()
}

/// Whether an error's names (its `code` or `type`) say the conversation is
/// too long: OpenAI's `context_length_exceeded`, llama.cpp's
/// `exceed_context_size_error`, Copilot's `model_max_prompt_tokens_exceeded`.
pub(crate) fn names_context_length(names: &str) -> bool {
    names.contains("context_length") || names.contains("context_size") || names.contains("max_prompt_tokens")
}

/// Whether an error's names say the key's account has no quota or credit
/// left (OpenAI's 429 `insufficient_quota`): billing, not a rate limit —
/// waiting does not help.
pub(crate) fn names_no_quota(names: &str, said: &str) -> bool {
    names.contains("insufficient_quota") || said.to_ascii_lowercase().contains("exceeded your current quota")
}

/// Whether the provider's words say the conversation is too long.
pub(crate) fn says_context_length(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("context length")
        || m.contains("context_length")
        || m.contains("maximum context")
        || m.contains("prompt is too long")
        || m.contains("too many tokens")
        || m.contains("context window")
        // llama.cpp: "the request exceeds the available context size".
        || m.contains("exceeds the available context size")
        // Kimi: "Your request exceeded model token limit: 262144 (requested: 269030)".
        || m.contains("exceeded model token limit")
        // Mistral: "Prompt contains 300000 tokens, too large for model with
        // 131072 maximum context length".
        || m.contains("too large for model with")
        // Copilot: "prompt token count of 138898 exceeds the limit of 64000".
        || (m.contains("prompt token count") && m.contains("exceeds the limit"))
        // Gemini: "The input token count (1200293) exceeds the maximum
        // number of tokens allowed (1048576)."
        || (m.contains("input token count") && m.contains("exceeds the maximum"))
        // A server with a context size of its own: "Prompt has 300,000
        // tokens, but the configured context size is 131,072 tokens".
        || m.contains("the configured context size")
}

/// An HTTP error reply as a typed error naming what it is about.
pub(crate) fn from_status(
    status: u16,
    body: &str,
    retry_after: Option<Duration>,
    provider: &str,
    model: &str,
) -> Error {
    let said = body_message(body);
    let names = body_names(body);
    let (kind, message) = match status {
        401 | 403 => (
            ErrorKind::Auth,
            format!("{provider} refused the request ({status}): check the API key of provider {provider} — {said}"),
        ),
        404 => (
            ErrorKind::ModelNotFound,
            format!("{provider} has no model {model:?} (404): {said}"),
        ),
        429 if names_no_quota(&names, &said) => (
            ErrorKind::InvalidRequest,
            format!(
                "the account of provider {provider}'s API key has no quota or credit left (429 insufficient_quota): \
                 add credit or raise its limit in {provider}'s billing settings, or use another key — {said}"
            ),
        ),
        429 => (
            ErrorKind::RateLimited,
            format!("{provider} is rate limiting requests (429): {said}"),
        ),
        529 => (ErrorKind::Overloaded, format!("{provider} is overloaded (529): {said}")),
        // Before the server errors: llama.cpp builds answer a context
        // overflow with 500, which another try would only repeat.
        _ if says_context_length(&said) || names_context_length(&names) => (
            ErrorKind::ContextLength,
            format!("the conversation is longer than {model:?} takes: {said}"),
        ),
        500 | 502 | 503 | 504 => (ErrorKind::Server, format!("{provider} failed ({status}): {said}")),
        _ => (
            ErrorKind::InvalidRequest,
            format!("{provider} refused the request ({status}): {said}"),
        ),
    };
    Error {
        kind,
        message,
        status: Some(status),
        retry_after,
    }
}

#[cfg(test)]
mod tests {
    use super::{ErrorKind, from_status};

    #[test]
    fn each_provider_s_words_for_a_long_conversation_are_a_context_error() {
        // As each API words it (their issue trackers quote them).
        let said = [
            "Invalid request: Your request exceeded model token limit: 262144 (requested: 269030)",
            "prompt token count of 138898 exceeds the limit of 64000",
            "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
            "Prompt contains 300000 tokens, too large for model with 131072 maximum context length",
        ];
        for s in said {
            let body = serde_json::json!({"error": {"message": s}}).to_string();
            assert_eq!(
                from_status(400, &body, None, "p", "m").kind,
                ErrorKind::ContextLength,
                "{s}"
            );
        }
        // Copilot's code alone says it too.
        let body = r#"{"error":{"message":"too big","code":"model_max_prompt_tokens_exceeded"}}"#;
        assert_eq!(from_status(400, body, None, "p", "m").kind, ErrorKind::ContextLength);
        // Gemini: in a list of one.
        let body = r#"[{"error":{"code":400,"message":"The input token count (1054016) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}]"#;
        assert_eq!(from_status(400, body, None, "p", "m").kind, ErrorKind::ContextLength);
    }
}
