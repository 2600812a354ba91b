//! Persistence of manifests: `workspace_manifests` rows and the
//! content-addressed `workspace_trees` they name.

use std::collections::{BTreeMap, HashMap};

use sqlx::{QueryBuilder, Row, Sqlite, SqliteConnection, SqlitePool};

use crate::model::{ManifestSource, WorkspaceManifest};
use crate::store::manifest::Change;
use crate::store::{Hash, Manifest, tree};
use crate::{Error, Result, ids};

/// A manifest row without its file map.
#[derive(Debug, Clone)]
pub(crate) struct ManifestRow {
    pub id: String,
    pub chat_id: String,
    pub parent_id: Option<String>,
    pub changes: BTreeMap<String, Option<String>>,
    pub created_at: String,
    pub source: ManifestSource,
    pub source_ref: Option<String>,
    pub root_tree: Hash,
    pub file_count: u64,
    pub total_size: u64,
}

impl ManifestRow {
    /// The record handed out, with the full file map.
    pub(crate) fn into_record(self, files: &Manifest) -> WorkspaceManifest {
        WorkspaceManifest {
            id: self.id,
            chat_id: self.chat_id,
            parent_id: self.parent_id,
            files: files.files.iter().map(|(p, e)| (p.clone(), e.hash.to_hex())).collect(),
            executable: files
                .files
                .iter()
                .filter(|(_, e)| e.executable)
                .map(|(p, _)| p.clone())
                .collect(),
            changes: self.changes,
            created_at: self.created_at,
            source: self.source,
            source_ref: self.source_ref,
            root_tree: self.root_tree.to_hex(),
            file_count: self.file_count,
            total_size: self.total_size,
        }
    }
}

/// Records the empty workspace of a new chat.
pub(crate) async fn insert_empty(conn: &mut SqliteConnection, chat_id: &str, source_ref: &str) -> Result<String> {
    let empty = Manifest::default();
    insert(
        conn,
        chat_id,
        None,
        &empty,
        &tree::encode(&empty),
        ManifestSource::Empty,
        Some(source_ref),
    )
    .await
}

/// Records `manifest` (its trees — `encoded`, from [`tree::encode`] — then
/// its row) and returns its id. The caller guarantees its blobs are durable
/// and runs this in a transaction.
pub(crate) async fn insert(
    conn: &mut SqliteConnection,
    chat_id: &str,
    parent: Option<(&str, &Manifest)>,
    manifest: &Manifest,
    encoded: &tree::EncodedTrees,
    source: ManifestSource,
    source_ref: Option<&str>,
) -> Result<String> {
    for chunk in encoded.trees.chunks(300) {
        let mut q = QueryBuilder::<Sqlite>::new("INSERT OR IGNORE INTO workspace_trees (chat_id, hash, data) ");
        q.push_values(chunk, |mut b, (hash, data)| {
            b.push_bind(chat_id).push_bind(hash.to_hex()).push_bind(data.as_slice());
        });
        q.build().execute(&mut *conn).await?;
    }
    let changes: BTreeMap<&str, Option<String>> = match parent {
        Some((_, p)) => p
            .changes_to(manifest)
            .into_iter()
            .map(|(path, c)| {
                let to = match c {
                    Change::Added(e) | Change::Modified { to: e, .. } => Some(e.hash.to_hex()),
                    Change::Removed(_) => None,
                };
                (path, to)
            })
            .collect(),
        None => manifest
            .files
            .iter()
            .map(|(p, e)| (p.as_str(), Some(e.hash.to_hex())))
            .collect(),
    };
    let changes = serde_json::to_string(&changes).map_err(|e| Error::Internal(e.to_string()))?;
    let id = ids::new_id();
    sqlx::query(
        "INSERT INTO workspace_manifests \
         (id, chat_id, parent_id, files, created_at, source, source_ref, root_tree, file_count, total_size) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&id)
    .bind(chat_id)
    .bind(parent.map(|(id, _)| id))
    .bind(&changes)
    .bind(ids::now())
    .bind(source.as_str())
    .bind(source_ref)
    .bind(encoded.root.to_hex())
    .bind(i64::try_from(manifest.len()).unwrap_or(i64::MAX))
    .bind(i64::try_from(manifest.total_size()).unwrap_or(i64::MAX))
    .execute(&mut *conn)
    .await?;
    Ok(id)
}

/// Reads a manifest row of a chat.
pub(crate) async fn load_row(db: &SqlitePool, chat_id: &str, manifest_id: &str) -> Result<ManifestRow> {
    let row = sqlx::query(
        "SELECT id, chat_id, parent_id, files, created_at, source, source_ref, root_tree, file_count, total_size \
         FROM workspace_manifests WHERE chat_id = ? AND id = ?",
    )
    .bind(chat_id)
    .bind(manifest_id)
    .fetch_optional(db)
    .await?
    .ok_or_else(|| Error::ManifestNotFound {
        chat_id: chat_id.to_owned(),
        manifest_id: manifest_id.to_owned(),
    })?;
    let bad = |what: &'static str, reason: String| Error::InvalidData { what, reason };
    let source: String = row.try_get("source")?;
    let root: String = row.try_get("root_tree")?;
    let changes: String = row.try_get("files")?;
    Ok(ManifestRow {
        id: row.try_get("id")?,
        chat_id: row.try_get("chat_id")?,
        parent_id: row.try_get("parent_id")?,
        changes: serde_json::from_str(&changes).map_err(|e| bad("manifest change set", e.to_string()))?,
        created_at: row.try_get("created_at")?,
        source: ManifestSource::parse(&source).ok_or_else(|| bad("manifest source", source.clone()))?,
        source_ref: row.try_get("source_ref")?,
        root_tree: Hash::from_hex(&root).ok_or_else(|| bad("manifest root tree", root.clone()))?,
        file_count: u64::try_from(row.try_get::<i64, _>("file_count")?).unwrap_or(0),
        total_size: u64::try_from(row.try_get::<i64, _>("total_size")?).unwrap_or(0),
    })
}

/// Reads the full file map under `root`, fetching trees level by level (one
/// query per folder depth, not per folder).
pub(crate) async fn load_files(db: &SqlitePool, chat_id: &str, root: &Hash) -> Result<Manifest> {
    let mut decoded: HashMap<Hash, Vec<tree::TreeEntry>> = HashMap::new();
    let mut level = vec![*root];
    while !level.is_empty() {
        let mut next = Vec::new();
        for chunk in level.chunks(500) {
            let mut q = QueryBuilder::<Sqlite>::new("SELECT hash, data FROM workspace_trees WHERE chat_id = ");
            q.push_bind(chat_id).push(" AND hash IN (");
            let mut sep = q.separated(", ");
            for h in chunk {
                sep.push_bind(h.to_hex());
            }
            q.push(")");
            for row in q.build().fetch_all(db).await? {
                let hex: String = row.try_get("hash")?;
                let data: Vec<u8> = row.try_get("data")?;
                let corrupt = |reason: String| Error::CorruptTree {
                    chat_id: chat_id.to_owned(),
                    hash: hex.clone(),
                    reason,
                };
                let hash = Hash::from_hex(&hex).ok_or_else(|| corrupt("not a valid hash".into()))?;
                let entries = tree::decode(&hash, &data).map_err(corrupt)?;
                next.extend(tree::subtree_hashes(&entries).filter(|h| !decoded.contains_key(h)));
                decoded.insert(hash, entries);
            }
        }
        next.sort_unstable();
        next.dedup();
        level = next;
    }
    tree::assemble(root, &decoded).map_err(|missing| Error::CorruptTree {
        chat_id: chat_id.to_owned(),
        hash: missing.to_hex(),
        reason: "missing from the database".into(),
    })
}
