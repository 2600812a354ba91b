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
    let encoded = tree::encode(&empty);
    let m = NewManifest {
        chat_id,
        parent_id: None,
        manifest: &empty,
        encoded: &encoded,
        delta: None,
        source: ManifestSource::Empty,
        source_ref: Some(source_ref),
    };
    insert(conn, m).await
}

/// A manifest to record.
pub(crate) struct NewManifest<'a> {
    pub chat_id: &'a str,
    pub parent_id: Option<&'a str>,
    pub manifest: &'a Manifest,
    pub encoded: &'a tree::EncodedTrees,
    /// What changed against the parent ([`delta`]); `None` without a parent
    /// (every file is new, every tree stored).
    pub delta: Option<&'a Delta>,
    pub source: ManifestSource,
    pub source_ref: Option<&'a str>,
}

/// Records a manifest (its new trees, then its row) and returns its id. The
/// caller guarantees its blobs are durable and runs this in a transaction.
pub(crate) async fn insert(conn: &mut SqliteConnection, m: NewManifest<'_>) -> Result<String> {
    let trees: Vec<(&Hash, &[u8])> = match m.delta {
        Some(d) => {
            let by_hash: HashMap<&Hash, &[u8]> = m.encoded.trees.iter().map(|(h, d)| (h, d.as_slice())).collect();
            d.new_trees
                .iter()
                .filter_map(|h| by_hash.get_key_value(h).map(|(h, d)| (*h, *d)))
                .collect()
        }
        None => m.encoded.trees.iter().map(|(h, d)| (h, d.as_slice())).collect(),
    };
    for chunk in trees.chunks(300) {
        let mut q = QueryBuilder::<Sqlite>::new("INSERT OR IGNORE INTO workspace_trees (chat_id, hash, data) ");
        q.push_values(chunk, |mut b, (hash, data)| {
            b.push_bind(m.chat_id).push_bind(hash.to_hex()).push_bind(*data);
        });
        q.build().execute(&mut *conn).await?;
    }
    let changes: BTreeMap<&str, Option<String>> = match m.delta {
        Some(d) => d
            .changes
            .iter()
            .map(|(path, c)| {
                let to = match c {
                    Change::Added(e) | Change::Modified { to: e, .. } => Some(e.hash.to_hex()),
                    Change::Removed(_) => None,
                };
                (path.as_str(), to)
            })
            .collect(),
        None => m
            .manifest
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
    .bind(m.chat_id)
    .bind(m.parent_id)
    .bind(&changes)
    .bind(ids::now())
    .bind(m.source.as_str())
    .bind(m.source_ref)
    .bind(m.encoded.root.to_hex())
    .bind(i64::try_from(m.manifest.len()).unwrap_or(i64::MAX))
    .bind(i64::try_from(m.manifest.total_size()).unwrap_or(i64::MAX))
    .execute(&mut *conn)
    .await?;
    Ok(id)
}

/// The difference between a stored manifest and a new one.
#[derive(Debug, Default)]
pub(crate) struct Delta {
    /// File changes, sorted by path.
    pub changes: Vec<(String, Change)>,
    /// Trees of the new manifest that the stored one does not have.
    pub new_trees: Vec<Hash>,
}

impl Delta {
    pub(crate) fn counts(&self) -> (u64, u64, u64) {
        let mut n = (0, 0, 0);
        for (_, c) in &self.changes {
            match c {
                Change::Added(_) => n.0 += 1,
                Change::Removed(_) => n.1 += 1,
                Change::Modified { .. } => n.2 += 1,
            }
        }
        n
    }
}

/// Compares the stored manifest under `old_root` with `new`, walking both
/// tree sets in step and reading only the stored trees on paths where the
/// two differ (one query per depth): cost follows the change, not the
/// workspace.
pub(crate) async fn delta(db: &SqlitePool, chat_id: &str, old_root: &Hash, new: &tree::EncodedTrees) -> Result<Delta> {
    let new_data: HashMap<Hash, &[u8]> = new.trees.iter().map(|(h, d)| (*h, d.as_slice())).collect();
    let decode_new = |h: &Hash| -> Result<Vec<tree::TreeEntry>> {
        let data = new_data
            .get(h)
            .ok_or_else(|| Error::Internal(format!("tree {h} missing from its own encoding")))?;
        tree::decode(h, data).map_err(|e| Error::Internal(format!("freshly encoded tree {h}: {e}")))
    };
    let mut out = Delta::default();
    // (path prefix, stored tree, new tree); a side is None when that side
    // has no folder there.
    let mut level: Vec<(String, Option<Hash>, Option<Hash>)> = vec![(String::new(), Some(*old_root), Some(new.root))];
    while !level.is_empty() {
        let wanted: Vec<Hash> = level.iter().filter_map(|(_, o, _)| *o).collect();
        let old_trees = fetch_trees(db, chat_id, &wanted).await?;
        let mut next = Vec::new();
        for (prefix, old, new_h) in level {
            if old.is_some() && old == new_h {
                continue;
            }
            let old_entries = match old {
                Some(h) => old_trees.get(&h).cloned().ok_or_else(|| missing_tree(chat_id, &h))?,
                None => Vec::new(),
            };
            let new_entries = match new_h {
                Some(h) => {
                    out.new_trees.push(h);
                    decode_new(&h)?
                }
                None => Vec::new(),
            };
            diff_entries(&prefix, &old_entries, &new_entries, &mut out.changes, &mut next);
        }
        level = next;
    }
    out.changes.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

fn missing_tree(chat_id: &str, h: &Hash) -> Error {
    Error::CorruptTree {
        chat_id: chat_id.to_owned(),
        hash: h.to_hex(),
        reason: "missing from the database".into(),
    }
}

/// Compares one folder's entries (both sorted by name).
fn diff_entries(
    prefix: &str,
    old: &[tree::TreeEntry],
    new: &[tree::TreeEntry],
    changes: &mut Vec<(String, Change)>,
    next: &mut Vec<(String, Option<Hash>, Option<Hash>)>,
) {
    let path = |name: &str| {
        if prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{prefix}/{name}")
        }
    };
    let dir = |e: &tree::TreeEntry| (e.kind == tree::EntryKind::Dir).then_some(e.hash);
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        let ord = match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) => a.name.as_bytes().cmp(b.name.as_bytes()),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        let (a, b) = match ord {
            std::cmp::Ordering::Less => (old.get(i), None),
            std::cmp::Ordering::Greater => (None, new.get(j)),
            std::cmp::Ordering::Equal => (old.get(i), new.get(j)),
        };
        if a.is_some() {
            i += 1;
        }
        if b.is_some() {
            j += 1;
        }
        let name = a.or(b).map(|e| e.name.as_str()).unwrap_or_default();
        let (fa, fb) = (a.and_then(tree::TreeEntry::file), b.and_then(tree::TreeEntry::file));
        match (fa, fb) {
            (Some(x), Some(y)) if x != y => changes.push((path(name), Change::Modified { from: x, to: y })),
            (Some(x), None) => changes.push((path(name), Change::Removed(x))),
            (None, Some(y)) => changes.push((path(name), Change::Added(y))),
            _ => {}
        }
        let (da, db) = (a.and_then(dir), b.and_then(dir));
        if (da.is_some() || db.is_some()) && da != db {
            next.push((path(name), da, db));
        }
    }
}

async fn fetch_trees(db: &SqlitePool, chat_id: &str, hashes: &[Hash]) -> Result<HashMap<Hash, Vec<tree::TreeEntry>>> {
    let mut out = HashMap::new();
    for chunk in hashes.chunks(500) {
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
            out.insert(hash, entries);
        }
    }
    Ok(out)
}

/// A manifest's identity: what a scan compares the folder with.
#[derive(Debug, Clone)]
pub(crate) struct ManifestHead {
    pub(crate) id: String,
    pub(crate) root_tree: Hash,
}

/// Reads a manifest's id and root tree only. A scan needs nothing else,
/// and the full row carries the change set against the parent, which for
/// a first snapshot of a big folder is a JSON list of every file (parsing
/// it was a tenth of a no-change snapshot of 10,000 files).
pub(crate) async fn load_head(db: &SqlitePool, chat_id: &str, manifest_id: &str) -> Result<ManifestHead> {
    let root: String = sqlx::query_scalar("SELECT root_tree FROM workspace_manifests WHERE chat_id = ? AND id = ?")
        .bind(chat_id)
        .bind(manifest_id)
        .fetch_optional(db)
        .await?
        .ok_or_else(|| not_found(chat_id, manifest_id))?;
    Ok(ManifestHead {
        id: manifest_id.to_owned(),
        root_tree: parse_root(&root)?,
    })
}

fn not_found(chat_id: &str, manifest_id: &str) -> Error {
    Error::ManifestNotFound {
        chat_id: chat_id.to_owned(),
        manifest_id: manifest_id.to_owned(),
    }
}

fn parse_root(root: &str) -> Result<Hash> {
    Hash::from_hex(root).ok_or_else(|| Error::InvalidData {
        what: "manifest root tree",
        reason: root.to_owned(),
    })
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
    .ok_or_else(|| not_found(chat_id, manifest_id))?;
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
        root_tree: parse_root(&root)?,
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
        let fetched = fetch_trees(db, chat_id, &level).await?;
        let mut next: Vec<Hash> = fetched
            .values()
            .flat_map(|e| tree::subtree_hashes(e))
            .filter(|h| !decoded.contains_key(h))
            .collect();
        decoded.extend(fetched);
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
