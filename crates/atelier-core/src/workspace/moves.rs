//! Moves of a chat's folder that a crash may cut short: a checkout, the
//! move to a call's or a message's parent, an upload being put in place.
//!
//! Before such a move changes the folder, a small synced file in the
//! chat's folder (`moving.json`) names where the chat was (leaf and
//! manifest) and where it goes; it is removed once the database says the
//! chat is there. A process killed in between leaves the folder half-moved
//! and the file behind. The next holder of the chat's lock (every pending
//! edit capture goes through [`Atelier::settle_move`] first, and start-up
//! looks at every chat) finishes the move instead of taking the half-moved
//! folder for the person's work: a file as the start or the end of the
//! move left it (or missing where the move touches it) is the move's; only
//! a file matching neither is a hand edit, kept and then recorded as one.
//!
//! When the database has moved on without the folder (another process
//! wrote a model's answer at the old place meanwhile), the folder is put
//! back at the old state instead. When the database already names the end
//! (the crash came after the commit), the file is only removed.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Current;
use crate::messages::set_active;
use crate::model::{Chat, ManifestSource};
use crate::store::{BlobStore, FileEntry, Manifest, Observer, tree};
use crate::{Atelier, Error, Result, blocking, db};

/// The file that says a move is under way, in the chat's folder.
const MARKER: &str = "moving.json";

/// What a move under way is.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Move {
    /// The chat's active leaf and manifest when the move began.
    pub(crate) from_leaf: String,
    pub(crate) from: String,
    /// Where the chat is once the move is done.
    pub(crate) to_leaf: String,
    pub(crate) to: String,
    /// An upload put in place after the move: what is left of it is put in
    /// place too, and the result is recorded as the upload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) upload: Option<Upload>,
}

/// An upload's staging folder (a name in the chat's folder) and the
/// workspace folder it goes into (`""`: the root).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Upload {
    pub(crate) staging: String,
    pub(crate) dest: String,
}

/// A move's marker while the move runs. Dropped without [`Moving::done`]
/// (an error after the folder moved), the marker stays for the next
/// holder of the lock to settle.
#[derive(Debug)]
#[must_use = "call done() once the database names where the folder is"]
pub(crate) struct Moving {
    path: PathBuf,
}

impl Moving {
    /// The database names where the folder is: the marker goes.
    pub(crate) fn done(self) {
        remove_marker(&self.path);
    }
}

fn marker_path(app: &Atelier, chat_id: &str) -> PathBuf {
    app.data_dir().chat_dir(chat_id).join(MARKER)
}

/// The staging folder an unfinished upload in `chat_dir` still needs.
pub(super) fn marked_upload(chat_dir: &Path) -> Option<String> {
    let text = std::fs::read(chat_dir.join(MARKER)).ok()?;
    serde_json::from_slice::<Move>(&text).ok()?.upload.map(|u| u.staging)
}

fn remove_marker(path: &Path) {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            tracing::warn!(path = %path.display(), error = %e, "could not remove a finished move's marker");
        }
        _ => {}
    }
}

/// Writes `bytes` to `path` so that it is there after a crash: a temp
/// file synced, renamed over, the folder synced.
fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::File::create(&tmp).map_err(Error::io("write", &tmp))?;
    f.write_all(bytes).map_err(Error::io("write", &tmp))?;
    f.sync_all().map_err(Error::io("sync", &tmp))?;
    std::fs::rename(&tmp, path).map_err(Error::io("write", path))?;
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(Error::io("sync", dir))?;
    }
    Ok(())
}

/// The state a cut-short move goes on to: `to` wherever the folder holds
/// `from`'s or `to`'s entry — or, where the move changes the path,
/// nothing, `to`'s content under another mode (killed before its mode was
/// set) or a file `partial` says is the start of `to`'s (killed while
/// writing it) —, the folder's own entry where it holds something else (a
/// hand edit).
fn towards(
    folder: &Manifest,
    from: &Manifest,
    to: &Manifest,
    partial: impl Fn(&str, &FileEntry, &FileEntry) -> bool,
) -> Manifest {
    let mut goal = Manifest::default();
    let paths: std::collections::BTreeSet<&String> = folder
        .files
        .keys()
        .chain(from.files.keys())
        .chain(to.files.keys())
        .collect();
    for path in paths {
        let (now, was, end) = (folder.get(path), from.get(path), to.get(path));
        let moved_here = was != end
            && match (now, end) {
                (None, _) => true,
                (Some(n), Some(e)) => n.hash == e.hash || partial(path, n, e),
                (Some(_), None) => false,
            };
        let keep = if now == end || now == was || moved_here {
            end
        } else {
            now
        };
        if let Some(e) = keep {
            goal.files.insert(path.clone(), *e);
        }
    }
    goal
}

/// Whether the file at `path` (entry `now`) is the start of `end`'s
/// content: a file the move was writing when it was killed. Only files a
/// checkout writes from memory can be cut so (bigger ones are renamed into
/// place whole).
fn cut_short(ws: &Path, store: &BlobStore, path: &str, now: &FileEntry, end: &FileEntry) -> bool {
    if now.size >= end.size || end.size > crate::store::materialize::HOLD_FILE_LIMIT {
        return false;
    }
    let Ok(bytes) = std::fs::read(ws.join(path)) else {
        return false;
    };
    bytes.len() as u64 == now.size
        && store
            .read_verified(&end.hash, path)
            .is_ok_and(|full| full.starts_with(&bytes))
}

impl Atelier {
    /// Writes the marker of `m` (synced) before the folder changes.
    pub(crate) async fn begin_move(&self, chat_id: &str, m: &Move) -> Result<Moving> {
        let path = marker_path(self, chat_id);
        let bytes = serde_json::to_vec(m).map_err(|e| Error::Internal(e.to_string()))?;
        let p = path.clone();
        blocking(move || write_synced(&p, &bytes)).await?;
        Ok(Moving { path })
    }

    /// Moves the folder from `current` to the state `manifest_id` (of the
    /// message `leaf`), with a marker while it runs; the caller holds the
    /// chat lock and calls [`Moving::done`] once the database names the
    /// new place. A move that fails leaves no marker: the next snapshot
    /// records what is there, as before.
    pub(crate) async fn move_folder(
        &self,
        current: &mut Current,
        leaf: &str,
        manifest_id: &str,
        upload: Option<Upload>,
        observer: &Observer,
    ) -> Result<Moving> {
        let m = Move {
            from_leaf: current.leaf.clone(),
            from: current.manifest_id.clone(),
            to_leaf: leaf.to_owned(),
            to: manifest_id.to_owned(),
            upload,
        };
        let moving = self.begin_move(&current.chat_id, &m).await?;
        if manifest_id != current.manifest_id {
            let moved = async {
                let (root, files) = self.manifest_state(&current.chat_id, manifest_id).await?;
                self.materialize(current, root, files, observer).await
            }
            .await;
            if let Err(e) = moved {
                moving.done();
                return Err(e);
            }
            current.manifest_id = manifest_id.to_owned();
        }
        Ok(moving)
    }

    /// Finishes a move a crash cut short in this chat, if its marker is
    /// there (see the module docs); the caller holds the chat lock. The
    /// chat as it is now, and the source its remaining differences are
    /// recorded as (an upload's, or a hand edit's); `None` when no move
    /// was pending.
    pub(crate) async fn settle_move(&self, chat: &Chat, observer: &Observer) -> Result<Option<(Chat, ManifestSource)>> {
        let path = marker_path(self, &chat.id);
        let text = match tokio::fs::read(&path).await {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io("read", &path)(e)),
        };
        let mut source = ManifestSource::Edit;
        match serde_json::from_slice::<Move>(&text) {
            Ok(m) if chat.active_manifest_id == m.from => {
                let forward = chat.active_leaf_message_id == m.from_leaf;
                match self.finish_move(chat, &m, forward, observer).await {
                    Ok(()) if forward && m.upload.is_some() => source = ManifestSource::UserUpload,
                    Ok(()) => {}
                    Err(Error::Cancelled) => return Err(Error::Cancelled),
                    // The marker must not keep the chat from working: what
                    // is in the folder is recorded as it is, as before.
                    Err(e) => {
                        tracing::warn!(chat = %chat.id, error = %e, "could not finish a move a crash cut short");
                    }
                }
            }
            Ok(_) => {} // the database already moved on
            Err(e) => tracing::warn!(path = %path.display(), error = %e, "an unreadable move marker, removed"),
        }
        remove_marker(&path);
        Ok(Some((self.chats().get(&chat.id).await?, source)))
    }

    /// Puts the folder where `m` was going (`forward`) or back where it
    /// began, keeping hand edits, and moves the chat there.
    async fn finish_move(&self, chat: &Chat, m: &Move, forward: bool, observer: &Observer) -> Result<()> {
        let end_id = if forward { &m.to } else { &m.from };
        let scanned = self
            .scan_against(&chat.id, &chat.active_leaf_message_id, &m.from, observer)
            .await?;
        let from = self.manifest_files(&chat.id, &m.from).await?;
        let end = if *end_id == m.from {
            from.clone()
        } else {
            self.manifest_files(&chat.id, end_id).await?
        };
        let mut current = scanned.current;
        let (ws, store) = (self.workspace_dir(&chat.id), self.blob_store(&chat.id));
        let folder = std::mem::take(&mut current.manifest);
        let (folder, goal, root) = blocking(move || {
            let goal = towards(&folder, &from, &end, |path, now, end| {
                cut_short(&ws, &store, path, now, end)
            });
            let root = tree::encode(&goal).root;
            Ok((folder, goal, root))
        })
        .await?;
        current.manifest = folder;
        if goal != current.manifest {
            self.materialize(&mut current, root, goal, observer).await?;
        }
        if !forward {
            tracing::warn!(chat = %chat.id, "a move a crash cut short was put back: the chat moved on meanwhile");
            return Ok(());
        }
        if let Some(up) = &m.upload {
            let staging = self.data_dir().chat_dir(&chat.id).join(&up.staging);
            if staging.is_dir() {
                let (ws, dest) = (self.workspace_dir(&chat.id), up.dest.clone());
                let stage = staging.clone();
                blocking(move || super::edits::place_upload(&stage, &ws, &dest)).await?;
            }
            super::staging::remove(&staging);
        }
        let mut tx = db::begin_write(self.db()).await?;
        set_active(&mut tx, &chat.id, &m.to_leaf, &m.to).await?;
        tx.commit().await?;
        tracing::warn!(chat = %chat.id, to = %m.to_leaf, "finished a move a crash cut short");
        Ok(())
    }
}

/// At start-up: finishes the moves a crash cut short in chats no live
/// process holds, and removes the staging folders no live process fills.
/// Never keeps the app from starting: a chat that cannot be put right is
/// named in the log and put right when its lock is next taken.
pub(crate) async fn recover_moves(app: &Atelier) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(app.data_dir().chats_dir()) else {
        return Ok(());
    };
    let dirs: Vec<(String, PathBuf)> = entries
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(name, path)| !name.starts_with('.') && path.is_dir())
        .collect();
    for (chat_id, dir) in dirs {
        if dir.join(MARKER).exists()
            && let Err(e) = settle_if_free(app, &chat_id, &dir).await
        {
            tracing::warn!(chat = %chat_id, error = %e, "could not finish a move a crash cut short");
        }
        if let Err(e) = blocking(move || super::staging::sweep(&dir)).await {
            tracing::warn!(chat = %chat_id, error = %e, "could not remove staging folders");
        }
    }
    Ok(())
}

/// Settles the chat's move if its lock is free (a live holder is either
/// moving it now or will settle it itself).
async fn settle_if_free(app: &Atelier, chat_id: &str, dir: &Path) -> Result<()> {
    let lock_path = dir.join("lock");
    let Some(_lock) = blocking(move || crate::lock::FileLock::try_acquire(&lock_path)).await? else {
        return Ok(());
    };
    let chat = match app.chats().get(chat_id).await {
        Err(Error::ChatNotFound(_)) => return Ok(()),
        chat => chat?,
    };
    app.capture_pending(&chat, &Observer::default()).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Hash;

    fn entry(content: &str) -> FileEntry {
        FileEntry {
            hash: Hash::of(content.as_bytes()),
            size: content.len() as u64,
            executable: false,
            private: false,
        }
    }

    fn manifest(files: &[(&str, &str)]) -> Manifest {
        Manifest {
            files: files.iter().map(|(p, c)| ((*p).to_owned(), entry(c))).collect(),
        }
    }

    #[test]
    fn only_what_matches_neither_end_is_kept_as_a_hand_edit() {
        let from = manifest(&[("a", "1"), ("b", "1"), ("c", "1"), ("same", "s"), ("gone", "g")]);
        let to = manifest(&[("a", "2"), ("b", "2"), ("new", "n"), ("same", "s"), ("gone", "g")]);
        // a: still from's; b: already to's; c: removed by the move; new:
        // not written yet; same: edited by hand; gone: deleted by hand;
        // mine: made by hand.
        let folder = manifest(&[("a", "1"), ("b", "2"), ("same", "edited"), ("mine", "m")]);
        let goal = towards(&folder, &from, &to, |_, _, _| false);
        assert_eq!(
            goal,
            manifest(&[("a", "2"), ("b", "2"), ("new", "n"), ("same", "edited"), ("mine", "m")])
        );
        // A file cut short while written is the move's, as is the target's
        // content under another mode; an edit where the move writes stays.
        let folder = manifest(&[("a", "2"), ("b", "half"), ("new", "n"), ("same", "s"), ("gone", "g")]);
        let mut goal = towards(&folder, &from, &to, |path, _, _| path == "b");
        assert_eq!(goal, to);
        let mut odd = folder.clone();
        odd.files.get_mut("new").expect("new").private = true;
        goal = towards(&odd, &from, &to, |_, _, _| false);
        assert_eq!(goal.get("b"), Some(&entry("half")), "b matches neither: a hand edit");
        assert_eq!(goal.get("new"), to.get("new"), "the mode is the move's to set");
    }
}
