//! The example toolsets shipped inside Atelier (`examples/toolsets/` in the
//! repository, embedded at build time), and the scaffold of `toolset init`.

use std::path::Path;

use super::install::ImportOptions;
use super::records::ImportReport;
use crate::toolsets::Toolsets;
use crate::{Error, Result};

macro_rules! example {
    ($name:literal, [$($file:literal),* $(,)?]) => {
        ($name, &[$(($file, include_bytes!(concat!("../../../../examples/toolsets/", $name, "/", $file)) as &[u8])),*])
    };
}

type Files = &'static [(&'static str, &'static [u8])];

/// Each example: (folder name, files).
pub const EXAMPLES: &[(&str, Files)] = &[
    example!(
        "app-builder",
        ["toolset.yaml", "tools/__init__.py", "tools/files.py", "tools/shell.py"]
    ),
    example!(
        "csv-report",
        [
            "toolset.yaml",
            "tools/__init__.py",
            "tools/report.py",
            "tools/chart.py",
            "artifacts/report.html"
        ]
    ),
];

fn write_files(dir: &Path, files: &[(&str, &[u8])]) -> Result<()> {
    for (rel, bytes) in files {
        let p = dir.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(Error::io("create", parent))?;
        }
        std::fs::write(&p, bytes).map_err(Error::io("write", &p))?;
    }
    Ok(())
}

impl Toolsets<'_> {
    /// Gives a fresh data dir (no toolset, no chat) the bundled examples; a
    /// data dir someone has used is left as it is (examples they
    /// uninstalled stay uninstalled). Returns what was installed. The app
    /// calls `Agents::seed_if_fresh`, which also puts them on the
    /// Assistant's allowlist.
    pub(crate) async fn seed_if_fresh(&self) -> Result<Vec<ImportReport>> {
        // A read-only data dir (a copy, a mount) is shown as it is.
        if self.app.data_dir().is_read_only() {
            return Ok(Vec::new());
        }
        if self.list().await?.is_empty() && self.app.chats().list().await?.is_empty() {
            self.install_examples().await
        } else {
            Ok(Vec::new())
        }
    }

    /// Installs the bundled examples that are not installed yet (an older
    /// version is upgraded). Returns what was installed.
    pub async fn install_examples(&self) -> Result<Vec<ImportReport>> {
        let tmp = self
            .app
            .data_dir()
            .toolsets_dir()
            .join(format!(".examples-{}", crate::ids::new_id()));
        let result = async {
            let mut out = Vec::new();
            for (name, files) in EXAMPLES {
                let dir = tmp.join(name);
                let zip = tmp.join(format!("{name}.zip"));
                let (d, z) = (dir.clone(), zip.clone());
                let files: Vec<(&str, &[u8])> = files.to_vec();
                crate::blocking(move || {
                    write_files(&d, &files)?;
                    // Strict: a bundled example is clean.
                    super::export::pack_folder(&d, &z, &Default::default(), false)
                })
                .await?;
                let options = ImportOptions {
                    source_ref: Some(format!("bundled:{name}")),
                    ..Default::default()
                };
                match self.import(&zip, &options).await {
                    Ok(r) => out.push(r),
                    Err(Error::AlreadyInstalled { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(out)
        }
        .await;
        let _ = tokio::fs::remove_dir_all(&tmp).await;
        result
    }
}

/// The scaffold's README: the contract of a toolset, in a page.
const README: &str = include_str!("scaffold_readme.md");

/// Creates a working toolset in `dir` (which must not exist or be empty):
/// a Python tool, an HTML renderer artifact, a README, and the manifest's
/// JSON Schema for the author's editor (a dot-file: never packed).
pub fn init(dir: &Path, id: &str) -> Result<()> {
    if dir.exists() && std::fs::read_dir(dir).map_err(Error::io("read", dir))?.next().is_some() {
        return Err(Error::Conflict(format!(
            "{} is not empty; `toolset init` only writes into a new folder",
            dir.display()
        )));
    }
    let manifest = format!(
        r#"{modeline}
manifest_version: "1"
id: {id}
name: {id}
version: "0.1.0"
description: A starting point made by atelier toolset init
tools:
  - id: word_count
    name: Word count
    description: Count the words of a text, or of a text file in the workspace, and save the most common ones next to it
    entrypoint: tools.words:word_count
    category: text
    input_schema:
      type: object
      properties:
        path:
          type: string
          description: A text file, relative to the workspace (or give `text`)
        text:
          type: string
          description: The text itself, when there is no file
        top:
          type: integer
          minimum: 1
          default: 5
    renderer:
      type: html
      artifact: artifacts/words.html
      data: "$return"
"#,
        modeline = super::schema::MODELINE,
    );
    let tool = r#""""The tools of this toolset.

Each tool is a plain function. Atelier calls it with the chat's workspace
folder as `workspace` (a pathlib.Path: read and write files there) and the
call's arguments as keyword arguments, already checked against the tool's
`input_schema`. It returns a dict that JSON can hold; the renderer in
toolset.yaml shows it. An exception is the call's error, traceback included.
"""
from collections import Counter
from pathlib import Path


def word_count(workspace: Path, path: str = "", text: str = "", top: int = 5) -> dict:
    """Counts the words of `text`, or of the workspace file `path`, and saves
    the `top` most common ones to `<path>.words.txt` (or `words.txt`)."""
    if path:
        file = workspace / path
        if not file.is_file():
            present = sorted(p.relative_to(workspace).as_posix() for p in workspace.rglob("*") if p.is_file())
            listed = ", ".join(present[:20]) or "no files yet"
            raise FileNotFoundError(f"{path} is not a file in the workspace (it has: {listed}); give `text` instead")
        text = file.read_text()
    elif not text:
        raise ValueError("give `text` (the words to count) or `path` (a text file in the workspace)")
    words = [w.strip(".,;:!?\"'()").lower() for w in text.split()]
    common = Counter(w for w in words if w).most_common(top)
    summary = workspace / (f"{path}.words.txt" if path else "words.txt")
    summary.write_text("\n".join(f"{w}\t{n}" for w, n in common) + "\n")
    return {
        "path": path or None,
        "summary": summary.relative_to(workspace).as_posix(),
        "words": len(words),
        "top": [{"word": w, "count": n} for w, n in common],
    }
"#;
    let artifact = r#"<!doctype html>
<html>
<head><meta charset="utf-8">
<!-- Follows the app's light or dark look (prefers-color-scheme in the frame). -->
<meta name="color-scheme" content="light dark">
<style>
  :root { --bg: #ffffff; --text: #1d2330; --bar: #4f7cff; }
  @media (prefers-color-scheme: dark) { :root { --bg: #1c1f26; --text: #e6e8ee; --bar: #8b85ff; } }
  html { background: var(--bg); }
  body { font: 14px system-ui, sans-serif; margin: 16px; color: var(--text); }
  li span { display: inline-block; background: var(--bar); height: 10px; margin-left: 8px; }
</style></head>
<body>
<h1 id="title"></h1>
<ol id="top"></ol>
<script>
  // Atelier injects the tool's return value as window.__TOOL_DATA__.
  const d = window.__TOOL_DATA__;
  document.getElementById("title").textContent = `${d.path || "The text"}: ${d.words} words`;
  const max = Math.max(1, ...d.top.map(t => t.count));
  for (const t of d.top) {
    const li = document.createElement("li");
    li.textContent = `${t.word} (${t.count})`;
    const bar = document.createElement("span");
    bar.style.width = `${Math.round(200 * t.count / max)}px`;
    li.append(bar);
    document.getElementById("top").append(li);
  }
</script>
</body>
</html>
"#;
    let readme = README.replace("{id}", id);
    let schema = super::schema::manifest_schema_text();
    let files: [(&str, &[u8]); 6] = [
        (super::schema::SCHEMA_FILE, schema.as_bytes()),
        ("toolset.yaml", manifest.as_bytes()),
        ("tools/__init__.py", b""),
        ("tools/words.py", tool.as_bytes()),
        ("artifacts/words.html", artifact.as_bytes()),
        ("README.md", readme.as_bytes()),
    ];
    write_files(dir, &files)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every file of `examples/toolsets/<name>/` is embedded, and nothing
    /// else: a file added to an example but not here would be missing from
    /// installs (its entry point "not in the bundle").
    #[test]
    fn the_embedded_examples_are_exactly_the_example_folders() {
        fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).expect("read examples") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    if p.file_name().is_some_and(|n| n == "__pycache__") {
                        continue;
                    }
                    walk(root, &p, out);
                } else {
                    out.push(
                        p.strip_prefix(root)
                            .expect("prefix")
                            .to_string_lossy()
                            .replace('\\', "/"),
                    );
                }
            }
        }
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/toolsets");
        let mut on_disk: Vec<String> = Vec::new();
        walk(&base, &base, &mut on_disk);
        on_disk.sort();
        let mut embedded: Vec<String> = super::EXAMPLES
            .iter()
            .flat_map(|(name, files)| files.iter().map(move |(f, _)| format!("{name}/{f}")))
            .collect();
        embedded.sort();
        assert_eq!(embedded, on_disk);
    }
}
