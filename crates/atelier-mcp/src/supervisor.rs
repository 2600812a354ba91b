//! Keeping one server up: its status, its tool list, restarts with
//! backoff after a crash, and fast failures while it is down.
//!
//! A supervisor connects, lists the tools, and then watches the process:
//! when it exits (or its stdout is closed as untrustworthy, see
//! `oversize`), the status says how, calls fail at once with that, and
//! a new connection is tried after a backoff (1 s doubling to 30 s, back
//! to 1 s once a connection stayed up a minute). A start error that a
//! retry cannot fix — the command does not exist, the server wants a
//! sign-in — is not retried.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use crate::call::{CallOptions, CallResult};
use crate::connection::{Connection, ServerInfo};
use crate::error::McpError;
use crate::listing::{Listing, ToolInfo};
use crate::spec::{ConnectOptions, ServerSpec};
use crate::stderr::StderrLog;

/// Where a server is.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Starting,
    Connected {
        info: ServerInfo,
        tools: usize,
    },
    /// Failed to start, or exited; `retry_in` when a restart is planned.
    Error {
        message: String,
        retry_in: Option<Duration>,
    },
    /// An HTTP server that wants the person to sign in (again): nothing
    /// is retried until they have.
    NeedsSignIn {
        message: String,
    },
    Stopped,
}

impl Status {
    pub fn label(&self) -> &'static str {
        match self {
            Status::Starting => "starting",
            Status::Connected { .. } => "connected",
            Status::Error { .. } => "error",
            Status::NeedsSignIn { .. } => "needs sign-in",
            Status::Stopped => "stopped",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Error {
                message,
                retry_in: Some(d),
            } => {
                write!(f, "{message} (restarting in {} s)", d.as_secs_f64().ceil())
            }
            Status::Error { message, .. } | Status::NeedsSignIn { message } => f.write_str(message),
            other => f.write_str(other.label()),
        }
    }
}

/// Restart timing and how to connect.
#[derive(Debug, Clone)]
pub struct SupervisorOptions {
    pub connect: ConnectOptions,
    pub backoff_start: Duration,
    pub backoff_max: Duration,
    /// A connection up this long resets the backoff.
    pub stable_after: Duration,
}

impl Default for SupervisorOptions {
    fn default() -> Self {
        Self {
            connect: ConnectOptions::default(),
            backoff_start: Duration::from_secs(1),
            backoff_max: Duration::from_secs(30),
            stable_after: Duration::from_secs(60),
        }
    }
}

/// Told when the server's tools were (re)listed: after each connection
/// and after each `list_changed`.
pub type ToolsListed = Arc<dyn Fn(&Listing) + Send + Sync>;

struct Inner {
    server: String,
    spec: ServerSpec,
    options: SupervisorOptions,
    log: Arc<StderrLog>,
    status: watch::Sender<Status>,
    /// Why the last connection attempt failed (what `ready` answers).
    failure: Mutex<Option<McpError>>,
    conn: Mutex<Option<Arc<Connection>>>,
    listing: Mutex<Option<Listing>>,
    relist: Notify,
    stop: CancellationToken,
    on_tools: Option<ToolsListed>,
    /// The task running [`run`]: stop waits for it, so that a stopped
    /// supervisor has no process left.
    task: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

/// One supervised server. Cloning shares it.
#[derive(Clone)]
pub struct Supervisor {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Supervisor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Supervisor")
            .field("server", &self.inner.server)
            .field("status", &*self.inner.status.borrow())
            .finish_non_exhaustive()
    }
}

impl Supervisor {
    /// Starts supervising `spec` (the first connection begins at once).
    pub fn start(server: &str, spec: ServerSpec, options: SupervisorOptions, on_tools: Option<ToolsListed>) -> Self {
        let (status, _) = watch::channel(Status::Starting);
        let inner = Arc::new(Inner {
            server: server.to_owned(),
            spec,
            options,
            log: Arc::default(),
            status,
            failure: Mutex::default(),
            conn: Mutex::default(),
            listing: Mutex::default(),
            relist: Notify::new(),
            stop: CancellationToken::new(),
            on_tools,
            task: Mutex::default(),
        });
        let task = tokio::spawn(run(Arc::clone(&inner)));
        *inner.task.lock().unwrap_or_else(PoisonError::into_inner) = Some(task);
        Self { inner }
    }

    pub fn server(&self) -> &str {
        &self.inner.server
    }

    pub fn spec(&self) -> &ServerSpec {
        &self.inner.spec
    }

    pub fn status(&self) -> Status {
        self.inner.status.borrow().clone()
    }

    /// The kept stderr lines (across restarts), its secrets taken out.
    pub fn stderr(&self) -> Vec<String> {
        self.inner.options.connect.redact.lines(self.inner.log.tail())
    }

    /// The tools of the last listing.
    pub fn tools(&self) -> Option<Vec<ToolInfo>> {
        self.listing().map(|l| l.tools)
    }

    /// The last listing: its tools and what is wrong with the list.
    pub fn listing(&self) -> Option<Listing> {
        self.inner
            .listing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The process id of the current connection (stdio).
    pub fn pid(&self) -> Option<u32> {
        self.connection().and_then(|c| c.pid())
    }

    fn connection(&self) -> Option<Arc<Connection>> {
        self.inner.conn.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Waits for the first connection (or its failure) to settle: the
    /// tools once connected, else why not.
    pub async fn ready(&self) -> Result<Vec<ToolInfo>, McpError> {
        let mut rx = self.inner.status.subscribe();
        let settled = rx
            .wait_for(|s| !matches!(s, Status::Starting))
            .await
            .map(|s| s.clone())
            .unwrap_or(Status::Stopped);
        match settled {
            Status::Connected { .. } => Ok(self.tools().unwrap_or_default()),
            other => Err(self
                .inner
                .failure
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone()
                .unwrap_or_else(|| self.down(&other))),
        }
    }

    fn down(&self, status: &Status) -> McpError {
        McpError::NotRunning {
            server: self.inner.server.clone(),
            status: status.to_string(),
        }
    }

    /// Calls a tool on the current connection; while the server starts the
    /// call waits for it, while it is down the call fails at once.
    pub async fn call(&self, tool: &str, args: &Value, options: &CallOptions) -> Result<CallResult, McpError> {
        if matches!(self.status(), Status::Starting) {
            tokio::select! {
                _ = self.ready() => {}
                () = options.cancel.cancelled() => return Err(McpError::Cancelled),
            }
        }
        match self.connection() {
            Some(c) => {
                let done = c.call(tool, args, options).await;
                if let (Err(McpError::InsufficientScope { scope: Some(s), .. }), Some(o)) =
                    (&done, &self.inner.options.connect.oauth)
                {
                    crate::oauth::remember_wanted(&o.store, s).await;
                }
                if matches!(done, Err(McpError::Exited { .. })) || c.broken().is_some() {
                    // The exit (or a closed stdout) is noticed by the loop
                    // too: wait until the status says so, so the next
                    // caller reads it.
                    let mut rx = self.inner.status.subscribe();
                    let _ = tokio::time::timeout(
                        Duration::from_secs(2),
                        rx.wait_for(|s| !matches!(s, Status::Connected { .. })),
                    )
                    .await;
                }
                done
            }
            None => Err(self.down(&self.status())),
        }
    }

    /// Lists the tools again now (as after `list_changed`).
    pub async fn relist(&self) -> Result<Listing, McpError> {
        let conn = self.connection().ok_or_else(|| self.down(&self.status()))?;
        list(&self.inner, &conn).await
    }

    /// Stops the server for good (the process is reaped before this
    /// returns).
    pub async fn stop(&self) {
        self.inner.stop.cancel();
        let conn = self.inner.conn.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(c) = conn {
            c.stop().await;
        }
        // The loop may hold the connection too (it stops it on the same
        // signal): wait until it has.
        let task = self.inner.task.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(t) = task {
            let _ = t.await;
        }
        self.inner.status.send_replace(Status::Stopped);
    }
}

async fn list(inner: &Inner, conn: &Connection) -> Result<Listing, McpError> {
    let listing = conn.list_tools().await?;
    *inner.listing.lock().unwrap_or_else(PoisonError::into_inner) = Some(listing.clone());
    inner.status.send_modify(|s| {
        if let Status::Connected { tools: n, .. } = s {
            *n = listing.tools.len();
        }
    });
    if let Some(f) = &inner.on_tools {
        f(&listing);
    }
    Ok(listing)
}

/// Connect, list, watch; restart after a crash.
async fn run(inner: Arc<Inner>) {
    let mut backoff = inner.options.backoff_start;
    loop {
        if inner.stop.is_cancelled() {
            return;
        }
        inner.status.send_replace(Status::Starting);
        let weak = Arc::downgrade(&inner);
        let changed: crate::ToolsChanged = Arc::new(move || {
            if let Some(i) = weak.upgrade() {
                i.relist.notify_one();
            }
        });
        let connected = tokio::select! {
            c = Connection::connect(&inner.server, &inner.spec, &inner.options.connect, Arc::clone(&inner.log), Some(changed)) => c,
            () = inner.stop.cancelled() => return,
        };
        let (message, retry) = match connected {
            Ok(conn) => {
                let conn = Arc::new(conn);
                let up_since = Instant::now();
                *inner.conn.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&conn));
                if inner.stop.is_cancelled() {
                    // stop() ran between connect and here: it found no
                    // connection to stop.
                    conn.stop().await;
                    return;
                }
                // Connected once the tools are known: a caller waiting in
                // `ready` gets them.
                let first = list(&inner, &conn).await;
                if let Ok(listing) = &first {
                    *inner.failure.lock().unwrap_or_else(PoisonError::into_inner) = None;
                    inner.status.send_replace(Status::Connected {
                        info: conn.info().clone(),
                        tools: listing.tools.len(),
                    });
                }
                let ended = match first {
                    Err(e) => Some(e.to_string()),
                    Ok(_) => loop {
                        tokio::select! {
                            () = inner.relist.notified() => {
                                // A relisting cut short by a stop is no news.
                                if let Err(e) = list(&inner, &conn).await
                                    && !inner.stop.is_cancelled()
                                {
                                    tracing::warn!(server = %inner.server, "relisting tools failed: {e}");
                                }
                            }
                            how = conn.wait_exit() => {
                                let message = McpError::Exited { server: inner.server.clone(), how }.to_string();
                                // Said before the connection goes: a call
                                // that finds none reads why.
                                inner.status.send_replace(Status::Error {
                                    message: message.clone(),
                                    retry_in: Some(backoff),
                                });
                                break Some(message);
                            }
                            // Its stdout could not be trusted and was
                            // closed: the process runs on, unreachable.
                            e = conn.wait_broken() => {
                                let message = e.to_string();
                                inner.status.send_replace(Status::Error {
                                    message: message.clone(),
                                    retry_in: Some(backoff),
                                });
                                break Some(message);
                            }
                            () = inner.stop.cancelled() => break None,
                        }
                    },
                };
                *inner.conn.lock().unwrap_or_else(PoisonError::into_inner) = None;
                conn.stop().await;
                let Some(message) = ended else { return };
                if up_since.elapsed() >= inner.options.stable_after {
                    backoff = inner.options.backoff_start;
                }
                (message, true)
            }
            Err(e) => {
                // Retrying cannot fix these.
                let retry = !matches!(e, McpError::Spawn { .. }) && !e.needs_sign_in();
                let message = e.to_string();
                let sign_in = e.needs_sign_in();
                *inner.failure.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
                if sign_in {
                    if !inner.stop.is_cancelled() {
                        inner.status.send_replace(Status::NeedsSignIn { message });
                    }
                    return;
                }
                (message, retry)
            }
        };
        if inner.stop.is_cancelled() {
            return;
        }
        inner.status.send_replace(Status::Error {
            message,
            retry_in: retry.then_some(backoff),
        });
        if !retry {
            return;
        }
        tokio::select! {
            () = tokio::time::sleep(backoff) => {}
            () = inner.stop.cancelled() => return,
        }
        backoff = (backoff * 2).min(inner.options.backoff_max);
    }
}
