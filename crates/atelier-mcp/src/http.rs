//! How a streamable-HTTP session starts: the transport with the server's
//! headers, the handshake (again by `initialize` alone for an old server
//! that answers the discovery probe with an empty result), and why it
//! failed in words — the status the address answered and, for a server
//! that speaks only the old HTTP+SSE transport, which address to use.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderName, HeaderValue};
use rmcp::service::{ClientInitializeError, ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::auth::{AuthClient, WWWAuthenticateParams};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use tokio::time::error::Elapsed;

use crate::error::McpError;
use crate::handler::Handler;
use crate::lost_session::LostSession;
use crate::notices::InOrder;
use crate::spec::{ConnectOptions, HttpSpec};
use crate::stderr::StderrLog;
use crate::words::{self, Cause, status_text};

/// How long the GET that tells an old SSE server apart may take.
const SSE_PROBE_WAIT: Duration = Duration::from_secs(5);

/// Reaches `spec` and does the handshake `mode` asks for. Also returns how
/// long the first attempt took, when it went through with rmcp's own
/// fallback (`None` after a second attempt: that was a definite answer).
pub(crate) async fn start_http(
    server: &str,
    spec: &HttpSpec,
    options: &ConnectOptions,
    log: &StderrLog,
    handler: &Arc<Handler>,
    mode: ClientLifecycleMode,
) -> Result<(RunningService<RoleClient, Arc<Handler>>, Option<Duration>), McpError> {
    let after = options.handshake_timeout;
    // A kept sign-in goes with every request (rmcp refreshes it).
    let auth = match &options.oauth {
        Some(o) => crate::oauth::manager_for(server, &spec.url, &o.store)
            .await?
            .map(|m| AuthClient::new(reqwest::Client::default(), m)),
        None => None,
    };
    let began = Instant::now();
    let mut result = attempt(server, spec, handler, auth.as_ref(), mode, after).await?;
    let mut first_took = Some(began.elapsed());
    // An older server that answers every method it does not know with an
    // empty result (instead of "method not found") answers
    // `server/discover` with `{}`: rmcp's fallback does not take that as
    // "legacy", so ask again with `initialize` alone (no session was opened).
    if let Ok(Err(ClientInitializeError::ExpectedInitResult(_))) = &result {
        first_took = None;
        result = attempt(
            server,
            spec,
            handler,
            auth.as_ref(),
            ClientLifecycleMode::Initialize,
            after,
        )
        .await?;
    }
    match result {
        Ok(Ok(service)) => Ok((service, first_took)),
        Ok(Err(e)) if e.is_authorization_required() => Err(McpError::Unauthorized {
            server: server.to_owned(),
            url: spec.url.clone(),
            challenge: e.auth_challenge().map(str::to_owned),
        }),
        Ok(Err(e)) if e.auth_challenge().is_some() => Err(insufficient_scope(
            server,
            &spec.url,
            e.auth_challenge().unwrap_or_default(),
        )),
        Ok(Err(e)) => Err(McpError::Handshake {
            server: server.to_owned(),
            message: refusal(spec, &words::handshake(&e)).await,
            stderr: Vec::new(),
        }),
        Err(_) => Err(McpError::HandshakeTimeout {
            server: server.to_owned(),
            after,
            stderr: log.tail(),
        }),
    }
}

/// Why the address refused the handshake. A 405 or 404 to the POST from a
/// server of the old HTTP+SSE transport (its `…/sse` address, or one that
/// answers GET with an event stream) says which address to use instead.
async fn refusal(spec: &HttpSpec, cause: &Cause) -> String {
    let url = &spec.url;
    match cause {
        Cause::Status {
            code: code @ (404 | 405),
            ..
        } if speaks_old_sse(spec).await => format!(
            "{url} answered a POST with HTTP {}: the old SSE transport is not supported: \
             use the server's streamable HTTP address (often {})",
            status_text(*code),
            streamable_guess(url)
        ),
        Cause::Status { code: 404, body } => format!(
            "{url} answered a POST with HTTP {}{}: is it the server's MCP address?",
            status_text(404),
            said(body.as_deref())
        ),
        Cause::Status { code, body } => format!(
            "{url} answered a POST with HTTP {}{}",
            status_text(*code),
            said(body.as_deref())
        ),
        Cause::Other(words) => format!("{words} (at {url})"),
    }
}

fn said(body: Option<&str>) -> String {
    body.map(|b| format!(" ({b})")).unwrap_or_default()
}

/// Whether `spec` is an address of the old HTTP+SSE transport: named so,
/// or its GET opens an event stream (a streamable-HTTP address answering
/// a GET with one also took the POST, so it never gets here).
async fn speaks_old_sse(spec: &HttpSpec) -> bool {
    let path = reqwest::Url::parse(&spec.url)
        .map(|u| u.path().trim_end_matches('/').to_owned())
        .unwrap_or_default();
    if path.ends_with("/sse") {
        return true;
    }
    let Ok(headers) = headers(&spec.headers) else {
        return false;
    };
    let probe = reqwest::Client::new()
        .get(&spec.url)
        .headers(headers.into_iter().collect())
        .header(ACCEPT, "text/event-stream")
        .send();
    // Only the headers are read: dropping the answer closes the stream.
    match tokio::time::timeout(SSE_PROBE_WAIT, probe).await {
        Ok(Ok(answer)) => {
            answer.status().is_success()
                && answer
                    .headers()
                    .get(CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|ct| ct.trim_start().to_ascii_lowercase().starts_with("text/event-stream"))
        }
        _ => false,
    }
}

/// Where such a server's streamable-HTTP address usually is: `/mcp` in
/// place of `/sse`, else at the root.
fn streamable_guess(url: &str) -> String {
    let Ok(mut u) = reqwest::Url::parse(url) else {
        return "…/mcp".to_owned();
    };
    let path = u.path().trim_end_matches('/');
    let path = match path.strip_suffix("/sse") {
        Some(base) => format!("{base}/mcp"),
        None => "/mcp".to_owned(),
    };
    u.set_path(&path);
    u.set_query(None);
    u.set_fragment(None);
    u.to_string()
}

pub(crate) fn headers(pairs: &[(String, String)]) -> Result<HashMap<HeaderName, HeaderValue>, String> {
    let mut out = HashMap::new();
    for (k, v) in pairs {
        let name = HeaderName::from_bytes(k.as_bytes()).map_err(|_| format!("header {k:?} has an invalid name"))?;
        let value = HeaderValue::from_str(v).map_err(|_| format!("header {k:?} has an invalid value"))?;
        out.insert(name, value);
    }
    Ok(out)
}

type Started = Result<Result<RunningService<RoleClient, Arc<Handler>>, ClientInitializeError>, Elapsed>;

/// One handshake over a new transport, with the kept sign-in if any.
async fn attempt(
    server: &str,
    spec: &HttpSpec,
    handler: &Arc<Handler>,
    auth: Option<&AuthClient<reqwest::Client>>,
    mode: ClientLifecycleMode,
    after: Duration,
) -> Result<Started, McpError> {
    let headers = headers(&spec.headers).map_err(|message| McpError::Protocol {
        server: server.to_owned(),
        message,
    })?;
    let config = StreamableHttpClientTransportConfig::with_uri(spec.url.clone()).custom_headers(headers);
    let handler = Arc::clone(handler);
    Ok(match auth {
        Some(auth) => {
            let transport = StreamableHttpClientTransport::with_client(LostSession(auth.clone()), config);
            let transport = InOrder::new(transport, &handler.notices);
            tokio::time::timeout(after, Arc::clone(&handler).serve_with_lifecycle(transport, mode)).await
        }
        None => {
            let client = LostSession(crate::lost_session::http_client());
            let transport = InOrder::new(
                StreamableHttpClientTransport::with_client(client, config),
                &handler.notices,
            );
            tokio::time::timeout(after, Arc::clone(&handler).serve_with_lifecycle(transport, mode)).await
        }
    })
}

/// A 403 `insufficient_scope` (its `WWW-Authenticate` is `challenge`).
pub(crate) fn insufficient_scope(server: &str, url: &str, challenge: &str) -> McpError {
    let scope = reqwest::Url::parse(url)
        .ok()
        .and_then(|base| WWWAuthenticateParams::parse(challenge, &base).scope);
    McpError::InsufficientScope {
        server: server.to_owned(),
        url: url.to_owned(),
        scope,
        challenge: challenge.to_owned(),
    }
}

/// Why a request of a session failed, when the server wants a sign-in.
pub(crate) fn auth_failure(server: &str, url: Option<&str>, e: &rmcp::ServiceError) -> Option<McpError> {
    let url = url?;
    if e.is_authorization_required() {
        return Some(McpError::Unauthorized {
            server: server.to_owned(),
            url: url.to_owned(),
            challenge: e.auth_challenge().map(str::to_owned),
        });
    }
    e.auth_challenge().map(|c| insufficient_scope(server, url, c))
}

#[cfg(test)]
mod tests {
    use super::streamable_guess;

    #[test]
    fn the_streamable_address_is_guessed_from_the_old_one() {
        assert_eq!(streamable_guess("http://h:1/sse"), "http://h:1/mcp");
        assert_eq!(streamable_guess("https://h/v1/sse/?k=1"), "https://h/v1/mcp");
        assert_eq!(streamable_guess("http://h:1/events"), "http://h:1/mcp");
    }
}
