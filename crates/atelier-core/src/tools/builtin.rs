//! Builtin tools: Rust functions on the chat workspace, no Python.
//!
//! Their canonical ids are bare (`write_file`), their `tools` rows have
//! `toolset_id` NULL and are synced from [`BUILTINS`] when the data dir is
//! opened (this list is the one source of truth). Every path argument is
//! confined ([`crate::store::confine`]): normalized (no `..`, no absolute
//! paths), and every folder on the way is lstat'ed so a symlink is never
//! followed out of the workspace.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::store::confine::{open_regular, resolve as confined, resolve_folder, write_file as write_confined};
use crate::{Error, Result};

/// A builtin tool's definition.
#[derive(Debug)]
pub struct Builtin {
    pub id: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub category: &'static str,
    pub requires_confirmation: bool,
    pub input_schema: fn() -> Value,
    /// `(renderer, config)`.
    pub render: fn() -> (&'static str, Value),
}

pub const BUILTINS: &[Builtin] = &[
    Builtin {
        id: "delete_file",
        name: "Delete File",
        description: "Delete a file from the workspace",
        category: "files",
        requires_confirmation: true,
        input_schema: || json!({"type": "object", "properties": {"path": {"type": "string", "description": "File path relative to the workspace"}}, "required": ["path"], "additionalProperties": false}),
        render: || ("code", json!({"content": "Deleted ${args.path}", "language": "text"})),
    },
    Builtin {
        id: "list_files",
        name: "List Files",
        description: "List the files of the workspace (or of one folder of it), with sizes",
        category: "files",
        requires_confirmation: false,
        input_schema: || json!({"type": "object", "properties": {"path": {"type": "string", "description": "A folder relative to the workspace (default: all)"}}, "additionalProperties": false}),
        render: || ("code", json!({"content": "$return.listing", "language": "text"})),
    },
    Builtin {
        id: "read_file",
        name: "Read File",
        description: "Read a text file from the workspace",
        category: "files",
        requires_confirmation: false,
        input_schema: || json!({"type": "object", "properties": {"path": {"type": "string", "description": "File path relative to the workspace"}}, "required": ["path"], "additionalProperties": false}),
        render: || ("code", json!({"file": "$args.path", "language": "auto"})),
    },
    Builtin {
        id: "write_file",
        name: "Write File",
        description: "Write content to a file in the workspace (folders are created)",
        category: "files",
        requires_confirmation: false,
        input_schema: || json!({"type": "object", "properties": {"path": {"type": "string", "description": "File path relative to the workspace"}, "content": {"type": "string", "description": "The whole new content"}}, "required": ["path", "content"], "additionalProperties": false}),
        render: || {
            (
                "code",
                json!({"file": "$args.path", "language": "auto", "editable": true}),
            )
        },
    },
];

/// The builtin with this id.
pub fn find(id: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.id == id)
}

/// The most `read_file` returns: a model's context holds no more, and a
/// call's row keeps its result.
pub const READ_CAP: usize = 1 << 20;

/// A UTF-8 text file's content, at most [`READ_CAP`] bytes of it (cut at a
/// character boundary, with `truncated` and the full `size` so the reader
/// knows there is more). Only what is returned is read.
fn read_text(rel: String, f: fs::File, size: u64) -> Result<Value> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(READ_CAP).min(READ_CAP + 4));
    // Up to three bytes more, to tell a cut character from a bad one.
    f.take(READ_CAP as u64 + 3)
        .read_to_end(&mut bytes)
        .map_err(Error::io("read", &rel))?;
    let truncated = bytes.len() > READ_CAP || (bytes.len() as u64) < size;
    if bytes.len() > READ_CAP {
        bytes.truncate(READ_CAP);
    }
    let not_text = || Error::InvalidPath {
        path: rel.clone(),
        reason: "not a UTF-8 text file",
    };
    let content = match String::from_utf8(bytes) {
        Ok(s) => s,
        // A character cut by the cap: keep what precedes it.
        Err(e) if truncated && e.utf8_error().error_len().is_none() => {
            let valid = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            bytes.truncate(valid);
            String::from_utf8(bytes).map_err(|_| not_text())?
        }
        Err(_) => return Err(not_text()),
    };
    let mut out = json!({"path": rel, "content": content, "size": size});
    if truncated {
        out["truncated"] = json!(true);
        out["note"] = json!(format!(
            "showing the first {} of {size} bytes",
            out["content"].as_str().map_or(0, str::len)
        ));
    }
    Ok(out)
}

fn arg<'a>(args: &'a Value, key: &str) -> &'a str {
    args.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// Runs a builtin (blocking). Errors are the tool's errors (the call is
/// recorded with status `error`), not the app's.
pub fn run(id: &str, workspace: &Path, args: &Value) -> Result<Value> {
    match id {
        "write_file" => {
            let content = arg(args, "content");
            let rel = write_confined(workspace, arg(args, "path"), content.as_bytes())?;
            Ok(json!({"written": rel, "size": content.len()}))
        }
        "read_file" => {
            let (rel, f, size) = open_regular(workspace, arg(args, "path"))?;
            read_text(rel, f, size)
        }
        "delete_file" => {
            let (rel, abs) = confined(workspace, arg(args, "path"))?;
            match fs::symlink_metadata(&abs) {
                Ok(m) if m.is_dir() => Err(Error::InvalidPath {
                    path: rel,
                    reason: "it is a folder",
                }),
                Ok(_) => {
                    fs::remove_file(&abs).map_err(Error::io("delete", &abs))?;
                    Ok(json!({"deleted": rel}))
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::NotInWorkspace { path: rel }),
                Err(e) => Err(Error::io("delete", abs)(e)),
            }
        }
        "list_files" => {
            let base = match args.get("path").and_then(Value::as_str) {
                Some(p) if !p.is_empty() && p != "." => Some(resolve_folder(workspace, p)?),
                _ => None,
            };
            let (prefix, dir) = match &base {
                Some((rel, abs)) => (format!("{rel}/"), abs.clone()),
                None => (String::new(), workspace.to_path_buf()),
            };
            let mut files = Vec::new();
            let mut stack = vec![(dir, prefix)];
            while let Some((d, p)) = stack.pop() {
                for e in fs::read_dir(&d).map_err(Error::io("list", &d))?.flatten() {
                    let Ok(name) = e.file_name().into_string() else {
                        continue;
                    };
                    let ft = e.file_type().map_err(Error::io("list", e.path()))?;
                    if ft.is_dir() {
                        stack.push((e.path(), format!("{p}{name}/")));
                    } else if ft.is_file() {
                        let size = e.metadata().map(|m| m.len()).unwrap_or(0);
                        files.push((format!("{p}{name}"), size));
                    }
                }
            }
            files.sort();
            let listing = files
                .iter()
                .map(|(p, s)| format!("{s:>10}  {p}"))
                .collect::<Vec<_>>()
                .join("\n");
            Ok(json!({
                "files": files.iter().map(|(p, s)| json!({"path": p, "size": s})).collect::<Vec<_>>(),
                "count": files.len(),
                "listing": listing,
            }))
        }
        other => Err(Error::ToolNotFound(other.to_owned())),
    }
}
