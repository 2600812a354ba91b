//! Workers: one per (toolset, chat), warm, restarted when the toolset changes.

use std::time::UNIX_EPOCH;

use anyhow::{Context as _, Result, ensure};
use atelier_core::tools::CallControl;
use atelier_core::toolsets::ImportOptions;
use serde_json::{Value, json};

use crate::{Env, run_in, succeeded, tool};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toolsets_with_the_same_module_names_do_not_share_modules() -> Result<()> {
    let env = Env::new().await?;
    let main = "from tools import common\n\n\ndef who(workspace):\n    return {\"who\": common.WHO}\n";
    for id in ["alpha", "beta"] {
        let common = format!("WHO = \"{id}\"\n");
        let tools = json!([tool("who", "tools.main:who", json!({}))]);
        env.install(id, tools, &[("tools/main.py", main), ("tools/common.py", &common)])
            .await?;
    }
    let chat = env.chat().await?;
    for id in ["alpha", "beta", "alpha", "beta"] {
        let call = env.run(&chat, &format!("{id}:who"), json!({})).await?;
        assert_eq!(succeeded(&call)?["who"], id);
    }
    Ok(())
}

const NAP: &str = r#"import time


def nap(workspace, tag):
    start = time.time()
    time.sleep(1)
    return {"tag": tag, "start": start, "end": time.time()}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chats_run_in_parallel_while_calls_of_one_chat_take_turns() -> Result<()> {
    let env = Env::new().await?;
    let tools = json!([tool("nap", "tools.nap:nap", json!({"tag": {"type": "string"}}))]);
    env.install("nap", tools, &[("tools/nap.py", NAP)]).await?;
    let (a, b) = (env.chat().await?, env.chat().await?);
    let calls = [(&a, "a1"), (&a, "a2"), (&b, "b1"), (&b, "b2")].map(|(chat, tag)| {
        let (app, chat) = (env.app.clone(), chat.clone());
        tokio::spawn(async move {
            let call = run_in(&app, &chat, "nap:nap", json!({"tag": tag}), CallControl::default()).await?;
            let r = succeeded(&call)?;
            let span = (r["start"].as_f64(), r["end"].as_f64());
            Ok::<_, anyhow::Error>((span.0.context("start")?, span.1.context("end")?))
        })
    });
    let mut spans = Vec::new();
    for c in calls {
        spans.push(c.await??);
    }
    let overlap = |x: (f64, f64), y: (f64, f64)| x.0 < y.1 && y.0 < x.1;
    assert!(!overlap(spans[0], spans[1]), "chat A's calls overlapped: {spans:?}");
    assert!(!overlap(spans[2], spans[3]), "chat B's calls overlapped: {spans:?}");
    let parallel = [(0, 2), (0, 3), (1, 2), (1, 3)]
        .iter()
        .any(|&(i, j)| overlap(spans[i], spans[j]));
    assert!(parallel, "no call of A ran while one of B did: {spans:?}");
    Ok(())
}

/// v1 and v2 differ in one word of the same length: a changed constant.
fn counter(version: &str) -> String {
    format!(
        "COUNT = 0\nVERSION = \"{version}\"\n\n\ndef bump(workspace):\n    global COUNT\n    COUNT += 1\n    return {{\"count\": COUNT, \"version\": VERSION}}\n"
    )
}

async fn counter_env() -> Result<(Env, Value)> {
    let env = Env::new().await?;
    let tools = json!([tool("bump", "tools.count:bump", json!({}))]);
    env.install("count", tools.clone(), &[("tools/count.py", &counter("one"))])
        .await?;
    Ok((env, tools))
}

async fn bump(env: &Env, chat: &str) -> Result<(i64, String)> {
    let call = env.run(chat, "count:bump", json!({})).await?;
    let r = succeeded(&call)?;
    Ok((
        r["count"].as_i64().context("count")?,
        r["version"].as_str().context("version")?.to_owned(),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn module_state_stays_warm_per_chat() -> Result<()> {
    let (env, _) = counter_env().await?;
    let (a, b) = (env.chat().await?, env.chat().await?);
    assert_eq!(bump(&env, &a).await?.0, 1);
    assert_eq!(bump(&env, &a).await?.0, 2);
    assert_eq!(bump(&env, &b).await?.0, 1, "chat B has its own module state");
    assert_eq!(bump(&env, &a).await?.0, 3, "chat A's worker stayed warm");
    Ok(())
}

/// `scope: shared`: one worker (one module state) for every chat, never
/// stopped by a chat; each call still works in its own chat's workspace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_toolset_keeps_one_module_state_for_every_chat() -> Result<()> {
    let env = Env::new().await?;
    let code = format!(
        "{}

def where(workspace):
    import os
    (workspace / 'mine.txt').write_text('here')
    return {{\"cwd\": os.getcwd()}}
",
        counter("one")
    );
    let tools = json!([
        tool("bump", "tools.count:bump", json!({})),
        tool("where", "tools.count:where", json!({})),
    ]);
    let dir = env.write_toolset("count", "1.0.0", &tools, &[("tools/count.py", &code)])?;
    let yaml = std::fs::read_to_string(dir.join("toolset.yaml"))?;
    std::fs::write(dir.join("toolset.yaml"), format!("{yaml}scope: shared\n"))?;
    env.app.toolsets().import(&dir, &ImportOptions::default()).await?;

    let (a, b) = (env.chat().await?, env.chat().await?);
    assert_eq!(bump(&env, &a).await?.0, 1);
    assert_eq!(bump(&env, &b).await?.0, 2, "chat B shares chat A's module state");
    let at_b = env.run(&b, "count:where", json!({})).await?;
    let cwd = succeeded(&at_b)?["cwd"].as_str().context("cwd")?.to_owned();
    assert_eq!(
        std::path::Path::new(&cwd),
        env.app.workspace_dir(&b),
        "B's call works in B's workspace"
    );
    assert!(env.paths_at(&b, None).await?.contains(&"mine.txt".to_owned()));
    assert!(!env.app.workspace_dir(&a).join("mine.txt").exists());

    env.app.chats().delete(&a).await?;
    assert_eq!(
        bump(&env, &b).await?.0,
        3,
        "deleting a chat did not stop the shared worker"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disabling_and_enabling_a_toolset_restarts_its_code() -> Result<()> {
    let (env, _) = counter_env().await?;
    let chat = env.chat().await?;
    assert_eq!(bump(&env, &chat).await?.0, 1);
    assert_eq!(bump(&env, &chat).await?.0, 2);
    env.app.toolsets().set_enabled("count", false).await?;
    let refused = env.run(&chat, "count:bump", json!({})).await;
    let said = refused.as_ref().map_err(ToString::to_string).err().unwrap_or_default();
    assert!(
        said.contains("is disabled"),
        "a disabled toolset's tool ran: {refused:?}"
    );
    env.app.toolsets().set_enabled("count", true).await?;
    assert_eq!(bump(&env, &chat).await?.0, 1, "a fresh worker");
    Ok(())
}

/// Whether test `name` ran (and passed) in a child process that writes
/// bytecode, as users' Pythons do: `false` when this process already does.
/// (This sandbox sets `PYTHONDONTWRITEBYTECODE`, which hides stale `.pyc`.)
fn rerun_writing_bytecode(name: &str) -> Result<bool> {
    if std::env::var_os("PYTHONDONTWRITEBYTECODE").is_none() {
        return Ok(false);
    }
    let out = std::process::Command::new(std::env::current_exe()?)
        .args(["--exact", name, "--nocapture"])
        .env_remove("PYTHONDONTWRITEBYTECODE")
        .output()?;
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    ensure!(
        out.status.success() && stdout.contains("1 passed"),
        "{name} failed with bytecode on:\n{stdout}\n{stderr}"
    );
    Ok(true)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upgrading_a_toolset_runs_its_new_code_even_edited_within_the_second() -> Result<()> {
    if rerun_writing_bytecode("workers::upgrading_a_toolset_runs_its_new_code_even_edited_within_the_second")? {
        return Ok(());
    }
    let (env, tools) = counter_env().await?;
    let chat = env.chat().await?;
    assert_eq!(bump(&env, &chat).await?, (1, "one".to_owned()));
    assert_eq!(bump(&env, &chat).await?.0, 2);
    // The author changes one word and the version, and saves within the
    // same second as the first version (same size, same whole-second mtime).
    let file = env.tmp.path().join("src/count/tools/count.py");
    let then = std::fs::metadata(&file)?.modified()?.duration_since(UNIX_EPOCH)?;
    let dir = env.write_toolset("count", "2.0.0", &tools, &[("tools/count.py", &counter("two"))])?;
    let same_second = UNIX_EPOCH + then;
    std::fs::File::options()
        .write(true)
        .open(&file)?
        .set_modified(same_second)?;
    env.app.toolsets().import(&dir, &ImportOptions::default()).await?;
    assert_eq!(bump(&env, &chat).await?, (1, "two".to_owned()), "the new code, fresh");
    Ok(())
}

/// Workers beyond the cap stop the least recently used idle one, which
/// shows as its chat's module state starting over. (The idle timeout is the
/// default five minutes, so only the cap can stop a worker here.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cap_stops_the_least_recently_used_idle_worker() -> Result<()> {
    let env = Env::with(|s| s.max_workers = 1).await?;
    let tools = json!([tool("bump", "tools.count:bump", json!({}))]);
    env.install("count", tools, &[("tools/count.py", &counter("one"))])
        .await?;
    let (a, b) = (env.chat().await?, env.chat().await?);
    assert_eq!(bump(&env, &a).await?.0, 1);
    assert_eq!(bump(&env, &a).await?.0, 2);
    assert_eq!(env.app.idle_python_workers(), 1);
    assert_eq!(bump(&env, &b).await?.0, 1);
    assert_eq!(env.app.idle_python_workers(), 1, "the cap is one worker");
    assert_eq!(bump(&env, &a).await?.0, 1, "chat A's worker was stopped to make room");
    Ok(())
}

/// An idle worker stops once the idle timeout passes, with no call needed
/// to notice; the next call starts a fresh one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_workers_stop_after_the_idle_timeout() -> Result<()> {
    let env = Env::with(|s| s.idle_timeout = std::time::Duration::from_millis(400)).await?;
    let tools = json!([tool("bump", "tools.count:bump", json!({}))]);
    env.install("count", tools, &[("tools/count.py", &counter("one"))])
        .await?;
    let a = env.chat().await?;
    assert_eq!(bump(&env, &a).await?.0, 1);
    let waited = std::time::Instant::now();
    while env.app.idle_python_workers() > 0 {
        ensure!(waited.elapsed().as_secs() < 10, "the idle worker was never stopped");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(bump(&env, &a).await?.0, 1, "a fresh worker after the idle stop");
    Ok(())
}

/// The desktop app's hot reload: every local toolset is watched; an edit
/// reloads it (a new pool snapshot, the next call runs the new code in a
/// fresh worker), a broken edit — a manifest error or a Python syntax
/// error — keeps the last good version running and is reported with its
/// error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_apps_live_reload_runs_edited_local_code_and_keeps_the_last_good_version() -> Result<()> {
    use atelier_core::toolsets::live::{LiveReload, ReloadStatus};
    let (env, _) = counter_env().await?; // imported from its folder: `local`
    let chat = env.chat().await?;
    assert_eq!(bump(&env, &chat).await?, (1, "one".to_owned()));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ReloadStatus>();
    let live = LiveReload::new(env.app.clone(), move |s| {
        let _ = tx.send(s.clone());
    });
    live.watch_all().await?;
    ensure!(live.watching() == ["count"], "{:?}", live.watching());
    // The next reload for which `want` holds (editors may cause several).
    let wait = async |rx: &mut tokio::sync::mpsc::UnboundedReceiver<ReloadStatus>,
                      want: fn(&ReloadStatus) -> bool|
           -> Result<ReloadStatus> {
        loop {
            let s = tokio::time::timeout(std::time::Duration::from_secs(20), rx.recv())
                .await?
                .context("the watch ended")?;
            if want(&s) {
                return Ok(s);
            }
        }
    };
    let first = wait(&mut rx, |_| true).await?;
    ensure!(
        first.error.is_none() && first.version.as_deref() == Some("1.0.0"),
        "{first:?}"
    );
    let before = env.app.routing().snapshot().await?.generation;

    let code = env.tmp.path().join("src/count/tools/count.py");
    std::fs::write(&code, counter("two"))?;
    wait(&mut rx, |s| s.error.is_none()).await?;
    assert_eq!(
        bump(&env, &chat).await?,
        (1, "two".to_owned()),
        "the new code, in a fresh worker"
    );
    ensure!(
        env.app.routing().snapshot().await?.generation > before,
        "the pool was rebuilt"
    );

    // A syntax error in the code: found before it replaces anything, named
    // by file and line; the last good code still answers.
    std::fs::write(&code, format!("{}\ndef broken(:\n", counter("three")))?;
    let broken = wait(&mut rx, |s| s.error.is_some()).await?;
    let said = broken.error.clone().unwrap_or_default();
    ensure!(
        // file:line:column, then the line itself.
        said.contains("SyntaxError") && said.contains("tools/count.py:") && said.contains("| def broken(:"),
        "the error names the file and line: {said}"
    );
    assert_eq!(bump(&env, &chat).await?.1, "two", "a broken module never runs");
    std::fs::write(&code, counter("two"))?;
    wait(&mut rx, |s| s.error.is_none()).await?;

    let yaml = env.tmp.path().join("src/count/toolset.yaml");
    std::fs::write(&yaml, "manifest_version: \"1\"\nid: count\ntools: [oops\n")?;
    let broken = wait(&mut rx, |s| s.error.is_some()).await?;
    let said = broken.error.clone().unwrap_or_default();
    ensure!(said.contains("toolset.yaml"), "the error names the file: {broken:?}");
    assert_eq!(bump(&env, &chat).await?.1, "two", "the last good version still runs");
    ensure!(
        live.status() == [broken],
        "the manager shows the error: {:?}",
        live.status()
    );

    live.stop("count");
    ensure!(live.watching().is_empty() && live.status().is_empty());
    Ok(())
}
