//! Garbage collection: removes blobs that no manifest of their chat
//! references (`atelier gc`), and Python environments no installed toolset
//! uses.
//!
//! Blobs are per chat, and every manifest's trees are rows of
//! `workspace_trees`, so the blobs a chat still needs are exactly the file
//! entries of its stored trees. The walk runs under the chat lock: snapshots
//! write blobs before the manifest that names them, and they hold the same
//! lock, so no blob of a snapshot in progress can be mistaken for garbage.
//! A chat that lost blobs also loses its stat cache (see ARCHITECTURE.md,
//! "The stat cache is only a cache").

use std::collections::HashSet;

use serde::Serialize;

use super::lock_chat;
use crate::store::Hash;
use crate::store::Observer;
use crate::store::tree::{self, EntryKind};
use crate::workspace::Workspace;
use crate::{Error, Result, blocking};

/// What a collection removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct GcReport {
    pub chats: u64,
    pub blobs_kept: u64,
    pub blobs_removed: u64,
    pub bytes_freed: u64,
    /// Temp files of interrupted writes (a leftover staging folder counts
    /// as one).
    pub temp_files_removed: u64,
    /// With `--verify`: kept blobs whose content no longer matches their
    /// name, moved to `blobs/corrupt/` (a snapshot of a good copy repairs
    /// them).
    pub blobs_corrupt: u64,
    /// Python environments no installed toolset version uses any more.
    pub venvs_removed: u64,
}

impl Workspace<'_> {
    /// Removes every blob that no manifest references, chat by chat.
    pub async fn gc(&self, observer: &Observer) -> Result<GcReport> {
        self.gc_with(observer, false).await
    }

    /// [`Workspace::gc`], and with `verify` every kept blob is read and
    /// checked against its name: damage a read would only find later (a
    /// flipped bit keeps the size) is found now and moved aside.
    pub async fn gc_with(&self, observer: &Observer, verify: bool) -> Result<GcReport> {
        let mut report = GcReport::default();
        for chat in self.app.chats().list().await? {
            observer.check()?;
            let _lock = match lock_chat(self.app, &chat.id).await {
                // Deleted since the listing: nothing of it to collect.
                Err(Error::ChatNotFound(_)) => continue,
                locked => locked?,
            };
            let rows: Vec<(String, Vec<u8>)> =
                sqlx::query_as("SELECT hash, data FROM workspace_trees WHERE chat_id = ?")
                    .bind(&chat.id)
                    .fetch_all(self.app.db())
                    .await?;
            let mut live = HashSet::new();
            for (hash, data) in rows {
                let h = Hash::from_hex(&hash).ok_or_else(|| Error::CorruptTree {
                    chat_id: chat.id.clone(),
                    hash: hash.clone(),
                    reason: "not a hash".into(),
                })?;
                let entries = tree::decode(&h, &data).map_err(|reason| Error::CorruptTree {
                    chat_id: chat.id.clone(),
                    hash: hash.clone(),
                    reason,
                })?;
                live.extend(
                    entries
                        .into_iter()
                        .filter(|e| matches!(e.kind, EntryKind::File | EntryKind::Executable))
                        .map(|e| e.hash.to_hex()),
                );
            }
            let blobs = self.app.data_dir().blobs_dir(&chat.id);
            let mut swept = blocking(move || sweep(&blobs, &live, verify)).await?;
            // A materialize interrupted by a crash leaves its staging folder.
            let staging = self.app.data_dir().chat_dir(&chat.id).join("staging");
            if tokio::fs::remove_dir_all(&staging).await.is_ok() {
                swept.temp_files_removed += 1;
            }
            // So do exports and uploads (each folder its own lock: a live
            // one is filled outside the chat lock, and stays).
            let chat_dir = self.app.data_dir().chat_dir(&chat.id);
            swept.temp_files_removed += blocking(move || super::staging::sweep(&chat_dir)).await?;
            if swept.blobs_removed > 0 {
                // The stat cache trusts that the blobs it names exist; after
                // a collection it is rebuilt (one re-hash) rather than trusted.
                let index = self.app.index_path(&chat.id);
                let _ = tokio::fs::remove_file(&index).await;
            }
            report.chats += 1;
            report.blobs_kept += swept.blobs_kept;
            report.blobs_removed += swept.blobs_removed;
            report.bytes_freed += swept.bytes_freed;
            report.temp_files_removed += swept.temp_files_removed;
            report.blobs_corrupt += swept.blobs_corrupt;
        }
        report.venvs_removed = self.app.gc_venvs().await?;
        Ok(report)
    }
}

/// Removes blob files not in `live`, everything in `tmp/`, and corrupt
/// copies kept aside (`corrupt/`) once their blob is whole again or no
/// manifest names it.
fn sweep(blobs: &std::path::Path, live: &HashSet<String>, verify: bool) -> Result<GcReport> {
    let store = crate::store::BlobStore::new(blobs);
    let mut r = GcReport::default();
    let Ok(fanout) = std::fs::read_dir(blobs) else {
        return Ok(r); // a chat that never stored a file
    };
    for dir in fanout.flatten() {
        let temp = dir.file_name() == "tmp";
        let aside = dir.file_name() == crate::store::blobs::QUARANTINE;
        let Ok(files) = std::fs::read_dir(dir.path()) else {
            continue;
        };
        for f in files.flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            let repaired = aside && name.len() > 2 && blobs.join(&name[..2]).join(&name).is_file();
            if !temp && !repaired && live.contains(&name) {
                r.blobs_kept += 1;
                if verify
                    && !aside
                    && let Some(h) = Hash::from_hex(&name)
                    && !store.verify(&h)?
                {
                    r.blobs_corrupt += 1;
                }
                continue;
            }
            let size = f.metadata().map(|m| m.len()).unwrap_or(0);
            let path = f.path();
            std::fs::remove_file(&path).map_err(Error::io("remove", &path))?;
            if temp {
                r.temp_files_removed += 1;
            } else {
                r.blobs_removed += 1;
                r.bytes_freed += size;
            }
        }
    }
    Ok(r)
}
