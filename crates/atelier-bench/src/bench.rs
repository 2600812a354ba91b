//! The measurements of one scale: the five operations, ours against git (or
//! `cp`), on the same generated tree, in the same run.
//!
//! Every sample is one timed call with its setup outside the timer. Ours and
//! the reference alternate (ours, ref, ours, ref…) after untimed warm-ups, so
//! machine noise and cache state hit both alike, and every timed call starts
//! on a settled file system (see [`crate::tree::settle`]). Each call is checked
//! afterwards (untimed) to have done its job, so a fast wrong answer fails
//! the run instead of passing a target.
//!
//! This module owns the shared machinery (the per-scale context, the
//! interleaving, the row order); [`cold`] and [`steady`] hold the rows.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Result, ensure};
use atelier_core::{Atelier, DataDir, Observer};
use tokio::runtime::Runtime;

mod cold;
mod steady;

use crate::git::Git;
use crate::report::{Row, Target, Unit};
use crate::tree::{Spec, settle};

/// Everything a scale's measurements share.
struct Bench<'a> {
    rt: &'a Runtime,
    git: &'a Git,
    app: Atelier,
    spec: &'static Spec,
    /// The scale's scratch folder (removed by the caller).
    dir: PathBuf,
    /// The generated tree, never modified.
    src: PathBuf,
    runs: usize,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs `warmups` untimed rounds, then `samples` timed ones, alternating
/// ours and the reference. Each closure gets the round number (for content
/// generations and directions) and returns its timed duration.
fn interleave(
    warmups: usize,
    samples: usize,
    mut ours: impl FnMut(usize) -> Result<Duration>,
    mut theirs: impl FnMut(usize) -> Result<Duration>,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let (mut o, mut t) = (Vec::with_capacity(samples), Vec::with_capacity(samples));
    for k in 0..warmups + samples {
        let a = ours(k)?;
        let b = theirs(k)?;
        if k >= warmups {
            o.push(ms(a));
            t.push(ms(b));
        }
    }
    Ok((o, t))
}

/// Measures the rows of `spec` in `rows` (numbers 1 to 5) under `dir` (an
/// empty folder). Rows come back in table order.
pub(crate) fn run_scale(
    rt: &Runtime,
    git: &Git,
    spec: &'static Spec,
    dir: &Path,
    runs: usize,
    rows: &[u8],
) -> Result<Vec<Row>> {
    let src = dir.join("src");
    let t = Instant::now();
    spec.write_tree(&src)?;
    eprintln!("  generated {} files in {:.1}s", spec.files, t.elapsed().as_secs_f64());
    let app = rt.block_on(Atelier::open(DataDir::new(dir.join("data"))))?;
    let b = Bench {
        rt,
        git,
        app,
        spec,
        dir: dir.to_path_buf(),
        src,
        runs,
    };
    let want = |n: u8| rows.contains(&n);

    // Rows that create many files first, while nothing has been deleted
    // (see `eager_cleanup`); row 4 deletes 1% of the files per switch, so
    // it comes last.
    let mut out: Vec<(u8, Row)> = Vec::new();
    if want(3) {
        let cold = b.row3()?;
        if spec.name == "c" {
            out.extend(b.throughput(&cold)?.map(|r| (3, r)));
        }
        out.push((3, cold.row));
    }
    if [1, 2, 4, 5].into_iter().any(want) {
        let steady = b.steady_setup()?;
        if want(5) {
            out.push((5, b.row5(&steady)?));
        }
        if want(1) {
            out.push((1, b.row1(&steady)?));
        }
        if want(2) {
            out.push((2, b.row2(&steady)?));
        }
        if want(4) {
            out.push((4, b.row4(&steady)?));
        }
    }
    // Stable: row 3's time stays ahead of its throughputs, which keep
    // their order.
    out.sort_by_key(|(n, r)| (*n, r.unit == Unit::MegabytesPerSecond));
    rt.block_on(app_close(b));
    Ok(out.into_iter().map(|(_, r)| r).collect())
}

/// Whether to delete scratch copies of this scale as soon as they are used.
///
/// Only for trees of few (big) files. On ext4 without a journal, the inode
/// allocator skips (looking each one up) every inode freed in the last 60 s,
/// or 6 minutes while its inode-table block is dirty, so deleting many files
/// slows down every file creation that follows, and the benchmark's own
/// clean-up would be charged to whichever side creates files next. Trees of
/// many small files stay until the whole run ends.
pub(crate) fn eager_cleanup(spec: &Spec) -> bool {
    spec.files < 100
}

/// Closes the database cleanly (checkpoints the WAL) before the folder goes.
async fn app_close(b: Bench<'_>) {
    b.app.close().await;
}

impl Bench<'_> {
    fn row(&self, operation: &str, reference: &str, (ours, theirs): (Vec<f64>, Vec<f64>), target: Target) -> Row {
        let row = Row {
            scale: self.spec.name,
            operation: operation.to_owned(),
            reference: reference.to_owned(),
            unit: Unit::Millis,
            ours,
            theirs,
            target,
        };
        eprintln!(
            "  {operation}: ours {:.1} ms, {reference} {:.1} ms, ratio {:.2}",
            row.ours_median(),
            row.theirs_median(),
            row.ratio()
        );
        row
    }

    fn snapshot(&self, chat: &str) -> Result<(Duration, atelier_core::model::SnapshotOutcome)> {
        let observer = Observer::default();
        settle(&self.dir)?;
        let t = Instant::now();
        let out = self.rt.block_on(self.app.workspace().snapshot(chat, &observer))?;
        Ok((t.elapsed(), out))
    }

    fn checkout(&self, chat: &str, message: &str) -> Result<Duration> {
        settle(&self.dir)?;
        let t = Instant::now();
        let c = self.rt.block_on(self.app.workspace().checkout(chat, message))?;
        let elapsed = t.elapsed();
        ensure!(
            c.active_leaf_message_id == message,
            "checkout did not move the chat to {message}"
        );
        Ok(elapsed)
    }

    fn git_timed(&self, dir: &Path, commands: &[&[&str]]) -> Result<(Duration, String)> {
        settle(&self.dir)?;
        self.git.timed(dir, commands)
    }
}
