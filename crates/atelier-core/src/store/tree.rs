//! Directory trees: how manifests are stored (like git's tree objects).
//!
//! Each directory of a manifest becomes one tree: a canonical byte encoding
//! of its entries, named by the SHA-256 of those bytes. A manifest row names
//! its root tree. Two manifests that differ in one file share every tree
//! except those on the path to that file, so a 2,000-call chat on a
//! 10,000-file workspace stores a few KiB per call, not 2,000 full maps.
//!
//! Encoding (version 1): the byte `1`, then per entry, sorted by name bytes:
//! kind (`f` file, `x` executable file, `d` directory), name length (u16 LE),
//! name (UTF-8, one path segment), hash (32 bytes: the blob, or the subtree),
//! size (u64 LE: the file's size, or the subtree's total). Empty directories
//! are not recorded (like git): a tree with no entries is only ever the root
//! of an empty workspace.
//!
//! Version 2 adds two kinds for private files (see [`super::manifest`]):
//! `F` (0600) and `X` (0700). A tree is written as version 2 only when it
//! holds a private file, so every tree without one keeps the bytes, and so
//! the hash, that version 1 gave it: upgrading changes no stored manifest's
//! identity, and an older Atelier meeting a new tree says "unknown format
//! version 2" instead of calling it corrupt.

use std::collections::{BTreeMap, HashMap};

use super::{FileEntry, Hash, Manifest};

/// The format of trees without a private file.
const VERSION: u8 = 1;
/// The format of trees with one (version 1 plus `F` and `X`).
const VERSION_PRIVATE: u8 = 2;

/// One entry of a decoded tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeEntry {
    pub name: String,
    pub kind: EntryKind,
    /// A private file (kinds `F` and `X`); false for a folder.
    pub private: bool,
    pub hash: Hash,
    pub size: u64,
}

impl TreeEntry {
    /// The manifest entry of a file; `None` for a folder.
    pub fn file(&self) -> Option<FileEntry> {
        (self.kind != EntryKind::Dir).then_some(FileEntry {
            hash: self.hash,
            size: self.size,
            executable: self.kind == EntryKind::Executable,
            private: self.private,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Executable,
    Dir,
}

/// The trees of one manifest, ready to store.
#[derive(Debug, Clone)]
pub struct EncodedTrees {
    pub root: Hash,
    /// Every tree of the manifest (root included), each once.
    pub trees: Vec<(Hash, Vec<u8>)>,
}

#[derive(Default)]
struct Dir<'a> {
    files: BTreeMap<&'a str, FileEntry>,
    dirs: BTreeMap<&'a str, Dir<'a>>,
}

/// Encodes a manifest as trees.
pub fn encode(manifest: &Manifest) -> EncodedTrees {
    let mut root = Dir::default();
    for (path, entry) in &manifest.files {
        let mut dir = &mut root;
        let mut segs = path.split('/').peekable();
        while let Some(seg) = segs.next() {
            if segs.peek().is_none() {
                dir.files.insert(seg, *entry);
            } else {
                dir = dir.dirs.entry(seg).or_default();
            }
        }
    }
    let mut out = HashMap::new();
    let (root_hash, _) = encode_dir(&root, &mut out);
    EncodedTrees {
        root: root_hash,
        trees: out.into_iter().collect(),
    }
}

fn encode_dir(dir: &Dir<'_>, out: &mut HashMap<Hash, Vec<u8>>) -> (Hash, u64) {
    // Merge files and subdirectories into one name-sorted list. A name can't
    // be both (the walk sees one or the other; manifests come from walks).
    let mut entries: Vec<(&str, u8, Hash, u64)> = Vec::with_capacity(dir.files.len() + dir.dirs.len());
    for (name, f) in &dir.files {
        let kind = match (f.executable, f.private) {
            (false, false) => b'f',
            (true, false) => b'x',
            (false, true) => b'F',
            (true, true) => b'X',
        };
        entries.push((name, kind, f.hash, f.size));
    }
    for (name, sub) in &dir.dirs {
        let (h, size) = encode_dir(sub, out);
        entries.push((name, b'd', h, size));
    }
    entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut data = Vec::with_capacity(1 + entries.len() * 60);
    let private = dir.files.values().any(|f| f.private);
    data.push(if private { VERSION_PRIVATE } else { VERSION });
    let mut total = 0u64;
    for (name, kind, hash, size) in entries {
        data.push(kind);
        // Segment names come from directory entries (≤ 255 bytes on every
        // filesystem we run on); clamp defensively rather than panic.
        let len = u16::try_from(name.len()).unwrap_or(u16::MAX);
        data.extend_from_slice(&len.to_le_bytes());
        data.extend_from_slice(&name.as_bytes()[..usize::from(len)]);
        data.extend_from_slice(&hash.0);
        data.extend_from_slice(&size.to_le_bytes());
        total = total.saturating_add(size);
    }
    let h = Hash::of(&data);
    out.entry(h).or_insert(data);
    (h, total)
}

/// Decodes one tree, checking that its content matches `hash` and that it is
/// well-formed. The error is a human-readable reason.
pub fn decode(hash: &Hash, data: &[u8]) -> Result<Vec<TreeEntry>, String> {
    if Hash::of(data) != *hash {
        return Err("corrupt: its content does not match its hash".into());
    }
    let (&version, mut rest) = data.split_first().ok_or("empty")?;
    if version != VERSION && version != VERSION_PRIVATE {
        return Err(format!("of unknown format version {version}"));
    }
    let mut has_private = false;
    let mut out: Vec<TreeEntry> = Vec::new();
    while !rest.is_empty() {
        let truncated = || "truncated".to_string();
        let (&kind, r) = rest.split_first().ok_or_else(truncated)?;
        let (kind, private) = match kind {
            b'f' => (EntryKind::File, false),
            b'x' => (EntryKind::Executable, false),
            b'd' => (EntryKind::Dir, false),
            b'F' if version == VERSION_PRIVATE => (EntryKind::File, true),
            b'X' if version == VERSION_PRIVATE => (EntryKind::Executable, true),
            other => return Err(format!("corrupt: unknown entry kind {other}")),
        };
        has_private |= private;
        let (len, r) = r.split_first_chunk::<2>().ok_or_else(truncated)?;
        let len = usize::from(u16::from_le_bytes(*len));
        let (name, r) = r.split_at_checked(len).ok_or_else(truncated)?;
        let (h, r) = r.split_first_chunk::<32>().ok_or_else(truncated)?;
        let (size, r) = r.split_first_chunk::<8>().ok_or_else(truncated)?;
        rest = r;
        let name = std::str::from_utf8(name).map_err(|_| "corrupt: a name is not UTF-8".to_string())?;
        if name.is_empty() || name == "." || name == ".." || name.contains('/') || name.contains('\0') {
            return Err(format!("corrupt: invalid entry name {name:?}"));
        }
        if let Some(prev) = out.last()
            && prev.name.as_bytes() >= name.as_bytes()
        {
            return Err("corrupt: entries out of order".into());
        }
        out.push(TreeEntry {
            name: name.to_owned(),
            kind,
            private,
            hash: Hash(*h),
            size: u64::from_le_bytes(*size),
        });
    }
    // One manifest, one encoding: a version 2 tree without a private file
    // would be a second name for a version 1 tree.
    if version == VERSION_PRIVATE && !has_private {
        return Err("corrupt: a version 2 tree without a private file".into());
    }
    Ok(out)
}

/// Rebuilds the flat manifest from decoded trees. `trees` must hold every
/// tree reachable from `root` (see [`subtree_hashes`] to fetch them level
/// by level). Returns the hash of a missing tree if one is absent.
pub fn assemble(root: &Hash, trees: &HashMap<Hash, Vec<TreeEntry>>) -> Result<Manifest, Hash> {
    let mut manifest = Manifest::default();
    let mut stack = vec![(String::new(), *root)];
    while let Some((prefix, h)) = stack.pop() {
        let entries = trees.get(&h).ok_or(h)?;
        for e in entries {
            let path = if prefix.is_empty() {
                e.name.clone()
            } else {
                format!("{prefix}/{}", e.name)
            };
            match e.file() {
                None => stack.push((path, e.hash)),
                Some(file) => {
                    manifest.files.insert(path, file);
                }
            }
        }
    }
    Ok(manifest)
}

/// The subtrees a decoded tree refers to.
pub fn subtree_hashes(entries: &[TreeEntry]) -> impl Iterator<Item = Hash> + '_ {
    entries.iter().filter(|e| e.kind == EntryKind::Dir).map(|e| e.hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(paths: &[(&str, &str)]) -> Manifest {
        let mut m = Manifest::default();
        for (p, c) in paths {
            m.files.insert(
                (*p).to_owned(),
                FileEntry {
                    hash: Hash::of(c.as_bytes()),
                    size: c.len() as u64,
                    executable: p.ends_with(".sh"),
                    private: p.contains("secret"),
                },
            );
        }
        m
    }

    fn round_trip(m: &Manifest) -> Manifest {
        let enc = encode(m);
        let decoded: HashMap<_, _> = enc
            .trees
            .iter()
            .map(|(h, d)| decode(h, d).map(|e| (*h, e)))
            .collect::<Result<_, _>>()
            .unwrap_or_default();
        assemble(&enc.root, &decoded).unwrap_or_default()
    }

    #[test]
    fn encode_then_assemble_gives_the_same_manifest() {
        let m = manifest(&[
            ("a.txt", "a"),
            ("d/b.txt", "b"),
            ("d/e/run.sh", "x"),
            ("d.txt", "d"),
            ("ü/ñ", "u"),
        ]);
        assert_eq!(round_trip(&m), m);
        assert_eq!(round_trip(&Manifest::default()), Manifest::default());
    }

    #[test]
    fn unchanged_directories_share_trees() {
        let a = manifest(&[("x/1", "1"), ("y/2", "2"), ("z/3", "3")]);
        let b = manifest(&[("x/1", "1"), ("y/2", "2"), ("z/3", "changed")]);
        let (ea, eb) = (encode(&a), encode(&b));
        let shared = ea
            .trees
            .iter()
            .filter(|(h, _)| eb.trees.iter().any(|(h2, _)| h2 == h))
            .count();
        assert_eq!(ea.trees.len(), 4);
        assert_eq!(shared, 2, "x and y are shared; z and the root differ");
        assert_ne!(ea.root, eb.root);
    }

    #[test]
    fn a_tree_without_private_files_keeps_its_version_1_bytes_and_hash() {
        // Written by hand from the version 1 format: the trees older
        // versions stored must keep their names, or every manifest of every
        // chat would look changed after an upgrade.
        let m = manifest(&[("a.txt", "a"), ("run.sh", "x")]);
        let mut v1 = vec![1u8];
        for (kind, name, content) in [(b'f', "a.txt", "a"), (b'x', "run.sh", "x")] {
            v1.push(kind);
            v1.extend_from_slice(&u16::try_from(name.len()).unwrap_or(0).to_le_bytes());
            v1.extend_from_slice(name.as_bytes());
            v1.extend_from_slice(&Hash::of(content.as_bytes()).0);
            v1.extend_from_slice(&1u64.to_le_bytes());
        }
        let enc = encode(&m);
        assert_eq!(enc.trees, [(Hash::of(&v1), v1)]);
        assert_eq!(
            enc.root.to_hex(),
            "0bd0d762f98e35231289dda0bf6b0324b598a7f4514bb095dd09744eddd5052e",
            "the root hash version 1 gave this manifest"
        );
    }

    #[test]
    fn private_files_round_trip_in_version_2_trees_only_where_they_are() {
        let m = manifest(&[("keys/secret", "k"), ("keys/secret.sh", "s"), ("pub/a.txt", "a")]);
        assert_eq!(round_trip(&m), m);
        let enc = encode(&m);
        let versions: Vec<u8> = {
            let mut v: Vec<u8> = enc.trees.iter().map(|(_, d)| d[0]).collect();
            v.sort_unstable();
            v
        };
        assert_eq!(versions, [1, 1, 2], "the root and pub/ stay version 1; keys/ is 2");
        let (h, keys_tree) = enc.trees.iter().find(|(_, d)| d[0] == 2).expect("keys/");
        let entries = decode(h, keys_tree).expect("decode");
        let kinds: Vec<_> = entries.iter().map(|e| (e.kind, e.private)).collect();
        assert_eq!(kinds, [(EntryKind::File, true), (EntryKind::Executable, true)]);
        assert_eq!(m.files["keys/secret.sh"].mode(), 0o700);

        // A private kind in a version 1 tree, or a version 2 tree without
        // one, is not a tree this code writes.
        let mut v1_private = keys_tree.clone();
        v1_private[0] = 1;
        assert!(decode(&Hash::of(&v1_private), &v1_private).is_err());
        let pub_tree = enc.trees.iter().map(|(_, d)| d).find(|d| d.len() > 1 && d[1] == b'f');
        let mut v2_plain = pub_tree.expect("pub/").clone();
        v2_plain[0] = 2;
        assert!(decode(&Hash::of(&v2_plain), &v2_plain).is_err());
    }

    #[test]
    fn corrupt_trees_are_rejected() {
        let enc = encode(&manifest(&[("a", "a")]));
        let (h, data) = &enc.trees[0];
        let mut bad = data.clone();
        bad[5] ^= 1;
        assert!(decode(h, &bad).is_err());
        assert!(decode(&Hash::of(&bad[..3]), &bad[..3]).is_err());
    }
}
