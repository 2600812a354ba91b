//! `atelier toolset test DIR`: the fixture calls a toolset declares in its
//! `tests/` folder, one YAML file each, run against fresh workspaces:
//!
//! ```yaml
//! tool: word_count                 # its id in the toolset
//! args: {path: notes.txt}
//! files: {notes.txt: "a b a"}      # the workspace before the call
//! expect:
//!   status: success                # the default; or error
//!   result: {words: 3}             # what the result must contain
//!   error: "is not in the workspace"   # a part of the error, for status error
//!   files: {notes.txt.words.txt: "a\t2\nb\t1\n"}   # the workspace after
//! ```
//!
//! The folder is imported into the app it is given (the CLI gives a
//! scratch data dir), each fixture runs in a chat of its own, and every
//! mismatch is said by its JSON path.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Approval, RunRequest, Tools};
use crate::toolsets::ImportOptions;
use crate::{Error, Result};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fixture {
    tool: String,
    #[serde(default)]
    args: serde_json::Map<String, Value>,
    #[serde(default)]
    files: BTreeMap<String, String>,
    #[serde(default)]
    expect: Expect,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    status: Option<String>,
    result: Option<Value>,
    error: Option<String>,
    #[serde(default)]
    files: BTreeMap<String, String>,
}

/// How one fixture went.
#[derive(Debug, Clone, Serialize)]
pub struct FixtureOutcome {
    /// Its file, relative to the toolset folder.
    pub file: String,
    pub passed: bool,
    /// What did not match, each by where (empty when it passed).
    pub failures: Vec<String>,
    pub call_id: Option<String>,
}

impl Tools<'_> {
    /// Imports `dir` and runs every fixture of its `tests/` folder (see
    /// the module docs), in file name order.
    pub async fn test_folder(&self, dir: &Path) -> Result<Vec<FixtureOutcome>> {
        let report = self
            .app
            .toolsets()
            .import(
                dir,
                &ImportOptions {
                    force: true,
                    ..Default::default()
                },
            )
            .await?;
        let tests = dir.join("tests");
        let mut files: Vec<_> = std::fs::read_dir(&tests)
            .map_err(Error::io("read", &tests))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
            .collect();
        files.sort();
        let mut out = Vec::new();
        for path in files {
            let file = path.strip_prefix(dir).unwrap_or(&path).display().to_string();
            let text = tokio::fs::read_to_string(&path)
                .await
                .map_err(Error::io("read", &path))?;
            let outcome = match serde_norway::from_str::<Fixture>(&text) {
                Ok(f) => self.run_fixture(&report.toolset.id, &file, f).await?,
                Err(e) => FixtureOutcome {
                    file,
                    passed: false,
                    failures: vec![format!("not a fixture: {e}")],
                    call_id: None,
                },
            };
            out.push(outcome);
        }
        Ok(out)
    }

    async fn run_fixture(&self, toolset: &str, file: &str, f: Fixture) -> Result<FixtureOutcome> {
        let chat = self.app.chats().create(Some(&format!("test {file}"))).await?.id;
        let ws = self.app.workspace_dir(&chat);
        for (rel, text) in &f.files {
            let p = crate::store::confine::resolve(&ws, rel)?.1;
            if let Some(parent) = p.parent() {
                tokio::fs::create_dir_all(parent)
                    .await
                    .map_err(Error::io("create", parent))?;
            }
            tokio::fs::write(&p, text).await.map_err(Error::io("write", &p))?;
        }
        let tool_id = if f.tool.contains(':') {
            f.tool.clone()
        } else {
            format!("{toolset}:{}", f.tool)
        };
        let call = self
            .run(RunRequest {
                chat_id: chat.clone(),
                tool_id,
                args: Value::Object(f.args),
                // Fixtures run unattended.
                approval: Approval::Approved,
                ..Default::default()
            })
            .await?;
        let mut failures = Vec::new();
        let want = f.expect.status.as_deref().unwrap_or("success");
        if call.status.as_str() != want {
            failures.push(format!(
                "status: expected {want}, got {}{}",
                call.status.as_str(),
                call.error.as_deref().map(|e| format!(" ({e})")).unwrap_or_default()
            ));
        }
        if let Some(expected) = &f.expect.result {
            contains(
                call.result.as_ref().unwrap_or(&Value::Null),
                expected,
                "$return",
                &mut failures,
            );
        }
        if let Some(part) = &f.expect.error
            && !call.error.as_deref().is_some_and(|e| e.contains(part.as_str()))
        {
            failures.push(format!("error: expected it to contain {part:?}, got {:?}", call.error));
        }
        for (rel, text) in &f.expect.files {
            let p = crate::store::confine::resolve(&ws, rel)?.1;
            match tokio::fs::read_to_string(&p).await {
                Ok(got) if got == *text => {}
                Ok(got) => failures.push(format!("files.{rel}: expected {text:?}, got {got:?}")),
                Err(_) => failures.push(format!("files.{rel}: not in the workspace after the call")),
            }
        }
        Ok(FixtureOutcome {
            file: file.to_owned(),
            passed: failures.is_empty(),
            failures,
            call_id: Some(call.id),
        })
    }
}

/// Whether `got` holds everything of `want` (objects: every key of
/// `want`, recursively; anything else: equal); each miss by its path.
fn contains(got: &Value, want: &Value, at: &str, failures: &mut Vec<String>) {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => {
            for (k, wv) in w {
                let here = format!("{at}.{k}");
                match g.get(k) {
                    Some(gv) => contains(gv, wv, &here, failures),
                    None => failures.push(format!("{here}: missing (expected {wv})")),
                }
            }
        }
        _ if got == want => {}
        _ => failures.push(format!("{at}: expected {want}, got {got}")),
    }
}
