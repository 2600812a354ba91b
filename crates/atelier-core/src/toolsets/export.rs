//! Export and `pack`: a toolset as a deterministic ZIP, secrets stripped
//! (env values become `${VAR}`), which imports back as the same toolset.
//!
//! `toolset.yaml` is regenerated from the database (unknown keys kept) with
//! secrets stripped: every MCP `env` or `headers` value with no `${…}`
//! reference in it becomes `${<KEY>}`; `user_config` keeps its definitions,
//! never a value. Entries are sorted, timestamps and
//! permissions fixed: exporting twice gives identical bytes, and export →
//! import → export too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use sqlx::Row;

use super::bundle;
use super::manifest::{McpServerDecl, PythonSection, RendererDecl, RendererKind, ToolDecl, ToolsetManifest};
use super::records::json_col;
use super::validate::requirements_txt::{self, REQUIREMENTS_TXT};
use super::validate::{self, MANIFEST_FILE};
use crate::store::Observer;
use crate::toolsets::Toolsets;
use crate::zipfile::Content;
use crate::{Error, Result, blocking};

/// What an export or pack wrote.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct PackReport {
    pub path: PathBuf,
    pub file_count: usize,
    pub size: u64,
    /// SHA-256 of the ZIP, hex: what a person publishing it quotes.
    pub sha256: String,
}

/// What `pack` made: the ZIP, what it will run, and the warnings it let
/// through (none unless asked to allow them).
#[derive(Debug, Clone, Serialize)]
pub struct Packed {
    #[serde(flatten)]
    pub report: PackReport,
    pub will_run: super::records::WillRun,
    pub warnings: Vec<validate::Problem>,
}

impl Toolsets<'_> {
    /// Checks a toolset folder as `validate` does — its Python included,
    /// nothing run — and packs it into a deterministic ZIP at `out`. Strict
    /// (a warning fails it) unless `allow_warnings`; nothing is written when
    /// it fails.
    pub async fn pack(&self, dir: &Path, out: &Path, observer: &Observer, allow_warnings: bool) -> Result<Packed> {
        let mut report = self.check_bundle(dir, observer).await?;
        if !allow_warnings {
            validate::strict(&mut report.problems);
        }
        if report.problems.iter().any(|p| p.severity == validate::Severity::Error) {
            return Err(Error::InvalidManifest {
                bundle: dir.display().to_string(),
                problems: report.problems,
            });
        }
        let (d, o, obs) = (dir.to_path_buf(), out.to_path_buf(), observer.clone());
        let mut packed = blocking(move || pack_folder(&d, &o, &obs, allow_warnings)).await?;
        packed.warnings = report.problems;
        Ok(packed)
    }

    /// The manifest of an installed toolset, regenerated from the database,
    /// with secrets stripped.
    pub async fn manifest(&self, id: &str) -> Result<ToolsetManifest> {
        let row = sqlx::query("SELECT * FROM toolsets WHERE id = ?")
            .bind(id)
            .fetch_optional(self.app.db())
            .await?
            .ok_or_else(|| Error::ToolsetNotFound(id.to_owned()))?;
        let tool_rows = sqlx::query(
            "SELECT t.*, r.renderer, r.config FROM tools t LEFT JOIN tool_render_configs r \
             ON r.tool_id = t.tool_id AND r.priority = 0 \
             WHERE t.toolset_id = ? AND (t.exported_from IS NULL OR t.overlay IS NOT NULL) \
             ORDER BY t.position, t.tool_id",
        )
        .bind(id)
        .fetch_all(self.app.db())
        .await?;
        let prefix = format!("{id}:");
        let mut tools = Vec::new();
        for r in &tool_rows {
            // An entry that adds to an exported tool goes back as written.
            if r.try_get::<Option<String>, _>("overlay")?.is_some() {
                tools.push(json_col::<ToolDecl>(r, "overlay")?);
                continue;
            }
            let tool_id: String = r.try_get("tool_id")?;
            let renderer = match r.try_get::<Option<String>, _>("renderer")? {
                Some(kind) => Some(RendererDecl {
                    kind: RendererKind::parse(&kind).ok_or_else(|| Error::InvalidData {
                        what: "renderer type",
                        reason: kind.clone(),
                    })?,
                    config: json_col::<BTreeMap<String, Value>>(r, "config")?,
                }),
                None => None,
            };
            tools.push(ToolDecl {
                id: tool_id.strip_prefix(&prefix).unwrap_or(&tool_id).to_owned(),
                name: r.try_get("name")?,
                description: r.try_get("description")?,
                entrypoint: r.try_get::<Option<String>, _>("entrypoint")?.unwrap_or_default(),
                category: r.try_get("category")?,
                tags: json_col(r, "tags")?,
                input_schema: json_col(r, "input_schema")?,
                requires_confirmation: r.try_get("requires_confirmation")?,
                timeout_s: r.try_get("timeout_s")?,
                renderer,
                extra: json_col(r, "extra")?,
            });
        }
        let servers =
            sqlx::query("SELECT config FROM toolset_mcp_servers WHERE toolset_id = ? ORDER BY position, server_id")
                .bind(id)
                .fetch_all(self.app.db())
                .await?
                .iter()
                .map(|r| json_col::<McpServerDecl>(r, "config").map(|s| s.without_secrets()))
                .collect::<Result<Vec<_>>>()?;
        Ok(ToolsetManifest {
            manifest_version: row.try_get("manifest_version")?,
            id: row.try_get("id")?,
            name: row.try_get("name")?,
            version: row.try_get("version")?,
            description: row.try_get("description")?,
            author: row.try_get("author")?,
            homepage: row.try_get("homepage")?,
            icon: row.try_get("icon")?,
            prefix: row.try_get("prefix")?,
            scope: {
                let s: String = row.try_get("scope")?;
                super::manifest::Scope::parse(&s).unwrap_or_default()
            },
            python: PythonSection {
                requirements: json_col(&row, "python_requirements")?,
            },
            tools,
            tools_from: json_col(&row, "tools_from")?,
            mcp_servers: servers,
            user_config: json_col(&row, "user_config")?,
            extra: json_col(&row, "extra")?,
        })
    }

    /// Writes an installed toolset to `out` as a deterministic ZIP.
    pub async fn export(&self, id: &str, out: &Path) -> Result<PackReport> {
        let manifest = self.manifest(id).await?;
        let files = sqlx::query("SELECT path, stored_path FROM toolset_files WHERE toolset_id = ? ORDER BY path")
            .bind(id)
            .fetch_all(self.app.db())
            .await?;
        let mut contents = BTreeMap::new();
        for f in &files {
            let path: String = f.try_get("path")?;
            let stored: String = f.try_get("stored_path")?;
            let stored = PathBuf::from(stored);
            let abs = if stored.is_absolute() {
                stored
            } else {
                self.app.data_dir().root().join(stored)
            };
            contents.insert(path, Content::File(abs));
        }
        // The author's own bytes (comments, order, formatting) when they
        // say exactly what the rows say; else — a secret replaced by a
        // reference, an edit since — the manifest regenerated from the rows.
        let names: BTreeSet<String> = contents.keys().cloned().collect();
        let original = match contents.get(MANIFEST_FILE) {
            Some(Content::File(path)) => tokio::fs::read(path)
                .await
                .ok()
                .and_then(|b| validate::text::decode(&b).ok()),
            _ => None,
        };
        // Its requirements may come from its requirements.txt.
        let requirements_txt = match contents.get(REQUIREMENTS_TXT) {
            Some(Content::File(path)) => tokio::fs::read(path).await.ok(),
            _ => None,
        };
        let yaml = original
            .filter(|text| {
                let mut checked = validate::check(text, &names);
                requirements_txt::apply_requirements_txt(&mut checked, requirements_txt.as_deref());
                checked
                    .manifest
                    .is_some_and(|m| with_derived_arguments(m, &manifest) == manifest)
            })
            .unwrap_or_else(|| {
                // Requirements the file gives stay the file's: listed in
                // the manifest too, the file would not be read, and a hash
                // pin, which only a requirements.txt may carry, would make
                // the manifest invalid.
                let mut regenerated = manifest.clone();
                let from_file = requirements_txt.as_deref().and_then(requirements_txt::requirements_of);
                if from_file.as_ref() == Some(&regenerated.python.requirements) {
                    regenerated.python.requirements.clear();
                }
                regenerated.to_yaml()
            });
        contents.insert(MANIFEST_FILE.to_owned(), Content::Bytes(yaml.into_bytes()));
        let out = out.to_path_buf();
        blocking(move || write(&out, &contents)).await
    }
}

fn write(out: &Path, contents: &BTreeMap<String, Content>) -> Result<PackReport> {
    // A script a server runs (`command: ${__dirname}/run.sh`) stays
    // executable in the ZIP, as `zip -r` keeps it.
    let executable: BTreeMap<String, u32> = contents
        .iter()
        .filter(|(_, c)| match c {
            Content::File(p) => {
                use std::os::unix::fs::PermissionsExt;
                std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
            }
            Content::Bytes(_) => false,
        })
        .map(|(name, _)| (name.clone(), 0o755))
        .collect();
    crate::zipfile::write_zip_with(out, contents, zip::DateTime::default(), &executable)?;
    let size = std::fs::metadata(out).map_err(Error::io("read", out))?.len();
    let bytes = std::fs::read(out).map_err(Error::io("read", out))?;
    Ok(PackReport {
        path: out.to_path_buf(),
        file_count: contents.len(),
        size,
        sha256: crate::store::Hash::of(&bytes).to_hex(),
    })
}

/// Validates a toolset folder and packs it (skipping ignored files) into a
/// deterministic ZIP. Warnings fail it too (`strict`: what is published
/// should be clean) unless `allow_warnings`. Blocking.
pub fn pack_folder(dir: &Path, out: &Path, observer: &Observer, allow_warnings: bool) -> Result<Packed> {
    let files = bundle::scan_folder(dir, observer)?;
    let manifest_path = dir.join(MANIFEST_FILE);
    let text = validate::text::read(&manifest_path, dir)?;
    let names: BTreeSet<String> = files.keys().cloned().collect();
    let mut checked = validate::check(&text, &names);
    let requirements_txt = if files.contains_key(REQUIREMENTS_TXT) {
        let path = dir.join(REQUIREMENTS_TXT);
        Some(std::fs::read(&path).map_err(Error::io("read", &path))?)
    } else {
        None
    };
    let from_file = requirements_txt::apply_requirements_txt(&mut checked, requirements_txt.as_deref());
    if !allow_warnings {
        validate::strict(&mut checked.problems);
    }
    let Some(manifest) = checked.manifest.as_ref().filter(|_| checked.errors().next().is_none()) else {
        return Err(Error::InvalidManifest {
            bundle: dir.display().to_string(),
            problems: checked.problems,
        });
    };
    let contents: BTreeMap<String, Content> = files.keys().map(|p| (p.clone(), Content::File(dir.join(p)))).collect();
    Ok(Packed {
        report: write(out, &contents)?,
        will_run: super::records::WillRun {
            requirements_file: from_file.then(|| REQUIREMENTS_TXT.to_owned()),
            ..super::install::will_run(manifest)
        },
        warnings: checked.problems,
    })
}

/// `authored` with what the install derived from each function (a tool
/// written without `input_schema`: its signature's arguments, its
/// docstring if it wrote no description) taken from `rows`, so what was
/// derived is not a difference from what the author wrote.
fn with_derived_arguments(mut authored: ToolsetManifest, rows: &ToolsetManifest) -> ToolsetManifest {
    for tool in &mut authored.tools {
        if super::manifest::no_arguments_written(&tool.input_schema)
            && let Some(row) = rows.tools.iter().find(|r| r.id == tool.id)
        {
            tool.input_schema = row.input_schema.clone();
            // And the docstring, where the entry wrote no description.
            if tool.description.is_empty() {
                tool.description = row.description.clone();
            }
        }
    }
    authored
}
