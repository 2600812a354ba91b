//! Virtual environments for toolsets' `python.requirements`.
//!
//! Each set of requirements gets its own venv outside the toolset folder,
//! `<data>/venvs/<toolset>-<hash>`, named by a hash of the requirements and
//! the Python version, so a reinstall with the same requirements reuses it
//! and an upgrade that changes them builds a new one beside the old. A venv
//! is used only once its `.atelier-complete` marker exists; a failed install
//! removes what it made. Installs use `uv` when found (`ATELIER_UV`, else on
//! PATH), else the interpreter's own `venv` and `pip`; binary wheels only
//! unless [`InstallerSettings::allow_source`]. Requirements that carry
//! `--hash` pins (a bundle's hash-locked `requirements.txt`) are written to
//! a requirements file in the venv and installed with `--require-hashes`:
//! pip and uv read hashes only from such a file, and then install nothing
//! whose download matches none of its pins.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use sha2::{Digest, Sha256};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::store::Observer;
use crate::toolsets::validate::requirement::{is_hash_pinned, spec};
use crate::{Error, Result};

mod failure;

const COMPLETE: &str = ".atelier-complete";
/// The requirements file of a hash-checked install, kept in the venv.
const REQUIREMENTS: &str = ".atelier-requirements.txt";

/// Where packages come from and how they may be built.
#[derive(Debug, Clone, Default)]
pub struct InstallerSettings {
    /// The `uv` binary; looked up on PATH when `None`.
    pub uv: Option<PathBuf>,
    /// Use the interpreter's `venv` and `pip` even when uv is there.
    pub pip_only: bool,
    /// Extra folders of wheels (`--find-links`).
    pub find_links: Vec<PathBuf>,
    /// Use only `find_links`, not the package index.
    pub no_index: bool,
    /// Allow building source distributions (off: wheels only).
    pub allow_source: bool,
    /// The base interpreter; by default the one the worker embeds.
    pub python: Option<PathBuf>,
}

impl InstallerSettings {
    /// `ATELIER_UV`, `ATELIER_PIP_ONLY=1`, `ATELIER_PYTHON`, `ATELIER_FIND_LINKS` (a PATH-style
    /// list), `ATELIER_NO_INDEX=1`, `ATELIER_ALLOW_SOURCE=1`.
    pub fn from_env() -> Self {
        let flag = |k: &str| std::env::var(k).is_ok_and(|v| v == "1" || v.eq_ignore_ascii_case("true"));
        Self {
            uv: std::env::var_os("ATELIER_UV").map(PathBuf::from),
            pip_only: flag("ATELIER_PIP_ONLY"),
            find_links: std::env::var_os("ATELIER_FIND_LINKS")
                .map(|v| std::env::split_paths(&v).collect())
                .unwrap_or_default(),
            no_index: flag("ATELIER_NO_INDEX"),
            allow_source: flag("ATELIER_ALLOW_SOURCE"),
            python: std::env::var_os("ATELIER_PYTHON").map(PathBuf::from),
        }
    }

    fn uv(&self) -> Option<PathBuf> {
        if self.pip_only {
            return None;
        }
        if let Some(uv) = &self.uv {
            return Some(uv.clone());
        }
        std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).map(|d| d.join("uv")).find(|c| c.is_file()))
    }
}

/// The venv folder for these requirements, their `--hash` pins included:
/// a venv made from other pins is not one these would have made.
pub fn venv_dir(venvs: &Path, toolset_id: &str, python_version: &str, requirements: &[String]) -> PathBuf {
    let mut h = Sha256::new();
    h.update(python_version.as_bytes());
    for r in requirements {
        h.update([0]);
        h.update(r.trim().as_bytes());
    }
    let hex: String = h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect();
    venvs.join(format!("{toolset_id}-{hex}"))
}

/// Whether the venv was installed completely.
pub fn is_complete(venv: &Path) -> bool {
    venv.join(COMPLETE).is_file()
}

/// `lib/python3.X/site-packages` folders of a venv.
pub fn site_packages(venv: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(venv.join("lib")) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("python"))
        .map(|e| e.path().join("site-packages"))
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// Makes `venv` with `requirements` installed, unless it is already
/// complete. `python` is the base interpreter.
pub async fn ensure(
    settings: &InstallerSettings,
    python: &Path,
    venv: &Path,
    toolset_id: &str,
    requirements: &[String],
    observer: &Observer,
) -> Result<()> {
    if is_complete(venv) {
        return Ok(());
    }
    if let Some(parent) = venv.parent() {
        tokio::fs::create_dir_all(parent)
            .await
            .map_err(Error::io("create", parent))?;
    }
    // A concurrent install of the same requirements waits for this one.
    let lock_path = venv.with_extension("lock");
    let _lock = crate::blocking(move || crate::lock::FileLock::acquire(&lock_path)).await?;
    if is_complete(venv) {
        return Ok(());
    }
    let result = install(settings, python, venv, toolset_id, requirements, observer).await;
    if result.is_err() {
        let _ = tokio::fs::remove_dir_all(venv).await;
    }
    result
}

async fn install(
    settings: &InstallerSettings,
    python: &Path,
    venv: &Path,
    toolset_id: &str,
    requirements: &[String],
    observer: &Observer,
) -> Result<()> {
    if venv.exists() {
        tokio::fs::remove_dir_all(venv)
            .await
            .map_err(Error::io("remove an incomplete venv", venv))?;
    }
    let fail = |requirement: Option<String>, message: String| Error::Requirements {
        toolset: toolset_id.to_owned(),
        requirement,
        message,
    };
    let venv_python = venv.join("bin").join("python");
    let mut install_args: Vec<String> = Vec::new();
    if !settings.allow_source {
        install_args.extend(["--only-binary".into(), ":all:".into()]);
    }
    if settings.no_index {
        install_args.push("--no-index".into());
    }
    for dir in &settings.find_links {
        install_args.extend(["--find-links".into(), dir.display().to_string()]);
    }
    // Validation lets hashes in only when every requirement has them; any
    // one pinned asks for the mode, and pip refuses a list only half pinned.
    let hash_checked = requirements.iter().any(|r| is_hash_pinned(r));
    let requirements_file = venv.join(REQUIREMENTS);
    if hash_checked {
        install_args.extend([
            "--require-hashes".into(),
            "-r".into(),
            requirements_file.display().to_string(),
        ]);
    } else {
        install_args.push("--".into());
        install_args.extend(requirements.iter().cloned());
    }

    let (create, add): (Vec<String>, (PathBuf, Vec<String>)) = match settings.uv() {
        Some(uv) => (
            vec![
                uv.display().to_string(),
                "venv".into(),
                "--no-project".into(),
                "--python".into(),
                python.display().to_string(),
                venv.display().to_string(),
            ],
            (
                uv,
                ["pip", "install", "--python", &venv_python.display().to_string()]
                    .map(str::to_owned)
                    .into_iter()
                    .chain(install_args)
                    .collect(),
            ),
        ),
        None => (
            vec![
                python.display().to_string(),
                "-m".into(),
                "venv".into(),
                venv.display().to_string(),
            ],
            (
                venv_python.clone(),
                ["-m", "pip", "install", "--disable-pip-version-check", "--no-input"]
                    .map(str::to_owned)
                    .into_iter()
                    .chain(install_args)
                    .collect(),
            ),
        ),
    };
    observer.step(&format!("creating a Python environment for {toolset_id}"));
    run_step(&create, observer).await.map_err(|m| {
        fail(
            None,
            format!("could not create the virtual environment {}: {m}", venv.display()),
        )
    })?;
    if hash_checked {
        let mut lines = requirements.join("\n");
        lines.push('\n');
        tokio::fs::write(&requirements_file, lines)
            .await
            .map_err(Error::io("write", &requirements_file))?;
    }
    let shown: Vec<&str> = requirements.iter().map(|r| spec(r)).collect();
    let checked = if hash_checked { " (hash-checked)" } else { "" };
    observer.step(&format!("installing {}{checked}", shown.join(", ")));
    let mut cmd = vec![add.0.display().to_string()];
    cmd.extend(add.1);
    run_step(&cmd, observer).await.map_err(|m| {
        let (requirement, message) = failure::explain(&m, requirements, settings.allow_source);
        fail(requirement, message)
    })?;
    tokio::fs::write(venv.join(COMPLETE), requirements.join("\n"))
        .await
        .map_err(Error::io("write", venv.join(COMPLETE)))?;
    observer.step("requirements installed");
    Ok(())
}

/// Runs one installer command, passing its lines to the observer; on
/// failure returns what it printed.
async fn run_step(cmd: &[String], observer: &Observer) -> std::result::Result<(), String> {
    let (program, args) = cmd.split_first().ok_or("empty command")?;
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .env("UV_NO_PROGRESS", "1")
        .env("PIP_PROGRESS_BAR", "off")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("could not run {program}: {e}"))?;
    let mut lines = Vec::new();
    let (Some(out), Some(err)) = (child.stdout.take(), child.stderr.take()) else {
        return Err("no output pipes".into());
    };
    let mut out = BufReader::new(out).lines();
    let mut err = BufReader::new(err).lines();
    let (mut out_open, mut err_open) = (true, true);
    while out_open || err_open {
        tokio::select! {
            _ = observer.cancel_token().cancelled() => {
                let _ = child.kill().await;
                return Err("cancelled".into());
            }
            l = out.next_line(), if out_open => match l { Ok(Some(l)) => { observer.step(&l); lines.push(l) } _ => out_open = false },
            l = err.next_line(), if err_open => match l { Ok(Some(l)) => { observer.step(&l); lines.push(l) } _ => err_open = false },
        }
    }
    let status = child.wait().await.map_err(|e| e.to_string())?;
    if status.success() {
        Ok(())
    } else {
        // `…/bin/python -m pip` is pip to the person reading this.
        let named = match args.get(..2) {
            Some([m, module]) if m == "-m" => module.clone(),
            _ => program.clone(),
        };
        Err(format!("{named} failed ({status}):\n{}", lines.join("\n")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_venv_name_follows_the_requirements() {
        let v = Path::new("/v");
        let a = venv_dir(v, "ts", "3.11.2", &["six==1.16".into()]);
        assert_eq!(a, venv_dir(v, "ts", "3.11.2", &["six==1.16".into()]));
        assert_ne!(a, venv_dir(v, "ts", "3.11.2", &["six==1.17".into()]));
        assert_ne!(a, venv_dir(v, "ts", "3.12.0", &["six==1.16".into()]));
        let pinned = |h: &str| vec![format!("six==1.16 --hash=sha256:{h}")];
        assert_ne!(
            venv_dir(v, "ts", "3.11.2", &pinned("aa")),
            a,
            "a pin is part of the name"
        );
        assert_ne!(
            venv_dir(v, "ts", "3.11.2", &pinned("aa")),
            venv_dir(v, "ts", "3.11.2", &pinned("bb"))
        );
        assert!(a.file_name().is_some_and(|n| n.to_string_lossy().starts_with("ts-")));
    }
}
