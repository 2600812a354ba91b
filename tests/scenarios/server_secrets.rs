//! An MCP server's launch and its secrets, through the `atelier` binary:
//! `atelier toolset run-server` gives a server the app's minimal
//! environment, never the shell's, and starts it where the app does, its
//! bundle's files by full path; secrets interpolated into an HTTP
//! server's URL stay out of its errors, its status, the database and the
//! log (rmcp's lines included, at any verbosity or `ATELIER_LOG`).

use std::process::Output;

use crate::Env;
use crate::bundles::zip_of;
use crate::secrets::{files_holding, on_bus, on_bus_with, text};
use crate::toolset_secrets::{DEAD_BUS, ok};

/// `atelier toolset run-server` starts a server as the app does: with the
/// minimal environment and what the server declares, never the shell's
/// provider keys or other owners' `ATELIER_SECRET_*` variables.
#[test]
fn run_server_gives_the_server_the_apps_environment_not_the_shells() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let saw = t.path().join("env.json");
    let saw_s = saw.to_str().expect("path");
    let manifest = format!(
        "manifest_version: \"1\"\nid: envy\nname: Envy\nversion: \"1.0.0\"\n\
         mcp_servers:\n  - id: envy-srv\n    command: python3\n    \
           args: [\"-c\", \"import json,os,sys; json.dump(dict(os.environ), open(sys.argv[1], 'w'))\", \"{saw_s}\"]\n    \
           env:\n      GREETING: hello\n"
    );
    let zip = zip_of(t.path(), "envy.zip", &[("toolset.yaml", manifest.as_bytes())]);
    // A plain `env` value goes to the secret store at import: with no
    // keychain here, to the file, with consent.
    let imported = on_bus(
        &env,
        DEAD_BUS,
        &["toolset", "import", zip.to_str().expect("path"), "--allow-file-secrets"],
        None,
    );
    ok(&imported);
    let shell = [
        ("OPENAI_API_KEY", "sk-shell-openai-5531"),
        ("ANTHROPIC_API_KEY", "sk-ant-shell-7719"),
        ("ATELIER_SECRET_PROVIDER_OPENAI__API_KEY", "sk-shell-provider-2204"),
        ("SOME_TOKEN", "tok-shell-6610"),
    ];
    let run = |args: &[&str]| -> serde_json::Value {
        let _ = std::fs::remove_file(&saw);
        let out = on_bus_with(&env, DEAD_BUS, args, None, &shell);
        let text = std::fs::read_to_string(&saw).unwrap_or_else(|_| panic!("the server ran: {}", text(&out)));
        serde_json::from_str(&text).expect("json")
    };
    let by_cli = run(&["--allow-file-secrets", "toolset", "run-server", "envy", "envy-srv"]);
    for (name, _) in shell {
        assert!(by_cli.get(name).is_none(), "the server got {name}: {by_cli}");
    }
    assert_eq!(by_cli["GREETING"], "hello");
    assert!(by_cli.get("PATH").is_some(), "{by_cli}");
    let tmp = env.data().join("mcp/envy-srv/tmp");
    assert_eq!(by_cli["TMPDIR"], tmp.to_str().expect("path"));
    // The app's own start of the same server gets the same environment
    // (a pyenv shim as `python3` names the folder it runs in: the same).
    let by_app = run(&["--allow-file-secrets", "mcp", "restart", "envy-srv"]);
    assert_eq!(by_cli, by_app);
}

/// `atelier toolset run-server` starts a server where the app starts its
/// shared instance, `<data>/mcp/<id>/`, not in the toolset's folder, and
/// passes an argument naming a file of the bundle as its full path: an
/// author's run by hand is the app's run.
#[test]
fn run_server_starts_the_server_where_the_app_does() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let saw = t.path().join("where.json");
    let saw_s = saw.to_str().expect("path");
    let manifest = format!(
        "manifest_version: \"1\"\nid: where\nname: Where\nversion: \"1.0.0\"\n\
         mcp_servers:\n  - id: where-srv\n    command: python3\n    \
           args: [\"probe.py\", \"data/input.txt\", \"not-in-the-bundle.txt\", \"{saw_s}\"]\n"
    );
    let probe = "import json, os, sys\n\
                 json.dump({'cwd': os.getcwd(), 'argv': sys.argv}, open(sys.argv[-1], 'w'))\n";
    let zip = zip_of(
        t.path(),
        "where.zip",
        &[
            ("toolset.yaml", manifest.as_bytes()),
            ("probe.py", probe.as_bytes()),
            ("data/input.txt", b"input"),
        ],
    );
    ok(&on_bus(
        &env,
        DEAD_BUS,
        &["toolset", "import", zip.to_str().expect("path")],
        None,
    ));
    let run = |args: &[&str]| -> serde_json::Value {
        let _ = std::fs::remove_file(&saw);
        let out = on_bus(&env, DEAD_BUS, args, None);
        let text = std::fs::read_to_string(&saw).unwrap_or_else(|_| panic!("the server ran: {}", text(&out)));
        serde_json::from_str(&text).expect("json")
    };
    let by_cli = run(&["toolset", "run-server", "where", "where-srv"]);
    let own = env.data().join("mcp/where-srv").canonicalize().expect("its folder");
    assert_eq!(by_cli["cwd"], own.to_str().expect("path"), "{by_cli}");
    let bundle = env.data().join("toolsets/where").canonicalize().expect("bundle");
    let full = |f: &str| bundle.join(f).display().to_string();
    assert_eq!(
        by_cli["argv"],
        serde_json::json!([full("probe.py"), full("data/input.txt"), "not-in-the-bundle.txt", saw_s]),
        "{by_cli}"
    );
    // What --dry-run says is where it runs.
    let dry: serde_json::Value = serde_json::from_str(&ok(&on_bus(
        &env,
        DEAD_BUS,
        &["--json", "toolset", "run-server", "where", "where-srv", "--dry-run"],
        None,
    )))
    .expect("json");
    assert_eq!(
        std::path::Path::new(dry["dir"].as_str().expect("dir"))
            .canonicalize()
            .expect("dir"),
        own
    );
    // The app's start of it (no MCP server: it writes and exits) is the same.
    let by_app = run(&["mcp", "restart", "where-srv"]);
    assert_eq!(by_cli, by_app);
}

/// Secrets interpolated into an HTTP server's URL (a sensitive setting in
/// its path, a toolset secret in its query) never show: not in the error
/// the CLI prints, not in `mcp show` or `mcp list --json`, not in the
/// database, not in a log line (the default level, -v, -vv). The error
/// still names the server and says what failed.
#[test]
fn secrets_in_an_http_servers_url_stay_out_of_its_errors() {
    const IN_PATH: &str = "key in-path 7731";
    const IN_QUERY: &str = "tok-in-query-5528";
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let manifest = format!(
        "manifest_version: \"1\"\nid: remote\nname: Remote\nversion: \"1.0.0\"\n\
         user_config:\n  api_key: {{type: string, title: API key, sensitive: true, required: true}}\n\
         mcp_servers:\n  - id: remote-srv\n    \
           url: \"http://127.0.0.1:{port}/mcp/${{user_config.api_key}}/x?token=${{TOKEN}}\"\n"
    );
    let zip = zip_of(t.path(), "remote.zip", &[("toolset.yaml", manifest.as_bytes())]);
    let outputs: std::cell::RefCell<Vec<Output>> = Default::default();
    let cli = |args: &[&str], stdin: Option<&str>| {
        let mut all = vec!["--allow-file-secrets"];
        all.extend_from_slice(args);
        let o = on_bus(&env, DEAD_BUS, &all, stdin);
        outputs.borrow_mut().push(o.clone());
        o
    };
    ok(&cli(&["toolset", "import", zip.to_str().expect("path")], Some(IN_PATH)));
    ok(&cli(&["secrets", "set", "toolset:remote", "TOKEN"], Some(IN_QUERY)));

    for args in [
        &["mcp", "restart", "remote-srv"][..],
        &["-v", "mcp", "restart", "remote-srv"][..],
        &["-vv", "mcp", "restart", "remote-srv"][..],
    ] {
        let failed = cli(args, None);
        assert_eq!(failed.status.code(), Some(1), "{}", text(&failed));
        let said = text(&failed);
        assert!(
            said.contains("remote-srv")
                && said.contains(&format!("127.0.0.1:{port}/mcp/<redacted>/x?token=<redacted>")),
            "{said}"
        );
    }
    // ATELIER_LOG=debug, which does not name rmcp, keeps rmcp's lines out.
    let logged = on_bus_with(
        &env,
        DEAD_BUS,
        &["--allow-file-secrets", "mcp", "restart", "remote-srv"],
        None,
        &[("ATELIER_LOG", "debug")],
    );
    assert_eq!(logged.status.code(), Some(1), "{}", text(&logged));
    outputs.borrow_mut().push(logged);
    let listed: serde_json::Value = serde_json::from_str(&ok(&cli(&["--json", "mcp", "list"], None))).expect("json");
    let row = listed
        .as_array()
        .and_then(|a| a.iter().find(|s| s["id"] == "remote-srv"))
        .unwrap_or_else(|| panic!("{listed}"));
    let last = row["last_error"].as_str().unwrap_or_else(|| panic!("{row}"));
    assert!(
        last.contains("MCP server remote-srv") && last.contains("<redacted>"),
        "{last}"
    );
    ok(&cli(&["mcp", "show", "remote-srv"], None));
    ok(&cli(&["--json", "mcp", "show", "remote-srv"], None));

    for secret in [IN_PATH, IN_QUERY, "key%20in-path%207731"] {
        for o in outputs.borrow().iter() {
            assert!(!text(o).contains(secret), "an output said {secret}: {}", text(o));
        }
        // Only in the file the person agreed to.
        let holding = files_holding(env.data(), secret.as_bytes());
        assert!(
            holding.iter().all(|f| f.ends_with("secrets.json")),
            "{secret} in {holding:?}"
        );
    }
}
