//! Making blobs durable: the [`Syncer`] threads that fsync big blobs while
//! a batch is still hashing, and [`syncfs`] for batches of many small ones.
//! [`super::blobs::BlobBatch::commit`] decides which applies.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, mpsc};
use std::thread::JoinHandle;

use crate::{Error, Result};

/// Two syncs in flight keep a virtual disk busier than one (measured here:
/// 400 MB/s for one `fdatasync` stream, 575 MB/s for two); they wait on
/// the disk, not the CPU.
const SYNC_THREADS: usize = 2;

/// Threads that fsync the files they are sent while the workers go on
/// hashing: without them every byte of a big batch would be written to
/// disk only at commit, after all the hashing. Dropping the sender ends
/// the threads; [`Syncer::finish`] waits for them and reports the first
/// error (naming the temp file that could not be synced).
#[derive(Debug)]
pub(super) struct Syncer {
    pub(super) tx: mpsc::Sender<(File, PathBuf)>,
    threads: Vec<JoinHandle<Result<()>>>,
}

impl Syncer {
    pub(super) fn start() -> Self {
        let (tx, rx) = mpsc::channel::<(File, PathBuf)>();
        let rx = std::sync::Arc::new(Mutex::new(rx));
        let threads = (0..SYNC_THREADS)
            .map(|_| {
                let rx = rx.clone();
                std::thread::spawn(move || {
                    let mut first_error = None;
                    loop {
                        // The guard is dropped before the sync, so the other
                        // thread can take the next file meanwhile.
                        let next = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                        let Ok((file, path)) = next else { break };
                        // Keep draining after an error; report the first.
                        if first_error.is_none()
                            && let Err(e) = file.sync_data()
                        {
                            first_error = Some(Error::io("sync", path)(e));
                        }
                    }
                    first_error.map_or(Ok(()), Err)
                })
            })
            .collect();
        Self { tx, threads }
    }

    /// Waits until every file sent is durable.
    pub(super) fn finish(self) -> Result<()> {
        drop(self.tx);
        let mut result = Ok(());
        for t in self.threads {
            let r = t.join().unwrap_or_else(|_| {
                Err(Error::InvalidData {
                    what: "blob sync thread",
                    reason: "it panicked".into(),
                })
            });
            if result.is_ok() {
                result = r;
            }
        }
        result
    }
}

/// Flushes the whole filesystem holding `dir`: one call for a big batch,
/// where a sync per file would cost a journal commit each. (A small batch
/// syncs its own files instead: `syncfs` also flushes whatever else is
/// dirty on the disk.)
pub(super) fn syncfs(dir: &Path) -> Result<()> {
    let d = File::open(dir).map_err(Error::io("open", dir))?;
    #[cfg(target_os = "linux")]
    {
        rustix::fs::syncfs(&d).map_err(|e| Error::io("sync", dir)(e.into()))
    }
    #[cfg(not(target_os = "linux"))]
    {
        // No syncfs: fsync the folder; callers on these systems should use
        // small batches (each file synced).
        d.sync_all().map_err(Error::io("sync", dir))
    }
}
