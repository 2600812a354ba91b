//! Import and upgrade: everything is validated first, then unpacked into a
//! staging folder and swapped in with the database rows in one transaction.
//!
//! Import is atomic: the bundle is unpacked into a staging folder inside the
//! data dir and validated; then one `BEGIN IMMEDIATE` transaction replaces
//! the toolset's rows, and inside it the staging folder is swapped into
//! `toolsets/<id>/` by rename. If anything fails, the rows roll back, the
//! previous folder is renamed back, and an installed version is untouched:
//! the secrets written just before the transaction get their earlier values
//! back and the artifacts it added go ([`super::undo`]). What can be refused
//! without writing anything (the same version, a busy toolset, a taken
//! prefix) is refused before any of it.
//! The write lock serializes concurrent imports: one wins, the other sees
//! its result (and is refused, or upgrades over it).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use sqlx::Row;
use sqlx::sqlite::SqliteRow;

use super::bundle;
use super::config::import::Prepared;
use super::load::{Loaded, Staging};
use super::manifest::ToolsetManifest;
use super::records::{
    EntryPoint, ImportAction, ImportReport, LaunchValue, ServerLaunch, SourceType, VersionChange, WillRun,
    toolset_from_row,
};
use super::rows::{Exported, Rows, artifact_paths};
use super::servers::{check_namespace, ensure_idle, servers_declared_only_by, sync_server};
use super::undo::Undo;
use super::validate::{MANIFEST_FILE, Problem, Severity};
use crate::store::Observer;
use crate::toolsets::Toolsets;
use crate::{Error, Result, db, ids};

/// How to import.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Reinstall even if the same version is installed.
    pub force: bool,
    pub observer: Observer,
    /// Recorded as `source_ref` instead of the path (bundled examples).
    pub source_ref: Option<String>,
    /// Values of its settings (`user_config`), sensitive ones included
    /// (they go to the secret store).
    pub config: serde_json::Map<String, Value>,
    /// Values of its sensitive settings (asked for, never arguments).
    pub secrets: std::collections::BTreeMap<String, crate::secrets::Secret>,
    /// Process environment variables the person allows it to read.
    pub allow_env: Vec<String>,
    /// A watched folder (`toolset dev`, the app's live reload): leave an
    /// interpreter started for its next reload.
    pub warm: bool,
}

/// The canonical id of a toolset tool.
pub fn tool_id(toolset_id: &str, tool: &str) -> String {
    format!("{toolset_id}:{tool}")
}

pub(crate) fn will_run(m: &ToolsetManifest) -> WillRun {
    WillRun {
        python_entrypoints: m
            .tools
            .iter()
            .filter(|t| !t.is_overlay())
            .map(|t| EntryPoint {
                tool_id: tool_id(&m.id, &t.id),
                entrypoint: t.entrypoint.clone(),
                requires_confirmation: t.requires_confirmation,
            })
            // Exported tools are only known once the module is imported.
            .chain(m.tools_from.iter().map(|module| EntryPoint {
                tool_id: tool_id(&m.id, "*"),
                entrypoint: format!("{module}:* (the tools it exports in TOOLS or __all__)"),
                requires_confirmation: false,
            }))
            .collect(),
        requirements: m.python.requirements.clone(),
        requirements_file: None,
        mcp_servers: m
            .mcp_servers
            .iter()
            .map(|s| {
                let (env, headers) = LaunchValue::of_server(s);
                ServerLaunch {
                    id: s.id.clone(),
                    command: s.command.clone(),
                    args: s.args.clone(),
                    url: s.url.clone(),
                    env,
                    headers,
                }
            })
            .collect(),
    }
}

/// What an import warns of: what `validate` says of the bundle (its
/// manifest, and its Python read without running it), its settings, and
/// the import check of a local folder — each once (a signature that
/// disagrees with its schema is seen by both looks at the Python).
fn warnings(loaded: &Loaded, python: &[Problem], settings: &[Problem], signatures: &[Problem]) -> Vec<Problem> {
    let mut out: Vec<Problem> = Vec::new();
    let all = loaded
        .checked
        .problems
        .iter()
        .chain(python)
        .chain(settings)
        .chain(signatures);
    for p in all.filter(|p| p.severity == Severity::Warning) {
        if !out.contains(p) {
            out.push(p.clone());
        }
    }
    out
}

/// The version installed again is refused unless forced (`--force`).
fn same_version(installed: Option<&str>, m: &ToolsetManifest, force: bool) -> Result<()> {
    if installed == Some(m.version.as_str()) && !force {
        return Err(Error::AlreadyInstalled {
            id: m.id.clone(),
            version: m.version.clone(),
        });
    }
    Ok(())
}

impl Toolsets<'_> {
    /// Installs (or upgrades) a toolset from a ZIP file or a folder.
    pub async fn import(&self, path: &Path, options: &ImportOptions) -> Result<ImportReport> {
        let mut loaded = self.app.load_bundle(path, &options.observer, true).await?;
        let Some(mut manifest) = loaded.checked.manifest.clone() else {
            return Err(Error::InvalidManifest {
                bundle: loaded.label.clone(),
                problems: loaded.checked.problems.clone(),
            });
        };
        // Plain-text secrets leave the manifest (a ZIP's copy is rewritten
        // before it is installed); settings are checked before anything runs.
        let local = loaded.source_type == SourceType::Local;
        let prepared = super::config::import::prepare(
            self.app,
            &mut manifest,
            local,
            &options.config,
            &options.secrets,
            &options.allow_env,
        )
        .await?;
        if !local && prepared.moved() > 0 {
            let yaml = manifest.to_yaml();
            let dest = loaded.root.join(MANIFEST_FILE);
            tokio::fs::write(&dest, &yaml)
                .await
                .map_err(Error::io("write", &dest))?;
            loaded.files.insert(
                MANIFEST_FILE.to_owned(),
                bundle::FileInfo {
                    sha256: crate::store::Hash::of(yaml.as_bytes()),
                    size: yaml.len() as u64,
                },
            );
        }
        // What can be known of the Python without running it is known
        // before any requirement is installed: a syntax error or a missing
        // function fails the import here, in seconds, not after a download.
        let names: BTreeSet<String> = loaded.files.keys().cloned().collect();
        // One scratch worker for every look below (while no venv changes
        // what it needs): an author's reload starts one interpreter.
        // A watched folder is reloaded again and again: its next reload
        // finds an interpreter already started.
        let mut scratch = self.app.scratch(&loaded.root, local && options.warm);
        let python = self.app.inspect_python(&manifest, &mut scratch, &names).await;
        if python.problems.iter().any(|p| p.severity == Severity::Error) {
            return Err(Error::InvalidManifest {
                bundle: loaded.label.clone(),
                problems: python.problems,
            });
        }
        // What the transaction below refuses is refused before anything
        // is downloaded or kept (it checks again, as the state may move).
        {
            let mut conn = self.app.db().acquire().await?;
            let installed: Option<String> = sqlx::query_scalar("SELECT version FROM toolsets WHERE id = ?")
                .bind(&manifest.id)
                .fetch_optional(&mut *conn)
                .await?;
            same_version(installed.as_deref(), &manifest, options.force)?;
            if installed.is_some() {
                ensure_idle(&mut conn, &manifest.id).await?;
            }
            check_namespace(&mut conn, &manifest).await?;
        }
        let artifacts = artifact_paths(&manifest);
        // Requirements are a step of the import: if they cannot be
        // installed, nothing is swapped in.
        let venv = self
            .app
            .ensure_toolset_venv(&manifest.id, &manifest.python.requirements, &options.observer)
            .await?;
        // `tools_from:` modules are imported (in a worker) to list their
        // exported tools; a module that fails fails the import.
        let exported = self
            .app
            .describe_exports(&manifest, &mut scratch, venv.as_deref(), &loaded.label)
            .await?;
        // A local folder is an author's work in progress: a version whose
        // Python does not import never replaces the one that runs. A tool
        // without an `input_schema` takes its function's arguments here.
        let signature_warnings = self
            .app
            .check_entrypoints(
                &mut manifest,
                &mut scratch,
                &loaded.root,
                venv.as_deref(),
                &loaded.label,
                local,
            )
            .await?;
        scratch.stop().await;

        // From here on, what is written outside the transaction (secrets,
        // kept artifacts) is taken back if the import does not commit.
        let id = manifest.id.clone();
        let mut undo = Undo::default();
        let committed = match prepared.store_secrets(self.app, &id, &mut undo).await {
            Ok(()) => {
                let source_ref = match (&options.source_ref, loaded.source_type) {
                    (Some(r), _) => r.clone(),
                    (None, SourceType::Local) => loaded.source.as_ref().unwrap_or(&loaded.root).display().to_string(),
                    (None, _) => std::fs::canonicalize(path)
                        .unwrap_or_else(|_| path.to_path_buf())
                        .display()
                        .to_string(),
                };
                let exported: Vec<Exported> = exported
                    .iter()
                    .map(|e| Exported {
                        decl: &e.decl,
                        module: &e.module,
                        overlay: e.overlay.as_ref(),
                    })
                    .collect();
                let plan = Commit {
                    manifest: &manifest,
                    loaded: &loaded,
                    exported: &exported,
                    artifacts: &artifacts,
                    prepared: &prepared,
                    force: options.force,
                    source_ref: &source_ref,
                };
                // Read before the swap: whose URL changes decides whose
                // sign-in goes after it.
                match self.declared_urls(&manifest.id).await {
                    Ok(urls) => self.commit(&plan, &mut undo).await.map(|done| (done, urls)),
                    Err(e) => Err(e),
                }
            }
            Err(e) => Err(e),
        };
        let ((row, previous_version), urls) = match committed {
            Ok(done) => done,
            Err(e) => {
                undo.roll_back(self.app).await;
                return Err(e);
            }
        };
        prepared.forget_stale(self.app, &id).await;
        self.app.mcp().forget_moved_sign_ins(&urls).await;
        self.app.toolset_changed(&id).await;
        let action = match previous_version.as_deref() {
            None => ImportAction::Installed,
            Some(v) => match super::load::version_change(Some(v), &manifest.version) {
                VersionChange::Downgrade => ImportAction::Downgraded,
                VersionChange::Same => ImportAction::Reinstalled,
                VersionChange::Upgrade | VersionChange::New => ImportAction::Upgraded,
            },
        };
        tracing::info!(toolset = %id, version = %manifest.version, %action, "imported toolset");
        Ok(ImportReport {
            action,
            previous_version,
            toolset: toolset_from_row(&row)?,
            tools: manifest
                .tools
                .iter()
                .filter(|t| !t.is_overlay())
                .chain(exported.iter().map(|e| &e.decl))
                .map(|t| tool_id(&id, &t.id))
                .collect(),
            warnings: warnings(&loaded, &python.problems, &prepared.warnings, &signature_warnings),
            secrets_moved: prepared.moved(),
            will_run: WillRun {
                requirements_file: loaded.requirements_file.clone(),
                ..will_run(&manifest)
            },
        })
    }
}

/// What one import's transaction is given.
struct Commit<'a> {
    manifest: &'a ToolsetManifest,
    loaded: &'a Loaded,
    exported: &'a [Exported<'a>],
    artifacts: &'a BTreeSet<String>,
    prepared: &'a Prepared,
    force: bool,
    source_ref: &'a str,
}

impl Toolsets<'_> {
    /// The import's transaction: the rules checked again (the state may
    /// have moved since the first look), the rows replaced, the artifacts
    /// kept and the folder swapped in. Returns the new `toolsets` row and
    /// the version it replaced; on an error nothing of it stays but what
    /// `undo` names.
    /// [`super::servers::declared_urls`] on a connection of its own.
    async fn declared_urls(&self, id: &str) -> Result<Vec<(String, Option<String>)>> {
        let mut conn = self.app.db().acquire().await?;
        super::servers::declared_urls(&mut conn, id).await
    }

    async fn commit(&self, c: &Commit<'_>, undo: &mut Undo) -> Result<(SqliteRow, Option<String>)> {
        let (manifest, loaded) = (c.manifest, c.loaded);
        let id = &manifest.id;
        let final_dir = self.app.data_dir().toolsets_dir().join(id);
        let mut tx = db::begin_write(self.app.db()).await?;
        let previous = sqlx::query("SELECT version, enabled, installed_at FROM toolsets WHERE id = ?")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        let previous_version: Option<String> = previous.as_ref().map(|r| r.try_get("version")).transpose()?;
        let enabled: bool = previous
            .as_ref()
            .map(|r| r.try_get("enabled"))
            .transpose()?
            .unwrap_or(true);
        let installed_at: String = previous
            .as_ref()
            .map(|r| r.try_get("installed_at"))
            .transpose()?
            .unwrap_or_else(ids::now);
        same_version(previous_version.as_deref(), manifest, c.force)?;
        if previous.is_some() {
            ensure_idle(&mut tx, id).await?;
        }
        check_namespace(&mut tx, manifest).await?;

        // Replace the rows: the cascade removes tools, render configs, files
        // and declarations; tool_calls keep their history (no foreign key).
        let orphaned = servers_declared_only_by(&mut tx, id).await?;
        sqlx::query("DELETE FROM toolsets WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let updated_at = previous.as_ref().map(|_| ids::now());
        Rows {
            manifest,
            loaded,
            exported: c.exported,
            artifacts: c.artifacts,
            enabled,
            installed_at: &installed_at,
            updated_at: updated_at.as_deref(),
            source_ref: c.source_ref,
        }
        .insert(&mut tx)
        .await?;
        for (position, s) in manifest.mcp_servers.iter().enumerate() {
            sync_server(&mut tx, id, s, position).await?;
        }
        c.prepared.write_rows(&mut tx, id).await?;
        for server in orphaned {
            if !manifest.mcp_servers.iter().any(|s| s.id == server) {
                sqlx::query("DELETE FROM mcp_servers WHERE id = ? AND user_declared = 0")
                    .bind(&server)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        // Kept by content once every check has passed, under the write
        // lock: an import that does not commit removes what it added.
        self.app.keep_artifacts(loaded, c.artifacts, undo).await?;

        // Swap the folder in, inside the transaction: a failed commit puts
        // the previous folder back.
        let swapped = match &loaded.staging {
            Some(Staging(import)) => Some(import.swap_in(&import.staging(), &final_dir, id, updated_at.as_deref())?),
            None => None,
        };
        let record = match crate::store::failpoint::hit(crate::store::failpoint::IMPORT_BEFORE_COMMIT) {
            Ok(()) => sqlx::query("SELECT * FROM toolsets WHERE id = ?")
                .bind(id)
                .fetch_one(&mut *tx)
                .await
                .map_err(Error::from),
            Err(e) => Err(e),
        };
        let committed = match record {
            Ok(row) => tx.commit().await.map(|()| row).map_err(Error::from),
            Err(e) => Err(e),
        };
        match committed {
            Ok(row) => {
                if let Some(s) = swapped {
                    s.finish();
                }
                Ok((row, previous_version))
            }
            Err(e) => {
                if let Some(s) = swapped {
                    s.undo(&final_dir);
                }
                Err(e)
            }
        }
    }
}
