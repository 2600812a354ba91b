//! Import, upgrade, enable/disable, uninstall (seed 004 §3.3, §6.3).
//!
//! Import is atomic: the bundle is unpacked into a staging folder inside the
//! data dir and validated; then one `BEGIN IMMEDIATE` transaction replaces
//! the toolset's rows, and inside it the staging folder is swapped into
//! `toolsets/<id>/` by rename. If anything fails, the rows roll back, the
//! previous folder is renamed back, and an installed version is untouched.
//! The write lock serializes concurrent imports: one wins, the other sees
//! its result (and is refused, or upgrades over it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sqlx::{Row, SqliteConnection};

use super::bundle::{self, Files};
use super::manifest::{McpServerDecl, RendererKind, ToolsetManifest};
use super::records::{
    BundleReport, EntryPoint, ImportReport, ServerLaunch, ToolRecord, ToolsetDetails, ToolsetFileRecord,
    ToolsetMcpServerRecord, ToolsetRecord, WillRun, tool_from_row, toolset_from_row,
};
use super::validate::{self, Checked, MANIFEST_FILE, Severity};
use crate::store::Observer;
use crate::{Atelier, Error, Result, blocking, db, ids};

/// How to import.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Reinstall even if the same version is installed.
    pub force: bool,
    pub observer: Observer,
    /// Recorded as `source_ref` instead of the path (bundled examples).
    pub source_ref: Option<String>,
}

/// A bundle read from disk and checked.
struct Loaded {
    source_type: &'static str,
    /// Where the files are: the staging folder (zip) or the folder itself.
    root: PathBuf,
    staging: Option<Staging>,
    files: Files,
    checked: Checked,
    label: String,
}

/// A staging folder, removed on drop unless taken.
struct Staging(Option<PathBuf>);

impl Drop for Staging {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_dir_all(p);
        }
    }
}

/// The canonical id of a toolset tool.
pub fn tool_id(toolset_id: &str, tool: &str) -> String {
    format!("{toolset_id}:{tool}")
}

fn file_kind(path: &str, artifacts: &BTreeSet<String>) -> &'static str {
    if path == MANIFEST_FILE || path == "requirements.txt" {
        "config"
    } else if path.ends_with(".py") {
        "python"
    } else if artifacts.contains(path) || (path.starts_with("artifacts/") && path.ends_with(".html")) {
        "artifact"
    } else {
        "asset"
    }
}

fn will_run(m: &ToolsetManifest) -> WillRun {
    WillRun {
        python_entrypoints: m
            .tools
            .iter()
            .map(|t| EntryPoint {
                tool_id: tool_id(&m.id, &t.id),
                entrypoint: t.entrypoint.clone(),
            })
            .collect(),
        requirements: m.python.requirements.clone(),
        mcp_servers: m
            .mcp_servers
            .iter()
            .map(|s| ServerLaunch {
                id: s.id.clone(),
                command: s.command.clone(),
                args: s.args.clone(),
                url: s.url.clone(),
            })
            .collect(),
    }
}

fn artifact_paths(m: &ToolsetManifest) -> BTreeSet<String> {
    m.tools
        .iter()
        .filter_map(|t| t.renderer.as_ref())
        .filter(|r| r.kind == RendererKind::Html)
        .filter_map(|r| r.config.get("artifact").and_then(Value::as_str))
        .map(|a| a.trim_start_matches("./").to_owned())
        .collect()
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::Internal(e.to_string()))
}

impl Atelier {
    /// Reads a bundle (ZIP file or folder) and checks it, blocking work on a
    /// worker thread.
    async fn load_bundle(&self, path: &Path, observer: &Observer) -> Result<Loaded> {
        let md = tokio::fs::metadata(path).await.map_err(Error::io("open", path))?;
        let label = path.display().to_string();
        let obs = observer.clone();
        if md.is_dir() {
            let dir = tokio::fs::canonicalize(path).await.map_err(Error::io("open", path))?;
            let d = dir.clone();
            let files = blocking(move || bundle::scan_folder(&d, &obs)).await?;
            let checked = read_manifest(&dir, &files).await?;
            return Ok(Loaded {
                source_type: "local",
                root: dir,
                staging: None,
                files,
                checked,
                label,
            });
        }
        let staging_dir = self
            .data_dir()
            .toolsets_dir()
            .join(format!(".staging-{}", ids::new_id()));
        let staging = Staging(Some(staging_dir.clone()));
        let (zip, dest) = (path.to_path_buf(), staging_dir.clone());
        let files = blocking(move || bundle::unpack_zip(&zip, &dest, &obs)).await?;
        let checked = read_manifest(&staging_dir, &files).await?;
        Ok(Loaded {
            source_type: "zip",
            root: staging_dir,
            staging: Some(staging),
            files,
            checked,
            label,
        })
    }

    /// Checks a bundle without installing it: every manifest problem, and
    /// what it would run (entry points, requirements, MCP commands).
    pub async fn check_bundle(&self, path: &Path, observer: &Observer) -> Result<BundleReport> {
        let loaded = self.load_bundle(path, observer).await?;
        let m = loaded.checked.manifest.as_ref();
        Ok(BundleReport {
            id: m.map(|m| m.id.clone()),
            name: m.map(|m| m.name.clone()),
            version: m.map(|m| m.version.clone()),
            valid: loaded.checked.errors().next().is_none(),
            problems: loaded.checked.problems.clone(),
            will_run: m.map(will_run).unwrap_or_default(),
            file_count: loaded.files.len(),
            total_size: loaded.files.values().map(|f| f.size).sum(),
        })
    }

    /// Installs (or upgrades) a toolset from a ZIP file or a folder.
    pub async fn import_toolset(&self, path: &Path, options: &ImportOptions) -> Result<ImportReport> {
        let mut loaded = self.load_bundle(path, &options.observer).await?;
        let Some(manifest) = loaded.checked.manifest.clone() else {
            return Err(Error::InvalidManifest {
                bundle: loaded.label.clone(),
                problems: loaded.checked.problems.clone(),
            });
        };
        let artifacts = artifact_paths(&manifest);
        self.keep_artifacts(&loaded, &artifacts).await?;

        let id = manifest.id.clone();
        let final_dir = self.data_dir().toolsets_dir().join(&id);
        let mut tx = db::begin_write(self.db()).await?;
        let previous = sqlx::query("SELECT version, enabled, source_type, installed_at FROM toolsets WHERE id = ?")
            .bind(&id)
            .fetch_optional(&mut *tx)
            .await?;
        let previous_version: Option<String> = previous.as_ref().map(|r| r.try_get("version")).transpose()?;
        let enabled: bool = previous
            .as_ref()
            .map(|r| r.try_get("enabled"))
            .transpose()?
            .unwrap_or(true);
        let previous_source: Option<String> = previous.as_ref().map(|r| r.try_get("source_type")).transpose()?;
        let installed_at: String = previous
            .as_ref()
            .map(|r| r.try_get("installed_at"))
            .transpose()?
            .unwrap_or_else(ids::now);
        if previous_version.as_deref() == Some(manifest.version.as_str()) && !options.force {
            return Err(Error::AlreadyInstalled {
                id,
                version: manifest.version.clone(),
            });
        }
        if previous.is_some() {
            ensure_idle(&mut tx, &id).await?;
        }
        check_namespace(&mut tx, &manifest).await?;

        // Replace the rows: the cascade removes tools, render configs, files
        // and declarations; tool_calls keep their history (no foreign key).
        let orphaned = servers_declared_only_by(&mut tx, &id).await?;
        sqlx::query("DELETE FROM toolsets WHERE id = ?")
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        let now = ids::now();
        let source_ref = match (&options.source_ref, loaded.source_type) {
            (Some(r), _) => r.clone(),
            (None, "local") => loaded.root.display().to_string(),
            (None, _) => std::fs::canonicalize(path)
                .unwrap_or_else(|_| path.to_path_buf())
                .display()
                .to_string(),
        };
        sqlx::query(
            "INSERT INTO toolsets (id, name, version, description, enabled, installed_at, updated_at, source_type, \
             source_ref, manifest_version, author, homepage, icon, python_requirements, extra) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(&manifest.name)
        .bind(&manifest.version)
        .bind(&manifest.description)
        .bind(enabled)
        .bind(&installed_at)
        .bind(previous.as_ref().map(|_| now.clone()))
        .bind(loaded.source_type)
        .bind(&source_ref)
        .bind(&manifest.manifest_version)
        .bind(&manifest.author)
        .bind(&manifest.homepage)
        .bind(&manifest.icon)
        .bind(to_json(&manifest.python.requirements)?)
        .bind(to_json(&manifest.extra)?)
        .execute(&mut *tx)
        .await?;
        for (path, info) in &loaded.files {
            let stored = match loaded.source_type {
                "local" => loaded.root.join(path).display().to_string(),
                _ => format!("toolsets/{id}/{path}"),
            };
            sqlx::query(
                "INSERT INTO toolset_files (toolset_id, path, kind, sha256, size, stored_path) VALUES (?, ?, ?, ?, ?, ?)",
            )
            .bind(&id)
            .bind(path)
            .bind(file_kind(path, &artifacts))
            .bind(info.sha256.to_hex())
            .bind(i64::try_from(info.size).unwrap_or(i64::MAX))
            .bind(stored)
            .execute(&mut *tx)
            .await?;
        }
        for (position, t) in manifest.tools.iter().enumerate() {
            let tid = tool_id(&id, &t.id);
            sqlx::query(
                "INSERT INTO tools (tool_id, toolset_id, name, description, category, input_schema, \
                 requires_confirmation, enabled, entrypoint, tags, timeout_s, extra, position) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?)",
            )
            .bind(&tid)
            .bind(&id)
            .bind(&t.name)
            .bind(&t.description)
            .bind(&t.category)
            .bind(to_json(&t.input_schema)?)
            .bind(t.requires_confirmation)
            .bind(&t.entrypoint)
            .bind(to_json(&t.tags)?)
            .bind(t.timeout_s)
            .bind(to_json(&t.extra)?)
            .bind(i64::try_from(position).unwrap_or(i64::MAX))
            .execute(&mut *tx)
            .await?;
            if let Some(r) = &t.renderer {
                sqlx::query(
                    "INSERT INTO tool_render_configs (tool_id, renderer, config, priority) VALUES (?, ?, ?, 0)",
                )
                .bind(&tid)
                .bind(r.kind.as_str())
                .bind(to_json(&r.config)?)
                .execute(&mut *tx)
                .await?;
            }
        }
        for (position, s) in manifest.mcp_servers.iter().enumerate() {
            sync_server(&mut tx, &id, s, position).await?;
        }
        for server in orphaned {
            if !manifest.mcp_servers.iter().any(|s| s.id == server) {
                sqlx::query("DELETE FROM mcp_servers WHERE id = ? AND user_declared = 0")
                    .bind(&server)
                    .execute(&mut *tx)
                    .await?;
            }
        }

        // Swap the folder in, inside the transaction: a failed commit puts
        // the previous folder back.
        let swapped = match loaded.staging.as_mut().and_then(|s| s.0.take()) {
            Some(staging) => Some(swap_in(&staging, &final_dir).inspect_err(|_| {
                let _ = std::fs::remove_dir_all(&staging);
            })?),
            None => None,
        };
        let record = match crate::store::failpoint::hit(crate::store::failpoint::IMPORT_BEFORE_COMMIT) {
            Ok(()) => sqlx::query("SELECT * FROM toolsets WHERE id = ?")
                .bind(&id)
                .fetch_one(&mut *tx)
                .await
                .map_err(Error::from),
            Err(e) => Err(e),
        };
        let committed = match record {
            Ok(row) => tx.commit().await.map(|()| row).map_err(Error::from),
            Err(e) => Err(e),
        };
        let row = match committed {
            Ok(row) => row,
            Err(e) => {
                if let Some(s) = swapped {
                    s.undo(&final_dir);
                }
                return Err(e);
            }
        };
        if let Some(s) = swapped {
            s.finish();
        }
        // A zip install replaced by a local folder leaves its old copy.
        if loaded.source_type == "local" && previous_source.as_deref() == Some("zip") {
            let _ = tokio::fs::remove_dir_all(&final_dir).await;
        }
        let action = match previous_version.as_deref() {
            None => "installed",
            Some(v) if v == manifest.version => "reinstalled",
            Some(_) => "upgraded",
        };
        tracing::info!(toolset = %id, version = %manifest.version, action, "imported toolset");
        Ok(ImportReport {
            action: action.to_owned(),
            previous_version,
            toolset: toolset_from_row(&row)?,
            tools: manifest.tools.iter().map(|t| tool_id(&id, &t.id)).collect(),
            warnings: loaded
                .checked
                .problems
                .iter()
                .filter(|p| p.severity == Severity::Warning)
                .cloned()
                .collect(),
            will_run: will_run(&manifest),
        })
    }

    /// HTML artifacts are also kept by content hash in `artifacts/`, never
    /// deleted, so renders of old tool calls keep working after an upgrade
    /// or uninstall.
    async fn keep_artifacts(&self, loaded: &Loaded, artifacts: &BTreeSet<String>) -> Result<()> {
        let dir = self.data_dir().root().join("artifacts");
        for a in artifacts {
            let Some(info) = loaded.files.get(a) else { continue };
            let hex = info.sha256.to_hex();
            let dest = dir.join(&hex[..2]).join(&hex);
            if tokio::fs::try_exists(&dest).await.unwrap_or(false) {
                continue;
            }
            let parent = dir.join(&hex[..2]);
            tokio::fs::create_dir_all(&parent)
                .await
                .map_err(Error::io("create", &parent))?;
            let tmp = dest.with_extension("tmp");
            tokio::fs::copy(loaded.root.join(a), &tmp)
                .await
                .map_err(Error::io("copy", &tmp))?;
            tokio::fs::rename(&tmp, &dest)
                .await
                .map_err(Error::io("store", &dest))?;
        }
        Ok(())
    }

    /// Installed toolsets, sorted by id.
    pub async fn list_toolsets(&self) -> Result<Vec<ToolsetRecord>> {
        let rows = sqlx::query("SELECT * FROM toolsets ORDER BY id")
            .fetch_all(self.db())
            .await?;
        rows.iter().map(toolset_from_row).collect()
    }

    /// One toolset with its tools, files and MCP servers.
    pub async fn get_toolset(&self, id: &str) -> Result<ToolsetDetails> {
        let row = sqlx::query("SELECT * FROM toolsets WHERE id = ?")
            .bind(id)
            .fetch_optional(self.db())
            .await?
            .ok_or_else(|| Error::ToolsetNotFound(id.to_owned()))?;
        let toolset = toolset_from_row(&row)?;
        let tools = sqlx::query(TOOL_SELECT_BY_TOOLSET)
            .bind(id)
            .fetch_all(self.db())
            .await?;
        let files = sqlx::query("SELECT * FROM toolset_files WHERE toolset_id = ? ORDER BY path")
            .bind(id)
            .fetch_all(self.db())
            .await?;
        let servers =
            sqlx::query("SELECT * FROM toolset_mcp_servers WHERE toolset_id = ? ORDER BY position, server_id")
                .bind(id)
                .fetch_all(self.db())
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
    pub async fn set_toolset_enabled(&self, id: &str, enabled: bool) -> Result<ToolsetRecord> {
        let mut tx = db::begin_write(self.db()).await?;
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
        toolset_from_row(&row)
    }

    /// Uninstalls a toolset: its rows, its folder (not a local source
    /// folder: that is the author's), and the MCP servers only it declared.
    /// Tool-call history and stored artifacts stay.
    pub async fn uninstall_toolset(&self, id: &str) -> Result<()> {
        let mut tx = db::begin_write(self.db()).await?;
        let source: Option<String> = sqlx::query_scalar("SELECT source_type FROM toolsets WHERE id = ?")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(source) = source else {
            return Err(Error::ToolsetNotFound(id.to_owned()));
        };
        ensure_idle(&mut tx, id).await?;
        let orphaned = servers_declared_only_by(&mut tx, id).await?;
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
        tx.commit().await?;
        if source != "local" {
            let dir = self.data_dir().toolsets_dir().join(id);
            if let Err(e) = tokio::fs::remove_dir_all(&dir).await
                && e.kind() != std::io::ErrorKind::NotFound
            {
                return Err(Error::io("remove", dir)(e));
            }
        }
        tracing::info!(toolset = %id, "uninstalled toolset");
        Ok(())
    }

    /// Tools of enabled toolsets (and builtins), sorted by canonical id.
    pub async fn list_tools(&self) -> Result<Vec<ToolRecord>> {
        let rows = sqlx::query(TOOL_SELECT_ENABLED).fetch_all(self.db()).await?;
        rows.iter().map(tool_from_row).collect()
    }

    /// One tool by canonical id (whether or not its toolset is enabled).
    pub async fn get_tool(&self, tool_id: &str) -> Result<ToolRecord> {
        let row = sqlx::query(TOOL_SELECT_ONE)
            .bind(tool_id)
            .fetch_optional(self.db())
            .await?
            .ok_or_else(|| Error::ToolNotFound(tool_id.to_owned()))?;
        tool_from_row(&row)
    }
}

macro_rules! tool_select {
    ($where:literal) => {
        concat!(
            "SELECT t.tool_id, t.toolset_id, t.name, t.description, t.category, t.input_schema, ",
            "t.requires_confirmation, t.enabled, t.entrypoint, t.tags, t.timeout_s, r.renderer, r.config, r.priority ",
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

/// Reads and checks `toolset.yaml` of an unpacked or local bundle.
async fn read_manifest(root: &Path, files: &Files) -> Result<Checked> {
    let path = root.join(MANIFEST_FILE);
    if !files.contains_key(MANIFEST_FILE) {
        return Err(Error::Bundle {
            bundle: root.display().to_string(),
            entry: None,
            message: format!("no {MANIFEST_FILE} at the top of the bundle"),
        });
    }
    let text = tokio::fs::read_to_string(&path)
        .await
        .map_err(Error::io("read", &path))?;
    let names: BTreeSet<String> = files.keys().cloned().collect();
    Ok(validate::check(&text, &names))
}

/// Refuses while a call of the toolset runs (upgrade, disable, uninstall).
async fn ensure_idle(conn: &mut SqliteConnection, id: &str) -> Result<()> {
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
async fn check_namespace(conn: &mut SqliteConnection, m: &ToolsetManifest) -> Result<()> {
    let clash: Option<String> = sqlx::query_scalar("SELECT id FROM mcp_servers WHERE id = ?")
        .bind(&m.id)
        .fetch_optional(&mut *conn)
        .await?;
    if clash.is_some() {
        return Err(Error::Conflict(format!(
            "toolset id {:?} is already used by an MCP server (toolsets and MCP servers share one namespace)",
            m.id
        )));
    }
    for s in &m.mcp_servers {
        let is_toolset: Option<String> = sqlx::query_scalar("SELECT id FROM toolsets WHERE id = ?")
            .bind(&s.id)
            .fetch_optional(&mut *conn)
            .await?;
        if is_toolset.is_some() {
            return Err(Error::Conflict(format!(
                "MCP server id {:?} is already used by an installed toolset (toolsets and MCP servers share one namespace)",
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
async fn servers_declared_only_by(conn: &mut SqliteConnection, id: &str) -> Result<Vec<String>> {
    Ok(sqlx::query_scalar(
        "SELECT d.server_id FROM toolset_mcp_servers d WHERE d.toolset_id = ?1 \
         AND NOT EXISTS (SELECT 1 FROM toolset_mcp_servers o WHERE o.server_id = d.server_id AND o.toolset_id != ?1)",
    )
    .bind(id)
    .fetch_all(&mut *conn)
    .await?)
}

/// Records a declaration and syncs it into `mcp_servers` (seed 004 §6.1).
async fn sync_server(conn: &mut SqliteConnection, toolset: &str, s: &McpServerDecl, position: usize) -> Result<()> {
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

/// A folder swap that can be undone until finished.
struct Swapped {
    old: Option<PathBuf>,
}

fn swap_in(staging: &Path, final_dir: &Path) -> Result<Swapped> {
    let old = if final_dir.exists() {
        let old = final_dir.with_file_name(format!(".old-{}", ids::new_id()));
        std::fs::rename(final_dir, &old).map_err(Error::io("move aside", final_dir))?;
        Some(old)
    } else {
        None
    };
    if let Err(e) = std::fs::rename(staging, final_dir) {
        if let Some(o) = &old {
            let _ = std::fs::rename(o, final_dir);
        }
        return Err(Error::io("install", final_dir)(e));
    }
    Ok(Swapped { old })
}

impl Swapped {
    fn undo(self, final_dir: &Path) {
        let _ = std::fs::remove_dir_all(final_dir);
        if let Some(o) = &self.old {
            let _ = std::fs::rename(o, final_dir);
        }
    }

    fn finish(self) {
        if let Some(o) = self.old {
            let _ = std::fs::remove_dir_all(o);
        }
    }
}
