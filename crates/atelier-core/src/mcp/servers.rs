//! The `mcp_servers` rows: what a person added and what toolsets declare,
//! whether each is usable, and what it offered when last listed.
//!
//! A server is *active* when its row is enabled and it is either the
//! person's or declared by at least one enabled toolset: disabling the
//! last toolset that needs a server takes its tools away without touching
//! the row, and enabling a toolset brings them back. A toolset-declared
//! server runs per chat or once for all chats as its toolset's `scope`
//! says; the person's servers are shared.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::Row;

use super::Mcp;
use crate::secrets::{Owner, Secret};
use crate::toolsets::manifest::{McpServerDecl, Scope, reference_name};
use crate::{Error, Result, db, ids};

/// How a server is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ServerTransport {
    /// A command speaking MCP on stdin/stdout.
    Stdio,
    /// A streamable-HTTP URL.
    Http,
}

/// One tool as its server listed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct McpTool {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub input_schema: Value,
    /// The server says it changes nothing (`readOnlyHint`): no question
    /// before it runs.
    pub read_only: bool,
    pub destructive: bool,
    /// What its `structuredContent` must match (MCP 2025-06-18 on); a
    /// result that does not is a failed call, as the reference SDK's
    /// client has it. Listings stored before it was kept have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "JsonValue")]
    pub output_schema: Option<Value>,
}

impl From<atelier_mcp::ToolInfo> for McpTool {
    fn from(t: atelier_mcp::ToolInfo) -> Self {
        Self {
            name: t.name,
            title: t.title,
            description: t.description,
            input_schema: t.input_schema,
            read_only: t.read_only,
            destructive: t.destructive,
            output_schema: t.output_schema,
        }
    }
}

/// An MCP server as stored. Secret values are never here: `env_keys` and
/// `header_keys` only name them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ServerRecord {
    pub id: String,
    pub transport: ServerTransport,
    pub command: Option<String>,
    pub args: Vec<String>,
    pub url: Option<String>,
    pub env_keys: Vec<String>,
    pub header_keys: Vec<String>,
    /// Seconds a call of its tools may go without news before it is
    /// stopped; `None`: the app's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub timeout_s: Option<f64>,
    /// The row's switch (`mcp enable|disable`).
    pub enabled: bool,
    /// Enabled, and the person's or needed by an enabled toolset: its
    /// tools are in the pool.
    pub active: bool,
    /// Added by the person (settings, `mcp add`).
    pub user_declared: bool,
    /// The toolsets that declare it, in no particular order.
    pub toolsets: Vec<String>,
    pub scope: Scope,
    /// What it offered when last listed; `None`: never listed.
    pub tools: Option<Vec<McpTool>>,
    pub server_name: Option<String>,
    pub server_version: Option<String>,
    pub protocol_version: Option<String>,
    pub listed_at: Option<String>,
    /// Why the last connection failed, if it did.
    pub last_error: Option<String>,
    /// What its last listing found wrong with its list (a tool listed
    /// twice: the first kept), each naming the server and the tool.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<String>>", optional)]
    pub warnings: Vec<String>,
}

/// A row with how it is running in this process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ServerDetails {
    pub server: ServerRecord,
    /// `starting`, `connected`, `error` or `stopped` (the best of its
    /// running instances; `stopped` when none runs).
    pub status: String,
    /// The error or exit of an instance in `error`.
    pub message: Option<String>,
    /// Instances running now: a shared server has at most one, a chat
    /// server one per chat that used it lately.
    pub instances: Vec<Instance>,
    /// The last lines the server wrote to stderr (any instance).
    pub stderr: Vec<String>,
}

/// One running instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Instance {
    pub chat_id: Option<String>,
    pub status: String,
    pub pid: Option<u32>,
}

/// A server a person adds.
#[derive(Debug, Clone, Default)]
pub struct NewServer {
    pub id: String,
    pub command: Option<String>,
    pub args: Vec<String>,
    pub url: Option<String>,
    /// Values go to the secret store (owner `mcp:<id>`), never the row.
    pub env: Vec<(String, Secret)>,
    pub headers: Vec<(String, Secret)>,
    /// Seconds a call may go without news (`None`: the app's default).
    pub timeout_s: Option<f64>,
}

/// `mcp_servers.id`: what a model-facing name may start with.
pub(crate) fn check_id(id: &str) -> Result<()> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && !id.starts_with(['-', '_']);
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidData {
            what: "MCP server id",
            reason: format!("{id:?}: use 1-64 letters, digits, `-` and `_`, starting with a letter or digit"),
        })
    }
}

fn parse_json<T: serde::de::DeserializeOwned>(what: &'static str, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Error::InvalidData {
        what,
        reason: e.to_string(),
    })
}

macro_rules! server_select {
    ($tail:literal) => {
        concat!(
            "SELECT m.id, m.config, m.enabled, m.user_declared, m.tools, m.server_info, m.listed_at, ",
            "m.last_error, (m.enabled = 1 AND (m.user_declared = 1 OR EXISTS (SELECT 1 FROM toolset_mcp_servers d ",
            "JOIN toolsets t ON t.id = d.toolset_id WHERE d.server_id = m.id AND t.enabled = 1))) AS active ",
            "FROM mcp_servers m ",
            $tail
        )
    };
}

impl Mcp<'_> {
    async fn record(&self, row: &sqlx::sqlite::SqliteRow) -> Result<ServerRecord> {
        let id: String = row.try_get("id")?;
        let decl: McpServerDecl = parse_json("MCP server config", &row.try_get::<String, _>("config")?)?;
        let user_declared: bool = row.try_get("user_declared")?;
        let declaring = sqlx::query(
            "SELECT d.toolset_id, t.scope, t.enabled FROM toolset_mcp_servers d JOIN toolsets t ON t.id = d.toolset_id \
             WHERE d.server_id = ? ORDER BY t.enabled DESC, d.position, d.toolset_id",
        )
        .bind(&id)
        .fetch_all(self.app.db())
        .await?;
        let toolsets = declaring
            .iter()
            .map(|r| r.try_get::<String, _>("toolset_id"))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let scope = match (user_declared, declaring.first()) {
            (false, Some(r)) => Scope::parse(&r.try_get::<String, _>("scope")?).unwrap_or_default(),
            _ => Scope::Shared,
        };
        let info: Option<Value> = row
            .try_get::<Option<String>, _>("server_info")?
            .map(|t| parse_json("MCP server info", &t))
            .transpose()?;
        let field = |k: &str| {
            info.as_ref()
                .and_then(|i| i.get(k))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        Ok(ServerRecord {
            transport: if decl.url.is_some() {
                ServerTransport::Http
            } else {
                ServerTransport::Stdio
            },
            command: decl.command.clone(),
            args: decl.args.clone(),
            url: decl.url.clone(),
            env_keys: decl.env.keys().cloned().collect(),
            header_keys: decl.headers.keys().cloned().collect(),
            timeout_s: decl.timeout_s,
            enabled: row.try_get("enabled")?,
            active: row.try_get("active")?,
            user_declared,
            toolsets,
            scope,
            tools: row
                .try_get::<Option<String>, _>("tools")?
                .map(|t| parse_json("MCP server tools", &t))
                .transpose()?,
            server_name: field("name"),
            server_version: field("version"),
            protocol_version: field("protocol_version"),
            listed_at: row.try_get("listed_at")?,
            last_error: row.try_get("last_error")?,
            warnings: info
                .as_ref()
                .and_then(|i| i.get("warnings"))
                .and_then(|w| serde_json::from_value(w.clone()).ok())
                .unwrap_or_default(),
            id,
        })
    }

    /// Every server, by id.
    pub async fn list(&self) -> Result<Vec<ServerRecord>> {
        let rows = sqlx::query(server_select!("ORDER BY m.id"))
            .fetch_all(self.app.db())
            .await?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            out.push(self.record(r).await?);
        }
        Ok(out)
    }

    /// One server.
    pub async fn get(&self, id: &str) -> Result<ServerRecord> {
        let row = sqlx::query(server_select!("WHERE m.id = ?"))
            .bind(id)
            .fetch_optional(self.app.db())
            .await?
            .ok_or_else(|| Error::McpServerNotFound(id.to_owned()))?;
        self.record(&row).await
    }

    /// The declaration a row holds (references, never values).
    pub(crate) async fn decl(&self, id: &str) -> Result<McpServerDecl> {
        let config: String = sqlx::query_scalar("SELECT config FROM mcp_servers WHERE id = ?")
            .bind(id)
            .fetch_optional(self.app.db())
            .await?
            .ok_or_else(|| Error::McpServerNotFound(id.to_owned()))?;
        parse_json("MCP server config", &config)
    }

    /// Adds a server of the person's (shared, enabled). Its `env` and
    /// header values go to the secret store; the row keeps `${KEY}`
    /// references. Nothing is started: see [`Mcp::refresh`].
    pub async fn add(&self, new: NewServer) -> Result<ServerRecord> {
        check_id(&new.id)?;
        match (&new.command, &new.url) {
            (Some(c), None) if !c.trim().is_empty() => {}
            (None, Some(u)) if u.starts_with("http://") || u.starts_with("https://") => {}
            (None, Some(u)) => {
                return Err(Error::InvalidData {
                    what: "MCP server URL",
                    reason: format!("{u:?}: use an http:// or https:// address"),
                });
            }
            _ => {
                return Err(Error::InvalidData {
                    what: "MCP server",
                    reason: format!("server {:?} needs either a command or a URL, not both", new.id),
                });
            }
        }
        if new.command.is_none() && !new.env.is_empty() {
            return Err(Error::InvalidData {
                what: "MCP server",
                reason: "env applies to a command; an HTTP server takes headers".to_owned(),
            });
        }
        if let Some(t) = new.timeout_s
            && !(t > 0.0 && t <= crate::toolsets::validate::MAX_TIMEOUT_S)
        {
            return Err(Error::InvalidData {
                what: "MCP server timeout",
                reason: format!(
                    "{t} s: give a number of seconds above 0 and at most {} (a day)",
                    crate::toolsets::validate::MAX_TIMEOUT_S
                ),
            });
        }
        let mut tx = db::begin_write(self.app.db()).await?;
        let clash: Option<String> = sqlx::query_scalar(
            "SELECT 'an MCP server' FROM mcp_servers WHERE id = ?1 \
             UNION ALL SELECT 'toolset ' || quote(id) || ' (as its id or prefix)' FROM toolsets WHERE id = ?1 OR prefix = ?1 LIMIT 1",
        )
        .bind(&new.id)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(other) = clash {
            return Err(Error::Conflict(format!(
                "{:?} is already used by {} (toolsets and MCP servers share one namespace)",
                new.id,
                other.replace('\'', "\"")
            )));
        }
        let owner = Owner::Mcp(new.id.clone());
        let refs = |pairs: &[(String, Secret)]| -> std::collections::BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, _)| (k.clone(), format!("${{{}}}", reference_name(k))))
                .collect()
        };
        let decl = McpServerDecl {
            id: new.id.clone(),
            command: new.command.clone(),
            args: new.args.clone(),
            env: refs(&new.env),
            url: new.url.clone(),
            headers: refs(&new.headers),
            auto_enabled: true,
            timeout_s: new.timeout_s,
            extra: Default::default(),
        };
        let now = ids::now();
        sqlx::query(
            "INSERT INTO mcp_servers (id, name, config, enabled, user_declared, created_at, updated_at) \
             VALUES (?1, ?1, ?2, 1, 1, ?3, ?3)",
        )
        .bind(&new.id)
        .bind(serde_json::to_string(&decl.config_json()).map_err(|e| Error::Internal(e.to_string()))?)
        .bind(&now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        // The secret store writes rows of its own: after the commit. A row
        // is never left pointing at values that were not stored.
        for (k, v) in new.env.iter().chain(&new.headers) {
            if let Err(e) = self.app.secrets().set(&owner, &reference_name(k), v.clone()).await {
                let _ = sqlx::query("DELETE FROM mcp_servers WHERE id = ?")
                    .bind(&new.id)
                    .execute(self.app.db())
                    .await;
                for name in self.app.secrets().list(Some(&owner)).await.unwrap_or_default() {
                    let _ = self.app.secrets().unset(&owner, &name.key).await;
                }
                return Err(e);
            }
        }
        self.app.routing().invalidate();
        self.get(&new.id).await
    }

    /// Removes a server the person added: its row, its secrets, its
    /// running instances. A toolset's server goes with its toolset.
    pub async fn remove(&self, id: &str) -> Result<()> {
        let server = self.get(id).await?;
        if !server.user_declared {
            return Err(Error::Conflict(format!(
                "MCP server {id:?} is declared by toolset {}: disable or uninstall the toolset instead",
                server.toolsets.join(", ")
            )));
        }
        self.stop_all(id).await;
        let owner = Owner::Mcp(id.to_owned());
        for name in self.app.secrets().list(Some(&owner)).await? {
            self.app.secrets().unset(&owner, &name.key).await?;
        }
        if server.toolsets.is_empty() {
            sqlx::query("DELETE FROM mcp_servers WHERE id = ?")
                .bind(id)
                .execute(self.app.db())
                .await?;
        } else {
            // Toolsets still declare it: it stays as theirs.
            sqlx::query("UPDATE mcp_servers SET user_declared = 0, updated_at = ? WHERE id = ?")
                .bind(ids::now())
                .bind(id)
                .execute(self.app.db())
                .await?;
        }
        self.app.routing().invalidate();
        Ok(())
    }

    /// Turns a server on or off. Off: its instances stop and its tools
    /// leave the pool.
    pub async fn set_enabled(&self, id: &str, enabled: bool) -> Result<ServerRecord> {
        let done = sqlx::query("UPDATE mcp_servers SET enabled = ?, updated_at = ? WHERE id = ?")
            .bind(enabled)
            .bind(ids::now())
            .bind(id)
            .execute(self.app.db())
            .await?;
        if done.rows_affected() == 0 {
            return Err(Error::McpServerNotFound(id.to_owned()));
        }
        if !enabled {
            self.stop_all(id).await;
        }
        self.app.routing().invalidate();
        self.get(id).await
    }

    /// Stores what a listing found (or why it failed). Its warnings — and
    /// those of its tools' input schemas (`schemas`) — go with the
    /// server's info, replacing the last listing's.
    pub(crate) async fn store_listing(
        &self,
        id: &str,
        listed: std::result::Result<(Option<&atelier_mcp::ServerInfo>, &atelier_mcp::Listing), String>,
    ) -> Result<()> {
        match listed {
            Ok((info, listing)) => {
                let tools: Vec<McpTool> = listing.tools.iter().cloned().map(McpTool::from).collect();
                let mut warnings = listing.warnings.clone();
                warnings.extend(super::schemas::warnings(id, &listing.tools));
                let info = info.map(|i| {
                    serde_json::json!({
                        "name": i.name, "version": i.version, "protocol_version": i.protocol_version,
                        // What a run's system prompt says of it (`instructions`).
                        "instructions": i.instructions,
                    })
                    .to_string()
                });
                sqlx::query(
                    "UPDATE mcp_servers SET tools = ?, \
                     server_info = json_set(coalesce(?, server_info, '{}'), '$.warnings', json(?)), listed_at = ?, \
                     last_error = NULL WHERE id = ?",
                )
                .bind(serde_json::to_string(&tools).map_err(|e| Error::Internal(e.to_string()))?)
                .bind(info)
                .bind(serde_json::to_string(&warnings).map_err(|e| Error::Internal(e.to_string()))?)
                .bind(ids::now())
                .bind(id)
                .execute(self.app.db())
                .await?;
            }
            Err(message) => {
                sqlx::query("UPDATE mcp_servers SET last_error = ? WHERE id = ?")
                    .bind(message)
                    .bind(id)
                    .execute(self.app.db())
                    .await?;
            }
        }
        self.app.routing().invalidate();
        Ok(())
    }
}
