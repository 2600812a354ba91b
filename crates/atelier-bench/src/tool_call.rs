//! `atelier-bench tool-call`: the full overhead of one Python tool call with
//! a warm worker — validation, materialize, call, snapshot, render plan,
//! rows — against the references the issue names, in one run:
//!
//! 1. a trivial tool (`return {}`) on an empty workspace, against a fresh
//!    `python3` process per call running the same function (target ≥ 10×
//!    faster);
//! 2. the same tool on a 10,000-file workspace, against `git status
//!    --porcelain` on an identical tree (target ≤ 2.5×): the run flow walks
//!    the workspace before the call (edits made outside) and after it;
//! 3. a tool that writes 1,000 files, reported with the same tool run by a
//!    fresh `python3`.
//!
//! The worker binary is found beside this one: build both with
//! `cargo build --release -p atelier-worker -p atelier-bench`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use atelier_core::tools::RunRequest;
use atelier_core::toolsets::ImportOptions;
use atelier_core::{Atelier, DataDir, PythonSettings};
use serde_json::json;

const PYTHON: &str = "/usr/bin/python3.11";

pub(crate) fn write_toolset(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir.join("tools"))?;
    std::fs::write(
        dir.join("toolset.yaml"),
        r#"manifest_version: "1"
id: bench
name: Bench
version: 1.0.0
tools:
  - id: trivial
    name: Trivial
    entrypoint: tools.b:trivial
    input_schema: {type: object, additionalProperties: false}
  - id: write_many
    name: Write many
    entrypoint: tools.b:write_many
    input_schema:
      type: object
      properties: {n: {type: integer}, tag: {type: string}}
      required: [n, tag]
"#,
    )?;
    std::fs::write(
        dir.join("tools/b.py"),
        "def trivial(workspace):\n    return {}\n\n\
         def write_many(workspace, n, tag):\n    out = workspace / 'many'\n    out.mkdir(exist_ok=True)\n    \
         for i in range(n):\n        (out / f'f{i:04}.txt').write_text(f'{tag} {i}')\n    return {'written': n}\n",
    )?;
    Ok(())
}

/// Mean time of `n` calls after `warm` untimed ones.
async fn time_calls(
    app: &Atelier,
    chat: &str,
    tool: &str,
    args: impl Fn(usize) -> serde_json::Value,
    warm: usize,
    n: usize,
) -> Result<Duration> {
    let mut total = Duration::ZERO;
    for i in 0..warm + n {
        let start = Instant::now();
        let call = app
            .tools()
            .run(RunRequest {
                chat_id: chat.to_owned(),
                tool_id: tool.to_owned(),
                args: args(i),
                ..Default::default()
            })
            .await?;
        let t = start.elapsed();
        ensure!(
            call.status == atelier_core::tools::CallStatus::Success,
            "{tool} failed: {:?}",
            call.error
        );
        if i >= warm {
            total += t;
        }
    }
    Ok(total / u32::try_from(n)?)
}

/// Mean time of `n` runs of `cmd`.
fn time_command(n: usize, mut cmd: impl FnMut() -> Command) -> Result<Duration> {
    let mut total = Duration::ZERO;
    for _ in 0..n {
        let mut c = cmd();
        let start = Instant::now();
        let out = c.output().context("run the reference command")?;
        total += start.elapsed();
        ensure!(
            out.status.success(),
            "reference failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(total / u32::try_from(n)?)
}

fn python_call(toolset: &Path, workspace: &Path, call: &str) -> Command {
    let mut c = Command::new(PYTHON);
    c.arg("-c")
        .arg(format!(
            "import json, sys; from pathlib import Path; sys.path.insert(0, {t:?}); import tools.b as b; \
             print(json.dumps(b.{call}))",
            t = toolset.display().to_string()
        ))
        .current_dir(workspace);
    c
}

pub(crate) fn row(what: &str, ours: Duration, reference: &str, theirs: Duration, target: &str, ok: Option<bool>) {
    let ratio = ours.as_secs_f64() / theirs.as_secs_f64();
    println!(
        "{what:<42} {:>10.2}  {reference:<28} {:>10.2}  {ratio:>6.3}  {target:<8} {}",
        ours.as_secs_f64() * 1e3,
        theirs.as_secs_f64() * 1e3,
        match ok {
            Some(true) => "yes",
            Some(false) => "no",
            None => "-",
        }
    );
}

/// Runs the benchmark and prints its table.
pub(crate) fn run(calls: usize) -> Result<()> {
    let scratch = tempfile::Builder::new().prefix("atelier-bench-call-").tempdir()?;
    let toolset = scratch.path().join("toolset");
    write_toolset(&toolset)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let settings = PythonSettings::from_env();
    eprintln!("worker: {}", settings.worker_exe()?.display());
    let app = rt.block_on(async {
        let app = Atelier::open_with(DataDir::new(scratch.path().join("data")), settings).await?;
        app.toolsets().import(&toolset, &ImportOptions::default()).await?;
        anyhow::Ok(app)
    })?;
    println!(
        "operation (mean per call)                    ours (ms)  reference                      ref (ms)   ratio  target   ok"
    );

    // 1. Empty workspace.
    let chat = rt.block_on(app.chats().create(Some("empty")))?;
    let ws = app.workspace_dir(&chat.id);
    let ours = rt.block_on(time_calls(&app, &chat.id, "bench:trivial", |_| json!({}), 5, calls))?;
    let theirs = time_command(calls.min(50), || {
        python_call(&toolset, &ws, "trivial(workspace=Path('.'))")
    })?;
    let speedup = theirs.as_secs_f64() / ours.as_secs_f64();
    row(
        "trivial tool, empty workspace",
        ours,
        "fresh python3 per call",
        theirs,
        "≤0.100",
        Some(speedup >= 10.0),
    );
    eprintln!("  → {speedup:.1}× faster than a fresh python3 per call");

    // 2. 10,000-file workspace.
    let chat = rt.block_on(app.chats().create(Some("10k")))?;
    let ws = app.workspace_dir(&chat.id);
    let mirror = scratch.path().join("git-mirror");
    for root in [&ws, &mirror] {
        for i in 0..10_000 {
            let dir = root.join(format!("d{:03}", i % 100));
            std::fs::create_dir_all(&dir)?;
            std::fs::write(dir.join(format!("f{i:05}.txt")), format!("file {i}\n"))?;
        }
    }
    rt.block_on(app.workspace().snapshot(&chat.id, &Default::default()))?;
    let git = |args: &[&str]| {
        let mut c = Command::new("git");
        c.args(args)
            .current_dir(&mirror)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", scratch.path())
            .env("GIT_AUTHOR_NAME", "b")
            .env("GIT_AUTHOR_EMAIL", "b@b")
            .env("GIT_COMMITTER_NAME", "b")
            .env("GIT_COMMITTER_EMAIL", "b@b");
        c
    };
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &["commit", "-qm", "tree"],
        &["status", "--porcelain"],
    ] {
        ensure!(git(args).status()?.success(), "git {args:?} failed");
    }
    let ours = rt.block_on(time_calls(
        &app,
        &chat.id,
        "bench:trivial",
        |_| json!({}),
        3,
        calls.min(30),
    ))?;
    let theirs = time_command(calls.min(30), || git(&["status", "--porcelain"]))?;
    let ratio = ours.as_secs_f64() / theirs.as_secs_f64();
    row(
        "trivial tool, 10,000-file workspace",
        ours,
        "git status --porcelain",
        theirs,
        "≤2.5",
        Some(ratio <= 2.5),
    );

    // 3. A tool that writes 1,000 files (new content each call).
    let chat = rt.block_on(app.chats().create(Some("writes")))?;
    let ws = app.workspace_dir(&chat.id);
    let n = calls.clamp(3, 10);
    let ours = rt.block_on(time_calls(
        &app,
        &chat.id,
        "bench:write_many",
        |i| json!({"n": 1000, "tag": format!("call {i}")}),
        1,
        n,
    ))?;
    let mut i = 0;
    let theirs = time_command(n, || {
        i += 1;
        python_call(
            &toolset,
            &ws,
            &format!("write_many(workspace=Path('.'), n=1000, tag='ref {i}')"),
        )
    })?;
    row(
        "tool writing 1,000 files",
        ours,
        "same tool, fresh python3",
        theirs,
        "report",
        None,
    );
    rt.block_on(app.close());
    Ok(())
}
