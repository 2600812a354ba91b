//! A node's workspace, out of Atelier: as a new folder or as a ZIP.
//!
//! Every file is copied from the blob store with its hash checked (a
//! missing or corrupt blob fails the export, naming the file) into a
//! staging folder first, so a failed export never leaves half a folder or
//! half a ZIP where the person asked for it. A folder (or one saved file)
//! keeps each file's mode as a checkout writes it, private files 0600 or
//! 0700 included; a ZIP's entries say 0644, 0755 for a script, and 0600 or
//! 0700 for a private file, so unpacking it puts the modes back.
//! ZIP entries are dated when the node was recorded (a workspace has no
//! file times of its own) and otherwise deterministic.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::store::{Observer, Progress};
use crate::workspace::Workspace;
use crate::zipfile::{Content, write_zip_with};
use crate::{Error, Result, blocking, ids};

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct WorkspaceExport {
    pub path: String,
    pub files: u64,
    pub bytes: u64,
}

impl Workspace<'_> {
    /// Writes the workspace of `node` (a message or manifest of the chat;
    /// the active state when `None`) to `dest`: a ZIP when `dest` ends in
    /// `.zip`, else a folder that must not exist yet (or be empty).
    pub async fn export(
        &self,
        chat_id: &str,
        node: Option<&str>,
        dest: &Path,
        observer: &Observer,
    ) -> Result<WorkspaceExport> {
        let manifest = self.manifest(chat_id, node).await?;
        let (_, files) = self.app.manifest_state(&manifest.chat_id, &manifest.id).await?;
        let store = self.app.blob_store(&manifest.chat_id);
        let zip = dest.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip"));
        // A `\` is a folder to ZIP tools on Windows: `..\..\x` would land
        // outside where the person unpacks it.
        if let Some(odd) = files.files.keys().find(|p| zip && p.contains('\\')) {
            return Err(Error::InvalidPath {
                path: odd.clone(),
                reason: "a backslash in a name is a folder to ZIP tools on Windows: rename the file, or export a folder instead of a ZIP",
            });
        }
        // A ZIP's staging folder is the chat's, locked while it is filled
        // (a crash's is removed at start-up and by `gc`).
        let held = if zip {
            let chat_dir = self.app.data_dir().chat_dir(&manifest.chat_id);
            Some(blocking(move || super::staging::Staged::begin(&chat_dir, "export")).await?)
        } else {
            None
        };
        let staging = if let Some(held) = &held {
            held.path().to_path_buf()
        } else {
            if dest.exists() && fs::read_dir(dest).map_err(Error::io("read", dest))?.next().is_some() {
                return Err(Error::Conflict(format!(
                    "{} is not empty: export a workspace into a new folder",
                    dest.display()
                )));
            }
            let name = dest.file_name().and_then(|n| n.to_str()).unwrap_or("workspace");
            dest.with_file_name(format!(".{name}.atelier-partial-{}", ids::new_id()))
        };
        let stamp = zip_time(&manifest.created_at);
        // Each entry says the mode a checkout gives the file (not narrowed
        // by this umask: the ZIP is read on other machines), so `unzip`
        // makes a private `.env` 0600 again; `zipfile` makes the archive
        // itself 0600 when it holds one.
        let modes: BTreeMap<String, u32> = files
            .files
            .iter()
            .filter_map(|(path, e)| {
                let mode = e.mode();
                (mode != 0o644).then(|| (path.clone(), mode))
            })
            .collect();
        let (dest, obs) = (dest.to_path_buf(), observer.clone());
        blocking(move || {
            let result = (|| {
                let mut progress = Progress {
                    files_total: files.files.len() as u64,
                    ..Default::default()
                };
                let mut staged: BTreeMap<String, Content> = BTreeMap::new();
                fs::create_dir_all(&staging).map_err(Error::io("create", &staging))?;
                for (path, entry) in &files.files {
                    obs.check()?;
                    let target: PathBuf = staging.join(path);
                    if let Some(dir) = target.parent() {
                        fs::create_dir_all(dir).map_err(Error::io("create", dir))?;
                    }
                    store.copy_verified(&entry.hash, path, &target, entry.written_mode())?;
                    progress.files_done += 1;
                    progress.bytes_done += entry.size;
                    obs.progress(progress);
                    staged.insert(path.clone(), Content::File(target));
                }
                if zip {
                    write_zip_with(&dest, &staged, stamp, &modes)?;
                } else {
                    if dest.exists() {
                        fs::remove_dir(&dest).map_err(Error::io("replace", &dest))?;
                    }
                    fs::rename(&staging, &dest).map_err(Error::io("move", &dest))?;
                }
                Ok(WorkspaceExport {
                    path: dest.display().to_string(),
                    files: progress.files_done,
                    bytes: progress.bytes_done,
                })
            })();
            let _ = fs::remove_dir_all(&staging);
            drop(held);
            result
        })
        .await
    }

    /// Saves one file of a workspace state (a message or manifest of the
    /// chat; the active state when `None`) as `dest`, replacing what is
    /// there (the person chose it in a save dialog, which asked). The blob
    /// is verified into a hidden file beside `dest` first, then renamed, so
    /// a failure leaves `dest` as it was.
    pub async fn export_file(
        &self,
        chat_id: &str,
        path: &str,
        node: Option<&str>,
        dest: &Path,
    ) -> Result<WorkspaceExport> {
        let path = crate::store::path::normalize(path)?;
        let manifest = self.manifest(chat_id, node).await?;
        let files = self.app.manifest_files(&manifest.chat_id, &manifest.id).await?;
        let entry = *files.get(&path).ok_or_else(|| Error::FileNotFound {
            path: path.clone(),
            manifest_id: manifest.id.clone(),
        })?;
        if dest.is_dir() {
            return Err(Error::Conflict(format!(
                "{} is a folder: choose a file name to save {path} as",
                dest.display()
            )));
        }
        let store = self.app.blob_store(&manifest.chat_id);
        let dest = dest.to_path_buf();
        blocking(move || {
            let name = dest.file_name().and_then(|n| n.to_str()).unwrap_or("file");
            let partial = dest.with_file_name(format!(".{name}.atelier-partial-{}", ids::new_id()));
            let done = store
                .copy_verified(&entry.hash, &path, &partial, entry.written_mode())
                .and_then(|()| fs::rename(&partial, &dest).map_err(Error::io("save", &dest)));
            if done.is_err() {
                let _ = fs::remove_file(&partial);
            }
            done?;
            Ok(WorkspaceExport {
                path: dest.display().to_string(),
                files: 1,
                bytes: entry.size,
            })
        })
        .await
    }
}

/// `2026-11-23T09:15:02.123Z` as a ZIP time (the 1980 epoch when unreadable).
fn zip_time(iso: &str) -> zip::DateTime {
    let num = |from: usize, len: usize| iso.get(from..from + len).and_then(|s| s.parse::<u16>().ok());
    (|| {
        let date = (
            num(0, 4)?,
            u8::try_from(num(5, 2)?).ok()?,
            u8::try_from(num(8, 2)?).ok()?,
        );
        let time = (
            u8::try_from(num(11, 2)?).ok()?,
            u8::try_from(num(14, 2)?).ok()?,
            u8::try_from(num(17, 2)?).ok()?,
        );
        zip::DateTime::from_date_and_time(date.0, date.1, date.2, time.0, time.1, time.2).ok()
    })()
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_node_time_becomes_the_zip_entries_time() {
        let t = super::zip_time("2026-11-23T09:15:02.123Z");
        assert_eq!(
            (t.year(), t.month(), t.day(), t.hour(), t.minute(), t.second()),
            (2026, 11, 23, 9, 15, 2)
        );
        assert_eq!(super::zip_time("yesterday"), zip::DateTime::default());
    }
}
