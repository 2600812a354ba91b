//! `atelier-bench startup --app BIN --reference BIN [--runs N]`: cold start
//! to the first paint of the first screen (the Chat tab, drawn once it
//! knows the providers), against a minimal Tauri 2 window
//! built the same way (`cargo build --release -p atelier-app --examples`:
//! `target/release/examples/minimal_window`), in one run, interleaved,
//! medians (target ratio ≤ 2). Needs a display: run it under `xvfb-run -a`.
//!
//! Both report their first paint on stderr (`ATELIER_STARTUP_PROBE=1`);
//! the time measured here is from spawning the process to that line.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};

fn first_paint(bin: &Path, data: &Path) -> Result<Duration> {
    let start = Instant::now();
    let mut child = Command::new(bin)
        .env("ATELIER_DATA_DIR", data)
        .env("ATELIER_STARTUP_PROBE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("start {}", bin.display()))?;
    let stderr = child.stderr.take().context("stderr")?;
    let mut painted = None;
    for line in BufReader::new(stderr).lines() {
        let line = line?;
        if line.contains("first paint after") {
            painted = Some(start.elapsed());
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    painted.with_context(|| format!("{} never reported its first paint", bin.display()))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

pub(crate) fn run(mut args: impl Iterator<Item = String>) -> Result<()> {
    let (mut app, mut reference, mut runs) = (None, None, 5usize);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--app" => app = args.next().map(PathBuf::from),
            "--reference" => reference = args.next().map(PathBuf::from),
            "--runs" => {
                runs = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .context("--runs takes a number")?
            }
            other => bail!("unknown option {other:?} (startup --app BIN --reference BIN [--runs N])"),
        }
    }
    let (app, reference) = (app.context("--app BIN")?, reference.context("--reference BIN")?);
    ensure!(
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some(),
        "no display: run under `xvfb-run -a`"
    );
    let scratch = tempfile::Builder::new().prefix("atelier-bench-startup-").tempdir()?;
    let data = scratch.path().join("data");
    // Untimed: the first start creates the data dir and installs the examples.
    first_paint(&app, &data)?;
    first_paint(&reference, &data)?;
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..runs.max(1) {
        ours.push(first_paint(&app, &data)?);
        theirs.push(first_paint(&reference, &data)?);
    }
    let (o, t) = (median(ours), median(theirs));
    let ratio = o.as_secs_f64() / t.as_secs_f64();
    println!(
        "operation                                   ours (ms)  reference             ref (ms)  ratio  target  ok"
    );
    println!(
        "cold start to the first screen's paint {:>13.1}  minimal Tauri window {:>9.1}  {ratio:>5.2}   ≤2.00  {}",
        o.as_secs_f64() * 1e3,
        t.as_secs_f64() * 1e3,
        if ratio <= 2.0 { "yes" } else { "no" }
    );
    Ok(())
}
