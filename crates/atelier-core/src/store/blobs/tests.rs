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

    fs::write(store.path_of(&put.hash), b"hellO")?;
    let err = store.read_verified(&put.hash, "f").err().map(|e| e.kind());
    assert_eq!(err, Some("corrupt_blob"));
    let dest = dir.path().join("out");
    assert!(store.copy_verified(&put.hash, "f", &dest, false).is_err());
    assert!(!dest.exists(), "a corrupt copy is removed");
    Ok(())
}

#[test]
fn dropped_batch_leaves_nothing() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let store = BlobStore::new(dir.path().join("blobs"));
    let batch = store.batch()?;
    let h = Hash::of(b"x");
    batch.put_bytes(h, b"x")?;
    drop(batch);
    assert!(!store.contains(&h));
    assert_eq!(fs::read_dir(store.tmp_dir())?.count(), 0);
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

#[test]
fn a_dropped_batch_with_early_synced_blobs_leaves_nothing() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let store = BlobStore::new(dir.path().join("blobs"));
    let batch = store.batch()?;
    let big = vec![9u8; EARLY_SYNC_MIN as usize];
    batch.put_bytes(Hash::of(&big), &big)?;
    drop(batch);
    assert!(!store.contains(&Hash::of(&big)));
    assert_eq!(fs::read_dir(store.tmp_dir())?.count(), 0);
    Ok(())
}
