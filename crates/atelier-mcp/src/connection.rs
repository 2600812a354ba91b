//! One live session with one server: connect (spawn or reach it, then the
//! handshake, new or old protocol), list tools, stop; a call is `call`'s.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{PaginatedRequestParams, ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::service::{ClientLifecycleMode, RoleClient, RunningService};
use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

use crate::ToolsChanged;
use crate::error::McpError;
use crate::handler::Handler;
use crate::http::start_http;
use crate::listing::{self, Listing};
use crate::process::ServerProcess;
use crate::redact::Redact;
use crate::spec::{ConnectOptions, Handshake, ServerSpec};
use crate::start::{StdioStart, start_stdio};
use crate::stderr::StderrLog;
use crate::words;

/// Who the server said it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerInfo {
    pub protocol_version: String,
    pub name: Option<String>,
    pub version: Option<String>,
    pub instructions: Option<String>,
}

/// A connected server.
pub struct Connection {
    /// Reads the list-change subscription (stateless protocol).
    listener: Option<tokio::task::JoinHandle<()>>,
    pub(crate) server: String,
    /// An HTTP server's address (its 401 and 403 name it).
    url: Option<String>,
    service: Mutex<Option<RunningService<RoleClient, Arc<Handler>>>>,
    pub(crate) peer: rmcp::service::Peer<RoleClient>,
    pub(crate) handler: Arc<Handler>,
    info: ServerInfo,
    process: Option<ServerProcess>,
    pub(crate) log: Arc<StderrLog>,
    /// The spec's secrets, out of every error and stderr line handed out.
    pub(crate) redact: Redact,
    grace: Duration,
    list_timeout: Duration,
    /// The server spoke `initialize` (an older protocol than 2026-07-28).
    initialize_only: bool,
    /// …only because its `server/discover` probe went unanswered.
    probe_timed_out: bool,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("server", &self.server)
            .field("info", &self.info)
            .field("pid", &self.process.as_ref().map(|p| p.pid))
            .finish_non_exhaustive()
    }
}

/// How long rmcp waits for an answer to `server/discover` before it tries
/// `initialize` (its `DEFAULT_AUTO_DISCOVER_TIMEOUT`, not exported).
const PROBE_WAIT: Duration = Duration::from_secs(10);

/// Protocol versions we ask for, newest first; older servers get the
/// `initialize` handshake (at once when an earlier connection learnt that
/// is all the server speaks).
fn lifecycle(handshake: &Handshake) -> ClientLifecycleMode {
    if handshake.initialize_only() {
        return ClientLifecycleMode::Initialize;
    }
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    }
}

impl Connection {
    /// Starts or reaches `spec` and does the handshake. `log` keeps the
    /// process's stderr (a supervisor passes the same one across
    /// restarts); `tools_changed` hears the server's list changes. What the
    /// handshake shows of the server goes into `options.handshake`.
    pub async fn connect(
        server: &str,
        spec: &ServerSpec,
        options: &ConnectOptions,
        log: Arc<StderrLog>,
        tools_changed: Option<ToolsChanged>,
    ) -> Result<Self, McpError> {
        let began = std::time::Instant::now();
        let connected = Self::connect_inner(server, spec, options, log, tools_changed).await;
        match &connected {
            Ok(c) => options.handshake.learn(began, c.initialize_only, c.probe_timed_out),
            Err(McpError::Handshake { .. }) => options.handshake.refused(),
            // A crash, a slow start timing out: nothing learnt of its protocol.
            Err(_) => {}
        }
        connected.map_err(|e| options.redact.error(e))
    }

    async fn connect_inner(
        server: &str,
        spec: &ServerSpec,
        options: &ConnectOptions,
        log: Arc<StderrLog>,
        tools_changed: Option<ToolsChanged>,
    ) -> Result<Self, McpError> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let handler = Arc::new(Handler::new(
            options.roots.clone(),
            &options.client_name,
            &options.client_version,
            tools_changed,
            Arc::clone(&log),
        ));
        // The first attempt's handshake time (a second means a definite answer).
        let probed = !options.handshake.initialize_only();
        let mut first_took = None;
        let (service, process) = match spec {
            ServerSpec::Stdio(s) => {
                let began = std::time::Instant::now();
                let first = start_stdio(server, s, options, &log, &handler, lifecycle(&options.handshake)).await;
                if first.is_ok() {
                    first_took = Some(began.elapsed());
                }
                match first {
                    // Answered `server/discover` with `{}` (see
                    // `http::start_http`): a fresh process, `initialize` alone.
                    Err(StdioStart::EmptyDiscover(proc)) => {
                        proc.stop(options.stop_grace).await;
                        match start_stdio(server, s, options, &log, &handler, ClientLifecycleMode::Initialize).await {
                            Ok(started) => started,
                            Err(e) => return Err(e.into_error(server, options, &log).await),
                        }
                    }
                    // A server of the newest protocol, slow to start (`uvx`
                    // fetching it): a fresh process, discovery alone, with
                    // the whole handshake time to answer.
                    Err(StdioStart::LateModern(proc)) => {
                        proc.stop(options.stop_grace).await;
                        let modern = ClientLifecycleMode::Discover {
                            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                        };
                        match start_stdio(server, s, options, &log, &handler, modern).await {
                            Ok(started) => started,
                            Err(e) => return Err(e.into_error(server, options, &log).await),
                        }
                    }
                    Err(e) => return Err(e.into_error(server, options, &log).await),
                    Ok(started) => started,
                }
            }
            ServerSpec::Http(h) => {
                let mode = lifecycle(&options.handshake);
                let (service, took) = start_http(server, h, options, &log, &handler, mode).await?;
                first_took = took;
                (service, None)
            }
        };
        let peer = service.peer().clone();
        // rmcp checks the version a discovery agrees on, but takes whatever
        // `initialize` answers; the spec says a client that does not
        // support it SHOULD disconnect.
        if let Some(version) = peer.peer_info().map(|i| i.protocol_version.clone())
            && !ProtocolVersion::KNOWN_VERSIONS.contains(&version)
        {
            let mut service = service;
            let _ = service.close_with_timeout(options.stop_grace).await;
            if let Some(p) = &process {
                p.stop(options.stop_grace).await;
            }
            let known: Vec<String> = ProtocolVersion::KNOWN_VERSIONS
                .iter()
                .map(ToString::to_string)
                .collect();
            return Err(McpError::Handshake {
                server: server.to_owned(),
                message: format!(
                    "it answered with protocol version {version}, which Atelier does not speak (it speaks {})",
                    known.join(", ")
                ),
                // Not the cause: the version says it all.
                stderr: Vec::new(),
            });
        }
        let initialize_only = peer.peer_info().is_some_and(|i| i.protocol_version.has_initialize());
        // rmcp falls back on `initialize` after PROBE_WAIT without an answer.
        let probe_timed_out = probed && initialize_only && first_took.is_some_and(|t| t >= PROBE_WAIT);
        let info = peer
            .peer_info()
            .map(|i| ServerInfo {
                protocol_version: i.protocol_version.to_string(),
                name: i.server_info.as_ref().map(|s| s.name.clone()),
                version: i.server_info.as_ref().map(|s| s.version.clone()),
                instructions: i.instructions.clone(),
            })
            .unwrap_or(ServerInfo {
                protocol_version: String::new(),
                name: None,
                version: None,
                instructions: None,
            });
        // On the stateless protocol (2026-07-28) list changes arrive only on
        // a `subscriptions/listen` stream the client opens; older servers
        // send them unasked (the handler hears those).
        let listener = match &handler.tools_changed {
            Some(changed) if info.protocol_version.as_str() >= crate::DISCOVERY_VERSION => {
                let (peer, changed) = (peer.clone(), Arc::clone(changed));
                Some(tokio::spawn(async move {
                    let filter = SubscriptionFilter::builder().tools_list_changed().build();
                    let Ok(mut sub) = peer.listen(filter).await else { return };
                    while let Ok(Some(n)) = sub.next().await {
                        if matches!(n, ServerNotification::ToolListChangedNotification(_)) {
                            changed();
                        }
                    }
                }))
            }
            _ => None,
        };
        crate::roots_wait::settle(&peer, &handler, initialize_only).await;
        Ok(Self {
            listener,
            server: server.to_owned(),
            url: match spec {
                ServerSpec::Http(h) => Some(h.url.clone()),
                ServerSpec::Stdio(_) => None,
            },
            service: Mutex::new(Some(service)),
            peer,
            handler,
            info,
            process,
            log,
            redact: options.redact.clone(),
            grace: options.stop_grace,
            list_timeout: options.list_timeout,
            initialize_only,
            probe_timed_out,
        })
    }

    pub fn info(&self) -> &ServerInfo {
        &self.info
    }

    /// The server's process id (stdio servers).
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(|p| p.pid)
    }

    /// How the process exited, if it has (stdio servers).
    pub fn exited(&self) -> Option<String> {
        self.process.as_ref().and_then(ServerProcess::exited)
    }

    /// Resolves when the process exits, with how (never, for HTTP).
    pub async fn wait_exit(&self) -> String {
        match &self.process {
            Some(p) => {
                let mut rx = p.exit.clone();
                match rx.wait_for(Option::is_some).await {
                    Ok(v) => v.clone().unwrap_or_default(),
                    Err(_) => "unknown status".to_owned(),
                }
            }
            None => std::future::pending().await,
        }
    }

    /// The kept stderr lines.
    pub fn stderr(&self) -> Vec<String> {
        self.redact.lines(self.log.tail())
    }

    /// Why its stdout could no longer be trusted and was closed (a message
    /// over the limit that answers no request we can tell), once it was.
    pub fn broken(&self) -> Option<String> {
        self.process.as_ref().and_then(|p| p.broken.borrow().clone())
    }

    /// Resolves when its stdout is closed as [`Self::broken`] says, with
    /// the error that says why (never, for HTTP).
    pub async fn wait_broken(&self) -> McpError {
        if let Some(p) = &self.process {
            let mut rx = p.broken.clone();
            if let Ok(why) = rx.wait_for(Option::is_some).await {
                return self.broken_error(why.clone().unwrap_or_default());
            }
        }
        std::future::pending().await
    }

    fn broken_error(&self, why: String) -> McpError {
        self.redact.error(McpError::Protocol {
            server: self.server.clone(),
            message: why,
        })
    }

    /// Why a request failed: the answer too large to read, a stdout that
    /// could not be trusted, the process's exit if that is the cause.
    pub(crate) async fn failure(&self, e: &rmcp::ServiceError) -> McpError {
        if let rmcp::ServiceError::McpError(data) = e
            && let Some((bytes, limit)) = crate::oversize::is_too_large(data.data.as_ref())
        {
            return McpError::TooLarge {
                server: self.server.clone(),
                bytes,
                limit,
            };
        }
        if let Some(why) = self.broken() {
            return self.broken_error(why);
        }
        if let Some(p) = &self.process
            && let Some(how) = p.wait_exit(Duration::from_millis(500)).await
        {
            return McpError::Exited {
                server: self.server.clone(),
                how,
            };
        }
        if let Some(e) = crate::http::auth_failure(&self.server, self.url.as_deref(), e) {
            return e;
        }
        McpError::Protocol {
            server: self.server.clone(),
            message: words::request(e),
        }
    }

    /// Every tool, all pages, within the limits of `listing` (pages,
    /// tools, `ConnectOptions::list_timeout`), with what is wrong with the
    /// list.
    pub async fn list_tools(&self) -> Result<Listing, McpError> {
        listing::list_pages(&self.server, self.list_timeout, |cursor| async move {
            let params = PaginatedRequestParams::default().with_cursor(cursor);
            match self.peer.list_tools(Some(params)).await {
                Ok(page) => Ok(page),
                Err(e) => Err(self.failure(&e).await),
            }
        })
        .await
        .map_err(|e| self.redact.error(e))
    }

    /// Stops the session: the protocol's close, then the process group
    /// (SIGTERM, then SIGKILL), and waits until it is reaped.
    pub async fn stop(&self) {
        if let Some(l) = &self.listener {
            l.abort();
        }
        if let Some(mut service) = self.service.lock().await.take() {
            let _ = service.close_with_timeout(self.grace).await;
        }
        if let Some(p) = &self.process {
            p.stop(self.grace).await;
        }
    }
}
