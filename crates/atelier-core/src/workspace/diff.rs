//! Differences between two workspace states, with unified text diffs, and
//! the diff of an edit a person is about to save ([`diff_text`]): one diff
//! algorithm for every view.

use serde::{Deserialize, Serialize};
use similar::{ChangeTag, TextDiff};

use crate::model::{ModifiedFile, WorkspaceDiff};
use crate::store::manifest::Change;
use crate::workspace::Workspace;
use crate::{Result, blocking};

/// Text files larger than this are reported as `too_large` instead of
/// diffed (a diff of megabytes helps no one and costs seconds).
const MAX_DIFF_BYTES: u64 = 2 << 20;

impl Workspace<'_> {
    /// What changed from message `from` to message `to` (ids or unique
    /// prefixes; manifest ids work too): added, removed and modified paths,
    /// with a unified diff for each modified text file.
    pub async fn diff(&self, chat_id: &str, from: &str, to: &str) -> Result<WorkspaceDiff> {
        let chat = self.app.chats().get(chat_id).await?;
        let from_id = self.app.resolve_manifest_id(&chat.id, from).await?;
        let to_id = self.app.resolve_manifest_id(&chat.id, to).await?;
        let a = self.app.manifest_files(&chat.id, &from_id).await?;
        let b = self.app.manifest_files(&chat.id, &to_id).await?;
        let store = self.app.blob_store(&chat.id);
        blocking(move || {
            let mut out = WorkspaceDiff::default();
            for (path, change) in a.changes_to(&b) {
                match change {
                    Change::Added(_) => out.added.push(path.to_owned()),
                    Change::Removed(_) => out.removed.push(path.to_owned()),
                    Change::Modified { from, to } => {
                        let mut m = ModifiedFile {
                            path: path.to_owned(),
                            diff: None,
                            binary: false,
                            too_large: false,
                            mode_only: from.hash == to.hash,
                            mode_from: (from.mode() != to.mode()).then(|| from.mode()),
                            mode_to: (from.mode() != to.mode()).then(|| to.mode()),
                        };
                        if !m.mode_only {
                            if from.size.max(to.size) > MAX_DIFF_BYTES {
                                m.too_large = true;
                            } else {
                                let old = store.read_verified(&from.hash, path)?;
                                let new = store.read_verified(&to.hash, path)?;
                                match (as_text(&old), as_text(&new)) {
                                    (Some(old), Some(new)) => m.diff = Some(text_change(path, old, new).unified),
                                    _ => m.binary = true,
                                }
                            }
                        }
                        out.modified.push(m);
                    }
                }
            }
            Ok(out)
        })
        .await
    }
}

/// An edit about to be saved, as a person reviews it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct TextChange {
    /// Unified diff (`a/<path>`, `b/<path>`, three lines of context); empty
    /// when nothing changed.
    pub unified: String,
    /// Lines added and removed.
    pub added: u32,
    pub removed: u32,
}

/// The diff of `before` → `after` for `path` (off the async runtime: a big
/// file takes a moment).
pub async fn diff_text(path: String, before: String, after: String) -> Result<TextChange> {
    blocking(move || Ok(text_change(&path, &before, &after))).await
}

/// The diff every view shows. A last line without a newline is compared as
/// if it had one, so typing a line after it reads as one line added (not
/// "the last line removed, two added"); when the final newline is the only
/// difference, the exact diff says so.
fn text_change(path: &str, old: &str, new: &str) -> TextChange {
    let terminated = |s: &str| {
        if s.is_empty() || s.ends_with('\n') {
            s.to_owned()
        } else {
            format!("{s}\n")
        }
    };
    let (o, n) = (terminated(old), terminated(new));
    let (a, b) = if o == n { (old, new) } else { (o.as_str(), n.as_str()) };
    let diff = TextDiff::from_lines(a, b);
    let (mut added, mut removed) = (0u32, 0u32);
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    let unified = if added + removed == 0 {
        String::new()
    } else {
        diff.unified_diff()
            .context_radius(3)
            .header(&format!("a/{path}"), &format!("b/{path}"))
            .to_string()
    };
    TextChange {
        unified,
        added,
        removed,
    }
}

/// UTF-8 without NUL bytes counts as text (git's heuristic, plus UTF-8).
fn as_text(bytes: &[u8]) -> Option<&str> {
    if bytes.contains(&0) {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unified_diff_has_headers_and_hunks() {
        let d = text_change("a.txt", "one\ntwo\n", "one\nthree\n").unified;
        assert!(d.starts_with("--- a/a.txt\n+++ b/a.txt\n"), "{d}");
        assert!(d.contains("-two\n+three\n"), "{d}");
    }

    #[tokio::test]
    async fn an_edit_is_counted_and_shown_as_the_compare_view_shows_it() {
        let change = diff_text("notes.md".into(), "a\nb\nc\n".into(), "a\nB\nc\nd\n".into())
            .await
            .expect("diff");
        assert_eq!((change.added, change.removed), (2, 1));
        assert!(
            change.unified.starts_with("--- a/notes.md\n+++ b/notes.md\n"),
            "{}",
            change.unified
        );
        assert!(change.unified.contains("-b\n+B\n"), "{}", change.unified);
        let same = diff_text("x".into(), "same\n".into(), "same\n".into())
            .await
            .expect("diff");
        assert_eq!((same.unified.as_str(), same.added, same.removed), ("", 0, 0));
    }

    #[test]
    fn binary_detection() {
        assert!(as_text(b"plain").is_some());
        assert!(as_text(b"nul\0byte").is_none());
        assert!(as_text(&[0xff, 0xfe]).is_none());
    }
}
