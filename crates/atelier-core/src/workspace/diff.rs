//! Differences between two workspace states, with unified text diffs.

use similar::TextDiff;

use crate::model::{ModifiedFile, WorkspaceDiff};
use crate::store::manifest::Change;
use crate::{Atelier, Result, blocking};

/// Text files larger than this are reported as `too_large` instead of
/// diffed (a diff of megabytes helps no one and costs seconds).
const MAX_DIFF_BYTES: u64 = 2 << 20;

impl Atelier {
    /// What changed from message `from` to message `to` (ids or unique
    /// prefixes; manifest ids work too): added, removed and modified paths,
    /// with a unified diff for each modified text file.
    pub async fn diff(&self, chat_id: &str, from: &str, to: &str) -> Result<WorkspaceDiff> {
        let chat = self.get_chat(chat_id).await?;
        let from_id = self.resolve_manifest_id(&chat.id, from).await?;
        let to_id = self.resolve_manifest_id(&chat.id, to).await?;
        let a = self.manifest_files(&chat.id, &from_id).await?;
        let b = self.manifest_files(&chat.id, &to_id).await?;
        let store = self.blob_store(&chat.id);
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
                        };
                        if !m.mode_only {
                            if from.size.max(to.size) > MAX_DIFF_BYTES {
                                m.too_large = true;
                            } else {
                                let old = store.read_verified(&from.hash, path)?;
                                let new = store.read_verified(&to.hash, path)?;
                                match (as_text(&old), as_text(&new)) {
                                    (Some(old), Some(new)) => m.diff = Some(unified(path, old, new)),
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

/// UTF-8 without NUL bytes counts as text (git's heuristic, plus UTF-8).
fn as_text(bytes: &[u8]) -> Option<&str> {
    if bytes.contains(&0) {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

fn unified(path: &str, old: &str, new: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unified_diff_has_headers_and_hunks() {
        let d = unified("a.txt", "one\ntwo\n", "one\nthree\n");
        assert!(d.starts_with("--- a/a.txt\n+++ b/a.txt\n"), "{d}");
        assert!(d.contains("-two\n+three\n"), "{d}");
    }

    #[test]
    fn binary_detection() {
        assert!(as_text(b"plain").is_some());
        assert!(as_text(b"nul\0byte").is_none());
        assert!(as_text(&[0xff, 0xfe]).is_none());
    }
}
