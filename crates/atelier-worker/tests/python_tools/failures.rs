//! Calls that fail: exceptions, timeouts, crashes, cancels, escaping processes.

use std::time::Duration;

use anyhow::{Context as _, Result, ensure};
use atelier_core::tools::CallControl;
use serde_json::json;

use crate::{Env, failed, run_in, succeeded, tool, tool_with};

const BOOM: &str = r#"import sys


def explode(workspace):
    (workspace / "partial.txt").write_text("half done")
    print("about to fail", file=sys.stderr)
    raise ValueError("disk is lava")
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exception_keeps_its_traceback_output_and_partial_files() -> Result<()> {
    let env = Env::new().await?;
    let tools = json!([tool("explode", "tools.boom:explode", json!({}))]);
    env.install("boom", tools, &[("tools/boom.py", BOOM)]).await?;
    let chat = env.chat().await?;

    let call = env.run(&chat, "boom:explode", json!({})).await?;
    let error = failed(&call, "exception")?;
    assert!(error.starts_with("ValueError: disk is lava"), "{error}");
    assert!(error.contains("Traceback (most recent call last)"), "{error}");
    assert!(error.contains("tools/boom.py\", line 7, in explode"), "{error}");
    assert!(error.contains("raise ValueError(\"disk is lava\")"), "{error}");
    assert!(!error.contains("atelier_runner"), "runner frames are hidden: {error}");
    assert_eq!(call.stderr.as_deref(), Some("about to fail\n"));
    let plan = call.render_plan.as_ref().context("plan")?;
    assert_eq!(plan.renderer, "error");
    assert!(
        plan.config["traceback"]
            .as_str()
            .is_some_and(|t| t.contains("in explode"))
    );
    // What it wrote before raising is kept, as a state of the chat.
    let post = call.post_manifest_id.as_deref();
    assert_eq!(env.file_at(&chat, "partial.txt", post).await?, "half done");
    assert_ne!(call.pre_manifest_id, call.post_manifest_id);
    // The plan names it, for the model told of the failure (it may
    // otherwise think nothing was written).
    assert_eq!(plan.config["changed"], json!(["partial.txt"]));
    assert_eq!(plan.config["changed_count"], 1);
    Ok(())
}

const LOOPS: &str = r#"import time


def spin(workspace):
    while True:
        pass


def nap(workspace):
    time.sleep(30)
    return {}


def ok(workspace):
    return {"ok": True}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_kills_the_call_and_the_next_call_works() -> Result<()> {
    let env = Env::new().await?;
    let tools = json!([
        tool_with("spin", "tools.loops:spin", json!({}), json!({"timeout_s": 1})),
        tool("nap", "tools.loops:nap", json!({})),
        tool("ok", "tools.loops:ok", json!({})),
    ]);
    env.install("loops", tools, &[("tools/loops.py", LOOPS)]).await?;
    let chat = env.chat().await?;

    let call = env.run(&chat, "loops:spin", json!({})).await?;
    assert_eq!(failed(&call, "timeout")?, "timed out after 1 s");
    assert!(call.post_manifest_id.is_some() && call.node_id.is_some());
    let next = env.run(&chat, "loops:ok", json!({})).await?;
    assert_eq!(succeeded(&next)?, &json!({"ok": true}));

    let control = CallControl {
        timeout: Some(Duration::from_millis(500)),
        ..Default::default()
    };
    let call = run_in(&env.app, &chat, "loops:nap", json!({}), control).await?;
    assert_eq!(failed(&call, "timeout")?, "timed out after 0.5 s");
    succeeded(&env.run(&chat, "loops:ok", json!({})).await?)?;
    Ok(())
}

const CRASH: &str = r#"import ctypes
import os


def segfault(workspace):
    print("last words")
    ctypes.string_at(0)


def exit3(workspace):
    os._exit(3)


def ok(workspace):
    return {"pid": os.getpid()}
"#;

async fn crash_env() -> Result<(Env, String)> {
    let env = Env::new().await?;
    let tools = json!([
        tool("segfault", "tools.crash:segfault", json!({})),
        tool("exit3", "tools.crash:exit3", json!({})),
        tool("ok", "tools.crash:ok", json!({})),
    ]);
    env.install("crash", tools, &[("tools/crash.py", CRASH)]).await?;
    let chat = env.chat().await?;
    Ok((env, chat))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_segfault_is_a_crash_that_keeps_output_and_spares_the_next_call() -> Result<()> {
    let (env, chat) = crash_env().await?;
    let before = env.run(&chat, "crash:ok", json!({})).await?;
    let call = env.run(&chat, "crash:segfault", json!({})).await?;
    let error = failed(&call, "crash")?;
    assert!(error.contains("signal 11"), "{error}");
    assert_eq!(call.stdout.as_deref(), Some("last words\n"));
    let stderr = call.stderr.as_deref().unwrap_or_default();
    assert!(stderr.contains("Segmentation fault"), "faulthandler's report: {stderr}");
    // This process is fine, and the chat gets a new worker.
    let after = env.run(&chat, "crash:ok", json!({})).await?;
    assert_ne!(succeeded(&after)?["pid"], succeeded(&before)?["pid"]);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn os_exit_is_a_crash_with_its_exit_code() -> Result<()> {
    let (env, chat) = crash_env().await?;
    let call = env.run(&chat, "crash:exit3", json!({})).await?;
    let error = failed(&call, "crash")?;
    assert!(error.contains("exit code 3"), "{error}");
    succeeded(&env.run(&chat, "crash:ok", json!({})).await?)?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_call_can_be_cancelled_and_the_next_call_works() -> Result<()> {
    let env = Env::new().await?;
    env.install(
        "slow",
        json!([
            tool("nap", "tools.slow:nap", json!({})),
            tool("ping", "tools.slow:ping", json!({})),
        ]),
        &[(
            "tools/slow.py",
            // The file appears after the flushed print, so once the test
            // sees it the output is already in the pipe.
            "import time\n\ndef nap(workspace):\n    print('napping', flush=True)\n    \
             (workspace / 'started.txt').write_text('yes')\n    time.sleep(30)\n    return {}\n\n\
             def ping(workspace):\n    return {'pong': True}\n",
        )],
    )
    .await?;
    let chat = env.chat().await?;
    let app = env.app.clone();
    let c = chat.clone();
    let call = tokio::spawn(async move { run_in(&app, &c, "slow:nap", json!({}), Default::default()).await });
    // Wait until the call runs, then cancel it by its id.
    let started = std::time::Instant::now();
    let id = loop {
        let running: Option<String> = sqlx::query_scalar("SELECT id FROM tool_calls WHERE status = 'running'")
            .fetch_optional(env.app.db())
            .await?;
        if let Some(id) = running
            && env.app.workspace_dir(&chat).join("started.txt").exists()
        {
            break id;
        }
        ensure!(started.elapsed().as_secs() < 20, "the call never started");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    ensure!(env.app.tools().cancel(&id), "the call is running in this process");
    let cancelled = call.await??;
    ensure!(
        cancelled.status == atelier_core::tools::CallStatus::Cancelled,
        "{cancelled:#?}"
    );
    ensure!(cancelled.error_kind.map(atelier_core::tools::ErrorKind::as_str) == Some("cancelled"));
    ensure!(
        cancelled.stdout.as_deref() == Some("napping\n"),
        "{:?}",
        cancelled.stdout
    );
    let post = cancelled.post_manifest_id.as_deref();
    ensure!(
        env.paths_at(&chat, post).await? == ["started.txt"],
        "partial changes are kept"
    );
    ensure!(!env.app.tools().cancel(&id), "a finished call cannot be cancelled");
    let next = env.run(&chat, "slow:ping", json!({})).await?;
    ensure!(succeeded(&next)?["pong"] == true);
    Ok(())
}

/// A tool that closes the worker's stdout and stderr does not take the
/// worker down with it: the call is answered and the next call works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_closes_its_output_is_still_answered() -> Result<()> {
    let env = Env::new().await?;
    env.install(
        "rude",
        json!([
            tool("close", "tools.rude:close", json!({})),
            tool("ping", "tools.rude:ping", json!({}))
        ]),
        &[(
            "tools/rude.py",
            "import os\n\ndef close(workspace):\n    print('bye', flush=True)\n    os.close(1)\n    os.close(2)\n    \
             return {'closed': True}\n\ndef ping(workspace):\n    return {'pong': True}\n",
        )],
    )
    .await?;
    let chat = env.chat().await?;
    let call = env.run(&chat, "rude:close", json!({})).await?;
    ensure!(succeeded(&call)?["closed"] == true);
    ensure!(call.stdout.as_deref() == Some("bye\n"), "{:?}", call.stdout);
    ensure!(succeeded(&env.run(&chat, "rude:ping", json!({})).await?)?["pong"] == true);
    Ok(())
}

const ENVIRON: &str = r#"import os
import subprocess
import tempfile


def environ(workspace):
    child = subprocess.run(["env"], capture_output=True, text=True).stdout
    return {"env": dict(os.environ), "child": child, "tmp": tempfile.gettempdir()}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_sees_a_minimal_environment_and_its_own_tmpdir() -> Result<()> {
    // Cargo gives this test process CARGO_* variables (and a real app would
    // have a provider's key): none of them may reach a tool.
    ensure!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    let env = Env::new().await?;
    let tools = json!([tool("environ", "tools.environ:environ", json!({}))]);
    env.install("envy", tools, &[("tools/environ.py", ENVIRON)]).await?;
    let chat = env.chat().await?;
    let call = env.run(&chat, "envy:environ", json!({})).await?;
    let ret = succeeded(&call)?;
    let vars = ret["env"].as_object().context("env")?;
    let leaked: Vec<&String> = vars
        .keys()
        .filter(|k| k.starts_with("CARGO") || k.starts_with("RUST"))
        .collect();
    ensure!(leaked.is_empty(), "the tool saw {leaked:?}");
    ensure!(vars.contains_key("PATH"), "{vars:?}");
    let child = ret["child"].as_str().context("child")?;
    ensure!(
        !child.contains("CARGO_MANIFEST_DIR"),
        "a subprocess of the tool saw the app's environment"
    );
    let tmp = ret["tmp"].as_str().context("tmp")?;
    ensure!(
        tmp.contains(&chat) && tmp.ends_with("/tmp/envy"),
        "its own TMPDIR: {tmp}"
    );
    Ok(())
}

const FORGER: &str = r#"import json
import os
import time


def forge(workspace):
    # The marker is no longer in the environment; a guess costs nothing.
    marker = json.loads(os.environ.get("ATELIER_WORKER_CONFIG", "{}")).get("marker", "") or "\x1eatelier-end\x1e"
    leaked = [k for k, v in os.environ.items() if "marker" in v]
    fake = json.dumps({"ev": "done", "id": "forged", "outcome": {"status": "ok", "value": {"forged": True}}})
    for fd in range(3, 64):
        try:
            os.write(fd, (fake + "\n").encode())
        except OSError:
            pass
    print(marker, flush=True)
    time.sleep(0.3)
    print("still running", flush=True)
    return {"real": True, "leaked": leaked}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_answer_on_the_channel_does_not_end_the_call() -> Result<()> {
    let env = Env::new().await?;
    let tools = json!([tool("forge", "tools.forger:forge", json!({}))]);
    env.install("forger", tools, &[("tools/forger.py", FORGER)]).await?;
    let chat = env.chat().await?;
    let call = env.run(&chat, "forger:forge", json!({})).await?;
    assert_eq!(
        succeeded(&call)?,
        &json!({"real": true, "leaked": []}),
        "the real return is recorded, and no variable held the worker's settings"
    );
    Ok(())
}

/// Starts, and records the pids of, two processes that leave the worker's
/// process group: a `start_new_session` child, and a classic daemon (fork,
/// `setsid`, fork again, the middle one exits so init would adopt it).
const ESCAPE: &str = r#"import os
import subprocess
import time


def _escape(workspace):
    child = subprocess.Popen(["sleep", "300"], start_new_session=True)
    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(w, str(os.getpid()).encode())
            os.close(w)
            time.sleep(300)
        os._exit(0)
    os.close(w)
    daemon = int(os.read(r, 32))
    (workspace / "pids.txt").write_text(f"{child.pid} {daemon}")


def hang(workspace):
    _escape(workspace)
    time.sleep(30)


def leave(workspace):
    _escape(workspace)
    return {}
"#;

/// Whether `pid` is a live process (a zombie waiting for its reaper is not).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(')').map(|(_, rest)| rest.trim_start().to_owned()))
        .is_some_and(|rest| !rest.starts_with('Z'))
}

async fn pids_of(env: &Env, chat: &str) -> Result<Vec<u32>> {
    let ws = env.app.workspace_dir(chat);
    let text = std::fs::read_to_string(ws.join("pids.txt"))?;
    Ok(text.split(' ').map(str::parse).collect::<Result<_, _>>()?)
}

async fn all_gone(pids: &[u32]) -> bool {
    for _ in 0..100 {
        if !pids.iter().any(|&p| alive(p)) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_kills_even_the_processes_that_left_the_tools_group() -> Result<()> {
    let env = Env::new().await?;
    let tools = json!([tool_with(
        "hang",
        "tools.escape:hang",
        json!({}),
        json!({"timeout_s": 2})
    )]);
    env.install("escape", tools, &[("tools/escape.py", ESCAPE)]).await?;
    let chat = env.chat().await?;
    let call = env.run(&chat, "escape:hang", json!({})).await?;
    assert_eq!(failed(&call, "timeout")?, "timed out after 2 s");
    let pids = pids_of(&env, &chat).await?;
    ensure!(pids.len() == 2 && pids.iter().all(|&p| p > 1), "two pids: {pids:?}");
    ensure!(all_gone(&pids).await, "a setsid child outlived the timeout: {pids:?}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daemon_a_tool_left_behind_dies_with_its_idle_worker() -> Result<()> {
    let env = Env::with(|s| s.idle_timeout = Duration::from_millis(400)).await?;
    let tools = json!([tool("leave", "tools.escape:leave", json!({}))]);
    env.install("escape", tools, &[("tools/escape.py", ESCAPE)]).await?;
    let chat = env.chat().await?;
    succeeded(&env.run(&chat, "escape:leave", json!({})).await?)?;
    let pids = pids_of(&env, &chat).await?;
    ensure!(
        pids.iter().all(|&p| alive(p)),
        "a warm worker keeps what its tool started"
    );
    let waited = std::time::Instant::now();
    while env.app.idle_python_workers() > 0 {
        ensure!(waited.elapsed().as_secs() < 10, "the idle worker was never stopped");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    ensure!(all_gone(&pids).await, "a daemon outlived its worker: {pids:?}");
    Ok(())
}
