//! `atelier-bench toolset-dev`: from an author's save to the reloaded
//! toolset, for a Python edit and a YAML edit of the scaffold, against
//! `python3 -c "import tools.words"` of the same module in the same run
//! (target ≤ 3×: a reload costs little more than the import itself).
//!
//! A reload waits for the folder to be quiet (the debounce), hashes it,
//! copies it, imports every entrypoint in a scratch worker (a fresh
//! interpreter) and writes the rows; the reference only imports. The
//! worker binary is found beside this one: build both with
//! `cargo build --release -p atelier-worker -p atelier-bench`.

use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use atelier_core::toolsets::watch::Reload;
use atelier_core::{Atelier, DataDir, PythonSettings};
use tokio_util::sync::CancellationToken;

const PYTHON: &str = "/usr/bin/python3.11";

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs the benchmark and prints its table.
pub(crate) fn run(runs: usize) -> Result<()> {
    let scratch = tempfile::Builder::new().prefix("atelier-bench-dev-").tempdir()?;
    let dir = scratch.path().join("dev");
    atelier_core::toolsets::examples::init(&dir, "dev")?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let settings = PythonSettings::from_env();
    eprintln!("worker: {}", settings.worker_exe()?.display());
    let (py, yaml) = rt.block_on(async {
        let app = Atelier::open_with(DataDir::new(scratch.path().join("data")), settings).await?;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let cancel = CancellationToken::new();
        let watching = {
            let (app, dir, stop) = (app.clone(), dir.clone(), cancel.clone());
            tokio::spawn(async move {
                app.toolsets()
                    .watch(&dir, Default::default(), stop, move |r| drop(tx.send(r)))
                    .await
            })
        };
        let mut next = async || -> Result<()> {
            match tokio::time::timeout(Duration::from_secs(30), rx.recv()).await {
                Ok(Some(Reload::Reloaded(_))) => Ok(()),
                Ok(Some(Reload::Rejected(e))) => bail!("a reload was rejected: {e}"),
                _ => bail!("no reload"),
            }
        };
        next().await.context("the first install")?;
        let code = dir.join("tools/words.py");
        let manifest = dir.join("toolset.yaml");
        let (code_text, yaml_text) = (std::fs::read_to_string(&code)?, std::fs::read_to_string(&manifest)?);
        let (mut py, mut yaml) = (Vec::new(), Vec::new());
        for i in 0..runs + 1 {
            let start = Instant::now();
            std::fs::write(&code, format!("{code_text}\n# edit {i}\n"))?;
            next().await?;
            let t = start.elapsed();
            let start = Instant::now();
            std::fs::write(
                &manifest,
                yaml_text.replace("A starting point", &format!("Edit {i}, a starting point")),
            )?;
            next().await?;
            // The first round warms the caches.
            if i > 0 {
                py.push(t);
                yaml.push(start.elapsed());
            }
        }
        cancel.cancel();
        watching.await??;
        app.close().await;
        anyhow::Ok((median(py), median(yaml)))
    })?;
    let mut import = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let out = Command::new(PYTHON)
            .args(["-c", "import tools.words"])
            .current_dir(&dir)
            .output()
            .context("run python3")?;
        import.push(start.elapsed());
        ensure!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let reference = median(import);
    println!(
        "operation (median)                           ours (ms)  reference                      ref (ms)   ratio  target   ok"
    );
    for (what, ours) in [("Python edit → reloaded", py), ("YAML edit → reloaded", yaml)] {
        let ratio = ours.as_secs_f64() / reference.as_secs_f64();
        crate::tool_call::row(
            what,
            ours,
            "python3 -c 'import tools.words'",
            reference,
            "≤3",
            Some(ratio <= 3.0),
        );
    }
    Ok(())
}
