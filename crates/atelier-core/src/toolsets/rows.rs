//! The database rows of an installed version: its `toolsets` row, files,
//! tools (declared and exported, each at its place) and render configs,
//! written inside the import's transaction.

use std::collections::BTreeSet;

use serde_json::Value;
use sqlx::SqliteConnection;

use super::install::tool_id;
use super::load::Loaded;
use super::manifest::{RendererKind, ToolDecl, ToolsetManifest};
use super::servers::to_json;
use super::validate::MANIFEST_FILE;
use crate::Result;

/// What the rows of one import are made of.
pub(super) struct Rows<'a> {
    pub manifest: &'a ToolsetManifest,
    pub loaded: &'a Loaded,
    pub exported: &'a [Exported<'a>],
    pub artifacts: &'a BTreeSet<String>,
    pub enabled: bool,
    pub installed_at: &'a str,
    /// When an earlier version was replaced: now.
    pub updated_at: Option<&'a str>,
    pub source_ref: &'a str,
}

/// A tool a `tools_from:` module exports, as the import found it.
pub(super) struct Exported<'a> {
    /// Its declaration, with what an overlay adds.
    pub decl: &'a ToolDecl,
    pub module: &'a str,
    /// The `tools:` entry that adds to it, as written.
    pub overlay: Option<&'a ToolDecl>,
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

/// The artifacts its `html` renderers name, as bundle paths.
pub(super) fn artifact_paths(m: &ToolsetManifest) -> BTreeSet<String> {
    m.tools
        .iter()
        .filter_map(|t| t.renderer.as_ref())
        .filter(|r| r.kind == RendererKind::Html)
        .filter_map(|r| r.config.get("artifact").and_then(Value::as_str))
        .map(|a| a.trim_start_matches("./").to_owned())
        .collect()
}

impl Rows<'_> {
    /// Inserts the rows (the caller deleted the earlier version's).
    pub(super) async fn insert(&self, tx: &mut SqliteConnection) -> Result<()> {
        let (manifest, loaded) = (self.manifest, self.loaded);
        let id = &manifest.id;
        sqlx::query(
            "INSERT INTO toolsets (id, name, version, description, enabled, installed_at, updated_at, source_type, \
             source_ref, manifest_version, author, homepage, icon, python_requirements, extra, tools_from, prefix, scope, \
             user_config) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(id)
        .bind(&manifest.name)
        .bind(&manifest.version)
        .bind(&manifest.description)
        .bind(self.enabled)
        .bind(self.installed_at)
        .bind(self.updated_at)
        .bind(loaded.source_type.as_str())
        .bind(self.source_ref)
        .bind(&manifest.manifest_version)
        .bind(&manifest.author)
        .bind(&manifest.homepage)
        .bind(&manifest.icon)
        .bind(to_json(&manifest.python.requirements)?)
        .bind(to_json(&manifest.extra)?)
        .bind(to_json(&manifest.tools_from)?)
        .bind(&manifest.prefix)
        .bind(manifest.scope.as_str())
        .bind(to_json(&manifest.user_config)?)
        .execute(&mut *tx)
        .await?;
        for (path, info) in &loaded.files {
            let stored = match &loaded.source {
                Some(dir) if path == MANIFEST_FILE => dir.join(path).display().to_string(),
                _ => format!("toolsets/{id}/{path}"),
            };
            sqlx::query(
                "INSERT INTO toolset_files (toolset_id, path, kind, sha256, size, stored_path) VALUES (?, ?, ?, ?, ?, ?)",
            )
            .bind(id)
            .bind(path)
            .bind(file_kind(path, self.artifacts))
            .bind(info.sha256.to_hex())
            .bind(i64::try_from(info.size).unwrap_or(i64::MAX))
            .bind(stored)
            .execute(&mut *tx)
            .await?;
        }
        self.insert_tools(tx).await
    }

    async fn insert_tools(&self, tx: &mut SqliteConnection) -> Result<()> {
        let manifest = self.manifest;
        let id = &manifest.id;
        // Each row at its place in `tools:` (an exported tool that an entry
        // adds to, at that entry's), the other exported tools after them:
        // an export writes `tools:` back in the author's order.
        let declared = manifest
            .tools
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.is_overlay())
            .map(|(i, t)| (i, t, None, None));
        let mut after = manifest.tools.len();
        let exported_rows = self.exported.iter().map(|e| {
            let at = manifest.tools.iter().position(|t| t.is_overlay() && t.id == e.decl.id);
            let position = at.unwrap_or_else(|| {
                after += 1;
                after
            });
            (position, e.decl, Some(e.module), e.overlay)
        });
        for (position, t, exported_from, overlay) in declared.chain(exported_rows) {
            let tid = tool_id(id, &t.id);
            sqlx::query(
                "INSERT INTO tools (tool_id, toolset_id, name, description, category, input_schema, \
                 requires_confirmation, enabled, entrypoint, tags, timeout_s, extra, position, exported_from, overlay) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(&tid)
            .bind(id)
            .bind(&t.name)
            .bind(&t.description)
            .bind(&t.category)
            .bind(to_json(&t.input_schema)?)
            .bind(t.requires_confirmation)
            .bind(t.enabled())
            .bind(&t.entrypoint)
            .bind(to_json(&t.tags)?)
            .bind(t.timeout_s)
            .bind(to_json(&t.extra)?)
            .bind(i64::try_from(position).unwrap_or(i64::MAX))
            .bind(exported_from)
            .bind(overlay.map(to_json).transpose()?)
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
        Ok(())
    }
}
