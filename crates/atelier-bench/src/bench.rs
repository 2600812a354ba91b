//! The measurements of one scale: the five operations, ours against git (or
//! `cp`), on the same generated tree, in the same run.
//!
//! Every sample is one timed call with its setup outside the timer. Ours and
//! the reference alternate (ours, ref, ours, ref…) after untimed warm-ups, so
//! machine noise and cache state hit both alike, and every timed call starts
//! on a settled file system (see [`tree::settle`]). Each call is checked
//! afterwards (untimed) to have done its job, so a fast wrong answer fails
//! the run instead of passing a target.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use atelier_core::{Atelier, DataDir, Observer};
use tokio::runtime::Runtime;

use crate::git::Git;
use crate::report::{Row, Target, Unit};
use crate::tree::{self, Spec, cp_r, remove_all, settle};

/// Content generations used by the rows (any distinct numbers will do).
const ROW2_BASE: u64 = 1_000;
const ROW4_B: u64 = 2_000_000;

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
            out.push((3, b.throughput(&cold)?));
        }
        out.push((3, cold));
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
    // Stable: row 3's time stays ahead of its throughput.
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

/// A chat and a git repository holding the tree, both warm.
struct Steady {
    chat: String,
    root_message: String,
    /// The message whose state is the whole generated tree.
    full_message: String,
    ws: PathBuf,
    git_wt: PathBuf,
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
        let out = self.rt.block_on(self.app.snapshot(chat, &observer))?;
        Ok((t.elapsed(), out))
    }

    fn checkout(&self, chat: &str, message: &str) -> Result<Duration> {
        settle(&self.dir)?;
        let t = Instant::now();
        let c = self.rt.block_on(self.app.checkout(chat, message))?;
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

    fn steady_setup(&self) -> Result<Steady> {
        let chat = self.rt.block_on(self.app.create_chat(Some("bench")))?;
        let ws = self.app.workspace_dir(&chat.id);
        remove_all(&ws)?;
        cp_r(&self.src, &ws)?;
        let (_, out) = self.snapshot(&chat.id)?;
        ensure!(
            out.added == self.spec.files as u64,
            "the first snapshot found {} files, not {}",
            out.added,
            self.spec.files
        );
        let full_message = out.message_id.context("the first snapshot recorded nothing")?;

        let git_wt = self.dir.join("git-wt");
        cp_r(&self.src, &git_wt)?;
        self.git.run(&git_wt, &["init", "-q"])?;
        self.git.run(&git_wt, &["add", "-A"])?;
        self.git.run(&git_wt, &["commit", "-q", "-m", "base"])?;
        // Warms git's index (refreshes racily clean entries) like our first
        // snapshot warmed the stat cache.
        self.git.run(&git_wt, &["status", "--porcelain"])?;
        Ok(Steady {
            chat: chat.id,
            root_message: chat.root_message_id,
            full_message,
            ws,
            git_wt,
        })
    }

    fn row1(&self, s: &Steady) -> Result<Row> {
        let samples = interleave(
            1,
            self.runs,
            |_| {
                let (t, out) = self.snapshot(&s.chat)?;
                ensure!(!out.changed, "a snapshot of an unchanged workspace recorded changes");
                Ok(t)
            },
            |_| {
                let (t, out) = self.git_timed(&s.git_wt, &[&["status", "--porcelain"]])?;
                ensure!(out.trim().is_empty(), "git status reports changes: {}", out.trim());
                Ok(t)
            },
        )?;
        Ok(self.row(
            "snapshot, nothing changed",
            "git status --porcelain",
            samples,
            Target::AtMost(1.2),
        ))
    }

    fn row2(&self, s: &Steady) -> Result<Row> {
        let samples = interleave(
            1,
            self.runs,
            |k| {
                self.spec.rewrite(&s.ws, 0, ROW2_BASE + k as u64)?;
                let (t, out) = self.snapshot(&s.chat)?;
                ensure!(
                    (out.added, out.removed, out.modified) == (0, 0, 1),
                    "changing one file was recorded as +{} -{} ~{}",
                    out.added,
                    out.removed,
                    out.modified
                );
                Ok(t)
            },
            |k| {
                self.spec.rewrite(&s.git_wt, 0, ROW2_BASE + k as u64)?;
                let (t, tree) = self.git_timed(&s.git_wt, &[&["add", "-A"], &["write-tree"]])?;
                ensure!(tree.trim().len() == 40, "git write-tree printed {tree:?}");
                Ok(t)
            },
        )?;
        Ok(self.row(
            "snapshot after changing 1 file",
            "git add -A && git write-tree",
            samples,
            Target::AtMost(1.0),
        ))
    }

    /// Two states A and B differing in every 100th file, then alternate.
    fn row4(&self, s: &Steady) -> Result<Row> {
        let probe = self.spec.rel_path(0);
        let read = |root: &Path| fs::read(root.join(&probe)).with_context(|| format!("read {probe}"));

        // Ours: A is the current state (row 2 left it recorded).
        let (_, out) = self.snapshot(&s.chat)?;
        ensure!(!out.changed, "the workspace changed behind the benchmark's back");
        let ma = self.rt.block_on(self.app.get_chat(&s.chat))?.active_leaf_message_id;
        let a0 = read(&s.ws)?;
        for i in self.spec.one_percent() {
            self.spec.rewrite(&s.ws, i, ROW4_B)?;
        }
        let (_, out) = self.snapshot(&s.chat)?;
        let mb = out.message_id.context("changing 1% of the files recorded nothing")?;
        let b0 = read(&s.ws)?;

        // Git: the same two states as trees; the index and work tree end at B.
        let tree_a = self.git.run(&s.git_wt, &["write-tree"])?.trim().to_owned();
        ensure!(read(&s.git_wt)? == a0, "git's work tree and ours diverged");
        for i in self.spec.one_percent() {
            self.spec.rewrite(&s.git_wt, i, ROW4_B)?;
        }
        self.git.run(&s.git_wt, &["add", "-A"])?;
        let tree_b = self.git.run(&s.git_wt, &["write-tree"])?.trim().to_owned();
        ensure!(tree_a != tree_b && read(&s.git_wt)? == b0, "git's B state is not B");

        // Even rounds go B → A, odd rounds A → B; one untimed round trip first.
        let samples = interleave(
            2,
            2 * self.runs,
            |k| {
                let (to, want) = if k % 2 == 0 { (&ma, &a0) } else { (&mb, &b0) };
                let t = self.checkout(&s.chat, to)?;
                ensure!(read(&s.ws)? == *want, "checkout left the wrong content in {probe}");
                Ok(t)
            },
            |k| {
                let (from, to, want) = if k % 2 == 0 {
                    (&tree_b, &tree_a, &a0)
                } else {
                    (&tree_a, &tree_b, &b0)
                };
                let (t, _) = self.git_timed(&s.git_wt, &[&["read-tree", "-m", "-u", from, to]])?;
                ensure!(
                    read(&s.git_wt)? == *want,
                    "git read-tree left the wrong content in {probe}"
                );
                Ok(t)
            },
        )?;
        Ok(self.row(
            "switch manifests, 1% of files differ",
            "git read-tree -m -u A B",
            samples,
            Target::AtMost(1.0),
        ))
    }

    /// Materializing the whole tree into an empty workspace, against `cp -r`
    /// into a new folder.
    ///
    /// The workspace is emptied by moving its folder aside and checking out
    /// the root (which then records the removal instead of deleting every
    /// file): the timed checkout is the same, but it does not pay for the
    /// deletions of its own setup (see `eager_cleanup`), just as `cp` gets a
    /// folder name never used before.
    fn row5(&self, s: &Steady) -> Result<Row> {
        let samples = interleave(
            1,
            self.runs,
            |k| {
                let aside = self.dir.join(format!("ws-aside-{k}"));
                fs::rename(&s.ws, &aside).with_context(|| format!("move {} aside", s.ws.display()))?;
                fs::create_dir(&s.ws).with_context(|| format!("create {}", s.ws.display()))?;
                self.rt.block_on(self.app.checkout(&s.chat, &s.root_message))?;
                if eager_cleanup(self.spec) {
                    remove_all(&aside)?;
                }
                ensure!(
                    tree::count_files(&s.ws)? == 0,
                    "checking out the root left files behind"
                );
                let t = self.checkout(&s.chat, &s.full_message)?;
                ensure!(
                    tree::count_files(&s.ws)? == self.spec.files,
                    "materialize did not write every file"
                );
                Ok(t)
            },
            |k| {
                let dst = self.dir.join(format!("cp-dst-{k}"));
                settle(&self.dir)?;
                let t = Instant::now();
                cp_r(&self.src, &dst)?;
                let t = t.elapsed();
                ensure!(
                    tree::count_files(&dst)? == self.spec.files,
                    "cp -r did not copy every file"
                );
                if eager_cleanup(self.spec) {
                    remove_all(&dst)?;
                }
                Ok(t)
            },
        )?;
        Ok(self.row(
            "full materialize into an empty folder",
            "cp -r src dst",
            samples,
            Target::AtMost(1.5),
        ))
    }

    /// Cold snapshots: a fresh store (chat) or a fresh repository each run,
    /// on a fresh copy of the tree under a name of its own.
    fn row3(&self) -> Result<Row> {
        let samples = interleave(
            1,
            self.runs,
            |k| {
                let prep = self.dir.join(format!("prep-ours-{k}"));
                cp_r(&self.src, &prep)?;
                let chat = self.rt.block_on(self.app.create_chat(Some("cold")))?;
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
                    self.rt.block_on(self.app.delete_chat(&chat.id))?;
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
        Ok(self.row(
            "cold snapshot into an empty store",
            "git add -A && git write-tree, fresh repo",
            samples,
            Target::AtMost(0.75),
        ))
    }

    /// Row 3 as a throughput, against hashing one file-sized buffer in
    /// memory on one thread (the floor any content-addressed store pays).
    fn throughput(&self, cold: &Row) -> Result<Row> {
        let mb = self.spec.total_bytes() as f64 / 1e6;
        let ours = cold.ours.iter().map(|ms| mb / (ms / 1e3)).collect();
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
            ours,
            theirs,
            target: Target::AtLeast(0.70),
        };
        eprintln!(
            "  throughput: ours {:.0} MB/s, sha256 {:.0} MB/s",
            row.ours_median(),
            row.theirs_median()
        );
        Ok(row)
    }
}
