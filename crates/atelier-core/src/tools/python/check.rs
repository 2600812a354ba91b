//! The import check of a toolset version before it replaces the running
//! one: in a scratch worker rooted at the new files, every `entrypoint:`
//! module is imported and its function found, without calling it. A syntax
//! error (named by file and line, as Python reports it), a failing import
//! or a missing function (or one that cannot take `workspace`) fails the
//! check, and the version is not installed: the last good one keeps
//! serving calls. A signature that disagrees with the tool's
//! `input_schema` (a property it does not take, a parameter without a
//! default the schema does not require) only may fail a call: a warning.
//! A tool that gives no `input_schema` takes the one its signature and
//! docstring make (as a `tools_from:` module's tools do); this is the one
//! check a ZIP's import makes too.

use std::collections::BTreeSet;
use std::path::Path;

use atelier_protocol::Request;

use super::scratch::Scratch;
use super::to_outcome;
use crate::toolsets::manifest::{ToolsetManifest, no_arguments_written};
use crate::toolsets::validate::{Problem, Severity};
use crate::{Atelier, Error, Result};

impl Atelier {
    /// Checks the `entrypoint:`s of `manifest` against the files in `root`
    /// (see the module docs): every one when `all` (a local folder, an
    /// author's work in progress), else only those whose tools give no
    /// `input_schema`, which take it from the imported function here (see
    /// [`no_arguments_written`]). `bundle` names the bundle in errors. What
    /// only may fail a call (a signature that disagrees with the tool's
    /// `input_schema`) comes back as warnings.
    pub(crate) async fn check_entrypoints(
        &self,
        manifest: &mut ToolsetManifest,
        scratch: &mut Scratch<'_>,
        root: &Path,
        venv: Option<&Path>,
        bundle: &str,
        all: bool,
    ) -> Result<Vec<Problem>> {
        // Each entrypoint once, with the first tool that names it.
        let mut seen = BTreeSet::new();
        let targets: Vec<(usize, String)> = manifest
            .tools
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.is_overlay() && (all || no_arguments_written(&t.input_schema)))
            .map(|(i, t)| (i, t.entrypoint.clone()))
            .filter(|(_, e)| seen.insert(e.clone()))
            .collect();
        if targets.is_empty() {
            return Ok(Vec::new());
        }
        let (worker, limits) = scratch.get(venv).await?;
        let mut warnings = Vec::new();
        for (i, entrypoint) in targets {
            let req = Request::Check {
                id: crate::ids::new_id(),
                entrypoint: entrypoint.clone(),
            };
            let signature = match to_outcome(worker.request(&req, limits).await).result {
                Ok(signature) => signature,
                Err(f) => {
                    let detail = f.traceback.map(|t| format!("\n{}", t.trim_end())).unwrap_or_default();
                    // Paths as the author knows them: relative to the folder,
                    // not to the scratch copy the check ran in.
                    let scratch = format!("{}/", root.display());
                    return Err(Error::Bundle {
                        bundle: bundle.to_owned(),
                        entry: Some(module_file(&entrypoint)),
                        message: format!("tools[{i}].entrypoint ({entrypoint}): {}{detail}", f.message)
                            .replace(&scratch, ""),
                    });
                }
            };
            if !takes_workspace(&signature) {
                // Every call would fail: not a version to run.
                return Err(Error::Bundle {
                    bundle: bundle.to_owned(),
                    entry: Some(module_file(&entrypoint)),
                    message: format!("tools[{i}].entrypoint: {}", no_workspace(&entrypoint)),
                });
            }
            for (j, tool) in manifest
                .tools
                .iter_mut()
                .enumerate()
                .filter(|(_, t)| t.entrypoint == entrypoint)
            {
                if no_arguments_written(&tool.input_schema) {
                    // As a `tools_from:` module's tool gets them.
                    if let Some(made) = signature.get("tool") {
                        tool.input_schema = made["input_schema"].clone();
                        if tool.description.is_empty() {
                            tool.description = made["description"].as_str().unwrap_or_default().to_owned();
                        }
                    }
                } else if let Some(why) = mismatch(&signature, &tool.input_schema) {
                    warnings.push(Problem::at(
                        Severity::Warning,
                        format!("tools[{j}].input_schema"),
                        format!("{entrypoint}: {why}"),
                    ));
                }
            }
        }
        Ok(warnings)
    }
}

/// How a function's signature (as the worker's check reports it) and the
/// tool's `input_schema` disagree so that calls would fail, if they do.
pub(super) fn mismatch(signature: &serde_json::Value, schema: &serde_json::Value) -> Option<String> {
    let Some(params) = signature["parameters"].as_array() else {
        return None; // a builtin or C function: nothing to compare
    };
    let var_keyword = signature["var_keyword"].as_bool().unwrap_or(false);
    let names: Vec<&str> = params.iter().filter_map(|p| p["name"].as_str()).collect();
    let takes = || {
        names
            .iter()
            .filter(|n| !GIVEN.contains(n))
            .copied()
            .collect::<Vec<_>>()
            .join(", ")
    };
    let props = schema["properties"].as_object();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(serde_json::Value::as_str).collect())
        .unwrap_or_default();
    if !var_keyword {
        for p in props.into_iter().flat_map(|m| m.keys()) {
            if !names.contains(&p.as_str()) {
                return Some(format!(
                    "input_schema.properties.{p} is not a parameter of the function (it takes: {})",
                    takes()
                ));
            }
        }
    }
    for p in params {
        let (Some(name), Some(true)) = (p["name"].as_str(), p["required"].as_bool()) else {
            continue;
        };
        if !GIVEN.contains(&name) && !required.contains(&name) {
            return Some(format!(
                "parameter `{name}` has no default, but input_schema does not require it: a call without it fails \
                 (add it to `required`, or give it a default)"
            ));
        }
    }
    None
}

/// What a function that cannot be given `workspace` is told.
pub(super) fn no_workspace(entrypoint: &str) -> String {
    format!("{entrypoint}: the function must take `workspace` (the chat's folder) as a parameter")
}

/// Whether the function can be given `workspace`, as every call does.
pub(super) fn takes_workspace(signature: &serde_json::Value) -> bool {
    let Some(params) = signature["parameters"].as_array() else {
        return true;
    };
    signature["var_keyword"].as_bool().unwrap_or(false) || params.iter().any(|p| p["name"] == "workspace")
}

/// Parameters Atelier gives, never the model.
const GIVEN: &[&str] = &["workspace", "atelier_config"];

/// The file an entrypoint's module is read from, as the author knows it
/// (`tools.words:count` → `tools/words.py`).
fn module_file(entrypoint: &str) -> String {
    let module = entrypoint.split(':').next().unwrap_or(entrypoint);
    format!("{}.py", module.replace('.', "/"))
}
