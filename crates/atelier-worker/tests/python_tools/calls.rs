//! Calls that run: results, render plans, argument checks, output.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use atelier_core::tools::{CallControl, OutputStream as Stream, RunEvent};
use serde_json::json;

use crate::{Env, failed, run_in, succeeded, tool, tool_with};

const GREET: &str = r#"
def greet(workspace, name):
    print(f"greeting {name}")
    (workspace / f"{name}.txt").write_text(f"Hello, {name}\n")
    return {"greeting": f"Hello, {name}", "letters": len(name)}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_returns_json_renders_args_and_return_and_records_its_files() -> Result<()> {
    let env = Env::new().await?;
    let props = json!({"name": {"type": "string"}});
    let doc = json!({"renderer": {"type": "document", "content": "# $args.name: $return.greeting"}});
    let code = json!({"renderer": {"type": "code", "file": "${args.name}.txt", "language": "text"}});
    let tools = json!([
        tool_with("greet_doc", "tools.greet:greet", props.clone(), doc),
        tool_with("greet_code", "tools.greet:greet", props, code),
    ]);
    env.install("hello", tools, &[("tools/greet.py", GREET)]).await?;
    let chat = env.chat().await?;

    let call = env.run(&chat, "hello:greet_doc", json!({"name": "Ada"})).await?;
    assert_eq!(succeeded(&call)?, &json!({"greeting": "Hello, Ada", "letters": 3}));
    let plan = call.render_plan.as_ref().context("plan")?;
    assert_eq!(plan.renderer, "document");
    assert_eq!(plan.config["content"], "# Ada: Hello, Ada");
    assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
    assert_eq!(call.stdout.as_deref(), Some("greeting Ada\n"));
    assert_eq!(plan.manifest_id, call.post_manifest_id);
    assert_ne!(call.pre_manifest_id, call.post_manifest_id);
    assert!(call.node_id.is_some());
    let post = call.post_manifest_id.as_deref();
    assert_eq!(env.file_at(&chat, "Ada.txt", post).await?, "Hello, Ada\n");

    let call = env.run(&chat, "hello:greet_code", json!({"name": "Grace"})).await?;
    succeeded(&call)?;
    let plan = call.render_plan.as_ref().context("plan")?;
    assert_eq!(plan.renderer, "code");
    assert_eq!(plan.config["file"], "Grace.txt");
    let file = plan.config["file"].as_str().context("file")?;
    let shown = env.file_at(&chat, file, plan.manifest_id.as_deref()).await?;
    assert_eq!(shown, "Hello, Grace\n");
    assert_eq!(
        env.paths_at(&chat, plan.manifest_id.as_deref()).await?,
        ["Ada.txt", "Grace.txt"]
    );
    Ok(())
}

const STRICT: &str = r#"
def make(workspace, name, count=1):
    (workspace / "ran.txt").write_text(f"{name} x{count}")
    return {"made": name}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_are_checked_before_the_function_runs() -> Result<()> {
    let env = Env::new().await?;
    let props = json!({"name": {"type": "string"}, "count": {"type": "integer", "minimum": 1}});
    let loose = json!({"input_schema": {"type": "object", "properties": props.clone(), "required": ["name"]}});
    let strict = json!({"input_schema": {
        "type": "object", "properties": props.clone(), "required": ["name"], "additionalProperties": false,
    }});
    let tools = json!([
        tool_with("strict", "tools.make:make", props.clone(), strict),
        tool_with("loose", "tools.make:make", props, loose),
    ]);
    env.install("mk", tools, &[("tools/make.py", STRICT)]).await?;
    let chat = env.chat().await?;

    let call = env
        .run(&chat, "mk:strict", json!({"count": 0, "colour": "red"}))
        .await?;
    let error = failed(&call, "invalid_args")?;
    assert!(error.contains("/count: 0 is less than the minimum of 1"), "{error}");
    assert!(error.contains("/: \"name\" is a required property"), "{error}");
    assert!(error.contains("colour"), "{error}");
    assert!(
        !env.paths_at(&chat, call.post_manifest_id.as_deref())
            .await?
            .contains(&"ran.txt".to_owned())
    );

    // The schema lets `colour` through; `make` has no such parameter.
    let call = env
        .run(&chat, "mk:loose", json!({"name": "x", "colour": "red"}))
        .await?;
    let error = failed(&call, "invalid_args")?;
    assert!(error.contains("'colour'"), "{error}");
    assert!(env.paths_at(&chat, call.post_manifest_id.as_deref()).await?.is_empty());
    assert!(!env.app.workspace_dir(&chat).join("ran.txt").exists());

    // The same tool with fitting arguments does run.
    succeeded(&env.run(&chat, "mk:loose", json!({"name": "x", "count": 2})).await?)?;
    assert_eq!(env.file_at(&chat, "ran.txt", None).await?, "x x2");
    Ok(())
}

const NOISY: &str = r#"import os
import subprocess
import time


def chatty(workspace):
    print("first line")
    time.sleep(0.5)
    print("second line")
    return {}


def flood(workspace):
    print("y" * 200_000)
    return {}


def others(workspace):
    subprocess.run(["echo", "from child"], check=True)
    os.write(1, b"raw\n")
    os.write(2, b"raw err\n")
    return {}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_streams_live_is_capped_and_includes_children_and_c() -> Result<()> {
    let env = Env::with(|s| s.output_cap = 64 * 1024).await?;
    let tools = json!([
        tool("chatty", "tools.noisy:chatty", json!({})),
        tool("flood", "tools.noisy:flood", json!({})),
        tool("others", "tools.noisy:others", json!({})),
    ]);
    env.install("noisy", tools, &[("tools/noisy.py", NOISY)]).await?;
    let chat = env.chat().await?;

    let seen: Arc<Mutex<Vec<(Instant, Stream, String)>>> = Arc::default();
    let log = seen.clone();
    let control = CallControl::with_events(move |event| {
        if let (RunEvent::Output { stream, text }, Ok(mut l)) = (event, log.lock()) {
            l.push((Instant::now(), stream, text));
        }
    });
    let call = run_in(&env.app, &chat, "noisy:chatty", json!({}), control).await?;
    let returned = Instant::now();
    succeeded(&call)?;
    assert_eq!(call.stdout.as_deref(), Some("first line\nsecond line\n"));
    let seen = seen.lock().map_err(|_| anyhow::anyhow!("poisoned"))?.clone();
    let arrival = |what: &str| {
        seen.iter()
            .find(|(_, s, t)| *s == Stream::Stdout && t.contains(what))
            .map(|(at, _, _)| *at)
            .with_context(|| format!("the listener never saw {what:?}: {seen:?}"))
    };
    let (first, second) = (arrival("first line")?, arrival("second line")?);
    // Python sleeps 0.5 s between the lines: streamed, they arrive apart,
    // and the first well before the call returns.
    let apart = Duration::from_millis(250);
    assert!(
        second.duration_since(first) >= apart,
        "the lines came together: {seen:?}"
    );
    assert!(
        returned.duration_since(first) >= apart,
        "the first line came at the end: {seen:?}"
    );

    let call = env.run(&chat, "noisy:flood", json!({})).await?;
    succeeded(&call)?;
    let out = call.stdout.as_deref().context("stdout")?;
    assert!(out.starts_with(&"y".repeat(64 * 1024)), "{}", &out[..100]);
    assert!(
        out.ends_with("[… 134465 more bytes not kept: output is capped at 65536 bytes per stream]"),
        "{}",
        &out[64 * 1024..]
    );

    let call = env.run(&chat, "noisy:others", json!({})).await?;
    succeeded(&call)?;
    let out = call.stdout.as_deref().unwrap_or_default();
    assert!(out.contains("from child\n") && out.contains("raw\n"), "{out:?}");
    assert_eq!(call.stderr.as_deref(), Some("raw err\n"));
    Ok(())
}

const SAVE: &str = r#"
def save(workspace, content):
    (workspace / "out.txt").write_text(content)
    return {"size": len(content)}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_keeps_showing_the_file_as_its_call_left_it() -> Result<()> {
    let env = Env::new().await?;
    let renderer = json!({"renderer": {"type": "code", "file": "out.txt"}});
    let tools = json!([tool_with(
        "save",
        "tools.save:save",
        json!({"content": {"type": "string"}}),
        renderer
    )]);
    env.install("save", tools, &[("tools/save.py", SAVE)]).await?;
    let chat = env.chat().await?;
    let first = env.run(&chat, "save:save", json!({"content": "first version"})).await?;
    let second = env
        .run(&chat, "save:save", json!({"content": "second, longer version"}))
        .await?;
    succeeded(&second)?;
    let plan = first.render_plan.as_ref().context("plan")?;
    assert_eq!(plan.config["file"], "out.txt");
    let then = env.file_at(&chat, "out.txt", plan.manifest_id.as_deref()).await?;
    assert_eq!(then, "first version");
    assert_eq!(env.file_at(&chat, "out.txt", None).await?, "second, longer version");
    // Read again later, the stored call still shows the first state.
    let stored = env.app.tools().call(&first.id).await?;
    assert_eq!(stored.render_plan, first.render_plan);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_async_tool_and_a_tool_importing_its_sibling_run_like_any_other() -> Result<()> {
    let env = Env::new().await?;
    let props = json!({"name": {"type": "string"}});
    let tools = json!([
        tool("wait", "tools.waiting:wait", props.clone()),
        tool("hello", "tools.hello:hello", props),
    ]);
    let files = [
        (
            "tools/waiting.py",
            "import asyncio\n\nasync def wait(workspace, name):\n    await asyncio.sleep(0.01)\n    return {\"waited\": name}\n",
        ),
        // Imported by its bare name, as a script beside it would.
        (
            "tools/hello.py",
            "import helpers\n\ndef hello(workspace, name):\n    return {\"said\": helpers.greet(name)}\n",
        ),
        ("tools/helpers.py", "def greet(name):\n    return f\"Hello, {name}\"\n"),
    ];
    env.install("mixed", tools, &files).await?;
    let chat = env.chat().await?;
    let call = env.run(&chat, "mixed:wait", json!({"name": "Ada"})).await?;
    assert_eq!(succeeded(&call)?, &json!({"waited": "Ada"}));
    let call = env.run(&chat, "mixed:hello", json!({"name": "Ada"})).await?;
    assert_eq!(succeeded(&call)?, &json!({"said": "Hello, Ada"}));
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_call_leaves_that_the_workspace_cannot_keep_is_said_on_the_call() -> Result<()> {
    let env = Env::new().await?;
    let code = "import os\n\ndef odd(workspace):\n    (workspace / 'real.txt').write_text('x')\n    \
                os.symlink('real.txt', workspace / 'link.txt')\n    \
                open(os.path.join(os.fsencode(workspace), b'caf\\xe9.txt'), 'w').close()\n    return {}\n";
    env.install(
        "odd",
        json!([tool("odd", "tools.odd:odd", json!({}))]),
        &[("tools/odd.py", code)],
    )
    .await?;
    let chat = env.chat().await?;
    let call = env.run(&chat, "odd:odd", json!({})).await?;
    succeeded(&call)?;
    let warnings = &call.render_plan.as_ref().context("plan")?.warnings;
    assert!(
        warnings.iter().any(|w| w.starts_with("link.txt: skipped, symlinks")),
        "{warnings:?}"
    );
    assert!(warnings.iter().any(|w| w.contains("not valid UTF-8")), "{warnings:?}");
    assert_eq!(
        env.paths_at(&chat, call.post_manifest_id.as_deref()).await?,
        ["real.txt"]
    );
    Ok(())
}
