//! Installed toolsets and their tools: listings, details, enable/disable,
//! uninstall (history survives: tool calls keep their rows and plans).

use sqlx::Row;

use super::records::{
    ToolRecord, ToolsetDetails, ToolsetFileRecord, ToolsetMcpServerRecord, ToolsetRecord, tool_from_row,
    toolset_from_row,
};
use super::servers::{ensure_idle, servers_declared_only_by};
use crate::toolsets::Toolsets;
use crate::{Atelier, Error, Result, blocking, db, ids};

/// Failpoints of an uninstall: before its commit (the folder aside, the
/// journal of what is left to do written) and right after it.
pub(crate) const UNINSTALL_BEFORE_COMMIT: &str = "uninstall-before-commit";
pub(crate) const UNINSTALL_AFTER_COMMIT: &str = "uninstall-after-commit";

impl Atelier {
    /// One toolset's own row, without its tools, files and servers (one
    /// query where [`crate::toolsets::Toolsets::get`] makes four: every tool call
    /// reads it).
    pub(crate) async fn toolset_record(&self, id: &str) -> Result<ToolsetRecord> {
        let row = sqlx::query("SELECT * FROM toolsets WHERE id = ?")
            .bind(id)
            .fetch_optional(self.db())
            .await?
            .ok_or_else(|| Error::ToolsetNotFound(id.to_owned()))?;
        toolset_from_row(&row)
    }
}

impl Toolsets<'_> {
    /// Installed toolsets, sorted by id.
    pub async fn list(&self) -> Result<Vec<ToolsetRecord>> {
        let rows = sqlx::query("SELECT * FROM toolsets ORDER BY id")
            .fetch_all(self.app.db())
            .await?;
        rows.iter().map(toolset_from_row).collect()
    }

    /// One toolset with its tools, files and MCP servers.
    pub async fn get(&self, id: &str) -> Result<ToolsetDetails> {
        let toolset = self.app.toolset_record(id).await?;
        let tools = sqlx::query(TOOL_SELECT_BY_TOOLSET)
            .bind(id)
            .fetch_all(self.app.db())
            .await?;
        let files = sqlx::query("SELECT * FROM toolset_files WHERE toolset_id = ? ORDER BY path")
            .bind(id)
            .fetch_all(self.app.db())
            .await?;
        let servers =
            sqlx::query("SELECT * FROM toolset_mcp_servers WHERE toolset_id = ? ORDER BY position, server_id")
                .bind(id)
                .fetch_all(self.app.db())
                .await?;
        Ok(ToolsetDetails {
            toolset,
            tools: tools.iter().map(tool_from_row).collect::<Result<_>>()?,
            files: files
                .iter()
                .map(|r| {
                    Ok(ToolsetFileRecord {
                        toolset_id: r.try_get("toolset_id")?,
                        path: r.try_get("path")?,
                        kind: r.try_get("kind")?,
                        sha256: r.try_get("sha256")?,
                        size: u64::try_from(r.try_get::<i64, _>("size")?).unwrap_or(0),
                        stored_path: r.try_get("stored_path")?,
                    })
                })
                .collect::<Result<_>>()?,
            mcp_servers: servers
                .iter()
                .map(|r| {
                    let config: String = r.try_get("config")?;
                    Ok(ToolsetMcpServerRecord {
                        toolset_id: r.try_get("toolset_id")?,
                        server_id: r.try_get("server_id")?,
                        config: serde_json::from_str(&config).map_err(|e| Error::InvalidData {
                            what: "server config",
                            reason: e.to_string(),
                        })?,
                        auto_enabled: r.try_get("auto_enabled")?,
                    })
                })
                .collect::<Result<_>>()?,
        })
    }

    /// Enables or disables a toolset: its tools leave or rejoin the listing.
    pub async fn set_enabled(&self, id: &str, enabled: bool) -> Result<ToolsetRecord> {
        let mut tx = db::begin_write(self.app.db()).await?;
        if !enabled {
            ensure_idle(&mut tx, id).await?;
        }
        let done = sqlx::query("UPDATE toolsets SET enabled = ?, updated_at = ? WHERE id = ?")
            .bind(enabled)
            .bind(ids::now())
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(Error::ToolsetNotFound(id.to_owned()));
        }
        let row = sqlx::query("SELECT * FROM toolsets WHERE id = ?")
            .bind(id)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        // Workers import the code once; the next call starts afresh.
        self.app.toolset_changed(id).await;
        toolset_from_row(&row)
    }

    /// Uninstalls a toolset: its rows, its folder (not a local source
    /// folder: that is the author's), and the MCP servers only it declared.
    /// Tool-call history and stored artifacts stay.
    pub async fn uninstall(&self, id: &str) -> Result<()> {
        let mut tx = db::begin_write(self.app.db()).await?;
        let found: Option<String> = sqlx::query_scalar("SELECT id FROM toolsets WHERE id = ?")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        if found.is_none() {
            return Err(Error::ToolsetNotFound(id.to_owned()));
        }
        ensure_idle(&mut tx, id).await?;
        let orphaned = servers_declared_only_by(&mut tx, id).await?;
        let urls = super::servers::declared_urls(&mut tx, id).await?;
        sqlx::query("DELETE FROM toolsets WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        for server in orphaned {
            sqlx::query("DELETE FROM mcp_servers WHERE id = ? AND user_declared = 0")
                .bind(&server)
                .execute(&mut *tx)
                .await?;
        }
        // Its settings and allowances go with it.
        for delete in [
            "DELETE FROM toolset_config_values WHERE toolset_id = ?",
            "DELETE FROM toolset_env_allowances WHERE toolset_id = ?",
        ] {
            sqlx::query(delete).bind(id).execute(&mut *tx).await?;
        }
        // Its secrets' names go with the rows; their values, in the keychain
        // or the file, only once that commits (a failed commit, or a crash
        // before it, must leave the toolset whole), and the sign-ins of the
        // servers that went with them. What is left to do then is written
        // beside the folder's trash first: a crash after the commit leaves
        // it for the next start (`swap::recover_uninstalls`).
        let owner = crate::secrets::Owner::Toolset(id.to_owned());
        let names: Vec<(String, String)> = sqlx::query_as("SELECT key, store FROM secret_names WHERE owner = ?")
            .bind(owner.to_string())
            .fetch_all(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM secret_names WHERE owner = ?")
            .bind(owner.to_string())
            .execute(&mut *tx)
            .await?;
        let leftovers = super::swap::Leftovers {
            secrets: names
                .into_iter()
                .filter_map(|(key, store)| Some((key, crate::secrets::StoreKind::parse(&store)?)))
                .collect(),
            servers: urls,
        };
        // The folder goes aside before the commit (a chat delete's way): a
        // crash after the commit leaves only the trash, which the next start
        // removes; a failed commit puts it back.
        let toolsets_dir = self.app.data_dir().toolsets_dir();
        let trash = {
            let id = id.to_owned();
            blocking(move || super::swap::Trash::take(&toolsets_dir, &id, leftovers)).await?
        };
        let committed = match crate::store::failpoint::hit(UNINSTALL_BEFORE_COMMIT) {
            Ok(()) => tx.commit().await.map_err(Error::from),
            Err(e) => Err(e),
        };
        if let Err(e) = committed {
            trash.put_back();
            return Err(e);
        }
        crate::store::failpoint::hit(UNINSTALL_AFTER_COMMIT)?;
        let mut trash = trash;
        trash.forget(self.app).await;
        self.app.toolset_changed(id).await;
        // Zips and local folders alike run from a copy here (the author's
        // folder itself is never touched).
        trash.empty().await?;
        tracing::info!(toolset = %id, "uninstalled toolset");
        Ok(())
    }

    /// Tools of enabled toolsets (and builtins), sorted by canonical id.
    pub async fn tools(&self) -> Result<Vec<ToolRecord>> {
        let rows = sqlx::query(TOOL_SELECT_ENABLED).fetch_all(self.app.db()).await?;
        rows.iter().map(tool_from_row).collect()
    }

    /// One tool by canonical id (whether or not its toolset is enabled).
    pub async fn tool(&self, tool_id: &str) -> Result<ToolRecord> {
        let row = sqlx::query(TOOL_SELECT_ONE)
            .bind(tool_id)
            .fetch_optional(self.app.db())
            .await?
            .ok_or_else(|| Error::ToolNotFound(tool_id.to_owned()))?;
        tool_from_row(&row)
    }
}

macro_rules! tool_select {
    ($where:literal) => {
        concat!(
            "SELECT t.tool_id, t.toolset_id, t.name, t.description, t.category, t.input_schema, ",
            "t.requires_confirmation, t.enabled, t.entrypoint, t.tags, t.timeout_s, t.exported_from, ",
            "r.renderer, r.config, r.priority ",
            "FROM tools t LEFT JOIN toolsets s ON s.id = t.toolset_id ",
            "LEFT JOIN tool_render_configs r ON r.tool_id = t.tool_id ",
            "AND r.priority = (SELECT max(priority) FROM tool_render_configs x WHERE x.tool_id = t.tool_id) ",
            $where
        )
    };
}
const TOOL_SELECT_ENABLED: &str =
    tool_select!("WHERE t.enabled = 1 AND (t.toolset_id IS NULL OR s.enabled = 1) ORDER BY t.tool_id");
const TOOL_SELECT_ONE: &str = tool_select!("WHERE t.tool_id = ?");
const TOOL_SELECT_BY_TOOLSET: &str = tool_select!("WHERE t.toolset_id = ? ORDER BY t.position, t.tool_id");
