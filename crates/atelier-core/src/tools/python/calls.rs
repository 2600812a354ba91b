//! The Python side of the run flow: where a toolset's code and venv are,
//! and one call through the pool.

use std::path::{Path, PathBuf};

use atelier_protocol::Request;
use serde_json::Value;

use super::scratch::Scratch;
use super::{Key, Spawn, to_outcome, venv};
use crate::store::Observer;
use crate::tools::call::{CallControl, Outcome};
use crate::tools::status::ErrorKind;
use crate::toolsets::manifest::{ToolDecl, ToolsetManifest};
use crate::toolsets::records::{ToolRecord, ToolsetRecord};
use crate::{Atelier, Error, Result};

/// One tool as the worker describes it (see `runner.py`, `_describe`).
#[derive(serde::Deserialize)]
pub(super) struct Exported {
    pub(super) name: String,
    pub(super) entrypoint: String,
    #[serde(default)]
    pub(super) description: String,
    pub(super) input_schema: Value,
}

/// A tool a `tools_from:` module exports, as the import installs it.
#[derive(Debug)]
pub(crate) struct ExportedDecl {
    /// The derived declaration, with what an overlay adds.
    pub decl: ToolDecl,
    /// The module that exports it.
    pub module: String,
    /// The `tools:` entry (without `entrypoint`) that adds to it, as written.
    pub overlay: Option<ToolDecl>,
}

/// What an entry without `entrypoint` that names no export is told.
pub(super) fn unmatched_overlay<'a>(id: &str, exported: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = exported.collect();
    let hint = crate::toolsets::validate::did_you_mean(id, names.iter().copied())
        .map(|m| format!("; did you mean `{m}`?"))
        .unwrap_or_default();
    format!(
        "tool {id:?} has no `entrypoint`, so it adds to a tool a `tools_from:` module exports, but none exports {id:?} \
         (they export: {}){hint}",
        if names.is_empty() {
            "nothing".to_owned()
        } else {
            names.join(", ")
        }
    )
}

/// Why a `tools_from` module may not export a tool named `name`, given the
/// manifest's `tools:` and the exports already `taken` (name, module).
pub(super) fn exported_clash(manifest: &ToolsetManifest, taken: &[(String, String)], name: &str) -> Option<String> {
    if !crate::toolsets::validate::is_tool_id(name) {
        return Some(format!(
            "exported name {name:?} is not a valid tool id (1-64 of A-Z, a-z, 0-9, `_`, `-`)"
        ));
    }
    if manifest.tools.iter().any(|d| d.id == name && !d.is_overlay()) {
        return Some(format!("exports {name:?}, which `tools:` also declares"));
    }
    taken
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, other)| format!("exports {name:?}, which {other} also exports"))
}

impl Atelier {
    /// The folder a toolset's code runs from: its install folder (for a
    /// local toolset, the copy of its last good version); a local toolset
    /// installed by a version that ran it in place has none, and runs from
    /// its folder until it is reloaded.
    pub(crate) fn toolset_root(&self, ts: &ToolsetRecord) -> PathBuf {
        let installed = self.data_dir().toolsets_dir().join(&ts.id);
        match (ts.source_type.as_str(), &ts.source_ref) {
            ("local", Some(dir)) if !installed.is_dir() && std::path::Path::new(dir).is_dir() => PathBuf::from(dir),
            _ => installed,
        }
    }

    /// Where toolsets' bytecode is cached (`PYTHONPYCACHEPREFIX` roots).
    pub(super) fn pycache_root(&self) -> PathBuf {
        self.data_dir().root().join("cache").join("pycache")
    }

    /// After a toolset changed (upgraded, disabled, uninstalled): stops its
    /// idle workers, so the next call imports the code afresh, drops its
    /// cached bytecode, and stops the MCP servers it declares.
    pub(crate) async fn toolset_changed(&self, toolset_id: &str) {
        self.python().stop_toolset(toolset_id);
        self.mcp_after_toolset_change(toolset_id).await;
        let cache = self.pycache_root().join(toolset_id);
        let _ = tokio::fs::remove_dir_all(cache).await;
    }

    /// Makes (or finds) the venv of a toolset's `python.requirements`;
    /// `None` when it has none.
    pub(crate) async fn ensure_toolset_venv(
        &self,
        toolset_id: &str,
        requirements: &[String],
        observer: &Observer,
    ) -> Result<Option<PathBuf>> {
        if requirements.is_empty() {
            return Ok(None);
        }
        let probe = self.python().probe().await?.clone();
        let dir = venv::venv_dir(
            &self.data_dir().root().join("venvs"),
            toolset_id,
            &probe.python_version,
            requirements,
        );
        let settings = &self.python().settings.installer;
        let python = settings.python.clone().unwrap_or_else(|| probe.interpreter());
        venv::ensure(settings, &python, &dir, toolset_id, requirements, observer).await?;
        Ok(Some(dir))
    }

    /// Removes every virtual environment no installed toolset version uses
    /// (`atelier gc`); how many. One being made (its lock held) is left
    /// alone, and a call whose venv went makes it again.
    pub(crate) async fn gc_venvs(&self) -> Result<u64> {
        let root = self.data_dir().root().join("venvs");
        if !root.is_dir() {
            return Ok(0);
        }
        let Ok(probe) = self.python().probe().await.cloned() else {
            // No interpreter to name the live ones by: keep everything.
            return Ok(0);
        };
        let live: std::collections::HashSet<PathBuf> = self
            .toolsets()
            .list()
            .await?
            .iter()
            .filter(|t| !t.python_requirements.is_empty())
            .map(|t| venv::venv_dir(&root, &t.id, &probe.python_version, &t.python_requirements))
            .collect();
        crate::blocking(move || {
            let mut removed = 0;
            for entry in std::fs::read_dir(&root).map_err(Error::io("read", &root))?.flatten() {
                let path = entry.path();
                if !path.is_dir() || live.contains(&path) {
                    continue;
                }
                let lock_path = path.with_extension("lock");
                let Some(lock) = crate::lock::FileLock::try_acquire(&lock_path)? else {
                    continue;
                };
                std::fs::remove_dir_all(&path).map_err(Error::io("remove", &path))?;
                let _ = std::fs::remove_file(&lock_path);
                drop(lock);
                removed += 1;
            }
            Ok(removed)
        })
        .await
    }

    /// The tools that a manifest's `tools_from:` modules export, as tool
    /// declarations with the module that exported each. The modules are
    /// imported in a worker of their own (from `root`, the folder being
    /// installed), which stops afterwards.
    pub(crate) async fn describe_exports(
        &self,
        manifest: &ToolsetManifest,
        scratch: &mut Scratch<'_>,
        venv: Option<&Path>,
        bundle: &str,
    ) -> Result<Vec<ExportedDecl>> {
        if manifest.tools_from.is_empty() {
            return Ok(Vec::new());
        }
        let fail = |i: usize, module: &str, message: String| Error::Bundle {
            bundle: bundle.to_owned(),
            entry: Some("toolset.yaml".into()),
            message: format!("tools_from[{i}] ({module}): {message}"),
        };
        let mut out: Vec<ExportedDecl> = Vec::new();
        for (i, module) in manifest.tools_from.iter().enumerate() {
            let req = Request::Describe {
                id: crate::ids::new_id(),
                module: module.clone(),
            };
            let (worker, limits) = scratch.get(venv).await?;
            let call = to_outcome(worker.request(&req, limits).await);
            let listed = match call.result {
                Ok(listed) => listed,
                Err(f) => {
                    let detail = f.traceback.map(|t| format!("\n{t}")).unwrap_or_default();
                    let said = scratch.as_bundle_paths(&format!("{}{detail}", f.message));
                    return Err(fail(i, module, said));
                }
            };
            let listed: Vec<Exported> = serde_json::from_value(listed)
                .map_err(|e| fail(i, module, format!("the worker described it oddly: {e}")))?;
            for t in listed {
                let taken: Vec<(String, String)> = out.iter().map(|e| (e.decl.id.clone(), e.module.clone())).collect();
                if let Some(why) = exported_clash(manifest, &taken, &t.name) {
                    return Err(fail(i, module, why));
                }
                let exported = ToolDecl {
                    id: t.name.clone(),
                    name: t.name,
                    description: t.description,
                    entrypoint: t.entrypoint,
                    category: None,
                    tags: Vec::new(),
                    input_schema: t.input_schema,
                    requires_confirmation: false,
                    timeout_s: None,
                    renderer: None,
                    extra: Default::default(),
                };
                let overlay = manifest.tools.iter().find(|d| d.is_overlay() && d.id == exported.id);
                out.push(ExportedDecl {
                    decl: match overlay {
                        Some(o) => o.overlaid(exported),
                        None => exported,
                    },
                    module: module.clone(),
                    overlay: overlay.cloned(),
                });
            }
        }
        if let Some((i, o)) = manifest
            .tools
            .iter()
            .enumerate()
            .find(|(_, t)| t.is_overlay() && !out.iter().any(|e| e.decl.id == t.id))
        {
            return Err(Error::Bundle {
                bundle: bundle.to_owned(),
                entry: Some("toolset.yaml".into()),
                message: format!(
                    "tools[{i}]: {}",
                    unmatched_overlay(&o.id, out.iter().map(|e| e.decl.id.as_str()))
                ),
            });
        }
        Ok(out)
    }

    /// Calls a toolset's Python tool in the chat's worker.
    pub(crate) async fn call_python(
        &self,
        tool: &ToolRecord,
        ts: &ToolsetRecord,
        chat_id: &str,
        args: &Value,
        control: &CallControl,
    ) -> Outcome {
        match self.try_call_python(tool, ts, chat_id, args, control).await {
            Ok(outcome) => outcome,
            Err(e) => Outcome::failed(ErrorKind::Unavailable, format!("{} could not run: {e}", tool.tool_id)),
        }
    }

    async fn try_call_python(
        &self,
        tool: &ToolRecord,
        ts: &ToolsetRecord,
        chat_id: &str,
        args: &Value,
        control: &CallControl,
    ) -> Result<Outcome> {
        let entrypoint = tool
            .entrypoint
            .clone()
            .ok_or_else(|| Error::Python(format!("{} has no entrypoint", tool.tool_id)))?;
        let venv = self
            .ensure_toolset_venv(&ts.id, &ts.python_requirements, &Observer::default())
            .await?;
        let root = self.toolset_root(ts);
        let workspace = self.workspace_dir(chat_id);
        let fingerprint = format!(
            "{}|{}|{}",
            ts.version,
            ts.updated_at.as_deref().unwrap_or(&ts.installed_at),
            venv.as_ref().map(|v| v.display().to_string()).unwrap_or_default()
        );
        // Bytecode is cached per installed version: Python trusts a cached
        // file whose source has the same size and whole-second mtime, which
        // an upgrade within the same second can have.
        let pycache = self.pycache_root().join(&ts.id).join(
            crate::store::Hash::of(fingerprint.as_bytes())
                .to_hex()
                .get(..16)
                .unwrap_or_default(),
        );
        // A shared toolset has one worker for every chat (no chat in its
        // key: stopping a chat's workers leaves it); each call still gets
        // its own chat's workspace, which the worker changes into.
        let shared = ts.scope == crate::toolsets::manifest::Scope::Shared;
        let key = Key {
            toolset_id: ts.id.clone(),
            chat_id: if shared { String::new() } else { chat_id.to_owned() },
            fingerprint,
        };
        let settings = &self.python().settings;
        let timeout = control.timeout_for(tool, settings.default_timeout);
        // Its toolset's settings, secrets included: read for this call
        // only, sent over the worker's socket, never recorded.
        let config = self.toolsets().values_for_tool(&ts.id).await?;
        let req = Request::Call {
            id: crate::ids::new_id(),
            entrypoint,
            workspace: workspace.display().to_string(),
            args: args.as_object().cloned().unwrap_or_default(),
            exported: tool.exported_from.is_some(),
            config,
        };
        // Per chat and toolset, inside the chat's folder: it goes with the
        // chat. A shared worker's is the toolset's own.
        let tmp = if shared {
            self.data_dir().root().join("cache").join("tmp").join(&ts.id)
        } else {
            self.data_dir().chat_dir(chat_id).join("tmp").join(&ts.id)
        };
        let spawn = Spawn {
            toolset_dir: &root,
            venv: venv.as_deref(),
            workspace: &workspace,
            pycache: &pycache,
            tmp: &tmp,
        };
        let ended = self.python().request(key, spawn, &req, timeout, control).await?;
        Ok(to_outcome(ended))
    }
}
