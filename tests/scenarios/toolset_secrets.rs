//! A toolset's secrets and settings end to end, through the `atelier`
//! binary against a private Secret Service: plain-text values of a bundle
//! moved to the keychain at import and by the first start of an old data
//! dir, sensitive `user_config` values asked for and never arguments, a
//! Python tool and an MCP server's launch receiving them, another toolset
//! refused, and no byte of any of it left in the data dir or an output.

use std::path::Path;
use std::process::{Command, Output};

use sha2::{Digest, Sha256};

use crate::Env;
use crate::bundles::zip_of;
use crate::secrets::{Keyring, files_holding, on_bus, text};

const PLAIN: &str = "sk-alpha-PLAINTEXT-4417";
const TOKEN: &str = "tok-SENSITIVE-9931";
pub(crate) const DEAD_BUS: &str = "unix:path=/nonexistent/atelier-test-bus";

/// A server that writes what it received: sha256 of two variables, and its
/// first argument, into the file its `OUT_FILE` names.
const SERVER_PY: &str = "import hashlib,os,sys\n\
    h=lambda k: hashlib.sha256(os.environ.get(k,'').encode()).hexdigest()\n\
    open(os.environ['OUT_FILE'],'w').write(' '.join([h('API_KEY'),h('TOKEN'),sys.argv[1]]))\n";

fn sha(s: &str) -> String {
    Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn alpha_manifest(version: &str, extra_config: &str) -> String {
    format!(
        "manifest_version: \"1\"\nid: alpha\nname: Alpha\nversion: \"{version}\"\n\
         user_config:\n  \
           api_token: {{type: string, title: API token, sensitive: true, required: true}}\n  \
           region: {{type: string, title: Region, default: eu}}\n  \
           limit: {{type: number, title: Limit, min: 1, max: 10}}\n{extra_config}\
         tools:\n  - id: probe\n    name: Probe\n    entrypoint: tools.probe:run\n    \
           input_schema: {{type: object, properties: {{}}}}\n\
         mcp_servers:\n  - id: alpha-srv\n    command: python3\n    \
           args: [\"server.py\", \"${{user_config.region}}\"]\n    env:\n      \
             API_KEY: \"{PLAIN}\"\n      TOKEN: \"${{user_config.api_token}}\"\n      OUT_FILE: \"${{OUT_FILE}}\"\n"
    )
}

const PROBE_PY: &str = "import hashlib\n\
    def run(workspace, atelier_config):\n    \
        t = atelier_config['api_token']\n    \
        return {'token_sha': hashlib.sha256(t.encode()).hexdigest(), 'region': atelier_config['region'],\n            \
                'keys': sorted(atelier_config)}\n";

fn alpha_zip(dir: &Path, version: &str, extra_config: &str) -> std::path::PathBuf {
    let m = alpha_manifest(version, extra_config);
    zip_of(
        dir,
        &format!("alpha-{version}.zip"),
        &[
            ("toolset.yaml", m.as_bytes()),
            ("tools/probe.py", PROBE_PY.as_bytes()),
            ("server.py", SERVER_PY.as_bytes()),
        ],
    )
}

pub(crate) fn ok(o: &Output) -> String {
    assert!(o.status.success(), "failed ({}):\n{}", o.status, text(o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn lookup(bus: &str, account: &str) -> String {
    let out = Command::new("secret-tool")
        .args(["lookup", "service", "atelier", "username", account])
        .env("DBUS_SESSION_BUS_ADDRESS", bus)
        .output()
        .expect("secret-tool (Debian `libsecret-tools`)");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn plain_secrets_and_sensitive_settings_reach_only_their_own_toolset() {
    let keyring = Keyring::start();
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let out_file = t.path().join("server-saw.txt");
    let out_s = out_file.to_str().expect("path").to_owned();
    // Every output, to scan for the values at the end.
    let outputs: std::cell::RefCell<Vec<Output>> = Default::default();
    let cli = |args: &[&str], stdin: Option<&str>| {
        let o = on_bus(&env, &keyring.address, args, stdin);
        outputs.borrow_mut().push(o.clone());
        o
    };
    let zip = alpha_zip(t.path(), "1.0.0", "");
    let zip_s = zip.to_str().expect("path");

    // The consent step names the plain value (never shows it) and the settings.
    let checked = ok(&cli(&["toolset", "validate", zip_s], None));
    assert!(
        checked.contains("This bundle contains 1 secret value; it will be kept in your keychain"),
        "{checked}"
    );
    assert!(
        checked.contains("alpha-srv  env.API_KEY") && checked.contains("*api_token"),
        "{checked}"
    );

    // A sensitive setting is never an argument; a required one is needed.
    let refused = cli(
        &["toolset", "import", zip_s, "--config", &format!("api_token={TOKEN}")],
        None,
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(text(&refused).contains("is sensitive"), "{}", text(&refused));
    let bad = cli(&["toolset", "import", zip_s, "--config", "limit=11"], Some(TOKEN));
    assert!(
        text(&bad).contains("setting \"limit\" of toolset \"alpha\": must be a number from 1 to 10"),
        "{}",
        text(&bad)
    );
    let imported = ok(&cli(
        &[
            "toolset",
            "import",
            zip_s,
            "--config",
            "region=us",
            "--config",
            "limit=3",
            "--allow-env",
            "OUT_FILE",
        ],
        Some(TOKEN),
    ));
    assert!(
        imported.contains("1 secret value(s) of the bundle are kept in your secret store"),
        "{imported}"
    );

    // In the Secret Service, bound to the toolset.
    assert_eq!(lookup(&keyring.address, "toolset:alpha/API_KEY"), PLAIN);
    assert_eq!(lookup(&keyring.address, "toolset:alpha/user_config.api_token"), TOKEN);
    let shown = ok(&cli(&["toolset", "config", "alpha"], None));
    assert!(
        shown.contains("<set>") && shown.contains("us") && shown.contains('3'),
        "{shown}"
    );

    // The server's launch gets every value, resolved for alpha only.
    let dry = on_bus_env(
        &env,
        &keyring.address,
        &["--json", "toolset", "run-server", "alpha", "alpha-srv", "--dry-run"],
        &out_s,
    );
    let dry: serde_json::Value = serde_json::from_str(&ok(&dry)).expect("json");
    assert_eq!(dry["env"]["API_KEY"], "<set>");
    let started = on_bus_env(
        &env,
        &keyring.address,
        &["toolset", "run-server", "alpha", "alpha-srv"],
        &out_s,
    );
    ok(&started);
    outputs.borrow_mut().push(started);
    let saw = std::fs::read_to_string(&out_file).expect("the server ran");
    assert_eq!(saw, format!("{} {} us", sha(PLAIN), sha(TOKEN)));
    // Started as an MCP server (the app's path: workspace-less folder,
    // minimal environment), it gets the same values. It is no real MCP
    // server: it writes the file and exits, which the error says.
    std::fs::remove_file(&out_file).expect("rm");
    let restarted = on_bus_env(&env, &keyring.address, &["mcp", "restart", "alpha-srv"], &out_s);
    assert_eq!(restarted.status.code(), Some(1), "{}", text(&restarted));
    assert!(
        text(&restarted)
            .contains("MCP server alpha-srv failed to start: it exited (code 0) before the handshake ended"),
        "{}",
        text(&restarted)
    );
    outputs.borrow_mut().push(restarted);
    let shown = on_bus(&env, &keyring.address, &["--json", "mcp", "show", "alpha-srv"], None);
    outputs.borrow_mut().push(shown);
    let saw = std::fs::read_to_string(&out_file).expect("the MCP server ran");
    assert_eq!(saw, format!("{} {} us", sha(PLAIN), sha(TOKEN)));

    // A Python tool that declares `atelier_config` gets the settings; the
    // recorded call does not.
    let chat =
        serde_json::from_str::<serde_json::Value>(&ok(&cli(&["--json", "chat", "new"], None))).expect("json")["id"]
            .as_str()
            .expect("id")
            .to_owned();
    let call: serde_json::Value = serde_json::from_str(&ok(&cli(
        &["--json", "run", "alpha:probe", "--chat", &chat, "--quiet"],
        None,
    )))
    .expect("json");
    assert_eq!(call["status"], "success", "{call}");
    assert_eq!(call["result"]["token_sha"], sha(TOKEN));
    assert_eq!(call["result"]["region"], "us");
    assert_eq!(
        call["result"]["keys"],
        serde_json::json!(["api_token", "limit", "region"])
    );
    assert_eq!(call["args"], serde_json::json!({}));
    let forged = cli(
        &[
            "--json",
            "run",
            "alpha:probe",
            "--chat",
            &chat,
            "--quiet",
            "--args",
            r#"{"atelier_config": {}}"#,
        ],
        None,
    );
    assert!(text(&forged).contains("atelier_config"), "{}", text(&forged));

    // Another toolset naming the same key gets nothing, and is told so.
    let beta = "manifest_version: \"1\"\nid: beta\nname: Beta\nversion: \"1.0.0\"\n\
                mcp_servers:\n  - id: beta-srv\n    command: python3\n    args: [\"-c\", \"pass\"]\n    \
                env:\n      API_KEY: \"${API_KEY}\"\n";
    let beta_zip = zip_of(t.path(), "beta.zip", &[("toolset.yaml", beta.as_bytes())]);
    ok(&cli(&["toolset", "import", beta_zip.to_str().expect("path")], None));
    let theirs = cli(&["toolset", "run-server", "beta", "beta-srv", "--dry-run"], None);
    assert_eq!(theirs.status.code(), Some(1));
    assert!(
        text(&theirs).contains("${API_KEY} in env.API_KEY of MCP server \"beta-srv\" has no value for toolset:beta"),
        "{}",
        text(&theirs)
    );

    // Export writes the definitions, never a value.
    let exported = t.path().join("out.zip");
    ok(&cli(
        &["toolset", "export", "alpha", "-o", exported.to_str().expect("p")],
        None,
    ));
    let yaml = crate::bundles::entry_text(&exported, "toolset.yaml");
    assert!(
        yaml.contains("API_KEY: ${API_KEY}") && yaml.contains("sensitive: true"),
        "{yaml}"
    );

    // No byte of either value anywhere in the data dir or any output.
    for secret in [PLAIN, TOKEN] {
        assert_eq!(
            files_holding(env.data(), secret.as_bytes()),
            Vec::<String>::new(),
            "{secret}"
        );
        for o in outputs.borrow().iter() {
            assert!(!text(o).contains(secret), "an output said {secret}: {}", text(o));
        }
    }

    // Uninstalling takes its secrets with it.
    ok(&on_bus(
        &env,
        &keyring.address,
        &["toolset", "uninstall", "alpha"],
        None,
    ));
    let left = ok(&on_bus(
        &env,
        &keyring.address,
        &["secrets", "list", "toolset:alpha"],
        None,
    ));
    assert_eq!(left, "No secrets stored.\n");
    assert_eq!(lookup(&keyring.address, "toolset:alpha/API_KEY"), "");
}

/// `on_bus` with `OUT_FILE` in the environment (the toolset may read it).
fn on_bus_env(env: &Env, bus: &str, args: &[&str], out_file: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_atelier"))
        .arg("--data-dir")
        .arg(env.data())
        .args(args)
        .env_remove("ATELIER_DATA_DIR")
        .env("DBUS_SESSION_BUS_ADDRESS", bus)
        .env("OUT_FILE", out_file)
        .output()
        .expect("spawn")
}

#[tokio::test]
async fn an_old_data_dir_moves_its_plain_secrets_into_the_keychain_once() {
    let keyring = Keyring::start();
    let env = Env::new();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/before-secrets");
    // The database an older version wrote (schema up to 0013), and its folder.
    {
        use sqlx::ConnectOptions;
        let dump = std::fs::read_to_string(fixture.join("atelier.sql")).expect("dump");
        let mut conn = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(env.data().join("atelier.db"))
            .create_if_missing(true)
            .connect()
            .await
            .expect("db");
        sqlx::raw_sql(sqlx::AssertSqlSafe(dump))
            .execute(&mut conn)
            .await
            .expect("load the dump");
        // A key the person had stored then (0013 knew no origin).
        sqlx::query(
            "INSERT INTO secret_names (owner, key, store, updated_at) \
             VALUES ('provider:openai', 'api_key', 'keychain', '2025-01-01T00:00:00Z')",
        )
        .execute(&mut conn)
        .await
        .expect("an older name");
    }
    crate::write(
        env.data(),
        "toolsets/weather/toolset.yaml",
        std::fs::read(fixture.join("toolsets/weather/toolset.yaml")).expect("yaml"),
    );
    crate::write(
        env.data(),
        "toolsets/weather/tools/hello.py",
        std::fs::read(fixture.join("toolsets/weather/tools/hello.py")).expect("py"),
    );
    const OLD: &str = "tok-fixture-9f2c41";
    assert!(
        !files_holding(env.data(), OLD.as_bytes()).is_empty(),
        "the fixture holds it"
    );

    let first = on_bus(&env, &keyring.address, &["--json", "secrets", "list"], None);
    let names: serde_json::Value = serde_json::from_slice(&first.stdout).expect("json");
    assert_eq!(names.as_array().map(Vec::len), Some(2), "{names}");
    // The older name becomes the person's (nothing said a bundle brought
    // it); the value moved out of the bundle's rows is the bundle's.
    assert_eq!(
        (
            names[0]["owner"].as_str(),
            names[0]["key"].as_str(),
            names[0]["origin"].as_str()
        ),
        (Some("provider:openai"), Some("api_key"), Some("person"))
    );
    assert_eq!(
        (
            names[1]["owner"].as_str(),
            names[1]["key"].as_str(),
            names[1]["origin"].as_str()
        ),
        (Some("toolset:weather"), Some("FORECAST_TOKEN"), Some("bundle"))
    );
    assert_eq!(lookup(&keyring.address, "toolset:weather/FORECAST_TOKEN"), OLD);
    assert_eq!(files_holding(env.data(), OLD.as_bytes()), Vec::<String>::new());
    let yaml = std::fs::read_to_string(env.data().join("toolsets/weather/toolset.yaml")).expect("yaml");
    assert!(yaml.contains("FORECAST_TOKEN: ${FORECAST_TOKEN}"), "{yaml}");

    // The installed folder still agrees with its row, and the launch works
    // (REGION through the variable named for this toolset).
    let launch = Command::new(env!("CARGO_BIN_EXE_atelier"))
        .arg("--data-dir")
        .arg(env.data())
        .args(["--json", "toolset", "run-server", "weather", "forecast", "--dry-run"])
        .env("DBUS_SESSION_BUS_ADDRESS", &keyring.address)
        .env("ATELIER_SECRET_TOOLSET_WEATHER__REGION", "north")
        .output()
        .expect("spawn");
    let spec: serde_json::Value =
        serde_json::from_slice(&launch.stdout).unwrap_or_else(|_| panic!("{}", text(&launch)));
    assert_eq!(
        spec["env"],
        serde_json::json!({"FORECAST_TOKEN": "<set>", "REGION": "<set>"})
    );

    // A second start changes nothing.
    let db_rows = || on_bus(&env, &keyring.address, &["--json", "toolset", "show", "weather"], None).stdout;
    let before = (
        db_rows(),
        std::fs::read(env.data().join("toolsets/weather/toolset.yaml")).expect("yaml"),
    );
    let again = on_bus(&env, &keyring.address, &["--json", "secrets", "list"], None);
    assert_eq!(again.stdout, first.stdout, "the same names, the same times");
    assert_eq!(
        (
            db_rows(),
            std::fs::read(env.data().join("toolsets/weather/toolset.yaml")).expect("yaml")
        ),
        before
    );
}

#[test]
fn a_local_folder_keeps_its_plain_secrets_and_they_are_read_from_it() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let dir = t.path().join("alpha");
    let m = alpha_manifest("1.0.0", "").replace("required: true", "required: false");
    crate::write(&dir, "toolset.yaml", &m);
    crate::write(&dir, "tools/probe.py", PROBE_PY);
    crate::write(&dir, "server.py", SERVER_PY);
    let out_file = t.path().join("saw.txt");
    // No keychain here, and none needed: nothing is stored.
    let imported = on_bus(
        &env,
        DEAD_BUS,
        &["toolset", "import", dir.to_str().expect("p"), "--allow-env", "OUT_FILE"],
        None,
    );
    let said = ok(&imported);
    assert!(
        said.contains("the folder holds 1 secret value in plain text (alpha-srv.env.API_KEY)"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("toolset.yaml")).expect("yaml"),
        m,
        "the author's file is untouched"
    );
    assert_eq!(files_holding(env.data(), PLAIN.as_bytes()), Vec::<String>::new());

    let ran = on_bus_env(
        &env,
        DEAD_BUS,
        &["toolset", "run-server", "alpha", "alpha-srv"],
        out_file.to_str().expect("p"),
    );
    ok(&ran);
    assert!(
        text(&ran).contains("holds env.API_KEY of MCP server \"alpha-srv\" in plain text"),
        "{}",
        text(&ran)
    );
    // The optional sensitive setting was never given: empty.
    assert_eq!(
        std::fs::read_to_string(&out_file).expect("ran"),
        format!("{} {} eu", sha(PLAIN), sha(""))
    );
}

#[test]
fn without_a_keychain_a_bundles_secrets_need_the_persons_consent() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let zip = alpha_zip(t.path(), "1.0.0", "");
    let zip_s = zip.to_str().expect("p");
    let refused = on_bus(&env, DEAD_BUS, &["toolset", "import", zip_s], Some(TOKEN));
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused).contains("no keychain is reachable"),
        "{}",
        text(&refused)
    );
    assert!(!env.data().join("toolsets/alpha").exists(), "nothing installed");
    let allowed = on_bus(
        &env,
        DEAD_BUS,
        &["toolset", "import", zip_s, "--allow-file-secrets"],
        Some(TOKEN),
    );
    ok(&allowed);
    let file = env.data().join("secrets.json");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).expect("file").permissions().mode() & 0o777,
        0o600
    );
    let holding = files_holding(env.data(), PLAIN.as_bytes());
    assert_eq!(holding, vec![file.display().to_string()], "only the agreed file");
}
