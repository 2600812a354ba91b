//! The rows measured on one warm chat and one warm git repository holding
//! the tree: 5 (materialize everything), 1 (nothing changed), 2 (one file
//! changed) and 4 (switch between states 1% apart), in that order.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, ensure};

use super::{Bench, eager_cleanup, interleave};
use crate::report::{Row, Target};
use crate::tree::{self, cp_r, remove_all, settle};

/// Content generations used by the rows (any distinct numbers will do).
const ROW2_BASE: u64 = 1_000;
const ROW4_B: u64 = 2_000_000;

/// A chat and a git repository holding the tree, both warm.
pub(super) struct Steady {
    chat: String,
    root_message: String,
    /// The message whose state is the whole generated tree.
    full_message: String,
    ws: PathBuf,
    git_wt: PathBuf,
}

impl Bench<'_> {
    pub(super) fn steady_setup(&self) -> Result<Steady> {
        let chat = self.rt.block_on(self.app.chats().create(Some("bench")))?;
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

    pub(super) fn row1(&self, s: &Steady) -> Result<Row> {
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

    pub(super) fn row2(&self, s: &Steady) -> Result<Row> {
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
    pub(super) fn row4(&self, s: &Steady) -> Result<Row> {
        let probe = self.spec.rel_path(0);
        let read = |root: &Path| fs::read(root.join(&probe)).with_context(|| format!("read {probe}"));

        // Ours: A is the current state (row 2 left it recorded).
        let (_, out) = self.snapshot(&s.chat)?;
        ensure!(!out.changed, "the workspace changed behind the benchmark's back");
        let ma = self.rt.block_on(self.app.chats().get(&s.chat))?.active_leaf_message_id;
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
    pub(super) fn row5(&self, s: &Steady) -> Result<Row> {
        let samples = interleave(
            1,
            self.runs,
            |k| {
                let aside = self.dir.join(format!("ws-aside-{k}"));
                fs::rename(&s.ws, &aside).with_context(|| format!("move {} aside", s.ws.display()))?;
                fs::create_dir(&s.ws).with_context(|| format!("create {}", s.ws.display()))?;
                self.rt
                    .block_on(self.app.workspace().checkout(&s.chat, &s.root_message))?;
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
}
