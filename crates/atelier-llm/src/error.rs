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
            Self::Network => "network",
            Self::BadResponse => "bad_response",
            Self::InvalidRequest => "invalid_request",
            Self::Cancelled => "cancelled",
            Self::OutputLimit => "output_limit",
            Self::Refused => "refused",
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

/// The provider's own words from an error body (`{"error": {"message"}}`,
/// Anthropic's `{"error": {"type", "message"}}`, or the text itself).
pub(crate) fn body_message(body: &str) -> String {
    let v: Option<serde_json::Value> = serde_json::from_str(body).ok();
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
    let (kind, message) = match status {
        401 | 403 => (
            ErrorKind::Auth,
            format!("{provider} refused the request ({status}): check the API key of provider {provider} — {said}"),
        ),
        404 => (
            ErrorKind::ModelNotFound,
            format!("{provider} has no model {model:?} (404): {said}"),
        ),
        429 => (
            ErrorKind::RateLimited,
            format!("{provider} is rate limiting requests (429): {said}"),
        ),
        529 => (ErrorKind::Overloaded, format!("{provider} is overloaded (529): {said}")),
        500 | 502 | 503 | 504 => (ErrorKind::Server, format!("{provider} failed ({status}): {said}")),
        _ if says_context_length(&said) => (
            ErrorKind::ContextLength,
            format!("the conversation is longer than {model:?} takes: {said}"),
        ),
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
