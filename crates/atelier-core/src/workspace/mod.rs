//! Workspace operations on a chat: snapshot, checkout, append, list, read.
//!
//! Every operation that moves a chat's workspace (its folder) runs under
//! the chat's cross-process [lock](crate::lock) and starts by recording
//! pending edits ([`crate::workspace::Workspace::snapshot`]): whatever a person or another program
//! changed in the folder becomes an `edit` node under the leaf it was made
//! on, before the folder is changed. Nothing edited by hand is lost.
//!
//! Blocking store work runs on `spawn_blocking`; the database is only
//! touched once the blobs it will name are durable.

mod append;
mod chat_lock;
pub mod diff;
pub mod edits;
pub mod export;
mod fence;
mod gc;
mod moves;
mod staging;
pub(crate) mod watch;
pub use gc::GcReport;
pub(crate) mod manifests;
pub(crate) use chat_lock::lock_chat;
pub(crate) use moves::recover_moves;

use std::path::PathBuf;

use crate::messages::{NewMessage, insert_message, set_active};
use crate::model::Chat;
use crate::model::{ContentPart, FileListing, ManifestSource, Role, SnapshotOutcome, WorkspaceManifest};
use crate::store::statcache::StatCache;
use crate::store::{BlobStore, Hash, Manifest, Observer, failpoint, materialize, snapshot, tree};
use crate::{Atelier, Error, Result, blocking, db, ids};

/// A chat's workspace: snapshots, checkouts, branches, edits, listings, diffs and exports: `app.workspace()`. A view of the [`Atelier`] handle (cheap, `Copy`);
/// every operation of this area is a method here.
#[derive(Debug, Clone, Copy)]
pub struct Workspace<'a> {
    pub(crate) app: &'a crate::Atelier,
}

/// The chat's state, read under its lock.
#[derive(Debug)]
pub(crate) struct Current {
    pub(crate) chat_id: String,
    pub(crate) leaf: String,
    pub(crate) manifest_id: String,
    pub(crate) manifest: Manifest,
    pub(crate) cache: StatCache,
}

/// A scan of the folder compared with a stored manifest (the base).
#[derive(Debug)]
pub(crate) struct Scanned {
    pub(crate) current: Current,
    pub(crate) base: manifests::ManifestHead,
    /// The scan's trees, when they differ from the base.
    pub(crate) changed: Option<tree::EncodedTrees>,
    pub(crate) warnings: Vec<String>,
}

impl Atelier {
    fn blob_store(&self, chat_id: &str) -> BlobStore {
        BlobStore::new(self.data_dir().blobs_dir(chat_id))
    }

    fn index_path(&self, chat_id: &str) -> PathBuf {
        self.data_dir().chat_dir(chat_id).join("index")
    }

    /// Loads the manifest with this id (of this chat) as a file map.
    async fn manifest_files(&self, chat_id: &str, manifest_id: &str) -> Result<Manifest> {
        Ok(self.manifest_state(chat_id, manifest_id).await?.1)
    }

    /// A manifest's root tree and file map.
    pub(crate) async fn manifest_state(&self, chat_id: &str, manifest_id: &str) -> Result<(Hash, Manifest)> {
        let row = manifests::load_head(self.db(), chat_id, manifest_id).await?;
        let files = manifests::load_files(self.db(), chat_id, &row.root_tree).await?;
        Ok((row.root_tree, files))
    }

    /// Scans the chat's folder against the manifest `base_id`; the caller
    /// holds the chat lock.
    ///
    /// The scan's manifest *is* the folder's state, so `Current.manifest` is
    /// exact whether or not anything changed. The stored state is only
    /// loaded (later, by [`Atelier::record_scan`]) when the scan's root tree
    /// differs from the base's (a no-change scan reads one row).
    pub(crate) async fn scan_against(
        &self,
        chat_id: &str,
        leaf: &str,
        base_id: &str,
        observer: &Observer,
    ) -> Result<Scanned> {
        let base = manifests::load_head(self.db(), chat_id, base_id).await?;
        let (ws, store, index) = (
            self.workspace_dir(chat_id),
            self.blob_store(chat_id),
            self.index_path(chat_id),
        );
        let obs = observer.clone();
        let base_root = base.root_tree;
        let (scan, encoded) = blocking(move || {
            let scan = snapshot::scan(&ws, &store, StatCache::load(&index), &obs)?;
            // Encoding the trees costs a pass over every path; skip it when
            // the stat cache proves the folder is the base state.
            let unchanged = scan.matches_cache && scan.cache.root() == Some(base_root);
            let encoded = (!unchanged).then(|| tree::encode(&scan.manifest));
            Ok((scan, encoded))
        })
        .await?;
        let mut current = Current {
            chat_id: chat_id.to_owned(),
            leaf: leaf.to_owned(),
            manifest_id: base_id.to_owned(),
            manifest: scan.manifest,
            cache: scan.cache,
        };
        current
            .cache
            .set_root(encoded.as_ref().map_or(base.root_tree, |e| e.root));
        let changed = encoded.filter(|e| e.root != base.root_tree);
        Ok(Scanned {
            current,
            base,
            changed,
            warnings: scan.warnings,
        })
    }

    /// Records a changed scan as a manifest (child of the base) inside `tx`;
    /// returns its id and the `(added, removed, modified)` counts. The
    /// caller points `current.manifest_id` at it after committing.
    pub(crate) async fn record_scan(
        &self,
        tx: &mut sqlx::SqliteConnection,
        scanned: &Scanned,
        delta: &manifests::Delta,
        source: ManifestSource,
        source_ref: &str,
    ) -> Result<String> {
        let Some(encoded) = &scanned.changed else {
            return Ok(scanned.base.id.clone());
        };
        // The blobs are durable (the scan committed them); a crash from
        // here on leaves unreferenced blobs, never a dangling manifest.
        failpoint::hit(failpoint::AFTER_BLOBS)?;
        let new = manifests::NewManifest {
            chat_id: &scanned.current.chat_id,
            parent_id: Some(&scanned.base.id),
            manifest: &scanned.current.manifest,
            encoded,
            delta: Some(delta),
            source,
            source_ref: Some(source_ref),
        };
        manifests::insert(tx, new).await
    }

    /// The change set of a scan against its base (empty when unchanged).
    pub(crate) async fn scan_delta(&self, scanned: &Scanned) -> Result<manifests::Delta> {
        match &scanned.changed {
            Some(encoded) => {
                manifests::delta(self.db(), &scanned.current.chat_id, &scanned.base.root_tree, encoded).await
            }
            None => Ok(manifests::Delta::default()),
        }
    }

    /// Records pending edits as an `edit` node under the active leaf; the
    /// caller holds the chat lock. A move a crash cut short is finished
    /// first ([`Atelier::settle_move`]): only what matches neither of its
    /// ends is recorded (an upload's rest as the upload).
    pub(crate) async fn capture_pending(&self, chat: &Chat, observer: &Observer) -> Result<(Current, SnapshotOutcome)> {
        let settled = self.settle_move(chat, observer).await?;
        let (chat, source) = match &settled {
            Some((chat, source)) => (chat, *source),
            None => (chat, ManifestSource::Edit),
        };
        let scanned = self
            .scan_against(
                &chat.id,
                &chat.active_leaf_message_id,
                &chat.active_manifest_id,
                observer,
            )
            .await?;
        self.record_node(scanned, source, false).await
    }

    /// Records a scan that changed as a node (role `edit`, a
    /// `WorkspaceEdit` part; its manifest's source is `source`) under the
    /// scan's leaf and makes it the active leaf. An unchanged scan adds
    /// nothing; with `activate_unchanged` its leaf becomes the active one
    /// (a change made at an earlier message that turned out to be none).
    /// The caller holds the chat lock.
    pub(crate) async fn record_node(
        &self,
        scanned: Scanned,
        source: ManifestSource,
        activate_unchanged: bool,
    ) -> Result<(Current, SnapshotOutcome)> {
        let delta = self.scan_delta(&scanned).await?;
        let (added, removed, modified) = delta.counts();
        let chat_id = scanned.current.chat_id.clone();
        let mut outcome = SnapshotOutcome {
            message_id: None,
            manifest_id: scanned.base.id.clone(),
            changed: false,
            added,
            removed,
            modified,
            warnings: scanned.warnings.clone(),
        };
        if scanned.changed.is_some() {
            let message_id = ids::new_id();
            let mut tx = db::begin_write(self.db()).await?;
            let manifest_id = self.record_scan(&mut tx, &scanned, &delta, source, &message_id).await?;
            insert_message(
                &mut tx,
                NewMessage {
                    id: message_id.clone(),
                    chat_id: &chat_id,
                    parent_id: Some(&scanned.current.leaf),
                    role: Role::Edit,
                    content: &[ContentPart::WorkspaceEdit {
                        added,
                        removed,
                        modified,
                    }],
                    manifest_id: &manifest_id,
                    meta: None,
                    thread_id: None,
                },
            )
            .await?;
            set_active(&mut tx, &chat_id, &message_id, &manifest_id).await?;
            tx.commit().await?;
            tracing::info!(chat = %chat_id, message = %message_id, source = source.as_str(), "recorded workspace changes");
            outcome.changed = true;
            outcome.message_id = Some(message_id);
            outcome.manifest_id = manifest_id;
        } else if activate_unchanged {
            let mut tx = db::begin_write(self.db()).await?;
            set_active(&mut tx, &chat_id, &scanned.current.leaf, &scanned.base.id).await?;
            tx.commit().await?;
        }
        let mut current = scanned.current;
        current.leaf = outcome.message_id.clone().unwrap_or(current.leaf);
        current.manifest_id = outcome.manifest_id.clone();
        self.save_cache(&current);
        Ok((current, outcome))
    }

    pub(crate) fn save_cache(&self, current: &Current) {
        if !current.cache.is_dirty() {
            return;
        }
        // A cache that failed to save only costs re-hashing next time.
        if let Err(e) = current.cache.save(&self.index_path(&current.chat_id)) {
            tracing::warn!(error = %e, "could not save the stat cache");
        }
    }

    /// Moves the workspace folder from `current` to `target`.
    pub(crate) async fn materialize(
        &self,
        current: &mut Current,
        root: Hash,
        target: Manifest,
        observer: &Observer,
    ) -> Result<()> {
        let chat_id = current.chat_id.clone();
        let (ws, store) = (self.workspace_dir(&chat_id), self.blob_store(&chat_id));
        let staging = self.data_dir().chat_dir(&chat_id).join("staging");
        let from = std::mem::take(&mut current.manifest);
        let cache = std::mem::take(&mut current.cache);
        let obs = observer.clone();
        let (applied, from, target) = blocking(move || {
            let applied = materialize::apply(&ws, &staging, &store, &from, &target, cache, &obs);
            Ok((applied, from, target))
        })
        .await?;
        match applied {
            Ok(applied) => {
                for w in &applied.warnings {
                    tracing::warn!(chat = %chat_id, "{w}");
                }
                current.manifest = target;
                current.cache = applied.cache;
                if applied.kept.is_empty() {
                    current.cache.set_root(root);
                } else {
                    current.cache.forget_root();
                }
                self.save_cache(current);
                Ok(())
            }
            Err(e) => {
                // The folder is unchanged (staging failed) or partly moved;
                // either way the next snapshot records what is there.
                current.manifest = from;
                Err(e)
            }
        }
    }

    async fn resolve_manifest_id(&self, chat_id: &str, manifest_or_message: &str) -> Result<String> {
        let exists: Option<String> =
            sqlx::query_scalar("SELECT id FROM workspace_manifests WHERE chat_id = ? AND id = ?")
                .bind(chat_id)
                .bind(manifest_or_message)
                .fetch_optional(self.db())
                .await?;
        if let Some(id) = exists {
            return Ok(id);
        }
        match self.chats().message(chat_id, manifest_or_message).await {
            Ok(m) => Ok(m.manifest_id),
            Err(Error::MessageNotFound { .. }) => Err(Error::ManifestNotFound {
                chat_id: chat_id.to_owned(),
                manifest_id: manifest_or_message.to_owned(),
            }),
            Err(e) => Err(e),
        }
    }
}

impl Workspace<'_> {
    /// Records pending edits in the chat's workspace as an `edit` node under
    /// the active leaf. Nothing pending → `changed: false`, no new node.
    pub async fn snapshot(&self, chat_id: &str, observer: &Observer) -> Result<SnapshotOutcome> {
        let chat = self.app.chats().get(chat_id).await?;
        let _lock = lock_chat(self.app, &chat.id).await?;
        let chat = self.app.chats().get(&chat.id).await?; // fresh, under the lock
        Ok(self.app.capture_pending(&chat, observer).await?.1)
    }

    /// Makes `message_id` the active leaf: records pending edits, then turns
    /// the workspace into that message's state.
    pub async fn checkout(&self, chat_id: &str, message_id: &str) -> Result<crate::model::Chat> {
        self.checkout_with(chat_id, message_id, &Observer::default()).await
    }

    /// [`crate::workspace::Workspace::checkout`] with progress and cancellation.
    pub async fn checkout_with(
        &self,
        chat_id: &str,
        message_id: &str,
        observer: &Observer,
    ) -> Result<crate::model::Chat> {
        let chat = self.app.chats().get(chat_id).await?;
        let target = self.app.chats().message(&chat.id, message_id).await?;
        let _lock = lock_chat(self.app, &chat.id).await?;
        let chat = self.app.chats().get(&chat.id).await?; // fresh, under the lock
        let (mut current, _) = self.app.capture_pending(&chat, observer).await?;
        let moving = if target.manifest_id != current.manifest_id {
            let m = self
                .app
                .move_folder(&mut current, &target.id, &target.manifest_id, None, observer);
            Some(m.await?)
        } else {
            None
        };
        let mut tx = db::begin_write(self.app.db()).await?;
        set_active(&mut tx, &chat.id, &target.id, &target.manifest_id).await?;
        tx.commit().await?;
        if let Some(moving) = moving {
            moving.done();
        }
        self.app.chats().get(&chat.id).await
    }

    /// Switches to the branch through `message_id` (a sibling arrow, a
    /// node of the tree map): checks out its latest leaf
    /// ([`crate::chats::Chats::latest_leaf`]).
    pub async fn switch_branch(&self, chat_id: &str, message_id: &str, observer: &Observer) -> Result<Chat> {
        let leaf = self.app.chats().latest_leaf(chat_id, message_id).await?;
        self.checkout_with(chat_id, &leaf, observer).await
    }

    /// A manifest by its id, or the manifest of a message given by id.
    /// A manifest of a chat, or its active one when `None`.
    pub async fn manifest(&self, chat_id: &str, manifest_or_message: Option<&str>) -> Result<WorkspaceManifest> {
        match manifest_or_message {
            Some(m) => self.get_manifest(chat_id, m).await,
            None => {
                let chat = self.app.chats().get(chat_id).await?;
                self.get_manifest(&chat.id, &chat.active_manifest_id).await
            }
        }
    }

    pub async fn get_manifest(&self, chat_id: &str, manifest_or_message: &str) -> Result<WorkspaceManifest> {
        let chat = self.app.chats().get(chat_id).await?;
        let id = self.app.resolve_manifest_id(&chat.id, manifest_or_message).await?;
        let row = manifests::load_row(self.app.db(), &chat.id, &id).await?;
        let files = manifests::load_files(self.app.db(), &chat.id, &row.root_tree).await?;
        Ok(row.into_record(&files))
    }

    /// The files of a workspace state (default: the active one), sorted by path.
    pub async fn list_files(&self, chat_id: &str, manifest_or_message: Option<&str>) -> Result<Vec<FileListing>> {
        let chat = self.app.chats().get(chat_id).await?;
        let id = match manifest_or_message {
            Some(m) => self.app.resolve_manifest_id(&chat.id, m).await?,
            None => chat.active_manifest_id.clone(),
        };
        let files = self.app.manifest_files(&chat.id, &id).await?;
        Ok(files
            .files
            .into_iter()
            .map(|(path, e)| FileListing {
                path,
                sha256: e.hash.to_hex(),
                size: e.size,
                executable: e.executable,
            })
            .collect())
    }

    /// Where a file's content is in a workspace state (default: the active
    /// one): its normalized path, its manifest entry and the chat's store.
    async fn file_entry(
        &self,
        chat_id: &str,
        path: &str,
        manifest_or_message: Option<&str>,
    ) -> Result<(String, crate::store::FileEntry, crate::store::BlobStore)> {
        let path = crate::store::path::normalize(path)?;
        let chat = self.app.chats().get(chat_id).await?;
        let id = match manifest_or_message {
            Some(m) => self.app.resolve_manifest_id(&chat.id, m).await?,
            None => chat.active_manifest_id.clone(),
        };
        let files = self.app.manifest_files(&chat.id, &id).await?;
        let entry = *files.get(&path).ok_or_else(|| Error::FileNotFound {
            path: path.clone(),
            manifest_id: id.clone(),
        })?;
        Ok((path, entry, self.app.blob_store(&chat.id)))
    }

    /// A file's bytes at the active state, or at a manifest or message.
    pub async fn read_file(&self, chat_id: &str, path: &str, manifest_or_message: Option<&str>) -> Result<Vec<u8>> {
        let (path, entry, store) = self.file_entry(chat_id, path, manifest_or_message).await?;
        blocking(move || store.read_verified(&entry.hash, &path)).await
    }

    /// [`Workspace::read_file`] written to `out` as it is read (a big file
    /// is never held in memory); the content is verified on the way, and a
    /// corrupt blob is an error at the end. Returns the bytes written.
    pub async fn write_file_to(
        &self,
        chat_id: &str,
        path: &str,
        manifest_or_message: Option<&str>,
        mut out: Box<dyn std::io::Write + Send>,
    ) -> Result<u64> {
        let (path, entry, store) = self.file_entry(chat_id, path, manifest_or_message).await?;
        blocking(move || {
            let written = store.stream_verified(&entry.hash, &path, &mut out, std::path::Path::new("the output"))?;
            out.flush().map_err(Error::io("write", "the output"))?;
            Ok(written)
        })
        .await
    }
}
