//! rmcp's errors in words a person reads. rmcp's own messages name its
//! internal types ("Send message error Transport [rmcp::transport::worker::
//! WorkerTransport<…>] error: …") and wrap one failure in another ("discover
//! and legacy initialize both failed"); these say what happened — the HTTP
//! status the server answered, the connection that could not be made, the
//! pipe that broke — and nothing of how rmcp is built.

use std::error::Error;

use rmcp::service::{ClientInitializeError, ServiceError};
use rmcp::transport::DynamicTransportError;
use rmcp::transport::streamable_http_client::StreamableHttpError;

use crate::error::secs;

/// Why a handshake or a request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cause {
    /// The server answered with an HTTP error status; `body` is what it
    /// said, when that adds anything to the status.
    Status {
        code: u16,
        body: Option<String>,
    },
    Other(String),
}

/// "405 Method Not Allowed".
pub(crate) fn status_text(code: u16) -> String {
    match reqwest::StatusCode::from_u16(code) {
        Ok(s) => s.to_string(),
        Err(_) => code.to_string(),
    }
}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cause::Status { code, body } => {
                write!(f, "it answered HTTP {}", status_text(*code))?;
                match body {
                    Some(b) => write!(f, ": {b}"),
                    None => Ok(()),
                }
            }
            Cause::Other(words) => f.write_str(words),
        }
    }
}

/// Why the handshake failed.
pub(crate) fn handshake(e: &ClientInitializeError) -> Cause {
    let other = |s: String| Cause::Other(s);
    match e {
        // The last attempt (`initialize`) says the most: the probe's failure
        // is what sent us there.
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => handshake(fallback),
        ClientInitializeError::TransportError { error, .. } => transport(error),
        ClientInitializeError::JsonRpcError(data) => other(format!("it refused the handshake: {}", data.message)),
        ClientInitializeError::ConnectionClosed(waiting) => {
            other(format!("the connection closed while waiting for the {waiting}"))
        }
        ClientInitializeError::ExpectedInitResponse(_) => {
            other("it sent something else where the answer to the handshake belongs".to_owned())
        }
        ClientInitializeError::ExpectedInitResult(_) => {
            other("it answered the handshake with something that is not a handshake result".to_owned())
        }
        ClientInitializeError::ConflictInitResponseId(..) | ClientInitializeError::UncorrelatedErrorResponse { .. } => {
            other("it answered the handshake under another request's id".to_owned())
        }
        ClientInitializeError::NoCompatibleProtocolVersion {
            client_supported,
            server_supported,
        } => other(format!(
            "it speaks protocol versions {}, none of which Atelier speaks ({})",
            join(server_supported),
            join(client_supported)
        )),
        ClientInitializeError::Cancelled => other("the handshake was cancelled".to_owned()),
        other_error => other(other_error.to_string()),
    }
}

/// Why a request failed (its answer, when it was an error, is the server's words).
pub(crate) fn request(e: &ServiceError) -> String {
    match e {
        ServiceError::McpError(data) => data.message.to_string(),
        ServiceError::TransportSend(error) => transport(error).to_string(),
        ServiceError::TransportClosed => "the connection to it closed".to_owned(),
        ServiceError::UnexpectedResponse => "it answered with a result of the wrong kind".to_owned(),
        ServiceError::Timeout { timeout } => format!("no answer within {} s", secs(*timeout)),
        ServiceError::Cancelled { reason } => match reason {
            Some(r) => format!("the request was cancelled ({r})"),
            None => "the request was cancelled".to_owned(),
        },
        other => other.to_string(),
    }
}

fn join(versions: &[rmcp::model::ProtocolVersion]) -> String {
    versions.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

/// The transport's failure: its own error, never its type's name.
fn transport(e: &DynamicTransportError) -> Cause {
    let inner = e.error.as_ref();
    if let Some(http) = inner.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
        return self::http(http);
    }
    if let Some(io) = inner.downcast_ref::<std::io::Error>() {
        return Cause::Other(format!("the connection to it broke ({io})"));
    }
    Cause::Other(innermost(inner))
}

fn http(e: &StreamableHttpError<reqwest::Error>) -> Cause {
    let other = |s: String| Cause::Other(s);
    match e {
        StreamableHttpError::HttpStatus(s) => Cause::Status {
            code: s.status,
            body: None,
        },
        // rmcp keeps other statuses as "HTTP 405 Method Not Allowed: body".
        StreamableHttpError::UnexpectedServerResponse(text) => {
            parse_status(text).unwrap_or_else(|| other(format!("it answered something that is not MCP: {text}")))
        }
        StreamableHttpError::Client(e) if e.is_connect() => {
            other(format!("could not connect to it ({})", innermost(e)))
        }
        StreamableHttpError::Client(e) if e.is_timeout() => other("it did not answer in time".to_owned()),
        StreamableHttpError::Client(e) => other(innermost(e)),
        StreamableHttpError::Io(e) => other(format!("the connection to it broke ({e})")),
        StreamableHttpError::Sse(e) => other(format!("its event stream broke ({e})")),
        StreamableHttpError::UnexpectedContentType(ct) => other(format!(
            "it answered with content type {}, neither JSON nor an event stream",
            ct.as_deref().unwrap_or("(none)")
        )),
        StreamableHttpError::UnexpectedEndOfStream => other("its answer ended early".to_owned()),
        StreamableHttpError::SessionExpired => other("its session ended (HTTP 404)".to_owned()),
        StreamableHttpError::AuthRequired(_) => other("it wants a sign-in (HTTP 401)".to_owned()),
        StreamableHttpError::InsufficientScope(_) => other("it refused the token's scope (HTTP 403)".to_owned()),
        e => other(innermost(e)),
    }
}

/// "HTTP 405 Method Not Allowed: Method Not Allowed" → 405, no body (it
/// only repeats the status).
fn parse_status(text: &str) -> Option<Cause> {
    let rest = text.strip_prefix("HTTP ")?;
    let code: u16 = rest.get(..3)?.parse().ok()?;
    let body = rest.split_once(": ").map(|(_, b)| b.trim()).unwrap_or_default();
    let reason = reqwest::StatusCode::from_u16(code)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or_default();
    let body = (!body.is_empty() && body != "<empty>" && !body.eq_ignore_ascii_case(reason)).then(|| cut(body, 200));
    Some(Cause::Status { code, body })
}

/// The deepest cause's words ("Connection refused (os error 111)"): the
/// outer ones are wrappers ("error sending request for url …").
fn innermost(e: &(dyn Error + 'static)) -> String {
    let mut at = e;
    while let Some(next) = at.source() {
        at = next;
    }
    at.to_string()
}

/// A server's words (a body, a cursor), cut to `shown` characters: they
/// can be any length.
pub(crate) fn cut(text: &str, shown: usize) -> String {
    match text.char_indices().nth(shown) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::{Cause, parse_status};

    #[test]
    fn a_status_rmcp_kept_as_text_is_read_back() {
        assert_eq!(
            parse_status("HTTP 405 Method Not Allowed: Method Not Allowed"),
            Some(Cause::Status { code: 405, body: None })
        );
        assert_eq!(
            parse_status("HTTP 400 Bad Request: missing session"),
            Some(Cause::Status {
                code: 400,
                body: Some("missing session".to_owned())
            })
        );
        assert_eq!(parse_status("not json"), None);
    }
}
