//! `atelier-bench`: measures the workspace store against git on synthetic
//! trees, as ratios taken in one run on one machine, so the numbers compare
//! designs rather than machines.
//!
//! ```text
//! atelier-bench workspace [--runs N] [--quick] [--scale a|b|c|all] [--rows 1,2,3,4,5] [--json FILE]
//! atelier-bench toolset-import [--runs N]
//! atelier-bench tool-call [--calls N]
//! atelier-bench mcp [--calls N] [--rounds R]
//! atelier-bench chat [--runs N]
//! atelier-bench toolset-dev [--runs N]
//! atelier-bench routing [--runs N]
//! atelier-bench startup --app BIN --reference BIN [--runs N]   (under xvfb-run)
//! atelier-bench ui-seed --data-dir DIR
//! atelier-bench ui-seed-chat --data-dir DIR --llm-base URL
//! atelier-bench checkout-read --data-dir DIR --chat C --from A --to B [--runs N]
//! atelier-bench checkout --data-dir DIR --chat C --from A --to B [--runs N]
//! ```
//!
//! The last four serve `scripts/bench-ui.sh`, which measures the app's UI
//! (a branch switch in a 10,000-file workspace, scrolling 2,000 calls, a
//! streamed 20,000-token answer, a switch between two 200-message branches).
//!
//! This module owns the command line, the runtime and the scratch folders;
//! [`bench`] measures, [`tree`] makes the trees, [`git`] runs the reference
//! and [`report`] prints. Missed targets are results, not failures: the exit
//! code is non-zero only when something could not be measured.
//!
//! On ext4 without a journal, creating files is slow for minutes after many
//! were deleted (see [`bench::eager_cleanup`]), and a run ends by deleting
//! its scratch folder: leave a few minutes between runs, or the next one
//! measures that instead of the store.
#![allow(clippy::print_stdout)]

mod bench;
mod chat;
mod git;
mod import;
mod mcp;
mod report;
mod routing;
mod startup;
mod tool_call;
mod toolset_dev;
mod tree;
mod ui;
mod ui_chat;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};

const USAGE: &str =
    "usage: atelier-bench workspace [--runs N] [--quick] [--scale a|b|c|all] [--rows 1,2,3,4,5] [--json FILE]";

#[derive(Debug)]
struct Args {
    runs: usize,
    /// Row numbers to measure (all by default; fewer for profiling).
    rows: Vec<u8>,
    scales: Vec<&'static tree::Spec>,
    json: Option<PathBuf>,
    quick: bool,
}

fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Args> {
    match it.next().as_deref() {
        Some("workspace") => {}
        Some("-h" | "--help") | None => bail!("{USAGE}"),
        Some(other) => bail!("unknown benchmark {other:?}\n{USAGE}"),
    }
    let (mut runs, mut quick, mut scale, mut json, mut rows) = (None, false, None, None, vec![1, 2, 3, 4, 5]);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().with_context(|| format!("{name} needs a value\n{USAGE}"));
        match arg.as_str() {
            "--runs" => {
                let n: usize = value("--runs")?.parse().context("--runs takes a positive number")?;
                if n == 0 {
                    bail!("--runs takes a positive number");
                }
                runs = Some(n);
            }
            "--quick" => quick = true,
            "--rows" => {
                rows = value("--rows")?
                    .split(',')
                    .map(|r| r.trim().parse::<u8>().ok().filter(|n| (1..=5).contains(n)))
                    .collect::<Option<Vec<u8>>>()
                    .context("--rows takes row numbers from 1 to 5, comma-separated")?;
            }
            "--scale" => scale = Some(value("--scale")?),
            "--json" => json = Some(PathBuf::from(value("--json")?)),
            "-h" | "--help" => bail!("{USAGE}"),
            other => bail!("unknown option {other:?}\n{USAGE}"),
        }
    }
    let scales = match scale.as_deref() {
        None if quick => vec![&tree::SCALES[0], &tree::SCALES[1]],
        None | Some("all") => tree::SCALES.iter().collect(),
        Some(s) => vec![
            tree::SCALES
                .iter()
                .find(|spec| spec.name == s)
                .with_context(|| format!("unknown scale {s:?} (a, b, c or all)"))?,
        ],
    };
    Ok(Args {
        runs: runs.unwrap_or(if quick { 3 } else { 5 }),
        rows,
        scales,
        json,
        quick,
    })
}

fn run(args: &Args) -> Result<()> {
    let started = Instant::now();
    // Multi-threaded like the app: the core runs its blocking work on the
    // runtime's blocking pool.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("start the tokio runtime")?;
    let scratch = tempfile::Builder::new()
        .prefix("atelier-bench-")
        .tempdir()
        .context("create a temporary folder")?;
    let home = scratch.path().join("home");
    std::fs::create_dir(&home).with_context(|| format!("create {}", home.display()))?;
    let git = git::Git::new(home);
    let git_version = git.version()?;
    eprintln!(
        "atelier-bench workspace: {} run(s) per measurement{}, scales {}, {git_version}, scratch {}",
        args.runs,
        if args.quick { " (quick)" } else { "" },
        args.scales.iter().map(|s| s.name).collect::<Vec<_>>().join(","),
        scratch.path().display()
    );
    let probe_us = tree::create_probe(&scratch.path().join("probe"))?;
    eprintln!(
        "file creation probe: {probe_us:.0} µs per empty file (tens of µs is healthy; hundreds means recent mass \
         deletions are slowing the file system down, and rows 3 and 5 measure that)"
    );

    let mut rows = Vec::new();
    for spec in &args.scales {
        eprintln!(
            "scale {}: {} files × {} KiB in {} folder(s)",
            spec.name,
            spec.files,
            spec.file_size >> 10,
            spec.dirs
        );
        let dir = scratch.path().join(format!("scale-{}", spec.name));
        std::fs::create_dir(&dir).with_context(|| format!("create {}", dir.display()))?;
        let measured = bench::run_scale(&rt, &git, spec, &dir, args.runs, &args.rows);
        // Free the disk before the next scale, unless deleting would slow
        // the next scale down (see `bench::eager_cleanup`); the rest goes
        // when the run ends.
        if bench::eager_cleanup(spec) || measured.is_err() {
            tree::remove_all(&dir)?;
        }
        rows.extend(measured.with_context(|| format!("scale {}", spec.name))?);
    }

    println!("{}", report::table(&rows).trim_end());
    eprintln!("finished in {:.0}s", started.elapsed().as_secs_f64());
    if let Some(path) = &args.json {
        let context = serde_json::json!({
            "runs": args.runs,
            "quick": args.quick,
            "git": git_version,
            "cpus": std::thread::available_parallelism().map(usize::from).unwrap_or(0),
            "create_probe_us_per_file": probe_us,
            "seconds": started.elapsed().as_secs_f64(),
        });
        report::write_json(path, &rows, context)?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    // The arguments after the program name.
    let mut argv = std::env::args().peekable();
    argv.next();
    let result = if argv.peek().map(String::as_str) == Some("toolset-import") {
        let runs = argv.nth(2).and_then(|n| n.parse().ok()).unwrap_or(5);
        import::run(runs)
    } else if argv.peek().map(String::as_str) == Some("startup") {
        argv.next();
        startup::run(argv)
    } else if argv.peek().map(String::as_str) == Some("ui-seed") {
        argv.next();
        ui::seed(argv)
    } else if argv.peek().map(String::as_str) == Some("ui-seed-chat") {
        argv.next();
        ui_chat::seed(argv)
    } else if argv.peek().map(String::as_str) == Some("checkout-read") {
        argv.next();
        ui_chat::checkout_read(argv)
    } else if argv.peek().map(String::as_str) == Some("checkout") {
        argv.next();
        ui::checkout(argv)
    } else if argv.peek().map(String::as_str) == Some("routing") {
        let runs = argv.nth(2).and_then(|n| n.parse().ok()).unwrap_or(21);
        routing::run(runs)
    } else if argv.peek().map(String::as_str) == Some("toolset-dev") {
        let runs = argv.nth(2).and_then(|n| n.parse().ok()).unwrap_or(11);
        toolset_dev::run(runs)
    } else if argv.peek().map(String::as_str) == Some("chat") {
        let runs = argv.nth(2).and_then(|n| n.parse().ok()).unwrap_or(21);
        chat::run(runs)
    } else if argv.peek().map(String::as_str) == Some("mcp") {
        argv.next();
        mcp::run(argv)
    } else if argv.peek().map(String::as_str) == Some("tool-call") {
        let calls = argv.nth(2).and_then(|n| n.parse().ok()).unwrap_or(100);
        tool_call::run(calls)
    } else {
        parse_args(argv).and_then(|args| run(&args))
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("atelier-bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}
