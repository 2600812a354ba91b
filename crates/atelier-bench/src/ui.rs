//! The data behind the desktop app's UI benchmarks (`scripts/bench-ui.sh`,
//! which drives the real app with `e2e/bench-ui.mjs`), and the core-only
//! reference they are measured against, in the same run:
//!
//! - `atelier-bench ui-seed --data-dir DIR` makes three chats and prints
//!   their ids as JSON: a 10,000-file workspace (scale b: 4 KiB files in 200
//!   folders) with two sibling branches that each changed 1% of the files
//!   and added a marker folder (`branch-a/`, `branch-b/`: folders come first
//!   in the app's file tree, so the marker is in view); a chat of
//!   2,000 tool calls (each card with a code renderer); and an empty chat.
//! - `atelier-bench checkout --data-dir DIR --chat C --from A --to B [--runs N]
//!   [--pause-ms MS]` switches the chat between the two leaves with the core
//!   alone (`atelier_core::workspace::Workspace::checkout` in a warm process, the app's own code path
//!   minus IPC and the UI), pausing before each switch as the app benchmark
//!   pauses between clicks, and prints the median of each direction as JSON.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail, ensure};
use atelier_core::tools::{Approval, RunRequest};
use atelier_core::{Atelier, DataDir, Observer};
use serde_json::json;

use crate::report::median;
use crate::tree::{self, INITIAL, SCALES};

/// Calls in the long chat.
const LONG_CHAT_CALLS: usize = 2_000;

pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("start the tokio runtime")
}

/// `--data-dir DIR` out of the options (required), and the other
/// options as name/value pairs.
pub(crate) fn data_dir(
    args: &mut impl Iterator<Item = String>,
    usage: &str,
) -> Result<(PathBuf, Vec<(String, String)>)> {
    let mut dir = None;
    let mut rest = Vec::new();
    while let Some(a) = args.next() {
        let value = args.next().with_context(|| format!("{a} needs a value\n{usage}"))?;
        if a == "--data-dir" {
            dir = Some(PathBuf::from(value));
        } else {
            rest.push((a, value));
        }
    }
    Ok((dir.with_context(|| format!("--data-dir is required\n{usage}"))?, rest))
}

async fn record(app: &Atelier, chat: &str) -> Result<String> {
    app.workspace()
        .snapshot(chat, &Observer::default())
        .await?
        .message_id
        .context("the snapshot recorded nothing")
}

/// `ui-seed`: the three chats.
pub(crate) fn seed(mut args: impl Iterator<Item = String>) -> Result<()> {
    const USAGE: &str = "usage: atelier-bench ui-seed --data-dir DIR";
    let (dir, rest) = data_dir(&mut args, USAGE)?;
    if let Some((a, _)) = rest.first() {
        bail!("unknown option {a:?}\n{USAGE}");
    }
    runtime()?.block_on(async {
        let app = Atelier::open(DataDir::new(dir)).await?;

        let big = app.chats().create(Some("Bench: 10,000 files")).await?;
        let spec = &SCALES[1];
        let ws = app.workspace_dir(&big.id);
        spec.write_tree(&ws)?;
        let base = record(&app, &big.id).await?;
        let mut leaves = Vec::new();
        for (generation, marker) in [(1, "branch-a"), (2, "branch-b")] {
            app.workspace().checkout(&big.id, &base).await?;
            for i in spec.one_percent() {
                spec.rewrite(&ws, i, INITIAL + generation)?;
            }
            std::fs::create_dir_all(ws.join(marker))?;
            std::fs::write(ws.join(marker).join("README.txt"), format!("made on {marker}\n"))?;
            leaves.push(record(&app, &big.id).await?);
        }

        let long = app.chats().create(Some("Bench: 2,000 calls")).await?;
        let started = Instant::now();
        for i in 0..LONG_CHAT_CALLS {
            let lines: Vec<String> = (0..12)
                .map(|l| format!("call {i}, line {l}: some output to look at"))
                .collect();
            let call = app
                .tools()
                .run(RunRequest {
                    chat_id: long.id.clone(),
                    tool_id: "write_file".into(),
                    args: json!({"path": format!("notes/n{:02}.txt", i % 50), "content": lines.join("\n")}),
                    approval: Approval::Approved,
                    ..Default::default()
                })
                .await?;
            ensure!(
                call.status == atelier_core::tools::CallStatus::Success,
                "seeding call {i} failed: {:?}",
                call.error
            );
        }
        eprintln!(
            "seeded {LONG_CHAT_CALLS} calls in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        let empty = app.chats().create(Some("Bench: empty chat")).await?;
        // Back on branch a, so the first switch in the app goes to b.
        app.workspace().checkout(&big.id, &leaves[0]).await?;
        println!(
            "{}",
            json!({
                "switch": {"chat": big.id, "title": big.title, "a": leaves[0], "b": leaves[1],
                           "files": spec.files, "changed": spec.one_percent().count()},
                "long": {"chat": long.id, "title": long.title, "calls": LONG_CHAT_CALLS},
                "empty": {"chat": empty.id, "title": empty.title},
            })
        );
        Ok(())
    })
}

/// `checkout`: the core's switch between two leaves, medians in ms.
pub(crate) fn checkout(args: impl Iterator<Item = String>) -> Result<()> {
    time_switches(
        args,
        "usage: atelier-bench checkout --data-dir DIR --chat C --from A --to B [--runs N] [--pause-ms MS]",
        None,
    )
}

/// The core's switch between two leaves of `--chat`, there and back
/// `--runs` times, paused between switches as the app's clicks are; medians
/// in ms. With `tree_of`, each switch also reads the tree the app draws the
/// conversation from (`Chats::tree`), which must have at least that many
/// nodes (the chat the seeding wrote).
pub(crate) fn time_switches(mut args: impl Iterator<Item = String>, usage: &str, tree_of: Option<usize>) -> Result<()> {
    let (dir, rest) = data_dir(&mut args, usage)?;
    let (mut chat, mut from, mut to, mut runs, mut pause) = (None, None, None, 9usize, 0u64);
    for (a, v) in rest {
        match a.as_str() {
            "--chat" => chat = Some(v),
            "--from" => from = Some(v),
            "--to" => to = Some(v),
            "--runs" => runs = v.parse().context("--runs takes a number")?,
            "--pause-ms" => pause = v.parse().context("--pause-ms takes a number")?,
            other => bail!("unknown option {other:?}\n{usage}"),
        }
    }
    let required = |v: Option<String>, name: &str| v.with_context(|| format!("{name} is required\n{usage}"));
    let (chat, from, to) = (
        required(chat, "--chat")?,
        required(from, "--from")?,
        required(to, "--to")?,
    );
    runtime()?.block_on(async {
        let app = Atelier::open(DataDir::new(dir)).await?;
        app.workspace().checkout(&chat, &from).await?; // untimed: start where the app starts
        // Nothing dirty left from seeding to be flushed during the timings.
        tree::settle(&app.workspace_dir(&chat))?;
        let (mut there, mut back) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            for (target, samples) in [(&to, &mut there), (&from, &mut back)] {
                // The app's switches come one click at a time, not back to back.
                tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
                let start = Instant::now();
                app.workspace().checkout(&chat, target).await?;
                let nodes = match tree_of {
                    Some(_) => Some(app.chats().tree(&chat).await?.len()),
                    None => None,
                };
                samples.push(start.elapsed().as_secs_f64() * 1e3);
                if let (Some(want), Some(nodes)) = (tree_of, nodes) {
                    ensure!(
                        nodes >= want,
                        "chat {chat} has {nodes} nodes, not the {want} or more the seeding wrote"
                    );
                }
            }
        }
        println!(
            "{}",
            json!({"to_ms": median(&there), "back_ms": median(&back), "runs": runs,
                   "samples_to": there, "samples_back": back})
        );
        Ok(())
    })
}
