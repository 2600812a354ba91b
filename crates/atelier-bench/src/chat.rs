//! `atelier-bench chat`: what the chat engine adds of its own, as ratios
//! against references measured in the same run (target ≤ 1.2× for both):
//!
//! 1. **Streaming.** A 2,000-chunk transcript (OpenAI-style: text deltas,
//!    then one tool call's arguments in pieces; and the same length in
//!    Anthropic's events) replayed from a loopback [`ReplayServer`], one
//!    SSE event per HTTP chunk. Ours: `Client::stream` — SSE, the
//!    provider's adapter, tool-call accumulation, every event handed to a
//!    callback — timed from the first event to the returned turn. The
//!    reference: the same bytes from the same server read with the same
//!    HTTP client and parsed alone (SSE, then JSON per event), timed from
//!    the first chunk to the last event parsed.
//! 2. **The tool loop.** `conversation().send` with a model that calls a
//!    trivial Python tool (`return {}`) three times and then answers: four
//!    model requests and three tool runs through the run flow, each turn
//!    persisted. The reference: three bare `tools().run` calls of the same
//!    tool in the same chat and four `Client::stream` requests for the
//!    same four replies, in the loop's order (request, run, …, request).
//!    The difference is the loop's own work: context building, tool
//!    resolution, the turn journal, writing the messages.
//!
//! Runs alternate between ours and the reference so drift hits both; each
//! row reports medians. The worker binary is found beside this one: build
//! with `cargo build --release -p atelier-worker -p atelier-bench`.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use atelier_core::agents::AgentSpec;
use atelier_core::conversation::{ChatEvent, RunStatus, SendOptions};
use atelier_core::providers::ProviderSpec;
use atelier_core::tools::{Approval, CallStatus, RunRequest};
use atelier_core::toolsets::ImportOptions;
use atelier_core::{Atelier, DataDir, PythonSettings};
use atelier_llm::replay::{ReplayServer, Reply};
use atelier_llm::sse::SseParser;
use atelier_llm::{Client, Kind, Message, Provider, Request, ToolSpec};
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::tool_call::{row, write_toolset};

/// Events in each streamed transcript.
const CHUNKS: usize = 2_000;
/// The tool's name on the wire (`bench.trivial` as OpenAI takes it).
const WIRE_TOOL: &str = "bench__trivial";

fn openai(delta: Value, finish: Option<&str>) -> String {
    format!(
        "data: {}",
        json!({"id": "chatcmpl-bench", "object": "chat.completion.chunk", "model": "bench",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    )
}

/// A word of streamed text; a few are not ASCII, as real text is not.
fn word(i: usize) -> String {
    match i % 7 {
        0 => " naïve".to_owned(),
        3 => format!(" {i}"),
        _ => " token".to_owned(),
    }
}

/// OpenAI-style: 1,700 text deltas, a tool call whose arguments come in
/// 295 pieces, the finish, usage and `[DONE]` — `CHUNKS` events.
fn openai_transcript() -> Reply {
    let text = 1_700;
    let pieces = CHUNKS - text - 5;
    let mut events = vec![openai(json!({"role": "assistant", "content": ""}), None)];
    events.extend((1..text).map(|i| openai(json!({"content": word(i)}), None)));
    events.push(openai(
        json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
               "function": {"name": WIRE_TOOL, "arguments": ""}}]}),
        None,
    ));
    let arguments = format!(
        "{{\"note\": \"{}\"}}",
        (0..pieces - 2).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ")
    );
    let size = arguments.len().div_ceil(pieces);
    let bytes = arguments.as_bytes();
    events.extend(bytes.chunks(size).map(|piece| {
        let piece = String::from_utf8_lossy(piece);
        openai(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
            None,
        )
    }));
    while events.len() < CHUNKS - 3 {
        events.push(openai(json!({"content": ""}), None));
    }
    events.push(openai(json!({}), Some("tool_calls")));
    events.push(format!(
        "data: {}",
        json!({"id": "chatcmpl-bench", "choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": 1995}})
    ));
    events.push("data: [DONE]".to_owned());
    Reply::sse(&events)
}

/// Anthropic: `message_start`, a text block of 1,995 deltas with a ping
/// in it, `message_delta`, `message_stop` — `CHUNKS` events.
fn anthropic_transcript() -> Reply {
    let ev = |name: &str, data: Value| format!("event: {name}\ndata: {data}");
    let mut events = vec![
        ev(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_bench", "type": "message", "role": "assistant",
                   "model": "bench", "content": [], "stop_reason": null, "usage": {"input_tokens": 40, "output_tokens": 1}}}),
        ),
        ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        ev("ping", json!({"type": "ping"})),
    ];
    while events.len() < CHUNKS - 3 {
        let i = events.len();
        events.push(ev(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": word(i)}}),
        ));
    }
    events.push(ev(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    events.push(ev(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 1995}}),
    ));
    events.push(ev("message_stop", json!({"type": "message_stop"})));
    Reply::sse(&events)
}

fn request() -> Request {
    Request {
        model: "bench".into(),
        messages: vec![Message::user("go")],
        tools: vec![ToolSpec {
            name: WIRE_TOOL.into(),
            description: "Does nothing.".into(),
            input_schema: json!({"type": "object"}),
        }],
        ..Default::default()
    }
}

/// Ours: one `Client::stream`, first event to returned turn; and how many
/// events the callback saw.
async fn stream_once(client: &Client) -> Result<(Duration, usize)> {
    let mut first: Option<Instant> = None;
    let mut events = 0usize;
    let mut on = |_: &atelier_llm::Event| {
        first.get_or_insert_with(Instant::now);
        events += 1;
    };
    let turn = client
        .stream(&request(), &CancellationToken::new(), &mut on)
        .await
        .map_err(|f| anyhow::anyhow!("stream failed: {}", f.error))?;
    let end = Instant::now();
    ensure!(!turn.text.is_empty(), "the turn came back without its text");
    Ok((end - first.context("no event arrived")?, events))
}

/// The reference: the same response read and parsed alone, first chunk to
/// last event; and how many events it parsed.
async fn parse_once(http: &reqwest::Client, url: &str) -> Result<(Duration, usize)> {
    let resp = http.post(url).body("{}").send().await?;
    ensure!(resp.status().is_success(), "reference request: {}", resp.status());
    let mut bytes = resp.bytes_stream();
    let mut sse = SseParser::new();
    let mut first: Option<Instant> = None;
    let mut parsed = 0usize;
    while let Some(chunk) = bytes.next().await {
        let chunk = chunk?;
        first.get_or_insert_with(Instant::now);
        for e in sse.feed(&chunk) {
            if e.data == "[DONE]" {
                parsed += 1;
                continue;
            }
            let v: Value = serde_json::from_str(&e.data).with_context(|| format!("bad event {:?}", e.data))?;
            std::hint::black_box(&v);
            parsed += 1;
        }
    }
    Ok((Instant::now() - first.context("no bytes arrived")?, parsed))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

async fn streaming(server: &ReplayServer, kind: Kind, runs: usize) -> Result<(Duration, Duration)> {
    let client = Client::new(Provider {
        id: "bench".into(),
        kind,
        base_url: server.url("/v1"),
        api_key: None,
        headers: Vec::new(),
    })?;
    let http = reqwest::Client::new();
    let url = server.url("/v1/raw");
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for i in 0..runs + 2 {
        let (a, events) = stream_once(&client).await?;
        let (b, parsed) = parse_once(&http, &url).await?;
        ensure!(parsed == CHUNKS, "the reference parsed {parsed} events, not {CHUNKS}");
        ensure!(events >= CHUNKS / 2, "only {events} events were delivered");
        // Two warm-up rounds.
        if i >= 2 {
            ours.push(a);
            theirs.push(b);
        }
    }
    Ok((median(ours), median(theirs)))
}

/// The four replies of a three-step loop.
fn loop_replies() -> Vec<Reply> {
    let call = |id: &str| {
        Reply::sse(&[
            openai(
                json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
                       "function": {"name": WIRE_TOOL, "arguments": "{}"}}]}),
                None,
            ),
            openai(json!({}), Some("tool_calls")),
            "data: [DONE]".to_owned(),
        ])
    };
    vec![
        call("call_1"),
        call("call_2"),
        call("call_3"),
        Reply::sse(&[
            openai(json!({"content": "Done: three calls."}), None),
            openai(json!({}), Some("stop")),
            "data: [DONE]".to_owned(),
        ]),
    ]
}

async fn tool_loop(app: &Atelier, servers: &[ReplayServer; 2], runs: usize) -> Result<(Duration, Duration)> {
    let [model, reference] = servers;
    app.providers()
        .add(&ProviderSpec {
            id: "loopback".into(),
            base_url: Some(model.url("/v1")),
            default_model: Some("bench".into()),
            ..Default::default()
        })
        .await?;
    let mut spec = AgentSpec::new("bencher", "Bencher");
    spec.tools = vec!["bench.trivial".into()];
    spec.system_prompt = "Call the tool three times.".into();
    app.agents().create(&spec).await?;
    let client = Client::new(Provider {
        id: "reference".into(),
        kind: Kind::Openai,
        base_url: reference.url("/v1"),
        api_key: None,
        headers: Vec::new(),
    })?;
    // Titled, so no title request; each run answers the first message, so
    // every run sends the same context and the chat does not grow under it.
    let chat = app.chats().create(Some("loop")).await?.id;
    let (chat, client) = (chat.as_str(), &client);
    let send = |parent: Option<String>| {
        let opts = SendOptions {
            parent_id: parent,
            agent_id: Some("bencher".into()),
            approval: Approval::Approved,
            ..Default::default()
        };
        async move {
            let mut ignore = |_: &ChatEvent| {};
            let start = Instant::now();
            let out = app.conversation().send(chat, "call it", opts, &mut ignore).await?;
            let t = start.elapsed();
            ensure!(
                out.status == RunStatus::Complete,
                "the loop ended {:?}: {:?}",
                out.status,
                out.error
            );
            ensure!(
                out.tool_calls.len() == 3,
                "the loop made {} calls",
                out.tool_calls.len()
            );
            anyhow::Ok((t, out))
        }
    };
    let (_, first) = send(None).await?;
    let root = first.messages[0].id.clone();
    // The same outside work in the loop's order — a request, a run, … a
    // request — so that a server's thread gone idle between a run and the
    // next request costs the reference what it costs the loop.
    let bare = |parent: String| async move {
        let start = Instant::now();
        let mut parent = Some(parent);
        for step in 0..4 {
            let mut ignore = |_: &atelier_llm::Event| {};
            client
                .stream(&request(), &CancellationToken::new(), &mut ignore)
                .await
                .map_err(|f| anyhow::anyhow!("reference request failed: {}", f.error))?;
            if step == 3 {
                break;
            }
            let call = app
                .tools()
                .run(RunRequest {
                    chat_id: chat.to_owned(),
                    tool_id: "bench:trivial".into(),
                    args: json!({}),
                    parent_id: parent.take(),
                    ..Default::default()
                })
                .await?;
            ensure!(call.status == CallStatus::Success, "bare call failed: {:?}", call.error);
            parent = call.message_id;
        }
        anyhow::Ok(start.elapsed())
    };
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for i in 0..runs + 2 {
        let (a, _) = send(Some(root.clone())).await?;
        let b = bare(root.clone()).await?;
        if i >= 2 {
            ours.push(a);
            theirs.push(b);
        }
    }
    Ok((median(ours), median(theirs)))
}

/// Runs the benchmark and prints its table.
pub(crate) fn run(runs: usize) -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    // The servers on a thread of their own, as a server is another
    // process: they do not take turns with the client on its runtime.
    let servers = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("replay-server")
        .enable_all()
        .build()?;
    println!(
        "operation (median)                           ours (ms)  reference                      ref (ms)   ratio  target   ok"
    );
    let only = std::env::var("ATELIER_BENCH_ONLY").unwrap_or_default();
    for (what, kind, transcript) in [
        ("2,000-chunk stream, OpenAI", Kind::Openai, openai_transcript()),
        ("2,000-chunk stream, Anthropic", Kind::Anthropic, anthropic_transcript()),
    ] {
        if only == "loop" {
            break;
        }
        let server = servers.block_on(ReplayServer::start(vec![transcript]))?;
        let (ours, theirs) = rt.block_on(streaming(&server, kind, runs))?;
        let ratio = ours.as_secs_f64() / theirs.as_secs_f64();
        row(
            what,
            ours,
            "same bytes read + parsed",
            theirs,
            "≤1.2",
            Some(ratio <= 1.2),
        );
    }

    let scratch = tempfile::Builder::new().prefix("atelier-bench-chat-").tempdir()?;
    let toolset = scratch.path().join("toolset");
    write_toolset(&toolset)?;
    let settings = PythonSettings::from_env();
    eprintln!("worker: {}", settings.worker_exe()?.display());
    let loop_servers = servers.block_on(async {
        anyhow::Ok([
            ReplayServer::cycling(loop_replies()).await?,
            ReplayServer::cycling(loop_replies()).await?,
        ])
    })?;
    let (ours, theirs) = rt.block_on(async {
        let app = Atelier::open_with(DataDir::new(scratch.path().join("data")), settings).await?;
        app.toolsets().import(&toolset, &ImportOptions::default()).await?;
        let measured = tool_loop(&app, &loop_servers, runs).await;
        app.close().await;
        measured
    })?;
    let ratio = ours.as_secs_f64() / theirs.as_secs_f64();
    row(
        "three-step tool loop (send)",
        ours,
        "4 requests + 3 runs, in turn",
        theirs,
        "≤1.2",
        Some(ratio <= 1.2),
    );
    Ok(())
}
