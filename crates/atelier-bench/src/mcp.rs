//! `atelier-bench mcp [--calls N] [--rounds R]`: a trivial MCP tool call
//! (server-everything's `echo` over stdio), in one run:
//!
//! 1. **Our client** (`atelier_mcp::Connection`) against the official
//!    TypeScript SDK's `Client` (`tests/mcp/bench_client.mjs`), each
//!    spawning its own server-everything: 50 warm-up calls, then `N`
//!    (2,000) timed sequential ones. Rounds alternate between the two
//!    sides (and which goes first) so drift hits both; each side's figure
//!    is the median of its rounds' per-call means. Target ≤ 1.0×.
//! 2. **The run flow**: `tools().run` of `everything:echo` (the server
//!    added as a person's, shared) in a chat with an empty workspace,
//!    approval given — validation, the call on the running instance,
//!    snapshot, render plan, rows. Reported, with the breakdown: the same
//!    call through `app.mcp().call` (the server's row and its running
//!    instance looked up, then the supervisor's connection) and the bare
//!    client call of row 1.
//!
//! The servers come from `tests/mcp/node_modules` (`scripts/install.sh`);
//! every one started here is stopped before the command returns.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use atelier_core::mcp::NewServer;
use atelier_core::tools::{Approval, CallStatus, RunRequest};
use atelier_core::{Atelier, DataDir};
use atelier_mcp::{CallOptions, ConnectOptions, Connection, ServerSpec, StdioSpec};
use serde_json::{Value, json};

const USAGE: &str = "usage: atelier-bench mcp [--calls N] [--rounds R]";
/// Untimed calls before the timed ones, as `bench_client.mjs` makes.
const WARMUP: usize = 50;
const SERVER_ID: &str = "everything";

struct Paths {
    /// `tests/mcp/bench_client.mjs`.
    client: PathBuf,
    /// server-everything's `dist/index.js`.
    server: PathBuf,
}

/// The repository root: the one this binary was built from, else the
/// current folder.
fn paths() -> Result<Paths> {
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = [built, std::env::current_dir()?]
        .into_iter()
        .find(|r| r.join("tests/mcp/bench_client.mjs").is_file())
        .context("tests/mcp/bench_client.mjs not found: run from the repository's root")?;
    let modules = root.join("tests/mcp/node_modules/@modelcontextprotocol");
    for package in ["server-everything", "sdk"] {
        let dir = modules.join(package);
        if !dir.join("package.json").is_file() {
            bail!("{} is missing: run scripts/install.sh", dir.display());
        }
    }
    let paths = Paths {
        client: root.join("tests/mcp/bench_client.mjs").canonicalize()?,
        server: modules.join("server-everything/dist/index.js").canonicalize()?,
    };
    Ok(paths)
}

/// The TypeScript SDK's client: mean time per call of one process's `calls`.
fn reference(paths: &Paths, calls: usize) -> Result<Duration> {
    let out = Command::new("node")
        .arg(&paths.client)
        .arg(calls.to_string())
        .output()
        .context("run node (is it on PATH?)")?;
    ensure!(
        out.status.success(),
        "node bench_client.mjs failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr).trim()
    );
    let line = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(line.trim()).with_context(|| format!("bench_client.mjs printed {line:?}"))?;
    ensure!(
        v["calls"].as_u64() == Some(u64::try_from(calls)?),
        "bench_client.mjs made {} calls",
        v["calls"]
    );
    let seconds = v["seconds"]
        .as_f64()
        .context("no \"seconds\" in bench_client.mjs's line")?;
    Ok(Duration::from_secs_f64(seconds / f64::from(u32::try_from(calls)?)))
}

fn text(content: &[Value]) -> Option<&str> {
    content.first()?.get("text")?.as_str()
}

/// Our client: one connection, `WARMUP` calls, then the mean of `calls`.
async fn ours(spec: &ServerSpec, calls: usize) -> Result<Duration> {
    let conn = Connection::connect(SERVER_ID, spec, &ConnectOptions::default(), Arc::default(), None).await?;
    let measured = async {
        let options = CallOptions::default();
        let mut start = Instant::now();
        for i in 0..WARMUP + calls {
            if i == WARMUP {
                start = Instant::now();
            }
            let r = conn
                .call("echo", &json!({"message": format!("call {i}")}), &options)
                .await?;
            ensure!(
                !r.is_error && text(&r.content) == Some(format!("Echo: call {i}").as_str()),
                "unexpected echo result: {r:?}"
            );
        }
        Ok(start.elapsed() / u32::try_from(calls)?)
    }
    .await;
    conn.stop().await;
    measured
}

/// Mean time per call of `calls` run flows (after a few untimed ones), and
/// of as many calls through `app.mcp().call`, alternating in blocks.
async fn run_flow(app: &Atelier, chat: &str, calls: usize, rounds: usize) -> Result<(Duration, Duration)> {
    let tool = format!("{SERVER_ID}:echo");
    let tool = tool.as_str();
    let run = |i: usize| async move {
        app.tools()
            .run(RunRequest {
                chat_id: chat.to_owned(),
                tool_id: tool.to_owned(),
                args: json!({"message": format!("run {i}")}),
                approval: Approval::Approved,
                ..Default::default()
            })
            .await
    };
    let options = &CallOptions::default();
    let core = |i: usize| async move {
        app.mcp()
            .call(tool, chat, &json!({"message": format!("core {i}")}), options)
            .await
    };
    for i in 0..10 {
        let call = run(i).await?;
        ensure!(call.status == CallStatus::Success, "run failed: {:?}", call.error);
        core(i).await?;
    }
    let (mut flows, mut cores) = (Vec::new(), Vec::new());
    let block = calls.div_ceil(rounds).max(1);
    for _ in 0..rounds {
        let start = Instant::now();
        for i in 0..block {
            let call = run(i).await?;
            ensure!(call.status == CallStatus::Success, "run failed: {:?}", call.error);
            ensure!(
                call.result == Some(json!(format!("Echo: run {i}"))),
                "unexpected run result: {:?}",
                call.result
            );
        }
        flows.push(start.elapsed() / u32::try_from(block)?);
        let start = Instant::now();
        for i in 0..block {
            let r = core(i).await?;
            ensure!(
                text(&r.content) == Some(format!("Echo: core {i}").as_str()),
                "unexpected echo: {r:?}"
            );
        }
        cores.push(start.elapsed() / u32::try_from(block)?);
    }
    Ok((median(flows), median(cores)))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn us(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

fn parse(mut argv: impl Iterator<Item = String>) -> Result<(usize, usize)> {
    let (mut calls, mut rounds) = (2_000, 5);
    while let Some(arg) = argv.next() {
        let mut number = |name: &str| -> Result<usize> {
            argv.next()
                .and_then(|v| v.parse().ok())
                .filter(|n| *n > 0)
                .with_context(|| format!("{name} takes a positive number\n{USAGE}"))
        };
        match arg.as_str() {
            "--calls" => calls = number("--calls")?,
            "--rounds" => rounds = number("--rounds")?,
            "-h" | "--help" => bail!("{USAGE}"),
            other => bail!("unknown option {other:?}\n{USAGE}"),
        }
    }
    Ok((calls, rounds))
}

/// Runs the benchmark and prints its table.
pub(crate) fn run(argv: impl Iterator<Item = String>) -> Result<()> {
    let (calls, rounds) = parse(argv)?;
    let paths = paths()?;
    let scratch = tempfile::Builder::new().prefix("atelier-bench-mcp-").tempdir()?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let spec = ServerSpec::Stdio(StdioSpec {
        command: "node".into(),
        args: vec![paths.server.display().to_string(), "stdio".into()],
        env: vec![("PATH".into(), std::env::var("PATH").unwrap_or_default())],
        cwd: scratch.path().to_owned(),
    });
    eprintln!(
        "atelier-bench mcp: {calls} echo calls per round after {WARMUP} warm-up ones, {rounds} rounds, server {}",
        paths.server.display()
    );

    // 1. Our client against the TypeScript SDK's, rounds alternating.
    let (mut mine, mut theirs) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        for side in [round % 2, 1 - round % 2] {
            if side == 0 {
                mine.push(rt.block_on(ours(&spec, calls))?);
            } else {
                theirs.push(reference(&paths, calls)?);
            }
        }
        eprintln!(
            "  round {}: ours {}, TypeScript SDK {}",
            round + 1,
            us(mine[round]),
            us(theirs[round])
        );
    }
    let (client, reference) = (median(mine), median(theirs));
    let ratio = client.as_secs_f64() / reference.as_secs_f64();

    // 2. The run flow, on an empty workspace.
    let flow_calls = calls.min(500);
    let (flow, core) = rt.block_on(async {
        let app = Atelier::open(DataDir::new(scratch.path().join("data"))).await?;
        let measured = async {
            app.mcp()
                .add(NewServer {
                    id: SERVER_ID.into(),
                    command: Some("node".into()),
                    args: vec![paths.server.display().to_string(), "stdio".into()],
                    ..Default::default()
                })
                .await?;
            let listed = app.mcp().refresh(SERVER_ID).await?;
            ensure!(
                listed.tools.iter().flatten().any(|t| t.name == "echo"),
                "server-everything listed no echo tool"
            );
            let chat = app.chats().create(Some("mcp bench")).await?;
            run_flow(&app, &chat.id, flow_calls, rounds).await
        }
        .await;
        app.mcp().stop_everything().await;
        app.close().await;
        measured
    })?;

    println!(
        "operation (median per call)                        ours        reference                     ref        ratio  target  ok"
    );
    println!(
        "{:<50} {:>10}  {:<28} {:>10}  {ratio:>6.3}  {:<6}  {}",
        "echo over stdio, our client",
        us(client),
        "TypeScript SDK Client",
        us(reference),
        "≤1.0",
        if ratio <= 1.0 { "yes" } else { "no" }
    );
    println!(
        "{:<50} {:>10}  {:<28} {:>10}  {:>6.3}  {:<6}  -",
        "echo through the run flow, empty workspace",
        format!("{:.3} ms", flow.as_secs_f64() * 1e3),
        "our client's bare call",
        us(client),
        flow.as_secs_f64() / client.as_secs_f64(),
        "report",
    );
    eprintln!(
        "  breakdown per call: bare client call {}, + the core's lookup and supervisor (app.mcp().call) {}, \
         + the run flow's own work (validation, snapshot, plan, rows) {}",
        us(client),
        us(core.saturating_sub(client)),
        us(flow.saturating_sub(core)),
    );
    eprintln!(
        "  (run flow: medians of {rounds} blocks of {} calls)",
        flow_calls.div_ceil(rounds)
    );
    Ok(())
}
