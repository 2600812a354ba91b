//! The reference: the `git` binary on PATH, run with its defaults but
//! isolated from the machine's configuration (no system config, a temporary
//! HOME, identity and `gc.auto=0` given with `-c`), so every run measures the
//! same git no matter who runs the benchmark.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// How to run git for this benchmark.
#[derive(Debug)]
pub(crate) struct Git {
    home: PathBuf,
}

impl Git {
    /// Git with `home` (an empty temporary folder) as its HOME.
    pub(crate) fn new(home: PathBuf) -> Self {
        Self { home }
    }

    fn command(&self, dir: &Path, args: &[&str]) -> Command {
        let mut c = Command::new("git");
        c.current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", &self.home)
            // Variables that would point git at another repository.
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_OBJECT_DIRECTORY")
            .args([
                "-c",
                "user.name=Atelier Bench",
                "-c",
                "user.email=bench@example.invalid",
                "-c",
                "gc.auto=0",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args);
        c
    }

    /// Runs one git command in `dir`; its stdout, or an error with stderr.
    pub(crate) fn run(&self, dir: &Path, args: &[&str]) -> Result<String> {
        let out = self
            .command(dir, args)
            .output()
            .with_context(|| format!("run git {}", args.join(" ")))?;
        stdout_of(dir, args, out)
    }

    /// Runs the commands one after the other, timing the whole sequence
    /// (process start-up included: that is what a caller of git pays).
    /// Returns the elapsed time and the last command's stdout.
    pub(crate) fn timed(&self, dir: &Path, commands: &[&[&str]]) -> Result<(Duration, String)> {
        let mut prepared: Vec<Command> = commands.iter().map(|args| self.command(dir, args)).collect();
        let mut outputs = Vec::with_capacity(commands.len());
        let start = Instant::now();
        for c in &mut prepared {
            let out = c.output();
            outputs.push(out);
            // Stop at the first failure, like `&&`.
            if !matches!(outputs.last(), Some(Ok(o)) if o.status.success()) {
                break;
            }
        }
        let elapsed = start.elapsed();
        let mut last = String::new();
        for (args, out) in commands.iter().zip(outputs) {
            let out = out.with_context(|| format!("run git {}", args.join(" ")))?;
            last = stdout_of(dir, args, out)?;
        }
        Ok((elapsed, last))
    }

    /// `git --version`, which also checks that git is there at all.
    pub(crate) fn version(&self) -> Result<String> {
        let dir = self.home.clone();
        Ok(self
            .run(&dir, &["--version"])
            .context("git is needed on PATH as the reference")?
            .trim()
            .to_owned())
    }
}

/// A finished git's stdout, or an error saying which command failed where.
fn stdout_of(dir: &Path, args: &[&str], out: std::process::Output) -> Result<String> {
    if !out.status.success() {
        bail!(
            "git {} failed in {}: {}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    String::from_utf8(out.stdout).with_context(|| format!("git {}: stdout is not UTF-8", args.join(" ")))
}
