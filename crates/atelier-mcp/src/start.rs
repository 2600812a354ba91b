//! How a stdio session starts: the server spawned and greeted (with a
//! second try by `initialize` alone for an old server that answers the
//! discovery probe with an empty result), and why it failed, in words.
//! Streamable HTTP is `http`.

use std::sync::Arc;
use std::time::Duration;

use rmcp::service::{ClientInitializeError, ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::async_rw::AsyncRwTransport;

use crate::error::McpError;
use crate::handler::Handler;
use crate::late_probe::LateProbe;
use crate::notices::InOrder;
use crate::oversize::RMCP_LIMIT;
use crate::process::{self, ServerProcess};
use crate::spec::{ConnectOptions, StdioSpec};
use crate::stderr::StderrLog;
use crate::words;

/// How starting a stdio server can fail, before it becomes an error.
pub(crate) enum StdioStart {
    Failed(McpError),
    /// The process exited before the handshake ended.
    Exited(String),
    /// The handshake failed; the process may still run.
    Refused(ServerProcess, Box<ClientInitializeError>),
    /// `server/discover` answered with an empty result: try `initialize`.
    EmptyDiscover(ServerProcess),
    /// `server/discover` answered with a result after rmcp gave up on it
    /// and sent `initialize`, which that server then refused (see
    /// `late_probe`): try discovery alone.
    LateModern(ServerProcess),
    TimedOut(ServerProcess),
}

impl StdioStart {
    pub(crate) async fn into_error(self, server: &str, options: &ConnectOptions, log: &StderrLog) -> McpError {
        let handshake = |message: String| McpError::Handshake {
            server: server.to_owned(),
            message,
            stderr: log.tail(),
        };
        match self {
            StdioStart::Failed(e) => e,
            StdioStart::Exited(how) => handshake(format!("it exited ({how}) before the handshake ended")),
            StdioStart::Refused(proc, e) => {
                // A closed pipe usually means it exited: say how. Any other
                // refusal is rmcp's, and it dropped the pipes: an exit now
                // (code 0 on end of input) is our doing, not the cause.
                let exited = if pipe_closed(&e) {
                    proc.wait_exit(Duration::from_millis(500)).await
                } else {
                    None
                };
                let message = match exited {
                    Some(how) => format!("it exited ({how}) before the handshake ended"),
                    None => words::handshake(&e).to_string(),
                };
                tokio::time::sleep(Duration::from_millis(50)).await;
                proc.stop(options.stop_grace).await;
                McpError::Handshake {
                    server: server.to_owned(),
                    message,
                    stderr: log.tail(),
                }
            }
            StdioStart::EmptyDiscover(proc) => {
                proc.stop(options.stop_grace).await;
                handshake("it answered the handshake with an empty result".to_owned())
            }
            StdioStart::LateModern(proc) => {
                proc.stop(options.stop_grace).await;
                handshake("it answered the discovery probe too late and then refused initialize".to_owned())
            }
            StdioStart::TimedOut(proc) => {
                proc.stop(options.stop_grace).await;
                McpError::HandshakeTimeout {
                    server: server.to_owned(),
                    after: options.handshake_timeout,
                    stderr: log.tail(),
                }
            }
        }
    }
}

/// The handshake failed on a closed pipe, not on what the server said.
fn pipe_closed(e: &ClientInitializeError) -> bool {
    match e {
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => pipe_closed(fallback),
        ClientInitializeError::ConnectionClosed(_) | ClientInitializeError::TransportError { .. } => true,
        _ => false,
    }
}

/// Spawns a stdio server and does the handshake `mode` asks for.
pub(crate) async fn start_stdio(
    server: &str,
    spec: &StdioSpec,
    options: &ConnectOptions,
    log: &Arc<StderrLog>,
    handler: &Arc<Handler>,
    mode: ClientLifecycleMode,
) -> Result<(RunningService<RoleClient, Arc<Handler>>, Option<ServerProcess>), StdioStart> {
    let (proc, stdout, stdin) = process::spawn(server, spec, log).map_err(StdioStart::Failed)?;
    // Our guard cuts a line over the limit before rmcp would drop it.
    let rw = AsyncRwTransport::new_client(stdout, stdin).with_max_line_length(RMCP_LIMIT);
    let transport = LateProbe::new(InOrder::new(rw, &handler.notices));
    let late_modern = transport.modern();
    let started = Arc::clone(handler).serve_with_lifecycle(transport, mode);
    let mut exit = proc.exit.clone();
    let exited = async move { exit.wait_for(Option::is_some).await.is_ok() };
    let result = tokio::select! {
        r = tokio::time::timeout(options.handshake_timeout, started) => r,
        // Exited before answering: say so at once, with its words.
        true = exited => {
            let how = proc.exited().unwrap_or_default();
            // Let the stderr reader catch up with its last lines.
            tokio::time::sleep(Duration::from_millis(50)).await;
            proc.stop(Duration::ZERO).await;
            return Err(StdioStart::Exited(how));
        }
    };
    match result {
        Ok(Ok(service)) => Ok((service, Some(proc))),
        Ok(Err(ClientInitializeError::ExpectedInitResult(_))) => Err(StdioStart::EmptyDiscover(proc)),
        Ok(Err(_)) if late_modern.load(std::sync::atomic::Ordering::Relaxed) => Err(StdioStart::LateModern(proc)),
        Ok(Err(e)) => Err(StdioStart::Refused(proc, Box::new(e))),
        Err(_) => Err(StdioStart::TimedOut(proc)),
    }
}
