//! The rows that start from nothing: 3, a cold snapshot into an empty
//! store against `git add` into a fresh repository, and for big files its
//! throughput against raw SHA-256 and, as context, against the disk: a
//! durable copy of the same bytes (`cp -r && sync -f`), which a cold
//! snapshot cannot beat because it must write and sync all of them too.

use std::fs;
use std::time::Instant;

use anyhow::{Context, Result, ensure};

use super::{Bench, eager_cleanup, interleave, ms};
use crate::report::{Row, Target, Unit};
use crate::tree::{self, cp_r, remove_all, settle};

/// Untimed warm-up rounds of row 3.
const WARMUPS: usize = 1;

/// Row 3 and the durable copies timed while preparing it.
pub(super) struct Cold {
    pub(super) row: Row,
    /// Milliseconds of `cp -r` of the tree plus `syncfs`, one per timed
    /// round, each taken just before that round's snapshot (so on the same
    /// file-system state).
    durable_copies: Vec<f64>,
}

impl Bench<'_> {
    /// Cold snapshots: a fresh store (chat) or a fresh repository each run,
    /// on a fresh copy of the tree under a name of its own. The copy for our
    /// side is timed with its sync: the disk's share of a cold snapshot.
    pub(super) fn row3(&self) -> Result<Cold> {
        let mut durable_copies = Vec::with_capacity(self.runs);
        let samples = interleave(
            WARMUPS,
            self.runs,
            |k| {
                let prep = self.dir.join(format!("prep-ours-{k}"));
                settle(&self.dir)?;
                let t = Instant::now();
                cp_r(&self.src, &prep)?;
                settle(&self.dir)?;
                if k >= WARMUPS {
                    durable_copies.push(ms(t.elapsed()));
                }
                let chat = self.rt.block_on(self.app.chats().create(Some("cold")))?;
                let ws = self.app.workspace_dir(&chat.id);
                match fs::remove_dir(&ws) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(e).with_context(|| format!("remove the new chat's {}", ws.display())),
                }
                fs::rename(&prep, &ws).with_context(|| format!("move the tree to {}", ws.display()))?;
                let (t, out) = self.snapshot(&chat.id)?;
                ensure!(
                    out.added == self.spec.files as u64,
                    "a cold snapshot recorded {} files",
                    out.added
                );
                if eager_cleanup(self.spec) {
                    self.rt.block_on(self.app.chats().delete(&chat.id))?;
                }
                Ok(t)
            },
            |k| {
                let prep = self.dir.join(format!("prep-git-{k}"));
                cp_r(&self.src, &prep)?;
                self.git.run(&prep, &["init", "-q"])?;
                let (t, tree) = self.git_timed(&prep, &[&["add", "-A"], &["write-tree"]])?;
                ensure!(tree.trim().len() == 40, "git write-tree printed {tree:?}");
                if eager_cleanup(self.spec) {
                    remove_all(&prep)?;
                }
                Ok(t)
            },
        )?;
        let row = self.row(
            "cold snapshot into an empty store",
            "git add -A && git write-tree, fresh repo",
            samples,
            Target::AtMost(0.75),
        );
        Ok(Cold { row, durable_copies })
    }

    /// Row 3 as a throughput, against hashing one file-sized buffer in
    /// memory on one thread (the floor any content-addressed store pays),
    /// then against the durable copies (what the disk allows).
    pub(super) fn throughput(&self, cold: &Cold) -> Result<[Row; 2]> {
        let mb = self.spec.total_bytes() as f64 / 1e6;
        let rate = |samples: &[f64]| -> Vec<f64> { samples.iter().map(|ms| mb / (ms / 1e3)).collect() };
        let mut buf = vec![0u8; self.spec.file_size];
        tree::fill(0x5eed, &mut buf);
        let buf_mb = buf.len() as f64 / 1e6;
        let hash = || {
            use sha2::Digest;
            let t = Instant::now();
            std::hint::black_box(sha2::Sha256::digest(std::hint::black_box(&buf)));
            t.elapsed()
        };
        hash();
        let theirs = (0..self.runs.max(5)).map(|_| buf_mb / hash().as_secs_f64()).collect();
        let row = Row {
            scale: self.spec.name,
            operation: "cold snapshot throughput".to_owned(),
            reference: "raw sha256, 1 thread".to_owned(),
            unit: Unit::MegabytesPerSecond,
            ours: rate(&cold.row.ours),
            theirs,
            target: Target::AtLeast(0.70),
        };
        let disk = Row {
            reference: "cp -r && sync -f (durable copy)".to_owned(),
            theirs: rate(&cold.durable_copies),
            target: Target::Context,
            ..row.clone()
        };
        eprintln!(
            "  throughput: ours {:.0} MB/s, sha256 {:.0} MB/s, durable copy {:.0} MB/s",
            row.ours_median(),
            row.theirs_median(),
            disk.theirs_median()
        );
        Ok([row, disk])
    }
}
