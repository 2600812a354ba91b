//! What `toolset validate` (and an import, before it installs any
//! requirement) can say of a bundle's Python without running it: in a
//! scratch worker with no venv, `inspect_static.py` compiles every module,
//! finds the top-level imports that fail inside the bundle, looks up each
//! `entrypoint:` function (following imports inside the bundle) and
//! compares its signature with the tool's `input_schema` — or, for a tool
//! without one, shows the arguments its signature gives — and derives the
//! tools of each `tools_from:` module from its `TOOLS` / `__all__` — so
//! their schemas are shown, and a clash with `tools:` or an export that
//! cannot be a tool is reported, before anything is installed. What only
//! the import can tell (a function from outside the bundle, a computed
//! `TOOLS`) is a warning saying so, and left to the import's own checks
//! ([`super::check`], `describe_exports`).

use std::collections::{BTreeMap, BTreeSet};

use atelier_protocol::Request;
use serde::Deserialize;
use serde_json::Value;

use super::scratch::Scratch;
use super::to_outcome;
use crate::Atelier;
use crate::toolsets::manifest::ToolsetManifest;
use crate::toolsets::records::ExportedTool;
use crate::toolsets::validate::{Problem, Severity};

/// What the static look found.
#[derive(Debug, Default)]
pub(crate) struct Inspection {
    /// Errors (a syntax error, a missing function, a `tools_from` clash)
    /// and warnings (a signature that disagrees with its `input_schema`).
    pub problems: Vec<Problem>,
    /// The tools `tools_from:` modules export, where the source says.
    pub exported: Vec<ExportedTool>,
    /// The `tools:` entries without an `input_schema`, with the arguments
    /// their function's signature gives, where the source says.
    pub derived: Vec<ExportedTool>,
    /// What only the import can tell (a computed `TOOLS`, a function from
    /// outside the bundle), said as warnings by `validate`; the import
    /// itself finds out.
    pub unread: Vec<Problem>,
}

#[derive(Deserialize)]
struct Answer {
    syntax: Vec<SyntaxError>,
    entrypoints: BTreeMap<String, Entrypoint>,
    tools_from: BTreeMap<String, Option<Vec<super::calls::Exported>>>,
    /// Modules whose exports name what cannot be a tool, and what they are
    /// told (the import says the same).
    #[serde(default)]
    not_tools: BTreeMap<String, String>,
    /// Modules whose tools only the import can tell, and why.
    #[serde(default)]
    computed: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct SyntaxError {
    file: String,
    line: Option<usize>,
    column: Option<usize>,
    message: String,
    #[serde(default)]
    text: String,
}

#[derive(Deserialize)]
struct Entrypoint {
    found: String,
    #[serde(default)]
    functions: Vec<String>,
    #[serde(flatten)]
    signature: Value,
}

impl Atelier {
    /// Inspects the Python of a bundle whose files are in `root` (see the
    /// module docs). `files` are the bundle's file names. Never fails on
    /// the bundle's account: a worker that cannot start is a warning that
    /// the Python was not checked.
    pub(crate) async fn inspect_python(
        &self,
        manifest: &ToolsetManifest,
        scratch: &mut Scratch<'_>,
        files: &BTreeSet<String>,
    ) -> Inspection {
        let modules: Vec<String> = files.iter().filter(|f| f.ends_with(".py")).cloned().collect();
        if modules.is_empty() {
            return Inspection::default();
        }
        let mut seen = BTreeSet::new();
        let entrypoints: Vec<String> = manifest
            .tools
            .iter()
            .filter(|t| !t.is_overlay())
            .map(|t| t.entrypoint.clone())
            .filter(|e| seen.insert(e.clone()))
            .collect();
        let req = Request::Inspect {
            id: crate::ids::new_id(),
            files: modules,
            entrypoints,
            tools_from: manifest.tools_from.clone(),
        };
        let answer = match scratch.get(None).await {
            Ok((worker, limits)) => to_outcome(worker.request(&req, limits).await)
                .result
                .map_err(|f| f.message),
            Err(e) => Err(e.to_string()),
        };
        if answer.is_err() {
            // A worker that did not answer (timed out, crashed) is dead: the
            // import's next look starts another.
            scratch.stop_worker().await;
        }
        let answer = answer.and_then(|v| serde_json::from_value::<Answer>(v).map_err(|e| e.to_string()));
        match answer {
            Ok(answer) => judge(manifest, answer),
            Err(why) => Inspection {
                problems: vec![Problem::at(
                    Severity::Warning,
                    "",
                    format!("the Python modules were not checked: {why}"),
                )],
                ..Default::default()
            },
        }
    }
}

/// The problems of an answer, in the manifest's terms.
fn judge(manifest: &ToolsetManifest, answer: Answer) -> Inspection {
    let mut out = Inspection::default();
    for s in answer.syntax {
        let shown = if s.text.trim().is_empty() {
            String::new()
        } else {
            format!("\n  {} | {}", s.line.unwrap_or(0), s.text)
        };
        out.problems.push(Problem {
            file: Some(s.file),
            line: s.line,
            column: s.column,
            ..Problem::at(Severity::Error, "", format!("{}{shown}", s.message))
        });
    }
    let mut reported = BTreeSet::new();
    for (i, tool) in manifest.tools.iter().enumerate() {
        if tool.is_overlay() {
            continue;
        }
        let Some(ep) = answer.entrypoints.get(&tool.entrypoint) else {
            continue;
        };
        let path = format!("tools[{i}].entrypoint");
        match ep.found.as_str() {
            "missing" if reported.insert(tool.entrypoint.clone()) => {
                let (module, func) = tool.entrypoint.split_once(':').unwrap_or((&tool.entrypoint, ""));
                let has = if ep.functions.is_empty() {
                    "it defines no function".to_owned()
                } else {
                    format!("it defines: {}", ep.functions.join(", "))
                };
                let hint = crate::toolsets::validate::did_you_mean(func, ep.functions.iter().map(String::as_str))
                    .map(|m| format!("; did you mean `{m}`?"))
                    .unwrap_or_default();
                out.problems.push(Problem::at(
                    Severity::Error,
                    path,
                    format!("{module} has no function `{func}` ({has}){hint}"),
                ));
            }
            "def" => {
                if !super::check::takes_workspace(&ep.signature) {
                    out.problems.push(Problem::at(
                        Severity::Error,
                        path,
                        format!(
                            "{}: the function must take `workspace` (the chat's folder) as a parameter",
                            tool.entrypoint
                        ),
                    ));
                } else if crate::toolsets::manifest::no_arguments_written(&tool.input_schema) {
                    // Listed with its arguments when there are any.
                    let made = &ep.signature["tool"];
                    let has_arguments = made["input_schema"]["properties"]
                        .as_object()
                        .is_some_and(|p| !p.is_empty());
                    if has_arguments {
                        let (module, _) = tool.entrypoint.split_once(':').unwrap_or((&tool.entrypoint, ""));
                        let description = match tool.description.as_str() {
                            "" => made["description"].as_str().unwrap_or_default().to_owned(),
                            given => given.to_owned(),
                        };
                        out.derived.push(ExportedTool {
                            module: module.to_owned(),
                            name: tool.id.clone(),
                            entrypoint: tool.entrypoint.clone(),
                            description,
                            input_schema: made["input_schema"].clone(),
                            adds: false,
                            requires_confirmation: tool.requires_confirmation,
                        });
                    }
                } else if let Some(why) = super::check::mismatch(&ep.signature, &tool.input_schema) {
                    out.problems.push(Problem::at(
                        Severity::Warning,
                        format!("tools[{i}].input_schema"),
                        format!("{}: {why}", tool.entrypoint),
                    ));
                }
            }
            _ => {}
        }
    }
    let mut taken: Vec<(String, String)> = Vec::new();
    // Whether every module's exports are known from the source: only then
    // can an entry that adds to an export be said to name none.
    let mut all_known = true;
    for (i, module) in manifest.tools_from.iter().enumerate() {
        if let Some(why) = answer.not_tools.get(module) {
            out.problems
                .push(Problem::at(Severity::Error, format!("tools_from[{i}]"), why.clone()));
        }
        if let Some(why) = answer.computed.get(module) {
            out.unread
                .push(Problem::at(Severity::Warning, format!("tools_from[{i}]"), why.clone()));
        }
        let Some(Some(listed)) = answer.tools_from.get(module) else {
            all_known = false;
            continue;
        };
        for t in listed {
            match super::calls::exported_clash(manifest, &taken, &t.name) {
                Some(why) => out.problems.push(Problem::at(
                    Severity::Error,
                    format!("tools_from[{i}]"),
                    format!("{module}: {why}"),
                )),
                None => {
                    taken.push((t.name.clone(), module.clone()));
                    let overlay = manifest.tools.iter().find(|d| d.is_overlay() && d.id == t.name);
                    out.exported.push(ExportedTool {
                        module: module.clone(),
                        name: t.name.clone(),
                        entrypoint: t.entrypoint.clone(),
                        description: overlay
                            .map(|o| o.description.clone())
                            .filter(|d| !d.is_empty())
                            .unwrap_or_else(|| t.description.clone()),
                        input_schema: t.input_schema.clone(),
                        adds: overlay.is_some(),
                        requires_confirmation: overlay.is_some_and(|o| o.requires_confirmation),
                    });
                }
            }
        }
    }
    if all_known {
        for (i, o) in manifest.tools.iter().enumerate().filter(|(_, t)| t.is_overlay()) {
            if !taken.iter().any(|(name, _)| *name == o.id) {
                out.problems.push(Problem::at(
                    Severity::Error,
                    format!("tools[{i}]"),
                    super::calls::unmatched_overlay(&o.id, taken.iter().map(|(n, _)| n.as_str())),
                ));
            }
        }
    }
    out
}
