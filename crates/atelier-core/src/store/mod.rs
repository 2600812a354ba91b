//! The per-chat content-addressed workspace store.
//!
//! A chat's files live in `chats/<id>/workspace/`; every version of every
//! file lives once in `chats/<id>/blobs/ab/abcd…` under its SHA-256. A
//! [`Manifest`] maps workspace paths to blobs; it is stored as git-like
//! directory [trees](tree) so unchanged folders are shared between versions.
//!
//! This module is synchronous, blocking code (hashing, walking, copying): the
//! async layer ([`crate::workspace`]) runs it on `spawn_blocking` while
//! holding the chat's [`crate::lock::FileLock`]. Invariants:
//! - nothing is ever written, deleted or followed outside the workspace:
//!   symlinks are never followed, and are not stored (skipped with a warning);
//! - a blob exists under its final name only once its content is durable,
//!   and a manifest is recorded only after all its blobs exist;
//! - materialize verifies every blob it needs before touching the workspace.

pub mod blobs;
pub mod confine;
mod direct;
pub mod failpoint;
pub mod manifest;
pub mod materialize;
pub mod path;
pub mod snapshot;
pub mod statcache;
mod sync;
pub mod tree;

use std::fmt;

pub use blobs::BlobStore;
pub use manifest::{FileEntry, Manifest};

/// A SHA-256 digest.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hash(pub [u8; 32]);

impl Hash {
    /// Hashes a byte slice.
    pub fn of(bytes: &[u8]) -> Self {
        use sha2::Digest;
        Self(sha2::Sha256::digest(bytes).into())
    }

    /// Lowercase hex, 64 characters.
    pub fn to_hex(&self) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut s = String::with_capacity(64);
        for b in self.0 {
            s.push(HEX[usize::from(b >> 4)] as char);
            s.push(HEX[usize::from(b & 0xf)] as char);
        }
        s
    }

    /// Parses 64 hex digits.
    pub fn from_hex(s: &str) -> Option<Self> {
        let bytes = s.as_bytes();
        if bytes.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, pair) in bytes.chunks_exact(2).enumerate() {
            let hi = (pair[0] as char).to_digit(16)?;
            let lo = (pair[1] as char).to_digit(16)?;
            out[i] = u8::try_from(hi * 16 + lo).ok()?;
        }
        Some(Self(out))
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hash({})", self.to_hex())
    }
}

/// Progress of a long store operation, reported through a callback.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
pub struct Progress {
    /// Files looked at so far.
    pub files_done: u64,
    /// Files to look at in all (0 while still counting).
    pub files_total: u64,
    /// Bytes hashed or copied so far.
    pub bytes_done: u64,
    /// Bytes to hash or copy in all (0 while still counting).
    pub bytes_total: u64,
}

/// Receives a step's description (an installer's output line).
type StepFn = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

/// Callback and cancellation for long operations.
#[derive(Clone, Default)]
pub struct Observer {
    on_progress: Option<std::sync::Arc<dyn Fn(Progress) + Send + Sync>>,
    on_step: Option<StepFn>,
    cancel: tokio_util::sync::CancellationToken,
}

impl fmt::Debug for Observer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Observer")
            .field("cancelled", &self.cancel.is_cancelled())
            .finish()
    }
}

impl Observer {
    /// Reports progress to `f` (called from worker threads, possibly often).
    pub fn with_progress(mut self, f: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(std::sync::Arc::new(f));
        self
    }

    /// Reports steps that are not files or bytes (an installer's lines).
    pub fn with_steps(mut self, f: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_step = Some(std::sync::Arc::new(f));
        self
    }

    /// Cancels the operation when `token` is cancelled.
    pub fn with_cancel(mut self, token: tokio_util::sync::CancellationToken) -> Self {
        self.cancel = token;
        self
    }

    /// Passes `p` to the progress callback, if there is one.
    pub fn progress(&self, p: Progress) {
        if let Some(f) = &self.on_progress {
            f(p);
        }
    }

    pub(crate) fn step(&self, what: &str) {
        if let Some(f) = &self.on_step {
            f(what);
        }
    }

    pub(crate) fn cancel_token(&self) -> &tokio_util::sync::CancellationToken {
        &self.cancel
    }

    pub(crate) fn check(&self) -> crate::Result<()> {
        if self.cancel.is_cancelled() {
            Err(crate::Error::Cancelled)
        } else {
            Ok(())
        }
    }
}

/// Threads for hashing and copying: the machines we target have two cores,
/// and one thread hashing while the other waits on I/O is what pays.
const WORKER_THREADS: usize = 2;

/// Maps `f` over `items` on [`WORKER_THREADS`] threads, keeping order.
/// Stops handing out work at the first error, which it returns.
pub(crate) fn par_map<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> crate::Result<R> + Sync,
) -> crate::Result<Vec<R>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    if items.len() <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let first_error: Mutex<Option<crate::Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..WORKER_THREADS {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    match f(item) {
                        Ok(r) => results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r),
                        Err(e) => {
                            first_error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
                            next.store(items.len(), Ordering::Relaxed);
                            break;
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = first_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| {
            r.ok_or(crate::Error::InvalidData {
                what: "parallel task",
                reason: "a task produced no result".into(),
            })
        })
        .collect()
}

/// How often [`throttled`] passes progress on.
const PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// An observer that passes progress to `send` at most every 100 ms, and
/// always the last step (when `files_done` reaches a known total).
pub fn throttled(send: impl Fn(Progress) + Send + Sync + 'static) -> Observer {
    let last: std::sync::Mutex<Option<std::time::Instant>> = std::sync::Mutex::new(None);
    Observer::default().with_progress(move |p| {
        let done = p.files_total > 0 && p.files_done >= p.files_total;
        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
        if !done && last.is_some_and(|t| t.elapsed() < PROGRESS_EVERY) {
            return;
        }
        *last = Some(std::time::Instant::now());
        send(p);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        let h = Hash::of(b"hello");
        assert_eq!(
            h.to_hex(),
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        );
        assert_eq!(Hash::from_hex(&h.to_hex()), Some(h));
        assert_eq!(Hash::from_hex("zz"), None);
        assert_eq!(Hash::from_hex(&"g".repeat(64)), None);
    }
}
