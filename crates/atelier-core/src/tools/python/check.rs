//! The import check of a toolset version before it replaces the running
//! one: in a scratch worker rooted at the new files, every `entrypoint:`
//! module is imported and its function found, without calling it. A syntax
//! error (named by file and line, as Python reports it), a failing import
//! or a missing function fails the check, and the version is not
//! installed: the last good one keeps serving calls.

use std::collections::BTreeSet;
use std::path::Path;

use atelier_protocol::Request;

use super::to_outcome;
use crate::toolsets::manifest::ToolsetManifest;
use crate::{Atelier, Error, Result};

impl Atelier {
    /// Checks every `entrypoint:` of `manifest` against the files in `root`
    /// (see the module docs). `bundle` names the bundle in errors.
    pub(crate) async fn check_entrypoints(
        &self,
        manifest: &ToolsetManifest,
        root: &Path,
        venv: Option<&Path>,
        bundle: &str,
    ) -> Result<()> {
        // Each entrypoint once, with the first tool that names it.
        let mut seen = BTreeSet::new();
        let targets: Vec<(usize, &str)> = manifest
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| (i, t.entrypoint.as_str()))
            .filter(|(_, e)| seen.insert(*e))
            .collect();
        if targets.is_empty() {
            return Ok(());
        }
        let (mut worker, limits) = self.scratch_worker(root, venv).await?;
        let mut result = Ok(());
        for (i, entrypoint) in targets {
            let req = Request::Check {
                id: crate::ids::new_id(),
                entrypoint: entrypoint.to_owned(),
            };
            if let Err(f) = to_outcome(worker.request(&req, &limits).await).result {
                let detail = f.traceback.map(|t| format!("\n{}", t.trim_end())).unwrap_or_default();
                // Paths as the author knows them: relative to the folder,
                // not to the scratch copy the check ran in.
                let scratch = format!("{}/", root.display());
                result = Err(Error::Bundle {
                    bundle: bundle.to_owned(),
                    entry: Some(module_file(entrypoint)),
                    message: format!("tools[{i}].entrypoint ({entrypoint}): {}{detail}", f.message)
                        .replace(&scratch, ""),
                });
                break;
            }
        }
        worker.kill().await;
        result
    }
}

/// The file an entrypoint's module is read from, as the author knows it
/// (`tools.words:count` → `tools/words.py`).
fn module_file(entrypoint: &str) -> String {
    let module = entrypoint.split(':').next().unwrap_or(entrypoint);
    format!("{}.py", module.replace('.', "/"))
}
