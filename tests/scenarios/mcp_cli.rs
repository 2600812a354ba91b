//! `atelier mcp …` and `atelier run SERVER:TOOL` as a person would type them,
//! against the real servers scripts/install.sh installs: server-everything
//! (npm, over stdio) and the Python fixture (tests/mcp/fixture_server.py).
//! Every command that connects stops what it started before it exits: after
//! each step no process works in the test's data dir (a shared server's cwd
//! is `<data>/mcp/<id>/`).

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::Env;
use crate::secrets::text;

pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `node …/server-everything/dist/index.js stdio`.
pub(crate) fn everything() -> Vec<String> {
    let js = repo().join("tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(js.exists(), "{} (run scripts/install.sh)", js.display());
    vec!["node".into(), js.display().to_string(), "stdio".into()]
}

/// `.tools/mcp-venv/bin/python tests/mcp/fixture_server.py`.
pub(crate) fn fixture() -> Vec<String> {
    let python = repo().join(".tools/mcp-venv/bin/python");
    assert!(python.exists(), "{} (run scripts/install.sh)", python.display());
    vec![
        python.display().to_string(),
        repo().join("tests/mcp/fixture_server.py").display().to_string(),
    ]
}

/// A bus nobody listens on: commands that store no secret.
pub(crate) const NO_BUS: &str = "unix:path=/nonexistent/atelier-test-bus";

/// Processes working in the data dir or naming it on their command line:
/// servers that outlived the command that started them.
pub(crate) fn left_in(data: &Path) -> Vec<String> {
    let data = data.canonicalize().expect("data dir");
    let needle = data.display().to_string();
    let mut left = Vec::new();
    for e in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        let cwd = std::fs::read_link(e.path().join("cwd")).unwrap_or_default();
        let cmdline = std::fs::read(e.path().join("cmdline"))
            .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
            .unwrap_or_default();
        if cwd.starts_with(&data) || cmdline.contains(&needle) {
            let status = std::fs::read_to_string(e.path().join("status")).unwrap_or_default();
            let field = |k: &str| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix(k))
                    .map(str::trim)
                    .unwrap_or("?")
                    .to_owned()
            };
            left.push(format!(
                "{pid} ({}, parent {}, cwd {}): {cmdline}",
                field("State:"),
                field("PPid:"),
                cwd.display()
            ));
        }
    }
    left
}

/// None left, allowing a process that is already exiting (empty command
/// line) a moment to be gone: a live server never vanishes by itself.
pub(crate) fn assert_none_left(env: &Env, after: &str) {
    let mut left = left_in(env.data());
    for _ in 0..20 {
        if left.is_empty() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        left = left_in(env.data());
    }
    assert_eq!(left, Vec::<String>::new(), "left running after {after}");
}

pub(crate) fn chat(env: &Env) -> String {
    env.json(&["chat", "new", "--title", "mcp"])["id"]
        .as_str()
        .expect("chat id")
        .to_owned()
}

/// `atelier mcp add ID [flags] -- CMD…`.
pub(crate) fn add_args<'a>(id: &'a str, flags: &[&'a str], cmd: &'a [String]) -> Vec<&'a str> {
    let mut a = vec!["mcp", "add", id];
    a.extend_from_slice(flags);
    a.push("--");
    a.extend(cmd.iter().map(String::as_str));
    a
}

pub(crate) fn failed(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(1), "expected exit 1:\n{}", text(o));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_stdio_server_is_added_listed_called_restarted_disabled_and_removed() {
    let env = Env::new();
    let cmd = everything();
    let added = env.ok(&add_args("everything", &["--agent", "assistant"], &cmd));
    assert!(added.contains("Allowed everything to agent assistant."), "{added}");
    assert!(
        added.contains("Added everything: connected to mcp-servers/everything") && added.contains("echo, "),
        "{added}"
    );
    assert_none_left(&env, "mcp add");
    let assistant = env.json(&["agent", "show", "assistant"]);
    assert!(
        assistant["toolsets"]
            .as_array()
            .expect("toolsets")
            .contains(&Value::from("everything")),
        "{assistant}"
    );

    let list = env.json(&["mcp", "list"]);
    let s = &list[0];
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
    assert_eq!(
        (
            s["id"].as_str(),
            s["transport"].as_str(),
            s["scope"].as_str(),
            s["enabled"].as_bool(),
            s["active"].as_bool(),
            s["user_declared"].as_bool(),
        ),
        (
            Some("everything"),
            Some("stdio"),
            Some("shared"),
            Some(true),
            Some(true),
            Some(true)
        ),
        "{s}"
    );
    assert_eq!(s["command"], "node");
    assert_eq!(s["args"][1], "stdio");
    assert_eq!(s["server_name"], "mcp-servers/everything");
    assert!(s["last_error"].is_null() && s["listed_at"].is_string(), "{s}");
    let text_list = env.ok(&["mcp", "list"]);
    assert!(
        text_list.starts_with("everything") && text_list.contains("stdio") && text_list.contains(" ok "),
        "{text_list}"
    );

    let tools = env.json(&["mcp", "tools", "everything"]);
    let echo = tools
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == "echo")
        .expect("echo listed");
    assert_eq!(echo["input_schema"]["properties"]["message"]["type"], "string");
    assert_eq!(echo["read_only"], true);
    assert!(tools.as_array().expect("tools").iter().any(|t| t["name"] == "get-sum"));

    // Nothing runs in a fresh CLI process: the status is `stopped`.
    let shown = env.json(&["mcp", "show", "everything"]);
    assert_eq!(shown["server"]["id"], "everything");
    assert_eq!(shown["status"], "stopped");
    assert_eq!(shown["instances"], serde_json::json!([]));
    assert!(
        shown["stderr"].is_array() && shown["server"]["tools"].is_array(),
        "{shown}"
    );
    let shown_text = env.ok(&["mcp", "show", "everything"]);
    assert!(
        shown_text.contains("runs: node ") && shown_text.contains("  everything:echo "),
        "{shown_text}"
    );

    let c = chat(&env);
    let call = env.json(&[
        "run",
        "everything:echo",
        "--chat",
        &c,
        "--args",
        r#"{"message":"hi"}"#,
        "--yes",
    ]);
    assert_eq!(
        (call["status"].as_str(), call["tool_id"].as_str()),
        (Some("success"), Some("everything:echo")),
        "{call}"
    );
    assert!(call["result"].to_string().contains("Echo: hi"), "{call}");
    assert_none_left(&env, "run everything:echo");
    let calls = env.json(&["call", "list", &c]);
    assert_eq!(calls[0]["id"], call["id"]);

    // Progress of a long-running operation, live on stderr.
    let long = env.cli(&[
        "run",
        "everything:trigger-long-running-operation",
        "--chat",
        &c,
        "--args",
        r#"{"duration":1,"steps":3}"#,
        "--yes",
    ]);
    assert!(long.status.success(), "{}", text(&long));
    let err = String::from_utf8_lossy(&long.stderr);
    for step in ["progress 1/3", "progress 2/3", "progress 3/3"] {
        assert!(err.contains(step), "{step:?} missing from stderr:\n{err}");
    }
    assert!(
        String::from_utf8_lossy(&long.stdout).contains("success"),
        "{}",
        text(&long)
    );
    assert_none_left(&env, "a long-running operation");

    // A restart connects afresh: the instance it ran is gone once it exits.
    let restarted = env.json(&["mcp", "restart", "everything"]);
    assert_eq!(restarted["status"], "connected", "{restarted}");
    let pid = restarted["instances"][0]["pid"].as_u64().expect("a pid");
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "server pid {pid} outlived `mcp restart`"
    );
    assert_none_left(&env, "mcp restart");
    assert!(
        env.ok(&["mcp", "restart", "everything"])
            .starts_with("Restarted everything: connected to mcp-servers/everything")
    );

    // Disabled: its tools are refused.
    assert!(
        env.ok(&["mcp", "disable", "everything"])
            .starts_with("Disabled everything")
    );
    let refused = env.cli(&[
        "run",
        "everything:echo",
        "--chat",
        &c,
        "--args",
        r#"{"message":"no"}"#,
        "--yes",
    ]);
    assert!(failed(&refused).contains("disabled"), "{}", text(&refused));
    let off = &env.json(&["mcp", "list"])[0];
    assert_eq!(
        (off["enabled"].as_bool(), off["active"].as_bool()),
        (Some(false), Some(false))
    );
    assert!(env.ok(&["mcp", "list"]).contains("disabled"));
    assert!(
        env.ok(&["mcp", "enable", "everything"])
            .starts_with("Enabled everything: connected to")
    );
    assert_none_left(&env, "mcp enable");

    assert_eq!(
        env.ok(&["mcp", "remove", "everything"]),
        "Removed everything and its secrets.\n"
    );
    assert_eq!(env.json(&["mcp", "list"]), serde_json::json!([]));
    assert!(failed(&env.cli(&["mcp", "show", "everything"])).contains("everything"));
}

/// A server listing one tool name twice: the first is kept, and the
/// server's warnings say so, naming it and the tool, where a person looks
/// (`mcp add`, `mcp show`, its JSON — what the app's settings show).
#[test]
fn a_tool_listed_twice_is_a_warning_of_its_server() {
    let env = Env::new();
    let legacy = repo().join("tests/mcp/legacy_server.py").display().to_string();
    let cmd = vec!["python3".to_owned(), legacy, "--tools-list".into(), "duplicate".into()];
    let warning =
        "MCP server dup lists the tool \"shout\" more than once: the first one is kept, the others are left out";
    let added = env.ok(&add_args("dup", &[], &cmd));
    assert!(added.contains(&format!("\nwarning: {warning}")), "{added}");
    let shown = env.ok(&["mcp", "show", "dup"]);
    assert!(shown.contains(&format!("\nwarning: {warning}\n")), "{shown}");
    let shown = env.json(&["mcp", "show", "dup"]);
    assert_eq!(shown["server"]["warnings"], serde_json::json!([warning]), "{shown}");
    let tools: Vec<(&str, &str)> = shown["server"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or(""),
                t["description"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        tools,
        [("shout", "Upper-cases its text."), ("whisper", "Lower-cases its text.")]
    );
    assert_none_left(&env, "mcp show");
}

/// A server's words — its tools' names and descriptions, its stderr —
/// reach the terminal escaped: `\e[8m` would hide what follows.
#[test]
fn what_a_server_says_reaches_the_terminal_escaped() {
    let env = Env::new();
    let mut cmd = fixture();
    cmd.push("--hostile-words".into());
    for args in [add_args("loud", &[], &cmd), vec!["mcp", "show", "loud"]] {
        let out = env.ok(&args);
        assert!(!out.contains('\x1b'), "{args:?} printed an escape byte: {out:?}");
        assert!(out.contains("hide\\u{1b}[8m"), "{args:?}: {out}");
    }
    env.ok(&["mcp", "remove", "loud"]);
    assert_none_left(&env, "mcp show");
}
