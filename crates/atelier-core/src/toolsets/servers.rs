//! The rules shared by import, upgrade, disable and uninstall: busy
//! toolsets, the toolset/MCP-server namespace, and server declarations.

use serde_json::Value;
use sqlx::{Row, SqliteConnection};

use super::manifest::{McpServerDecl, ToolsetManifest};
use crate::{Error, Result, ids};

/// JSON text for a TEXT column.
pub(super) fn to_json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::Internal(e.to_string()))
}

/// Refuses while a call of the toolset runs (upgrade, disable, uninstall).
pub(super) async fn ensure_idle(conn: &mut SqliteConnection, id: &str) -> Result<()> {
    let prefix = format!("{id}:");
    let chat: Option<String> = sqlx::query_scalar(
        "SELECT chat_id FROM tool_calls WHERE status IN ('pending', 'running') \
         AND substr(tool_id, 1, length(?1)) = ?1 LIMIT 1",
    )
    .bind(&prefix)
    .fetch_optional(&mut *conn)
    .await?;
    match chat {
        Some(chat_id) => Err(Error::ToolsetBusy {
            id: id.to_owned(),
            chat_id,
        }),
        None => Ok(()),
    }
}

/// Toolset ids and MCP server ids share one namespace; a server declared by
/// two toolsets (or by the user) must be declared the same way.
/// A toolset of no tools of its own may wrap a server named like itself
/// (validation refuses one with tools); that server is then checked as any
/// server it declares.
pub(super) async fn check_namespace(conn: &mut SqliteConnection, m: &ToolsetManifest) -> Result<()> {
    let clash: Option<String> = sqlx::query_scalar("SELECT id FROM mcp_servers WHERE id = ?")
        .bind(&m.id)
        .fetch_optional(&mut *conn)
        .await?;
    if clash.is_some() && !m.mcp_servers.iter().any(|s| s.id == m.id) {
        return Err(Error::Conflict(format!(
            "toolset id {:?} is already used by an MCP server (toolsets and MCP servers share one namespace)",
            m.id
        )));
    }
    // Its prefix names its tools for models: no other toolset or MCP
    // server may hold it (a NULL prefix is the toolset's id).
    let prefix = m.prefix.as_deref().unwrap_or(&m.id);
    let taken: Option<String> = sqlx::query_scalar(
        "SELECT 'toolset ' || quote(id) FROM toolsets WHERE coalesce(prefix, id) = ?1 AND id != ?2 \
         UNION ALL SELECT 'MCP server ' || quote(id) FROM mcp_servers WHERE id = ?1 \
         AND id NOT IN (SELECT server_id FROM toolset_mcp_servers WHERE toolset_id = ?2) LIMIT 1",
    )
    .bind(prefix)
    .bind(&m.id)
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(other) = taken {
        return Err(Error::Conflict(format!(
            "prefix {prefix:?} is used by both {} and toolset {:?} (importing): give one of them another prefix",
            other.replace('\'', "\""),
            m.id
        )));
    }
    for s in &m.mcp_servers {
        let is_toolset: Option<String> =
            sqlx::query_scalar("SELECT id FROM toolsets WHERE (id = ?1 OR prefix = ?1) AND id != ?2")
                .bind(&s.id)
                .bind(&m.id)
                .fetch_optional(&mut *conn)
                .await?;
        if is_toolset.is_some() {
            return Err(Error::Conflict(format!(
                "MCP server id {:?} is already used by an installed toolset, as its id or prefix (toolsets and MCP servers share one namespace)",
                s.id
            )));
        }
        let config = s.config_json();
        let others =
            sqlx::query("SELECT toolset_id, config FROM toolset_mcp_servers WHERE server_id = ? AND toolset_id != ?")
                .bind(&s.id)
                .bind(&m.id)
                .fetch_all(&mut *conn)
                .await?;
        for o in others {
            let theirs: String = o.try_get("config")?;
            if serde_json::from_str::<Value>(&theirs).ok().as_ref() != Some(&config) {
                let other: String = o.try_get("toolset_id")?;
                return Err(Error::Conflict(format!(
                    "MCP server {:?} is declared differently by toolset {other:?}: two toolsets must declare a shared server identically",
                    s.id
                )));
            }
        }
        let user: Option<String> =
            sqlx::query_scalar("SELECT config FROM mcp_servers WHERE id = ? AND user_declared = 1")
                .bind(&s.id)
                .fetch_optional(&mut *conn)
                .await?;
        if let Some(theirs) = user
            && serde_json::from_str::<Value>(&theirs).ok().as_ref() != Some(&config)
        {
            return Err(Error::Conflict(format!(
                "MCP server {:?} is already configured differently in your settings",
                s.id
            )));
        }
    }
    Ok(())
}

/// Servers that no other toolset (and not the user) declares.
pub(super) async fn servers_declared_only_by(conn: &mut SqliteConnection, id: &str) -> Result<Vec<String>> {
    Ok(sqlx::query_scalar(
        "SELECT d.server_id FROM toolset_mcp_servers d WHERE d.toolset_id = ?1 \
         AND NOT EXISTS (SELECT 1 FROM toolset_mcp_servers o WHERE o.server_id = d.server_id AND o.toolset_id != ?1)",
    )
    .bind(id)
    .fetch_all(&mut *conn)
    .await?)
}

/// Each server `toolset` declares and the URL it has now (`None`: a
/// command), to tell after an upgrade or uninstall whose sign-in must go.
pub(crate) async fn declared_urls(conn: &mut SqliteConnection, toolset: &str) -> Result<Vec<(String, Option<String>)>> {
    let rows = sqlx::query(
        "SELECT m.id, json_extract(m.config, '$.url') AS url FROM mcp_servers m \
         JOIN toolset_mcp_servers d ON d.server_id = m.id WHERE d.toolset_id = ?",
    )
    .bind(toolset)
    .fetch_all(&mut *conn)
    .await?;
    rows.iter().map(|r| Ok((r.try_get("id")?, r.try_get("url")?))).collect()
}

/// Records a declaration and syncs it into `mcp_servers`, where servers
/// from toolsets and from settings share one id namespace.
pub(super) async fn sync_server(
    conn: &mut SqliteConnection,
    toolset: &str,
    s: &McpServerDecl,
    position: usize,
) -> Result<()> {
    let config = to_json(&s.config_json())?;
    sqlx::query(
        "INSERT INTO toolset_mcp_servers (toolset_id, server_id, config, auto_enabled, position) VALUES (?, ?, ?, ?, ?)",
    )
    .bind(toolset)
    .bind(&s.id)
    .bind(&config)
    .bind(s.auto_enabled)
    .bind(i64::try_from(position).unwrap_or(i64::MAX))
    .execute(&mut *conn)
    .await?;
    let now = ids::now();
    sqlx::query(
        "INSERT INTO mcp_servers (id, name, config, enabled, created_at, updated_at) VALUES (?1, ?1, ?2, ?3, ?4, ?4) \
         ON CONFLICT (id) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at",
    )
    .bind(&s.id)
    .bind(&config)
    .bind(s.auto_enabled)
    .bind(&now)
    .execute(&mut *conn)
    .await?;
    Ok(())
}
