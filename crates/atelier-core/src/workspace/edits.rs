//! Changes a person makes to a workspace through the app rather than a
//! tool: saving an editor (an `edit` node), restoring one file from an
//! earlier node (an `edit` node), and files or folders dropped onto the
//! workspace (a `user_upload` node).
//!
//! Each runs under the chat's lock like every workspace move: pending
//! edits are recorded first; when the change is made at an earlier message
//! the workspace moves there first, so the new node branches at that
//! message and later work on the old branch is untouched. Uploads are
//! copied into a staging folder first, so a failed copy leaves the
//! workspace as it was.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::lock_chat;
use super::moves::Upload;
use super::staging::Staged;
use crate::model::{ManifestSource, SnapshotOutcome};
use crate::store::confine::{resolve as confined, write_file as write_confined, write_file_as as write_confined_as};
use crate::store::{Observer, Progress};
use crate::workspace::Workspace;
use crate::{Atelier, Error, Result, blocking};

/// One change an editor saves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum FileChange {
    /// Write UTF-8 text (creating folders on the way).
    Write {
        path: String,
        text: String,
    },
    Delete {
        path: String,
    },
}

type Apply = Box<dyn FnOnce(&Path) -> Result<Vec<String>> + Send>;

impl Atelier {
    /// The one path for app-made changes: lock, record pending edits, move
    /// to `at`, apply, record the result as a node of `source`.
    async fn change_workspace(
        &self,
        chat_id: &str,
        at: Option<&str>,
        source: ManifestSource,
        upload: Option<Upload>,
        observer: &Observer,
        apply: Apply,
    ) -> Result<SnapshotOutcome> {
        let chat = self.chats().get(chat_id).await?;
        let at = match at {
            Some(m) => Some(self.chats().message(&chat.id, m).await?),
            None => None,
        };
        let _lock = lock_chat(self, &chat.id).await?;
        let chat = self.chats().get(&chat.id).await?; // fresh, under the lock
        let (mut current, _) = self.capture_pending(&chat, observer).await?;
        // A move to `at` or an upload is marked while it runs: a crash
        // half-way is finished later, not taken for the person's edit.
        let moving = match (&at, upload) {
            (Some(at), upload) if at.manifest_id != current.manifest_id || upload.is_some() => Some(
                self.move_folder(&mut current, &at.id, &at.manifest_id, upload, observer)
                    .await?,
            ),
            (None, Some(upload)) => {
                let (leaf, manifest) = (current.leaf.clone(), current.manifest_id.clone());
                Some(
                    self.move_folder(&mut current, &leaf, &manifest, Some(upload), observer)
                        .await?,
                )
            }
            _ => None,
        };
        if let Some(at) = &at {
            current.leaf = at.id.clone();
        }
        let ws = self.workspace_dir(&chat.id);
        let warnings = blocking(move || apply(&ws)).await?;
        let scanned = self
            .scan_against(&chat.id, &current.leaf, &current.manifest_id, observer)
            .await?;
        let (_, mut outcome) = self.record_node(scanned, source, true).await?;
        if let Some(moving) = moving {
            moving.done();
        }
        outcome.warnings.splice(0..0, warnings);
        Ok(outcome)
    }
}

impl Workspace<'_> {
    /// Saves `changes` as an `edit` node under `at` (a message of the chat;
    /// the active leaf when `None`), which becomes the active leaf.
    pub async fn save_edit(
        &self,
        chat_id: &str,
        at: Option<&str>,
        changes: Vec<FileChange>,
    ) -> Result<SnapshotOutcome> {
        let apply: Apply = Box::new(move |ws: &Path| {
            for change in &changes {
                match change {
                    FileChange::Write { path, text } => {
                        write_confined(ws, path, text.as_bytes())?;
                    }
                    FileChange::Delete { path } => {
                        let (_, abs) = confined(ws, path)?;
                        match fs::remove_file(&abs) {
                            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                                return Err(Error::io("delete", &abs)(e));
                            }
                            _ => {}
                        }
                    }
                }
            }
            Ok(Vec::new())
        });
        self.app
            .change_workspace(chat_id, at, ManifestSource::Edit, None, &Observer::default(), apply)
            .await
    }

    /// Puts `path` back as it was at `from` (a message or manifest of the
    /// chat), content and mode (a private file is 0600 again) — or removes
    /// it when it did not exist there — as an `edit` node under the active
    /// leaf.
    pub async fn restore_file(&self, chat_id: &str, path: &str, from: &str) -> Result<SnapshotOutcome> {
        let change = match self.file_entry(chat_id, path, Some(from)).await {
            Ok((rel, entry, store)) => {
                let bytes = {
                    let rel = rel.clone();
                    blocking(move || store.read_verified(&entry.hash, &rel)).await?
                };
                let apply: Apply = Box::new(move |ws: &Path| {
                    write_confined_as(ws, &rel, &bytes, Some(entry.written_mode()))?;
                    Ok(Vec::new())
                });
                apply
            }
            Err(Error::FileNotFound { .. }) => {
                let rel = crate::store::path::normalize(path)?;
                let apply: Apply = Box::new(move |ws: &Path| {
                    let (_, abs) = confined(ws, &rel)?;
                    let _ = fs::remove_file(&abs);
                    Ok(Vec::new())
                });
                apply
            }
            Err(e) => return Err(e),
        };
        self.app
            .change_workspace(chat_id, None, ManifestSource::Edit, None, &Observer::default(), change)
            .await
    }

    /// Copies files and folders from outside (dropped onto the workspace)
    /// into the folder `dest` of the workspace (`""`: its root), as a
    /// `user_upload` node under the active leaf. A ZIP is a file here, not
    /// a toolset. Symlinks and special files in dropped folders are skipped
    /// (warnings say which); an existing file of the same name is replaced.
    pub async fn upload_files(
        &self,
        chat_id: &str,
        sources: Vec<PathBuf>,
        dest: &str,
        observer: &Observer,
    ) -> Result<SnapshotOutcome> {
        if sources.is_empty() {
            return Err(Error::InvalidData {
                what: "upload",
                reason: "no files were given".into(),
            });
        }
        let dest = if dest.trim_matches('/').is_empty() {
            String::new()
        } else {
            crate::store::path::normalize(dest)?
        };
        let chat_dir = self.app.data_dir().chat_dir(chat_id);
        let staged = blocking(move || Staged::begin(&chat_dir, "upload")).await?;
        let staging = staged.path().to_path_buf();
        // Copy first, outside the lock and the workspace: a failure here
        // changes nothing (the staging folder goes when `staged` drops).
        let (stage, srcs, obs) = (staging.clone(), sources.clone(), observer.clone());
        let warnings = blocking(move || stage_upload(&srcs, &stage, &obs)).await?;
        let upload = Upload {
            staging: staged.name(),
            dest: dest.clone(),
        };
        let apply: Apply = Box::new(move |ws: &Path| {
            place_upload(&staging, ws, &dest)?;
            Ok(warnings)
        });
        let result = self
            .app
            .change_workspace(chat_id, None, ManifestSource::UserUpload, Some(upload), observer, apply)
            .await;
        drop(staged);
        result
    }
}

/// Moves an upload's staged files into the folder `dest` of the workspace
/// `ws` (`""`: its root). Used by the upload and by the end of one a
/// crash cut short.
pub(super) fn place_upload(stage: &Path, ws: &Path, dest: &str) -> Result<()> {
    let target = if dest.is_empty() {
        ws.to_path_buf()
    } else {
        // Folders on the way are checked by `confined`; the last one too.
        let (rel, abs) = confined(ws, dest)?;
        if fs::symlink_metadata(&abs).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Error::InvalidPath {
                path: rel,
                reason: "the target folder is a symlink",
            });
        }
        abs
    };
    fs::create_dir_all(&target).map_err(Error::io("create", &target))?;
    move_merge(stage, &target)
}

/// Copies each source (a file or a folder) into `stage` under its own
/// name. Returns warnings for what was skipped.
fn stage_upload(sources: &[PathBuf], stage: &Path, observer: &Observer) -> Result<Vec<String>> {
    fs::create_dir_all(stage).map_err(Error::io("create", stage))?;
    let mut warnings = Vec::new();
    let mut progress = Progress::default();
    for src in sources {
        let name = src
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| Error::InvalidPath {
                path: src.display().to_string(),
                reason: "it has no file name (or one that is not UTF-8)",
            })?;
        crate::store::path::validate(name)?;
        copy_tree(src, &stage.join(name), name, &mut warnings, &mut progress, observer)?;
    }
    Ok(warnings)
}

fn copy_tree(
    src: &Path,
    dst: &Path,
    shown: &str,
    warnings: &mut Vec<String>,
    progress: &mut Progress,
    observer: &Observer,
) -> Result<()> {
    observer.check()?;
    let meta = fs::symlink_metadata(src).map_err(Error::io("read", src))?;
    let ft = meta.file_type();
    if ft.is_symlink() {
        warnings.push(format!("{shown}: a symlink, not copied"));
    } else if ft.is_dir() {
        fs::create_dir_all(dst).map_err(Error::io("create", dst))?;
        let mut entries: Vec<_> = fs::read_dir(src)
            .map_err(Error::io("read", src))?
            .collect::<std::io::Result<_>>()
            .map_err(Error::io("read", src))?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name();
            let Some(name) = name.to_str() else {
                warnings.push(format!(
                    "{shown}/{}: a name that is not UTF-8, not copied",
                    name.to_string_lossy()
                ));
                continue;
            };
            if crate::store::path::validate(name).is_err() {
                warnings.push(format!("{shown}/{name}: a name the workspace cannot hold, not copied"));
                continue;
            }
            copy_tree(
                &e.path(),
                &dst.join(name),
                &format!("{shown}/{name}"),
                warnings,
                progress,
                observer,
            )?;
        }
    } else if ft.is_file() {
        let bytes = fs::copy(src, dst).map_err(Error::io("copy", src))?;
        progress.files_done += 1;
        progress.bytes_done += bytes;
        observer.progress(*progress);
    } else {
        warnings.push(format!("{shown}: not a regular file, not copied"));
    }
    Ok(())
}

/// Moves everything in `from` into `into`, merging folders and replacing
/// files. Never follows a symlink in the workspace: one in the way is
/// replaced by what is moved.
fn move_merge(from: &Path, into: &Path) -> Result<()> {
    for e in fs::read_dir(from).map_err(Error::io("read", from))? {
        let e = e.map_err(Error::io("read", from))?;
        let (src, dst) = (e.path(), into.join(e.file_name()));
        let src_dir = e.file_type().map_err(Error::io("read", &src))?.is_dir();
        match fs::symlink_metadata(&dst) {
            Ok(m) if src_dir && m.is_dir() => move_merge(&src, &dst)?,
            Ok(m) => {
                if m.is_dir() {
                    fs::remove_dir_all(&dst).map_err(Error::io("replace", &dst))?;
                } else {
                    fs::remove_file(&dst).map_err(Error::io("replace", &dst))?;
                }
                fs::rename(&src, &dst).map_err(Error::io("move", &dst))?;
            }
            Err(_) => fs::rename(&src, &dst).map_err(Error::io("move", &dst))?,
        }
    }
    Ok(())
}
