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
use crate::secrets::{Keyring, files_holding, on_bus, text};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `node …/server-everything/dist/index.js stdio`.
fn everything() -> Vec<String> {
    let js = repo().join("tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(js.exists(), "{} (run scripts/install.sh)", js.display());
    vec!["node".into(), js.display().to_string(), "stdio".into()]
}

/// `.tools/mcp-venv/bin/python tests/mcp/fixture_server.py`.
fn fixture() -> Vec<String> {
    let python = repo().join(".tools/mcp-venv/bin/python");
    assert!(python.exists(), "{} (run scripts/install.sh)", python.display());
    vec![
        python.display().to_string(),
        repo().join("tests/mcp/fixture_server.py").display().to_string(),
    ]
}

/// A bus nobody listens on: commands that store no secret.
const NO_BUS: &str = "unix:path=/nonexistent/atelier-test-bus";

/// Processes working in the data dir or naming it on their command line:
/// servers that outlived the command that started them.
fn left_in(data: &Path) -> Vec<String> {
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
fn assert_none_left(env: &Env, after: &str) {
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

fn chat(env: &Env) -> String {
    env.json(&["chat", "new", "--title", "mcp"])["id"]
        .as_str()
        .expect("chat id")
        .to_owned()
}

/// `atelier mcp add ID [flags] -- CMD…`.
fn add_args<'a>(id: &'a str, flags: &[&'a str], cmd: &'a [String]) -> Vec<&'a str> {
    let mut a = vec!["mcp", "add", id];
    a.extend_from_slice(flags);
    a.push("--");
    a.extend(cmd.iter().map(String::as_str));
    a
}

fn failed(o: &Output) -> String {
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

#[test]
fn env_values_are_read_from_stdin_and_never_stored_in_the_database() {
    let keyring = Keyring::start();
    let env = Env::new();
    let cli = |args: &[&str], stdin: Option<&str>| on_bus(&env, &keyring.address, args, stdin);
    let cmd = fixture();
    const TOKEN: &str = "fx-token-5c1d9e27b8";

    // A value is never an argument.
    let given = cli(
        &add_args("fixture", &["--env", &format!("FIXTURE_TOKEN={TOKEN}")], &cmd),
        None,
    );
    let said = failed(&given);
    assert!(said.contains("KEY only") && !said.contains(TOKEN), "{said}");
    assert_eq!(env.json(&["mcp", "list"]), serde_json::json!([]));

    // One key: all of stdin is its value.
    let added = cli(
        &add_args("fixture", &["--env", "FIXTURE_TOKEN"], &cmd),
        Some(&format!("{TOKEN}\n")),
    );
    assert!(added.status.success(), "{}", text(&added));
    assert!(
        text(&added).contains("Added fixture: connected to atelier-fixture"),
        "{}",
        text(&added)
    );
    assert!(!text(&added).contains(TOKEN), "{}", text(&added));
    assert_none_left(&env, "mcp add with --env");

    let listed = cli(&["--json", "mcp", "list"], None);
    let server = &serde_json::from_slice::<Value>(&listed.stdout).expect("json")[0];
    assert_eq!(server["env_keys"], serde_json::json!(["FIXTURE_TOKEN"]));
    let shown = cli(&["mcp", "show", "fixture"], None);
    assert!(
        text(&shown).contains("env FIXTURE_TOKEN = <set in the secret store>") && !text(&shown).contains(TOKEN),
        "{}",
        text(&shown)
    );
    // Neither the database (its file, WAL included) nor any other file of
    // the data dir holds the value.
    assert_eq!(files_holding(env.data(), TOKEN.as_bytes()), Vec::<String>::new());
    let names = cli(&["--json", "secrets", "list", "mcp:fixture"], None);
    let names: Value = serde_json::from_slice(&names.stdout).expect("json");
    assert_eq!(names[0]["key"], "FIXTURE_TOKEN", "{names}");

    // The server gets it, working in its own folder.
    let c = chat(&env);
    let whereami = |server: &str| {
        let tool = format!("{server}:whereami");
        let o = cli(&["--json", "run", &tool, "--chat", &c, "--args", "{}", "--yes"], None);
        assert!(o.status.success(), "{}", text(&o));
        let call: Value = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(call["status"], "success", "{call}");
        call["result"].to_string()
    };
    let result = whereami("fixture");
    assert!(result.contains(TOKEN), "{result}");
    assert!(result.contains("mcp/fixture"), "cwd: {result}");
    assert_none_left(&env, "run fixture:whereami");

    // Several keys: one KEY=VALUE line each, in any order.
    let two = cli(
        &add_args("fixture-two", &["--env", "FIXTURE_TOKEN", "--env", "OTHER_KEY"], &cmd),
        Some("OTHER_KEY=other-value\nFIXTURE_TOKEN=second-token\n"),
    );
    assert!(two.status.success(), "{}", text(&two));
    assert!(whereami("fixture-two").contains("second-token"));
    let missing = cli(
        &add_args("fixture-three", &["--env", "FIXTURE_TOKEN", "--env", "OTHER_KEY"], &cmd),
        Some("OTHER_KEY=x\n"),
    );
    assert!(
        failed(&missing).contains("no value for FIXTURE_TOKEN"),
        "{}",
        text(&missing)
    );

    let removed = cli(&["mcp", "remove", "fixture"], None);
    assert!(removed.status.success(), "{}", text(&removed));
    let names = cli(&["--json", "secrets", "list", "mcp:fixture"], None);
    assert_eq!(
        String::from_utf8_lossy(&names.stdout),
        "[]\n",
        "its secrets went with it"
    );
    assert_none_left(&env, "the whole test");
}

#[test]
fn a_claude_desktop_config_is_previewed_then_imported_with_yes() {
    let env = Env::new();
    let cmd = fixture();
    let config = serde_json::json!({"mcpServers": {
        "fixture": {"command": cmd[0], "args": [cmd[1]]},
        "old": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
    }});
    let file = env.data().join("claude_desktop_config.json");
    std::fs::write(&file, config.to_string()).expect("write config");
    let file = file.display().to_string();

    // Not a terminal and no --yes: the list, and nothing added.
    let refused = env.cli(&["mcp", "import-config", &file]);
    let said = failed(&refused);
    assert!(said.contains("--yes"), "{said}");
    let preview = String::from_utf8_lossy(&refused.stdout);
    assert!(
        preview
            .lines()
            .any(|l| l.trim_start().starts_with("fixture ") && l.ends_with(&format!("{} {}", cmd[0], cmd[1]))),
        "{preview}"
    );
    assert!(
        preview.contains("old") && preview.contains("skipped") && preview.contains("SSE"),
        "{preview}"
    );
    assert_eq!(env.json(&["mcp", "list"]), serde_json::json!([]));

    let imported = env.ok(&["mcp", "import-config", &file, "--yes"]);
    assert!(
        imported.contains("Added fixture: connected to atelier-fixture"),
        "{imported}"
    );
    let list = env.json(&["mcp", "list"]);
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
    let names: Vec<&str> = list[0]["tools"]
        .as_array()
        .expect("listed")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for t in ["echo", "slow", "whereami"] {
        assert!(names.contains(&t), "{t} in {names:?}");
    }
    assert_none_left(&env, "mcp import-config");

    let c = chat(&env);
    let call = env.json(&[
        "run",
        "fixture:echo",
        "--chat",
        &c,
        "--args",
        r#"{"text":"hello"}"#,
        "--yes",
    ]);
    assert_eq!(call["status"], "success", "{call}");
    assert!(call["result"].to_string().contains("hello"), "{call}");
    // A call past its time limit ends `timeout`, and the server stops with
    // the command.
    let slow = env.json(&[
        "run",
        "fixture:slow",
        "--chat",
        &c,
        "--args",
        r#"{"seconds":30}"#,
        "--yes",
        "--timeout",
        "1",
    ]);
    assert_eq!(
        (slow["status"].as_str(), slow["error_kind"].as_str()),
        (Some("error"), Some("timeout")),
        "{slow}"
    );
    assert_none_left(&env, "a timed-out call");

    // From stdin (`-`), an id already in use is skipped, the rest added.
    let again = serde_json::json!({"mcpServers": {
        "fixture": {"command": cmd[0], "args": [cmd[1]]},
        "fixture-b": {"command": cmd[0], "args": [cmd[1]]},
    }});
    let piped = on_bus(
        &env,
        NO_BUS,
        &["mcp", "import-config", "-", "--yes"],
        Some(&again.to_string()),
    );
    assert!(piped.status.success(), "{}", text(&piped));
    let out = text(&piped);
    assert!(
        out.contains("skipped: an MCP server \"fixture\" already exists"),
        "{out}"
    );
    assert!(out.contains("Added fixture-b: connected"), "{out}");
    assert_eq!(env.json(&["mcp", "list"]).as_array().map(Vec::len), Some(2));
    assert_none_left(&env, "mcp import-config -");
}

#[test]
fn a_server_whose_command_does_not_exist_is_added_with_the_error() {
    let env = Env::new();
    // An unknown agent fails before anything is added.
    let unknown = env.cli(&["mcp", "add", "ghost", "--agent", "nobody", "--", "true"]);
    assert!(failed(&unknown).contains("nobody"), "{}", text(&unknown));
    assert_eq!(env.json(&["mcp", "list"]), serde_json::json!([]));

    let missing = "atelier-no-such-command-4711";
    let o = env.cli(&["mcp", "add", "ghost", "--", missing, "--flag"]);
    let said = failed(&o);
    assert!(
        said.contains("added ghost; could not connect") && said.contains("MCP server ghost") && said.contains(missing),
        "{said}"
    );
    let s = &env.json(&["mcp", "list"])[0];
    assert_eq!(s["id"], "ghost");
    assert!(s["tools"].is_null(), "{s}");
    assert!(s["last_error"].as_str().is_some_and(|e| e.contains(missing)), "{s}");
    assert!(env.ok(&["mcp", "list"]).contains(" error "));
    let tools = env.cli(&["mcp", "tools", "ghost"]);
    assert!(failed(&tools).contains("not been listed"), "{}", text(&tools));
    let restart = env.cli(&["mcp", "restart", "ghost"]);
    assert!(failed(&restart).contains(missing), "{}", text(&restart));
    // Usage: a command or a URL, not neither.
    assert_eq!(env.cli(&["mcp", "add", "nothing"]).status.code(), Some(2));
    assert_none_left(&env, "the whole test");
}

/// server-everything over streamable HTTP on a free port, killed on drop.
struct HttpServer {
    child: std::process::Child,
    url: String,
}

impl HttpServer {
    fn start() -> Self {
        use std::io::{BufRead, BufReader};
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut cmd = everything();
        let mut child = std::process::Command::new(&cmd[0])
            .arg(cmd.remove(1))
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("node");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let ready = lines
            .by_ref()
            .map_while(Result::ok)
            .any(|l| l.contains("listening on port"));
        assert!(ready, "server-everything did not start over HTTP");
        // Keep draining its stderr so that it never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Self {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn an_http_server_is_added_with_a_header_read_from_stdin() {
    let keyring = Keyring::start();
    let server = HttpServer::start();
    let env = Env::new();
    let cli = |args: &[&str], stdin: Option<&str>| on_bus(&env, &keyring.address, args, stdin);
    const VALUE: &str = "Bearer hdr-3e8f0a61d2";
    let added = cli(
        &["mcp", "add", "web", "--url", &server.url, "--header", "Authorization"],
        Some(&format!("{VALUE}\n")),
    );
    assert!(added.status.success(), "{}", text(&added));
    assert!(
        text(&added).contains("Added web: connected to mcp-servers/everything"),
        "{}",
        text(&added)
    );
    // --env is for a command; a header needs a URL.
    let env_on_url = cli(&["mcp", "add", "web2", "--url", &server.url, "--env", "X"], None);
    assert_eq!(env_on_url.status.code(), Some(2), "{}", text(&env_on_url));

    let s = &env.json(&["mcp", "list"])[0];
    assert_eq!(
        (s["transport"].as_str(), s["url"].as_str()),
        (Some("http"), Some(server.url.as_str()))
    );
    assert_eq!(s["header_keys"], serde_json::json!(["Authorization"]));
    assert_eq!(files_holding(env.data(), VALUE.as_bytes()), Vec::<String>::new());

    let c = chat(&env);
    let call = cli(
        &[
            "--json",
            "run",
            "web:get-sum",
            "--chat",
            &c,
            "--args",
            r#"{"a":2,"b":3}"#,
            "--yes",
        ],
        None,
    );
    assert!(call.status.success(), "{}", text(&call));
    let call: Value = serde_json::from_slice(&call.stdout).expect("json");
    assert_eq!(call["status"], "success", "{call}");
    assert!(
        call["result"].to_string().contains("The sum of 2 and 3 is 5."),
        "{call}"
    );
    assert!(!text(&added).contains(VALUE));
    assert_none_left(&env, "an HTTP server's call");
}
