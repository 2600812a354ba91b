//! The conversation data behind the desktop app's chat benchmarks
//! (`scripts/bench-ui.sh`, `e2e/bench-ui.mjs`):
//!
//! `atelier-bench ui-seed-chat --data-dir DIR --llm-base URL` adds two chats
//! and a provider to a data dir (after `ui-seed`), and prints their ids as
//! JSON:
//!
//! - "Bench: two long branches": 200 messages on each of two branches that
//!   part at the first message (an edit of it), written by the real chat
//!   engine answering from a loopback [`ReplayServer`] — 100 exchanges per
//!   branch, the answers a paragraph of markdown, every fifth with a code
//!   block. The app's switch between them (the sibling arrows at the first
//!   message) is measured against the core's checkout of the same two
//!   leaves (`atelier-bench checkout`), and against that checkout with the
//!   tree the view then reads (`atelier-bench checkout-read`, here).
//! - "Bench: streaming": an empty chat the 20,000-token answer streams into,
//!   from the provider `bench-llm` at URL (the scripted server
//!   `e2e/llm-server.mjs`, started by the benchmark; a provider of its own,
//!   so the app talks to it as to any OpenAI-compatible server).

use anyhow::{Context, Result, bail, ensure};
use atelier_core::conversation::{ChatEvent, RunStatus, SendOptions};
use atelier_core::providers::ProviderSpec;
use atelier_core::tools::Approval;
use atelier_core::{Atelier, DataDir};
use atelier_llm::replay::{ReplayServer, Reply};
use serde_json::json;

use crate::ui::{data_dir, runtime};

/// Exchanges (a question and its answer) per branch: 200 messages.
const EXCHANGES: usize = 100;
/// The seeding server's provider, removed once the chat is written.
const SEEDER: &str = "bench-seeder";
/// The provider the streaming benchmark uses.
const STREAMER: &str = "bench-llm";
/// The model both answer as.
const MODEL: &str = "scripted-model";

/// One answer of `branch`, number `n` (1-based): markdown as models write it.
fn answer_text(branch: char, n: usize) -> String {
    let mut s = format!(
        "Branch {branch}, answer {n}: here is what I found. The **first** point is that the \
         data has *three* parts, each with its own `schema`; the second is that the totals \
         agree with the report, within a rounding error; the third is a list:\n\n\
         - the header row names every column\n- the dates are ISO 8601\n- no value is missing\n"
    );
    if n.is_multiple_of(5) {
        s.push_str(&format!(
            "\n```python\ndef total(rows):\n    # answer {n} of branch {branch}\n    return sum(r[\"amount\"] for r in rows)\n```\n"
        ));
    }
    s
}

fn reply(text: &str) -> Reply {
    let chunk = |delta: serde_json::Value, finish: Option<&str>| {
        format!(
            "data: {}",
            json!({"id": "chatcmpl-seed", "object": "chat.completion.chunk", "model": MODEL,
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    Reply::sse(&[
        chunk(json!({"content": text}), None),
        chunk(json!({}), Some("stop")),
        "data: [DONE]".to_owned(),
    ])
}

fn options() -> SendOptions {
    SendOptions {
        provider_id: Some(SEEDER.into()),
        model: Some(MODEL.into()),
        approval: Approval::Approved,
        ..Default::default()
    }
}

/// `ui-seed-chat`: the two chats and the streaming provider.
pub(crate) fn seed(mut args: impl Iterator<Item = String>) -> Result<()> {
    const USAGE: &str = "usage: atelier-bench ui-seed-chat --data-dir DIR --llm-base URL";
    let (dir, rest) = data_dir(&mut args, USAGE)?;
    let mut base = None;
    for (name, value) in rest {
        match name.as_str() {
            "--llm-base" => base = Some(value),
            other => bail!("unknown option {other:?}\n{USAGE}"),
        }
    }
    let base = base.with_context(|| format!("--llm-base is required\n{USAGE}"))?;
    let rt = runtime()?;
    rt.block_on(async {
        let app = Atelier::open(DataDir::new(dir)).await?;
        // Answers in the order the sends ask for them: branch a, then b.
        let replies: Vec<Reply> = ['a', 'b']
            .iter()
            .flat_map(|&b| (1..=EXCHANGES).map(move |n| reply(&answer_text(b, n))))
            .collect();
        let server = ReplayServer::start(replies).await.context("the seeding server")?;
        app.providers()
            .add(&ProviderSpec {
                id: SEEDER.into(),
                kind: Some("openai".into()),
                base_url: Some(server.url("/v1")),
                default_model: Some(MODEL.into()),
                ..Default::default()
            })
            .await?;
        // Titled: an untitled chat would ask the model for a title.
        let chat = app.chats().create(Some("Bench: two long branches")).await?;
        let mut ignore = |_: &ChatEvent| {};
        let mut first_user = None;
        let mut leaves = Vec::new();
        for branch in ['a', 'b'] {
            for n in 1..=EXCHANGES {
                let text = format!("Question {n} on branch {branch}: what does the data say?");
                let out = if branch == 'b' && n == 1 {
                    let at = first_user.as_deref().context("no first message")?;
                    app.conversation()
                        .edit(&chat.id, at, &text, options(), &mut ignore)
                        .await?
                } else {
                    app.conversation().send(&chat.id, &text, options(), &mut ignore).await?
                };
                ensure!(
                    out.status == RunStatus::Complete,
                    "seeding exchange {n} of branch {branch}: {:?}",
                    out.error
                );
                if first_user.is_none() {
                    first_user = out.messages.first().map(|m| m.id.clone());
                }
                if n == EXCHANGES {
                    leaves.push(out.messages.last().context("no answer")?.id.clone());
                }
            }
        }
        let branch = app.chats().active_branch(&chat.id).await?;
        ensure!(
            branch.len() == 2 * EXCHANGES + 1,
            "branch b has {} messages, not {} and the root",
            branch.len() - 1,
            2 * EXCHANGES
        );
        // The app's chat keeps no provider of the seeder's; the seeder goes.
        app.providers().remove(SEEDER).await?;
        app.providers()
            .add(&ProviderSpec {
                id: STREAMER.into(),
                kind: Some("openai".into()),
                base_url: Some(base.clone()),
                default_model: Some(MODEL.into()),
                ..Default::default()
            })
            .await?;
        // Back on branch a, so the first switch in the app goes to b.
        app.workspace().checkout(&chat.id, &leaves[0]).await?;
        let stream = app.chats().create(Some("Bench: streaming")).await?;
        println!(
            "{}",
            json!({
                "branches": {"chat": chat.id, "title": chat.title, "a": leaves[0], "b": leaves[1],
                             "messages": 2 * EXCHANGES, "first": first_user},
                "stream": {"chat": stream.id, "title": stream.title, "provider": STREAMER, "model": MODEL},
            })
        );
        Ok(())
    })
}

/// `checkout-read`: what the core does for the app's switch between the
/// two long branches, without IPC and the UI: the checkout of the other
/// leaf and the tree the conversation is drawn from (`Chats::tree`),
/// medians in ms, paused between switches as the app's clicks are.
pub(crate) fn checkout_read(args: impl Iterator<Item = String>) -> Result<()> {
    crate::ui::time_switches(
        args,
        "usage: atelier-bench checkout-read --data-dir DIR --chat C --from A --to B [--runs N] [--pause-ms MS]",
        // The root and both branches.
        Some(2 * EXCHANGES + 1),
    )
}
