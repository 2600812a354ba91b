//! `atelier mcp` where values and configs come in: `--env`/`--header`
//! values read from stdin and never stored in the database, a Claude
//! Desktop config previewed then imported, a command that does not exist,
//! and an HTTP server with a header.

use serde_json::Value;

use crate::Env;
use crate::mcp_cli::{NO_BUS, add_args, assert_none_left, chat, failed, fixture};
use crate::secrets::{Keyring, files_holding, on_bus, text};

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
        // Cline's and Windsurf's way to keep a server and not start it.
        "resting": {"command": cmd[0], "args": [cmd[1]], "disabled": true},
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

    assert!(preview.contains("added turned off"), "{preview}");
    let imported = env.ok(&["mcp", "import-config", &file, "--yes"]);
    assert!(
        imported.contains("Added fixture: connected to atelier-fixture")
            && imported.contains("Added resting (turned off)"),
        "{imported}"
    );
    let resting = env.json(&["mcp", "show", "resting"]);
    assert_eq!(resting["server"]["enabled"], false, "{resting}");
    env.ok(&["mcp", "remove", "resting"]);
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

#[test]
fn an_http_server_is_added_with_a_header_read_from_stdin() {
    let keyring = Keyring::start();
    let server = crate::mcp::HttpEverything::start();
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
