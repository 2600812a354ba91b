//! The MCP servers this process runs: one supervised instance per server
//! for shared servers, one per (server, chat) for chat-scoped ones, each
//! started when a call first needs it and stopped when its chat is idle
//! for [`McpSettings::idle`], deleted, or its server is disabled,
//! removed or restarted.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use atelier_mcp::{ConnectOptions, Connection, Handshake, Listing, Status, Supervisor, SupervisorOptions};

use super::servers::{Instance, ServerDetails, ServerRecord, ServerTransport};
use super::{Mcp, McpSettings};
use crate::toolsets::manifest::Scope;
use crate::{Atelier, Error, Result};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    server: String,
    /// The chat of a chat-scoped instance.
    chat: Option<String>,
}

#[derive(Debug)]
struct Entry {
    sup: Supervisor,
    /// When a call last started or ended on it.
    used: Arc<Mutex<Instant>>,
    /// Calls in flight: an instance with one is never idle.
    calls: Arc<AtomicUsize>,
}

impl Entry {
    fn new(sup: Supervisor) -> Self {
        Self {
            sup,
            used: Arc::new(Mutex::new(Instant::now())),
            calls: Arc::default(),
        }
    }

    fn idle_for(&self) -> std::time::Duration {
        if self.calls.load(Ordering::SeqCst) > 0 {
            return std::time::Duration::ZERO;
        }
        self.used.lock().unwrap_or_else(PoisonError::into_inner).elapsed()
    }

    fn lease(&self) -> Lease {
        self.calls.fetch_add(1, Ordering::SeqCst);
        *self.used.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
        Lease {
            sup: self.sup.clone(),
            used: Arc::clone(&self.used),
            calls: Arc::clone(&self.calls),
        }
    }
}

/// An instance in use by one call: while it lives the instance is busy,
/// and its end counts as the instance's last use.
#[derive(Debug)]
pub(crate) struct Lease {
    pub(crate) sup: Supervisor,
    used: Arc<Mutex<Instant>>,
    calls: Arc<AtomicUsize>,
}

impl Drop for Lease {
    fn drop(&mut self) {
        *self.used.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
        self.calls.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The running instances and the settings they start with.
#[derive(Debug, Default)]
pub(crate) struct Running {
    map: Mutex<HashMap<Key, Entry>>,
    /// Per server: whether it speaks only `initialize`, learnt by its
    /// connections (every chat's instance greets it the way that worked).
    handshakes: Mutex<HashMap<String, Handshake>>,
    settings: Mutex<McpSettings>,
    reaper: AtomicBool,
}

impl Running {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Entry>> {
        self.map.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn take(&self, keep: impl Fn(&Key, &Entry) -> bool) -> Vec<Supervisor> {
        let mut map = self.map();
        let gone: Vec<Key> = map
            .iter()
            .filter(|(k, e)| !keep(k, e))
            .map(|(k, _)| k.clone())
            .collect();
        gone.into_iter().filter_map(|k| map.remove(&k)).map(|e| e.sup).collect()
    }
}

/// Stops instances side by side: each may wait out its grace periods.
async fn stop(sups: Vec<Supervisor>) {
    let mut all = tokio::task::JoinSet::new();
    for s in sups {
        all.spawn(async move { s.stop().await });
    }
    while all.join_next().await.is_some() {}
}

impl Mcp<'_> {
    fn running(&self) -> &Running {
        self.app.mcp_running()
    }

    /// Replaces the timings (tests shorten them; the app keeps the defaults).
    pub fn configure(&self, settings: McpSettings) {
        *self.running().settings.lock().unwrap_or_else(PoisonError::into_inner) = settings;
    }

    pub fn settings(&self) -> McpSettings {
        self.running()
            .settings
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn connect_options(
        &self,
        server: &ServerRecord,
        roots: Option<Vec<std::path::PathBuf>>,
        redact: atelier_mcp::Redact,
    ) -> ConnectOptions {
        let s = self.settings();
        // This process's first connection starts from what the last one
        // recorded: a server that spoke an older protocol without failing
        // is greeted with `initialize` at once (a CLI command would pay the
        // probe — a second process, or 10 s — every time).
        let old = server.last_error.is_none()
            && server
                .protocol_version
                .as_deref()
                .is_some_and(|v| v < atelier_mcp::DISCOVERY_VERSION);
        let handshake = self
            .running()
            .handshakes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(server.id.clone())
            .or_insert_with(|| {
                if old {
                    Handshake::learnt_old()
                } else {
                    Handshake::default()
                }
            })
            .clone();
        ConnectOptions {
            handshake_timeout: s.handshake,
            roots,
            stop_grace: s.stop_grace,
            handshake,
            redact,
            oauth: (server.transport == ServerTransport::Http).then(|| self.oauth(&server.id)),
            ..Default::default()
        }
    }

    /// A running instance of server `id` a call in `chat` may use, found
    /// without reading the database (the common case: it is up).
    pub(crate) fn running_instance(&self, id: &str, chat: &str) -> Option<Lease> {
        let map = self.running().map();
        [Some(chat.to_owned()), None].into_iter().find_map(|chat| {
            let key = Key {
                server: id.to_owned(),
                chat,
            };
            map.get(&key)
                .filter(|e| !matches!(e.sup.status(), Status::Stopped))
                .map(Entry::lease)
        })
    }

    /// The running instance of `server` for a call in `chat`, started if
    /// none runs.
    pub(crate) async fn instance(&self, server: &ServerRecord, chat: &str) -> Result<Lease> {
        let key = Key {
            server: server.id.clone(),
            chat: (server.scope == Scope::Chat).then(|| chat.to_owned()),
        };
        if let Some(e) = self.running().map().get(&key)
            && !matches!(e.sup.status(), Status::Stopped)
        {
            return Ok(e.lease());
        }
        let launch = self.launch(server, key.chat.as_deref()).await?;
        let settings = self.settings();
        let weak = self.app.downgrade();
        let id = server.id.clone();
        // Every listing (after each connection, after `list_changed`)
        // refreshes the cached tools the pool is built from.
        let on_tools: atelier_mcp::ToolsListed = Arc::new(move |listing: &Listing| {
            let (weak, id, listing) = (weak.clone(), id.clone(), listing.clone());
            tokio::spawn(async move {
                if let Some(app) = weak.upgrade()
                    && let Err(e) = app.mcp().store_listing(&id, Ok((None, &listing))).await
                {
                    tracing::warn!(server = %id, error = %e, "could not store the server's tools");
                }
            });
        });
        let options = SupervisorOptions {
            connect: self.connect_options(server, launch.roots, launch.redact),
            backoff_start: settings.backoff_start,
            ..Default::default()
        };
        let sup = Supervisor::start(&server.id, launch.spec, options, Some(on_tools));
        let entry = Entry::new(sup);
        let lease = entry.lease();
        let replaced = self.running().map().insert(key, entry);
        if let Some(old) = replaced {
            old.sup.stop().await;
        }
        self.spawn_reaper();
        Ok(lease)
    }

    /// Stops idle chat instances now and then, while the app lives.
    fn spawn_reaper(&self) {
        if self.running().reaper.swap(true, Ordering::SeqCst) {
            return;
        }
        let weak = self.app.downgrade();
        tokio::spawn(async move {
            loop {
                // Read each time (the idle time may be reconfigured); a
                // look at the map each second costs nothing.
                let every = match weak.upgrade() {
                    Some(app) => {
                        (app.mcp().settings().idle / 4).clamp(Duration::from_millis(100), Duration::from_secs(1))
                    }
                    None => break,
                };
                tokio::time::sleep(every).await;
                let Some(app) = weak.upgrade() else { break };
                app.mcp().reap_idle().await;
            }
        });
    }

    /// Stops chat instances unused for [`McpSettings::idle`].
    pub async fn reap_idle(&self) {
        let idle = self.settings().idle;
        stop(self.running().take(|k, e| k.chat.is_none() || e.idle_for() < idle)).await;
    }

    /// Stops the instances of server `id` (removed, turned off or
    /// restarted) and forgets its handshake: it may have been upgraded.
    pub(crate) async fn stop_all(&self, id: &str) {
        (self.running().handshakes.lock().unwrap_or_else(PoisonError::into_inner)).remove(id);
        stop(self.running().take(|k, _| k.server != id)).await;
    }

    /// Stops the instances of a chat (it was deleted).
    pub async fn stop_chat(&self, chat_id: &str) {
        stop(self.running().take(|k, _| k.chat.as_deref() != Some(chat_id))).await;
    }

    /// Stops every instance (the app is closing).
    pub async fn stop_everything(&self) {
        stop(self.running().take(|_, _| false)).await;
    }

    /// Servers no enabled toolset or person needs any more are stopped
    /// (after a toolset is disabled, uninstalled or upgraded).
    pub(crate) async fn stop_unneeded(&self) -> Result<()> {
        let active: Vec<String> = self
            .list()
            .await?
            .into_iter()
            .filter(|s| s.active)
            .map(|s| s.id)
            .collect();
        stop(self.running().take(|k, _| active.contains(&k.server))).await;
        Ok(())
    }

    /// Connects to a server afresh and lists its tools (`mcp restart`; also
    /// after adding or enabling one): its instances are stopped, a shared
    /// server then keeps running, a chat-scoped one stops until a call
    /// needs it. The listing (or its failure) is stored with the row.
    pub async fn refresh(&self, id: &str) -> Result<ServerRecord> {
        self.stop_all(id).await;
        let server = self.get(id).await?;
        if !server.active {
            return Err(Error::Conflict(format!(
                "MCP server {id:?} is disabled{}: enable it first",
                if server.enabled {
                    " (its toolset is disabled)"
                } else {
                    ""
                }
            )));
        }
        let listed = self.list_once(&server).await;
        match listed {
            Ok((info, listing)) => self.store_listing(id, Ok((Some(&info), &listing))).await?,
            Err(e) => {
                self.store_listing(id, Err(e.to_string())).await?;
                return Err(e);
            }
        }
        self.get(id).await
    }

    /// Lists a server's tools as [`Self::refresh`] does, unless an instance
    /// of it runs (connected or starting): then its listing is current (every connection and list
    /// change stores it) and nothing is stopped. What the app does for the
    /// servers of a toolset just installed: another toolset declaring the
    /// same server may have chats using it.
    pub async fn list_if_idle(&self, id: &str) -> Result<ServerRecord> {
        // An instance in error or stopped lists nothing: list afresh.
        let running = self
            .running()
            .map()
            .iter()
            .any(|(k, e)| k.server == id && matches!(e.sup.status(), Status::Connected { .. } | Status::Starting));
        if running {
            return self.get(id).await;
        }
        self.refresh(id).await
    }

    /// Lists, one after another, every active server never listed and
    /// never failed (a toolset imported by the CLI, or while the app was
    /// closed): what the app does once at start, so a model is offered their
    /// tools without a trip to Settings. A failure is kept with its server,
    /// as any listing's; a server that failed before is not tried again.
    /// Returns the ids now listed.
    pub async fn list_unlisted(&self) -> Result<Vec<String>> {
        let mut listed = Vec::new();
        for s in self.list().await? {
            if !s.active || s.tools.is_some() || s.last_error.is_some() {
                continue;
            }
            match self.list_if_idle(&s.id).await {
                Ok(_) => listed.push(s.id),
                Err(e) => tracing::info!(server = %s.id, error = %e, "could not list the server's tools"),
            }
        }
        Ok(listed)
    }

    async fn list_once(&self, server: &ServerRecord) -> Result<(atelier_mcp::ServerInfo, Listing)> {
        if server.scope == Scope::Shared {
            let sup = self.instance(server, "").await?.sup.clone();
            sup.ready().await?;
            let listing = sup.listing().unwrap_or_default();
            let info = match sup.status() {
                Status::Connected { info, .. } => info,
                other => {
                    return Err(atelier_mcp::McpError::NotRunning {
                        server: server.id.clone(),
                        status: other.to_string(),
                    }
                    .into());
                }
            };
            return Ok((info, listing));
        }
        let launch = self.launch(server, None).await?;
        // A chat's instance is offered its workspace as its root, and some
        // servers announce tools only to a client with roots
        // (server-everything's get-roots-list): the listing offers an empty
        // folder, so the pool has the tools every chat will see before any
        // chat has started the server, and a restart does not drop them.
        // One folder per listing: two may run at once (Restart in Settings
        // while an install lists, the CLI on the same data dir).
        let root = self
            .server_dir(&server.id)
            .join(format!("listing-{}", crate::ids::new_id()));
        tokio::fs::create_dir_all(&root)
            .await
            .map_err(Error::io("create", &root))?;
        let listed = async {
            let conn = Connection::connect(
                &server.id,
                &launch.spec,
                &self.connect_options(server, Some(vec![root.clone()]), launch.redact.clone()),
                Arc::default(),
                None,
            )
            .await?;
            let tools = conn.list_tools().await;
            let info = conn.info().clone();
            conn.stop().await;
            Ok((info, tools?))
        }
        .await;
        // What the server may have written there goes with it.
        if let Err(e) = tokio::fs::remove_dir_all(&root).await {
            tracing::warn!(server = %server.id, error = %e, "could not remove the listing's folder");
        }
        listed
    }

    /// A server with how it runs in this process.
    pub async fn details(&self, id: &str) -> Result<ServerDetails> {
        let server = self.get(id).await?;
        let mut instances: Vec<(Instance, Supervisor)> = self
            .running()
            .map()
            .iter()
            .filter(|(k, _)| k.server == id)
            .map(|(k, e)| {
                (
                    Instance {
                        chat_id: k.chat.clone(),
                        status: e.sup.status().label().to_owned(),
                        pid: e.sup.pid(),
                    },
                    e.sup.clone(),
                )
            })
            .collect();
        instances.sort_by(|a, b| a.0.chat_id.cmp(&b.0.chat_id));
        let rank = |s: &str| match s {
            "connected" => 0,
            "starting" => 1,
            "error" | "needs sign-in" => 2,
            _ => 3,
        };
        let best = instances.iter().min_by_key(|(i, _)| rank(&i.status));
        // Stopped after a sign-in was refused (its last listing says so):
        // what the person can do about it is sign in.
        let status = match best {
            Some((i, _)) => i.status.clone(),
            None if server.active && server.needs_sign_in() => "needs sign-in".to_owned(),
            None => "stopped".to_owned(),
        };
        let message = instances.iter().find_map(|(_, s)| match s.status() {
            Status::Error { .. } | Status::NeedsSignIn { .. } => Some(s.status().to_string()),
            _ => None,
        });
        let stderr = instances
            .iter()
            .map(|(_, s)| s.stderr())
            .max_by_key(Vec::len)
            .unwrap_or_default();
        Ok(ServerDetails {
            message: message.or_else(|| {
                matches!(status.as_str(), "stopped" | "needs sign-in")
                    .then(|| server.last_error.clone())
                    .flatten()
            }),
            server,
            status,
            instances: instances.into_iter().map(|(i, _)| i).collect(),
            stderr,
        })
    }
}

impl Atelier {
    /// After a toolset changed (disabled, uninstalled, upgraded): a server
    /// it alone declares stops (an upgrade's starts afresh on the next
    /// call); one another enabled toolset declares too keeps running until
    /// neither needs it.
    pub(crate) async fn mcp_after_toolset_change(&self, toolset_id: &str) {
        let alone: Vec<String> = sqlx::query_scalar(
            "SELECT d.server_id FROM toolset_mcp_servers d WHERE d.toolset_id = ?1 AND NOT EXISTS \
             (SELECT 1 FROM toolset_mcp_servers o JOIN toolsets t ON t.id = o.toolset_id \
              WHERE o.server_id = d.server_id AND o.toolset_id != ?1 AND t.enabled = 1)",
        )
        .bind(toolset_id)
        .fetch_all(self.db())
        .await
        .unwrap_or_default();
        for id in alone {
            self.mcp().stop_all(&id).await;
        }
        if let Err(e) = self.mcp().stop_unneeded().await {
            tracing::warn!(toolset = %toolset_id, error = %e, "could not stop MCP servers no longer needed");
        }
    }
}
