//! The blob store's own tests: batches, durability paths, corruption.

use super::*;

#[test]
fn put_commit_read_and_detect_corruption() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let store = BlobStore::new(dir.path().join("blobs"));
    let src = dir.path().join("f");
    fs::write(&src, b"hello")?;
    let batch = store.batch()?;
    let put = batch.put_file(&src, 5)?;
    assert!(put.written);
    assert!(
        !batch.put_file(&src, 5)?.written,
        "same content twice in a batch is one blob"
    );
    assert!(!store.contains(&put.hash), "not visible before commit");
    assert_eq!(batch.commit()?, 1);
    assert_eq!(store.read_verified(&put.hash, "f")?, b"hello");
    assert_eq!(fs::read_dir(store.tmp_dir())?.count(), 0);

    let private = dir.path().join("private");
    store.copy_verified(&put.hash, "f", &private, 0o600)?;
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(fs::metadata(&private)?.permissions().mode() & 0o777, 0o600);

    fs::write(store.path_of(&put.hash), b"hellO")?;
    let err = store.read_verified(&put.hash, "f").err().map(|e| e.kind());
    assert_eq!(err, Some("corrupt_blob"));
    let dest = dir.path().join("out");
    assert!(store.copy_verified(&put.hash, "f", &dest, 0o644).is_err());
    assert!(!dest.exists(), "a corrupt copy is removed");
    Ok(())
}

/// A small blob (synced at commit) and a big one (already handed to the
/// sync threads) alike.
#[test]
fn dropped_batch_leaves_nothing() -> anyhow::Result<()> {
    for size in [1, EARLY_SYNC_MIN as usize] {
        let dir = tempfile::tempdir()?;
        let store = BlobStore::new(dir.path().join("blobs"));
        let batch = store.batch()?;
        let data = vec![9u8; size];
        batch.put_bytes(Hash::of(&data), &data)?;
        drop(batch);
        assert!(!store.contains(&Hash::of(&data)), "size {size}");
        assert_eq!(fs::read_dir(store.tmp_dir())?.count(), 0, "size {size}");
    }
    Ok(())
}

#[test]
fn big_files_stream_and_dedupe() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let store = BlobStore::new(dir.path().join("blobs"));
    let src = dir.path().join("big");
    let data = vec![7u8; (IN_MEMORY_LIMIT + 3) as usize];
    fs::write(&src, &data)?;
    let batch = store.batch()?;
    let a = batch.put_file(&src, data.len() as u64)?;
    let b = batch.put_file(&src, data.len() as u64)?;
    assert!(a.written && !b.written);
    assert_eq!(a.hash, Hash::of(&data));
    batch.commit()?;
    assert_eq!(fs::metadata(store.path_of(&a.hash))?.len(), data.len() as u64);
    Ok(())
}

#[test]
fn a_mixed_batch_commits_every_blob_synced_early_or_late() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let store = BlobStore::new(dir.path().join("blobs"));
    let batch = store.batch()?;
    // More small blobs than are synced one by one (so `syncfs`), and
    // big ones that go to the sync threads as they are written.
    let small: Vec<Vec<u8>> = (0..FSYNC_BATCH_LIMIT + 5)
        .map(|i| format!("small {i}").into_bytes())
        .collect();
    for b in &small {
        assert!(batch.put_bytes(Hash::of(b), b)?);
    }
    let big: Vec<Vec<u8>> = (0..3u8).map(|i| vec![i; EARLY_SYNC_MIN as usize + 1]).collect();
    for b in &big {
        assert!(batch.put_bytes(Hash::of(b), b)?);
    }
    assert_eq!(batch.commit()?, small.len() + big.len());
    for b in small.iter().chain(&big) {
        assert_eq!(&store.read_verified(&Hash::of(b), "f")?, b);
    }
    assert_eq!(fs::read_dir(store.tmp_dir())?.count(), 0, "no temp file is left");
    Ok(())
}

/// Streamed files of every alignment case (a whole number of write chunks,
/// one byte more, an unaligned tail) are stored byte for byte, under the
/// hash of what was read.
#[test]
fn streamed_blobs_are_exact_at_every_tail_length() -> anyhow::Result<()> {
    use crate::store::direct::{ALIGN, DIRECT_CHUNK};
    let dir = tempfile::tempdir()?;
    let store = BlobStore::new(dir.path().join("blobs"));
    let base = IN_MEMORY_LIMIT as usize + DIRECT_CHUNK;
    let batch = store.batch()?;
    let mut stored = Vec::new();
    for (i, len) in [base, base + 1, base + ALIGN - 1, base + ALIGN + 17]
        .into_iter()
        .enumerate()
    {
        // A pattern whose period (251) is not a divisor of any chunk size.
        let data: Vec<u8> = (0..len).map(|j| ((j + i) % 251) as u8).collect();
        let src = dir.path().join(format!("big{i}"));
        fs::write(&src, &data)?;
        let put = batch.put_file(&src, len as u64)?;
        assert!(put.written);
        assert_eq!((put.hash, put.size), (Hash::of(&data), len as u64));
        stored.push(data);
    }
    batch.commit()?;
    for data in &stored {
        assert_eq!(&store.read_verified(&Hash::of(data), "big")?, data);
    }
    Ok(())
}

/// Fan-out folders are made as blobs need them, and a later batch uses
/// the ones that exist.
#[test]
fn fan_out_folders_are_made_on_first_use() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let store = BlobStore::new(dir.path().join("blobs"));
    let folders = || -> anyhow::Result<usize> {
        Ok(fs::read_dir(store.root())?
            .filter(|e| e.as_ref().is_ok_and(|e| e.file_name() != "tmp"))
            .count())
    };
    let batch = store.batch()?;
    batch.put_bytes(Hash::of(b"one"), b"one")?;
    batch.commit()?;
    assert_eq!(folders()?, 1, "one blob, one fan-out folder");

    let batch = store.batch()?;
    let many: Vec<Vec<u8>> = (0..40).map(|i| format!("blob {i}").into_bytes()).collect();
    for b in &many {
        batch.put_bytes(Hash::of(b), b)?;
    }
    batch.commit()?;
    let prefixes: HashSet<String> = many
        .iter()
        .map(|b| Hash::of(b).to_hex()[..2].to_owned())
        .chain([Hash::of(b"one").to_hex()[..2].to_owned()])
        .collect();
    assert_eq!(folders()?, prefixes.len());
    for b in &many {
        assert_eq!(&store.read_verified(&Hash::of(b), "f")?, b);
    }
    Ok(())
}
