//! Bundles as someone else writes them from seed 004 alone: ids with `_`,
//! a number where the spec shows a quoted version, an MCP-only toolset
//! named after its one server, entry points relative to `tools/`, tools
//! turned off in the manifest, numbers a person sets kept as integers.

use std::path::{Path, PathBuf};

use crate::Env;
use crate::bundles::{manifest, toolset_zip, zip_of};

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

const HELLO_PY: &[u8] = b"def run(workspace, name='x'):\n    return {'text': 'hi ' + name}\n";

/// A bundle of `toolset.yaml` and `tools/hello.py`.
fn bundle(dir: &Path, name: &str, manifest: &str) -> PathBuf {
    zip_of(
        dir,
        name,
        &[("toolset.yaml", manifest.as_bytes()), ("tools/hello.py", HELLO_PY)],
    )
}

/// A real bundle's ids have `_` (`my_tools`); they share the namespace of
/// toolsets and servers with `-` ids, and are never confused with them.
#[test]
fn ids_with_underscores_install_and_route_and_capitals_are_refused_with_the_lower_case_id() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let server =
        "mcp_servers:\n  - id: my_srv\n    command: npx\n    args: [\"-y\", \"srv\"]\n    auto_enabled: false\n";
    for (file, id, extra) in [
        ("a.zip", "my_tools", server),
        ("b.zip", "my-tools", "prefix: my_tools2\n"),
    ] {
        let zip = toolset_zip(t.path(), file, id, "1.0.0", extra);
        env.ok(&["toolset", "import", path(&zip), "--agent", "assistant"]);
    }
    let ids: Vec<String> = env
        .json(&["toolset", "list"])
        .as_array()
        .expect("list")
        .iter()
        .map(|t| t["id"].as_str().expect("id").to_owned())
        .collect();
    assert_eq!(ids, ["my-tools", "my_tools"]);
    assert!(env.data().join("toolsets/my_tools").is_dir() && env.data().join("toolsets/my-tools").is_dir());
    let servers = env.json(&["mcp", "list"]);
    assert!(servers.to_string().contains("\"my_srv\""), "{servers}");

    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let run = |name: &str| env.json(&["run", name, "--agent", "assistant", "--chat", &chat, "--quiet"]);
    for (name, canonical) in [
        ("my_tools.hello", "my_tools:hello"),
        ("my_tools2.hello", "my-tools:hello"),
    ] {
        let c = run(name);
        assert_eq!(
            (c["tool_id"].as_str(), c["status"].as_str()),
            (Some(canonical), Some("success")),
            "{c}"
        );
    }

    for (file, extra, field, lower) in [
        ("c.zip", "", "id", "my_tools3"),
        ("d.zip", "prefix: Short_P\n", "prefix", "short_p"),
        (
            "e.zip",
            "mcp_servers:\n  - id: Srv_X\n    command: npx\n",
            "mcp_servers[0].id",
            "srv_x",
        ),
    ] {
        let id = if field == "id" { "My_Tools3" } else { "fine" };
        let zip = toolset_zip(t.path(), file, id, "1.0.0", extra);
        let out = env.cli(&["toolset", "validate", path(&zip)]);
        let said = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{said}");
        assert!(
            said.contains(&format!("{field}: ")) && said.contains(&format!("ids are lower-case: use \"{lower}\"")),
            "{said}"
        );
    }
}

/// `manifest_version: 1.0` once led, through "quote it", to "unsupported
/// version \"1.0\""; a numeric or two-number `version` was refused.
#[test]
fn numeric_and_short_versions_are_read_as_what_they_mean_and_still_upgrade() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let text = |mv: &str, v: &str| {
        manifest("nums", "1.0.0", "")
            .replace("manifest_version: \"1\"", &format!("manifest_version: {mv}"))
            .replace("version: \"1.0.0\"", &format!("version: {v}"))
    };
    for (i, mv) in ["1", "\"1\"", "1.0", "\"1.0\""].into_iter().enumerate() {
        let zip = bundle(t.path(), &format!("v{i}.zip"), &text(mv, "1.0"));
        let out = env.cli(&["toolset", "validate", path(&zip)]);
        let said = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "manifest_version: {mv}\n{said}");
        assert!(said.contains("version: read as \"1.0.0\""), "{said}");
    }
    for mv in ["2", "\"1.1\"", "one"] {
        let zip = bundle(t.path(), "bad.zip", &text(mv, "\"1.0.0\""));
        let out = env.cli(&["toolset", "validate", path(&zip)]);
        let said = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{said}");
        assert!(
            said.contains("this Atelier reads \"1\"") && !said.contains("quote it"),
            "{said}"
        );
    }

    let first = bundle(t.path(), "first.zip", &text("1.0", "1.0"));
    env.ok(&["toolset", "import", path(&first)]);
    assert_eq!(env.json(&["toolset", "show", "nums"])["version"], "1.0.0");
    let next = bundle(t.path(), "next.zip", &text("1", "\"1.1\""));
    env.ok(&["toolset", "import", path(&next)]);
    assert_eq!(env.json(&["toolset", "show", "nums"])["version"], "1.1.0");
    let older = bundle(t.path(), "older.zip", &text("1", "1"));
    let said = env.json(&["toolset", "import", path(&older)]).to_string();
    assert!(said.contains("downgraded"), "1.0.0 after 1.1.0 is a downgrade: {said}");
}

/// The most natural MCP-only bundle wraps one server under the toolset's
/// own id. Its `echo:<tool>` can only be the server's: it installs, runs
/// under both names, upgrades and uninstalls with its server; a toolset
/// with tools of its own may not take its server's id.
#[test]
fn an_mcp_only_toolset_may_share_its_servers_id() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let text = |version: &str| {
        format!(
            "manifest_version: \"1\"\nid: echo\nname: Echo\nversion: \"{version}\"\n\
             mcp_servers:\n  - id: echo\n    command: {:?}\n    args: [{:?}]\n",
            crate::mcp::python(),
            crate::mcp::fixture()
        )
    };
    let first = zip_of(t.path(), "echo.zip", &[("toolset.yaml", text("1.0.0").as_bytes())]);
    env.ok(&["toolset", "import", path(&first), "--agent", "assistant"]);
    // A toolset's server is listed when it first starts (as any other).
    env.ok(&["mcp", "restart", "echo"]);

    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let args = r#"{"text": "hello"}"#;
    for name in ["echo:echo", "echo.echo"] {
        let mut cmd = vec!["run", name, "--chat", &chat, "--args", args, "--yes", "--quiet"];
        if name.contains('.') {
            cmd.extend(["--agent", "assistant"]);
        }
        let c = env.json(&cmd);
        assert_eq!(
            (c["status"].as_str(), c["tool_id"].as_str()),
            (Some("success"), Some("echo:echo")),
            "{name}: {c}"
        );
        assert!(c.to_string().contains("hello"), "{c}");
    }
    let tools = env.json(&["tool", "list"]).to_string();
    assert_eq!(tools.matches("\"echo:echo\"").count(), 1, "listed once: {tools}");

    let next = zip_of(t.path(), "echo2.zip", &[("toolset.yaml", text("1.1.0").as_bytes())]);
    env.ok(&["toolset", "import", path(&next)]);
    assert_eq!(env.json(&["toolset", "show", "echo"])["version"], "1.1.0");
    env.ok(&["toolset", "uninstall", "echo"]);
    let listed = env.json(&["mcp", "list"]).to_string();
    assert!(
        !listed.contains("\"echo\""),
        "the server goes with its toolset: {listed}"
    );

    // With a tool of its own, `echo:<tool>` could be either: refused.
    let both = manifest("echo", "1.0.0", "mcp_servers:\n  - id: echo\n    command: npx\n");
    let zip = bundle(t.path(), "both.zip", &both);
    let out = env.cli(&["toolset", "validate", path(&zip)]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("mcp_servers[0].id: an MCP server cannot share the id of a toolset that has tools"),
        "{said}"
    );
}

/// A number setting a person sets to `3` reaches Python as `3`, not `3.0`
/// (`round(x, 3.0)` and `range(3.0)` raise); `2.5` stays a float, and an
/// integer default stays an integer.
#[test]
fn an_integer_setting_reaches_python_as_an_integer() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let text = manifest("cfg", "1.0.0", "")
        + "user_config:\n  decimals: {type: number, title: Decimals, min: 0, max: 6}\n  \
           scale: {type: number, title: Scale}\n  steps: {type: number, title: Steps, default: 4}\n";
    let py: &[u8] = b"def run(workspace, atelier_config, name='x'):\n    c = atelier_config\n    \
        return {'text': str(round(3.14159, c['decimals'])), 'range': len(range(c['steps'])),\n            \
        'types': [type(c[k]).__name__ for k in ('decimals', 'scale', 'steps')]}\n";
    let zip = zip_of(
        t.path(),
        "cfg.zip",
        &[("toolset.yaml", text.as_bytes()), ("tools/hello.py", py)],
    );
    env.ok(&["toolset", "import", path(&zip)]);
    env.ok(&["toolset", "config", "cfg", "decimals", "3"]);
    env.ok(&["toolset", "config", "cfg", "scale", "2.5"]);
    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let c = env.json(&["run", "cfg:hello", "--chat", &chat, "--quiet"]);
    assert_eq!(c["status"], "success", "{c}");
    assert_eq!(c["result"]["text"], "3.142", "{c}");
    assert_eq!(c["result"]["range"], 4);
    assert_eq!(c["result"]["types"], serde_json::json!(["int", "float", "int"]));
}

/// Seed 004 §1.3's `tools.enabled`: `enabled: false` installs the tool
/// turned off — not listed, not offered to a model, a call refused saying
/// why. A server `type: sse` is refused, not spoken to as streamable HTTP;
/// `cwd:` is said to be the chat's workspace; a server's `timeout_s` is
/// checked as a tool's is.
#[test]
fn a_tool_turned_off_in_the_manifest_is_installed_but_not_offered_and_sse_is_refused() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let text = manifest("offs", "1.0.0", "") + "  - id: hidden\n    entrypoint: tools.hello:run\n    enabled: false\n";
    let zip = bundle(t.path(), "offs.zip", &text);
    let out = env.cli(&["toolset", "validate", path(&zip), "--strict"]);
    assert_eq!(out.status.code(), Some(0), "`enabled` is a known key: {out:?}");
    env.ok(&["toolset", "import", path(&zip), "--agent", "assistant"]);
    let tools = env.json(&["tool", "list"]).to_string();
    assert!(
        tools.contains("offs:hello") && !tools.contains("offs:hidden"),
        "{tools}"
    );
    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let out = env.cli(&["run", "offs:hidden", "--chat", &chat, "--quiet"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("disabled in the manifest of toolset \"offs\""), "{said}");
    let c = env.json(&["run", "offs.hidden", "--agent", "assistant", "--chat", &chat, "--quiet"]);
    assert_eq!(c["error_kind"], "not_found", "not offered to a model: {c}");
    assert_eq!(
        env.json(&["run", "offs.hello", "--agent", "assistant", "--chat", &chat, "--quiet"])["status"],
        "success"
    );

    let servers = "mcp_servers:\n  - id: old\n    type: sse\n    url: https://example.com/sse\n  \
                   - id: here\n    command: npx\n    cwd: /srv\n  \
                   - id: never\n    command: npx\n    timeout_s: 0\n  \
                   - id: patient\n    command: npx\n    timeout_s: 300\n";
    let zip = bundle(t.path(), "sse.zip", &manifest("sse", "1.0.0", servers));
    let out = env.cli(&["toolset", "validate", path(&zip)]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("mcp_servers[0].type: the old SSE transport (`type: sse`) is not supported")
            && said.contains("streamable HTTP at `/mcp`"),
        "{said}"
    );
    assert!(
        said.contains("mcp_servers[1].cwd: unknown key `cwd`") && said.contains("the chat's workspace folder"),
        "{said}"
    );
    // A server's call timeout is a known key, held to a tool's rule.
    assert!(
        said.contains("mcp_servers[2].timeout_s: expected a number of seconds above 0")
            && !said.contains("mcp_servers[3]"),
        "{said}"
    );
}

/// Seed 004 §4.1 writes entry points relative to `tools/` (`hello:run`
/// for tools/hello.py); Atelier's rule is the toolset's folder
/// (`tools.hello:run`). A module found only under `tools/` is read as that
/// one, with a warning; a file path gets the module path to write.
#[test]
fn an_entrypoint_relative_to_tools_runs_and_a_file_path_is_told_the_module_path() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let zip = bundle(
        t.path(),
        "rel.zip",
        &manifest("rel", "1.0.0", "").replace("tools.hello:run", "hello:run"),
    );
    let out = env.cli(&["toolset", "validate", path(&zip)]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("tools[0].entrypoint: read as \"tools.hello:run\""),
        "{said}"
    );
    env.ok(&["toolset", "import", path(&zip)]);
    assert_eq!(
        env.json(&["tool", "show", "rel:hello"])["entrypoint"],
        "tools.hello:run"
    );
    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let c = env.json(&[
        "run",
        "rel:hello",
        "--chat",
        &chat,
        "--args",
        r#"{"name": "you"}"#,
        "--quiet",
    ]);
    assert_eq!(
        (c["status"].as_str(), c["result"]["text"].as_str()),
        (Some("success"), Some("hi you")),
        "{c}"
    );

    let zip = bundle(
        t.path(),
        "file.zip",
        &manifest("file", "1.0.0", "").replace("tools.hello:run", "tools/hello.py:run"),
    );
    let out = env.cli(&["toolset", "validate", path(&zip)]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("did you mean \"tools.hello:run\"?"), "{said}");
}

/// Without a keychain, a bundle with a plain-text `env` value is refused
/// saying which values needed the secret store, and nothing else: no log
/// line about putting back a secret that was never written.
#[test]
fn without_a_keychain_a_plain_env_value_is_named_and_no_log_line_leaks() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let servers =
        "mcp_servers:\n  - id: lit-srv\n    command: npx\n    env:\n      API_KEY: sk-live-1234567890abcdef\n";
    let zip = toolset_zip(t.path(), "lit.zip", "lit", "1.0.0", servers);
    let out = env.cli_env(
        &["toolset", "import", path(&zip)],
        &[("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")],
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("writes values in plain text in its manifest (mcp_servers \"lit-srv\" env.API_KEY)")
            && said.contains("allow-file"),
        "{said}"
    );
    assert!(!said.contains("WARN") && !said.contains("sk-live"), "{said}");
    assert_eq!(said.lines().count(), 1, "one message: {said}");
}
