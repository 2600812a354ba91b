//! `atelier-bench toolset-import`: importing a 2,000-file / 50 MiB bundle
//! against `unzip -q` of the same archive, in one run (target ratio ≤ 1.5).
//!
//! Ours does more than unzip: it checks every entry, counts real inflated
//! bytes, hashes every file, validates the manifest, writes the rows and
//! swaps the folder in — the ratio says what that safety costs.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use atelier_core::toolsets::ImportOptions;
use atelier_core::{Atelier, DataDir};

const FILES: usize = 2_000;
const TOTAL: usize = 50 << 20;

fn make_bundle(path: &Path) -> Result<()> {
    let mut z = zip::ZipWriter::new(std::fs::File::create(path).context("create the bundle")?);
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    z.start_file("toolset.yaml", opts)?;
    z.write_all(
        b"manifest_version: \"1\"\nid: big\nname: Big\nversion: \"1.0.0\"\ntools:\n  - id: t\n    entrypoint: tools.t:run\n",
    )?;
    z.start_file("tools/t.py", opts)?;
    z.write_all(b"def run(workspace):\n    return {}\n")?;
    // Half text-like (compressible), half noise (not), like real assets.
    let per = TOTAL / FILES;
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for i in 0..FILES {
        z.start_file(format!("assets/d{:02}/f{i:04}.dat", i % 40), opts)?;
        let mut buf = Vec::with_capacity(per);
        while buf.len() < per {
            if i % 2 == 0 {
                buf.extend_from_slice(format!("line {} of file {i}: some words repeat here\n", buf.len()).as_bytes());
            } else {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                buf.extend_from_slice(&state.to_le_bytes());
            }
        }
        buf.truncate(per);
        z.write_all(&buf)?;
    }
    z.finish()?;
    Ok(())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs the benchmark and prints one table row.
pub(crate) fn run(runs: usize) -> Result<()> {
    let scratch = tempfile::Builder::new().prefix("atelier-bench-import-").tempdir()?;
    let bundle = scratch.path().join("big.zip");
    make_bundle(&bundle)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    // One untimed warm-up of each, then interleaved runs.
    for run in 0..=runs {
        let data = scratch.path().join(format!("data-{run}"));
        let t = rt.block_on(async {
            let app = Atelier::open(DataDir::new(&data)).await?;
            let start = Instant::now();
            let report = app.toolsets().import(&bundle, &ImportOptions::default()).await?;
            let t = start.elapsed();
            ensure!(
                report.action == atelier_core::toolsets::records::ImportAction::Installed,
                "unexpected import result {}",
                report.action
            );
            app.close().await;
            anyhow::Ok(t)
        })?;
        let out = scratch.path().join(format!("unzip-{run}"));
        let start = Instant::now();
        let status = Command::new("unzip")
            .arg("-q")
            .arg(&bundle)
            .arg("-d")
            .arg(&out)
            .status()
            .context("run unzip")?;
        let u = start.elapsed();
        ensure!(status.success(), "unzip failed: {status}");
        if run > 0 {
            ours.push(t);
            theirs.push(u);
        }
        std::fs::remove_dir_all(&data).ok();
        std::fs::remove_dir_all(&out).ok();
    }
    let (o, u) = (median(ours), median(theirs));
    let ratio = o.as_secs_f64() / u.as_secs_f64();
    println!("operation                                   ours (ms)  reference        ref (ms)  ratio  target  ok");
    println!(
        "import 2,000 files / 50 MiB bundle      {:>13.1}  unzip -q      {:>11.1}  {ratio:>5.2}   ≤1.50  {}",
        o.as_secs_f64() * 1e3,
        u.as_secs_f64() * 1e3,
        if ratio <= 1.5 { "yes" } else { "no" }
    );
    Ok(())
}
