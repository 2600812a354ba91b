//! `atelier-bench routing`: resolving an agent's tools must never be what a
//! run waits for.
//!
//! One agent with 100 patterns (5 toolsets, 50 exact names, 30 globs with a
//! literal head like `ts-0007.t0*`, 15 globs without one like `*_read`) is
//! resolved against pools of 1,000, 10,000 and 100,000 tools, and the result
//! exposed as OpenAI takes it. The reference, in the same run: reading the
//! same 10,000 tool rows from the database (what building the pool costs
//! when the cache is cold). Targets: resolution + exposure ≤ 0.5× the
//! reference at 10,000 tools, and linear in pool size — the time per tool
//! at 100,000 within 1.5× of the time per tool at 1,000.

use std::time::{Duration, Instant};

use anyhow::{Result, ensure};
use atelier_core::routing::{AgentTools, Exposure, Snapshot, Source, SourceKind, ToolDef, expose, resolve};
use atelier_core::{Atelier, DataDir};
use serde_json::json;

const TOOLS_PER_TOOLSET: usize = 100;
const VERBS: [&str; 8] = ["read", "write", "list", "delete", "search", "count", "chart", "send"];

fn tool_name(j: usize) -> String {
    format!("t{j:03}_{}", VERBS[j % VERBS.len()])
}

fn schema(j: usize) -> serde_json::Value {
    json!({"type": "object", "properties": {
        "path": {"type": "string", "description": "a workspace path"},
        "limit": {"type": "integer", "minimum": 1},
        "mode": {"type": "string", "enum": ["fast", "full", format!("m{j}")]}
    }, "required": ["path"]})
}

fn toolset_id(k: usize) -> String {
    format!("ts-{k:04}")
}

/// A pool of `n` tools in `n / 100` toolsets.
fn pool(n: usize) -> Result<std::sync::Arc<Snapshot>> {
    let sources = (0..n / TOOLS_PER_TOOLSET)
        .map(|k| Source {
            kind: SourceKind::Toolset,
            id: Some(toolset_id(k)),
            version: Some("1.0.0".into()),
            prefix: Some(toolset_id(k)),
            tools: (0..TOOLS_PER_TOOLSET)
                .map(|j| ToolDef {
                    name: tool_name(j),
                    description: format!("Tool {j} of toolset {k}: does one thing well"),
                    input_schema: schema(j),
                    tags: vec![VERBS[j % VERBS.len()].to_owned()],
                    category: None,
                    requires_confirmation: false,
                    read_only: false,
                })
                .collect(),
            declared_by: Vec::new(),
        })
        .collect();
    Ok(Snapshot::build(1, sources)?)
}

/// 100 patterns that select a similar share of any pool size.
fn agent(n: usize) -> AgentTools {
    let toolsets = n / TOOLS_PER_TOOLSET;
    let pick = |i: usize| (i * 7919) % toolsets;
    let mut tools = Vec::new();
    for i in 0..50 {
        tools.push(format!("{}.{}", toolset_id(pick(i)), tool_name(i % TOOLS_PER_TOOLSET)));
    }
    for i in 0..30 {
        tools.push(format!("{}.t0{}*", toolset_id(pick(i + 50)), i % 10));
    }
    for i in 0..15 {
        tools.push(format!("*{}_{}", i % 10, VERBS[i % VERBS.len()]));
    }
    AgentTools {
        toolsets: (0..5).map(|i| toolset_id(pick(i + 80))).collect(),
        tools,
        max_depth: 2,
        ..Default::default()
    }
}

/// Median of `runs` timings of resolve + expose, and the number of tools
/// resolved.
fn time_resolution(n: usize, runs: usize) -> Result<(Duration, usize)> {
    let snap = pool(n)?;
    let a = agent(n);
    let mut times = Vec::with_capacity(runs);
    let mut count = 0;
    for _ in 0..=runs {
        let start = Instant::now();
        let resolved = resolve(&a, &snap, 0)?;
        let exposed = expose(&resolved, Exposure::Openai);
        times.push(start.elapsed());
        count = exposed.tools.len();
        ensure!(resolved.tools.len() == count, "exposure lost tools");
    }
    times.remove(0); // warm-up
    times.sort();
    Ok((times[times.len() / 2], count))
}

/// Median time to read 10,000 tool rows (`n` tools) from a data dir.
fn time_reading_rows(n: usize, runs: usize) -> Result<Duration> {
    let scratch = tempfile::Builder::new().prefix("atelier-bench-routing-").tempdir()?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async {
        let app = Atelier::open(DataDir::new(scratch.path())).await?;
        // The rows an import would have written, inserted directly.
        let mut tx = app.db().begin().await?;
        for k in 0..n / TOOLS_PER_TOOLSET {
            let id = toolset_id(k);
            sqlx::query(
                "INSERT INTO toolsets (id, name, version, installed_at, source_type, manifest_version) \
                 VALUES (?, ?, '1.0.0', '2026-01-01T00:00:00.000Z', 'zip', '1')",
            )
            .bind(&id)
            .bind(&id)
            .execute(&mut *tx)
            .await?;
            for j in 0..TOOLS_PER_TOOLSET {
                sqlx::query(
                    "INSERT INTO tools (tool_id, toolset_id, name, description, input_schema, entrypoint) \
                     VALUES (?, ?, ?, ?, ?, 'tools.x:run')",
                )
                .bind(format!("{id}:{}", tool_name(j)))
                .bind(&id)
                .bind(tool_name(j))
                .bind(format!("Tool {j} of toolset {k}: does one thing well"))
                .bind(schema(j).to_string())
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        let mut times = Vec::with_capacity(runs);
        for _ in 0..=runs {
            let start = Instant::now();
            let rows = app.toolsets().tools().await?;
            times.push(start.elapsed());
            ensure!(rows.len() >= n, "read {} rows, expected {n}", rows.len());
        }
        times.remove(0);
        times.sort();
        app.close().await;
        Ok(times[times.len() / 2])
    })
}

pub(crate) fn run(runs: usize) -> Result<()> {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let reference = time_reading_rows(10_000, runs)?;
    println!(
        "operation                                        ours (ms)  reference                 ref (ms)  ratio  target  ok"
    );
    let mut per_tool = Vec::new();
    for n in [1_000, 10_000, 100_000] {
        let (t, count) = time_resolution(n, if n == 100_000 { runs.min(5) } else { runs })?;
        per_tool.push(t.as_secs_f64() / n as f64);
        if n == 10_000 {
            let ratio = t.as_secs_f64() / reference.as_secs_f64();
            println!(
                "resolve 100 patterns + OpenAI exposure, 10k {:>10.2}  read 10,000 tool rows {:>11.2}  {ratio:>5.2}   ≤0.50  {}",
                ms(t),
                ms(reference),
                if ratio <= 0.5 { "yes" } else { "no" }
            );
        }
        println!(
            "  pool of {n:>7} tools: {:>8.2} ms, {:>6.0} ns per pool tool, {count} tools resolved",
            ms(t),
            t.as_secs_f64() / n as f64 * 1e9
        );
    }
    let growth = per_tool[2] / per_tool[0];
    println!(
        "time per tool at 100k / at 1k                    {growth:>5.2}                                        ≤1.50  {}",
        if growth <= 1.5 { "yes" } else { "no" }
    );
    Ok(())
}
