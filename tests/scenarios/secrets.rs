//! Secrets against a real Secret Service: each test that needs one starts
//! its own D-Bus session with `gnome-keyring-daemon` unlocked by a test
//! password (Debian's `dbus` and `gnome-keyring`, installed by
//! scripts/install.sh), so nothing touches the person's keychain.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use crate::Env;

/// A private Secret Service: a session bus and a keyring daemon on it.
pub(crate) struct Keyring {
    bus: Child,
    pub(crate) address: String,
    _dir: tempfile::TempDir,
}

impl Keyring {
    pub(crate) fn start() -> Self {
        let dir = tempfile::tempdir().expect("tmp");
        let mut bus = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--print-address=1"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("dbus-daemon (Debian `dbus`, installed by scripts/install.sh)");
        let mut address = String::new();
        BufReader::new(bus.stdout.take().expect("stdout"))
            .read_line(&mut address)
            .expect("the bus address");
        let address = address.trim().to_owned();
        for d in ["data", "run", "cache"] {
            std::fs::create_dir_all(dir.path().join(d)).expect("mkdir");
        }
        let mut keyring = Command::new("gnome-keyring-daemon")
            .args(["--unlock", "--components=secrets"])
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .env("XDG_RUNTIME_DIR", dir.path().join("run"))
            .env("XDG_CACHE_HOME", dir.path().join("cache"))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("gnome-keyring-daemon (Debian `gnome-keyring`, installed by scripts/install.sh)");
        keyring
            .stdin
            .take()
            .expect("stdin")
            .write_all(b"test-password")
            .expect("unlock");
        // It forks the daemon and exits; the daemon goes with the bus.
        keyring.wait().expect("gnome-keyring-daemon started");
        Self {
            bus,
            address,
            _dir: dir,
        }
    }
}

impl Drop for Keyring {
    fn drop(&mut self) {
        let _ = self.bus.kill();
        let _ = self.bus.wait();
    }
}

/// `atelier …` on this bus (or on none: `bus` = a dead address).
pub(crate) fn on_bus(env: &Env, bus: &str, args: &[&str], stdin: Option<&str>) -> Output {
    on_bus_with(env, bus, args, stdin, &[])
}

/// [`on_bus`] with `vars` in the command's environment too.
pub(crate) fn on_bus_with(env: &Env, bus: &str, args: &[&str], stdin: Option<&str>, vars: &[(&str, &str)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_atelier"))
        .arg("--data-dir")
        .arg(env.data())
        .args(args)
        .env_remove("ATELIER_DATA_DIR")
        .env("DBUS_SESSION_BUS_ADDRESS", bus)
        .envs(vars.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).expect("write the value");
    }
    drop(input);
    child.wait_with_output().expect("wait")
}

pub(crate) fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Every file under `dir` whose bytes contain `needle`.
pub(crate) fn files_holding(dir: &Path, needle: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).expect("read dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if std::fs::read(&p).is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle)) {
                found.push(p.display().to_string());
            }
        }
    }
    found
}

#[test]
fn secrets_live_in_the_keychain_and_answer_only_their_owner() {
    let keyring = Keyring::start();
    let env = Env::new();
    let cli = |args: &[&str], stdin: Option<&str>| on_bus(&env, &keyring.address, args, stdin);
    let status = cli(&["--json", "secrets", "status"], None);
    assert!(status.status.success(), "{}", text(&status));
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).expect("json");
    assert_eq!(
        (status["keychain"].as_bool(), status["store"].as_str()),
        (Some(true), Some("keychain")),
        "{status}"
    );

    const VALUE: &str = "sk-live-7f3a9c1e5b";
    // Kept in the file while no keychain answered; moving to the keychain
    // leaves no copy behind in the file.
    let dead = on_bus(
        &env,
        "unix:path=/nonexistent/atelier-test-bus",
        &["secrets", "--allow-file-secrets", "set", "toolset:alpha", "API_KEY"],
        Some("sk-old-file-value"),
    );
    assert!(dead.status.success(), "{}", text(&dead));
    let set = cli(
        &["secrets", "set", "toolset:alpha", "API_KEY"],
        Some(&format!("{VALUE}\n")),
    );
    assert!(set.status.success(), "{}", text(&set));
    assert!(text(&set).contains("OS keychain"), "{}", text(&set));

    // It really is in the Secret Service, under the service `atelier`.
    let looked_up = Command::new("secret-tool")
        .args(["lookup", "service", "atelier", "username", "toolset:alpha/API_KEY"])
        .env("DBUS_SESSION_BUS_ADDRESS", &keyring.address)
        .output()
        .expect("secret-tool (Debian `libsecret-tools`)");
    assert_eq!(String::from_utf8_lossy(&looked_up.stdout), VALUE);

    let mine = cli(&["secrets", "check", "toolset:alpha", "API_KEY"], None);
    assert!(mine.status.success(), "{}", text(&mine));
    assert_eq!(
        String::from_utf8_lossy(&mine.stdout),
        "toolset:alpha API_KEY: <set>, from the OS keychain\n"
    );
    // Another toolset naming the same key gets nothing, and is told so.
    let theirs = cli(&["secrets", "check", "toolset:beta", "API_KEY"], None);
    assert_eq!(theirs.status.code(), Some(1));
    let said = text(&theirs);
    assert!(
        said.contains("no value for toolset:beta") && said.contains("ATELIER_SECRET_TOOLSET_BETA__API_KEY"),
        "{said}"
    );

    let list = cli(&["--json", "secrets", "list"], None);
    let names: serde_json::Value = serde_json::from_slice(&list.stdout).expect("json");
    assert_eq!(names[0]["owner"], "toolset:alpha");
    assert_eq!(names[0]["store"], "keychain");
    // No output said the value, and no file of the data dir holds it.
    for out in [&set, &mine, &theirs, &list] {
        assert!(!text(out).contains(VALUE), "a value leaked: {}", text(out));
    }
    assert_eq!(files_holding(env.data(), VALUE.as_bytes()), Vec::<String>::new());
    assert_eq!(
        files_holding(env.data(), b"sk-old-file-value"),
        Vec::<String>::new(),
        "the file's copy is gone"
    );

    let unset = cli(&["secrets", "unset", "toolset:alpha", "API_KEY"], None);
    assert!(unset.status.success(), "{}", text(&unset));
    assert_eq!(
        cli(&["secrets", "check", "toolset:alpha", "API_KEY"], None)
            .status
            .code(),
        Some(1)
    );
    assert_eq!(cli(&["--json", "secrets", "list"], None).stdout, b"[]\n");
}

#[test]
fn without_a_keychain_a_secret_is_kept_in_a_file_only_with_consent() {
    let env = Env::new();
    let none = "unix:path=/nonexistent/atelier-test-bus";
    let cli = |args: &[&str], stdin: Option<&str>| on_bus(&env, none, args, stdin);
    let status = cli(&["secrets", "status"], None);
    assert!(
        text(&status).starts_with("No keychain is reachable ("),
        "{}",
        text(&status)
    );

    let refused = cli(&["secrets", "set", "provider:openai", "api_key"], Some("sk-file-1"));
    assert_eq!(refused.status.code(), Some(1));
    assert!(text(&refused).contains("--allow-file-secrets"), "{}", text(&refused));
    assert!(
        !env.data().join("secrets.json").exists(),
        "nothing written without consent"
    );

    let once = cli(
        &["secrets", "--allow-file-secrets", "set", "provider:openai", "api_key"],
        Some("sk-file-1"),
    );
    assert!(once.status.success(), "{}", text(&once));
    use std::os::unix::fs::PermissionsExt;
    let md = std::fs::metadata(env.data().join("secrets.json")).expect("the file");
    assert_eq!(md.permissions().mode() & 0o777, 0o600);
    // Consent for good: the next commands need no flag.
    let allowed = cli(&["secrets", "allow-file"], None);
    assert!(text(&allowed).contains("as you allowed"), "{}", text(&allowed));
    let check = cli(&["secrets", "check", "provider:openai", "api_key"], None);
    assert!(text(&check).contains("<set>, from the 0600 file"), "{}", text(&check));
    let mut names = cli(&["secrets", "list"], None);
    names.stdout.retain(|b| *b != b'\r');
    assert!(String::from_utf8_lossy(&names.stdout).contains("provider:openai  api_key  (0600 file"));
    assert!(!text(&check).contains("sk-file-1") && !text(&names).contains("sk-file-1"));
}

#[test]
fn the_environment_answers_only_under_the_owners_own_name() {
    let env = Env::new();
    let none = "unix:path=/nonexistent/atelier-test-bus";
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_atelier"));
    let out = cmd
        .arg("--data-dir")
        .arg(env.data())
        .args(["secrets", "check", "toolset:csv-report", "api_key"])
        .env("DBUS_SESSION_BUS_ADDRESS", none)
        .env("ATELIER_SECRET_TOOLSET_CSV_REPORT__API_KEY", "from-env")
        .env("API_KEY", "plain-variable")
        .output()
        .expect("run");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "toolset:csv-report api_key: <set>, from the environment variable ATELIER_SECRET_TOOLSET_CSV_REPORT__API_KEY\n"
    );
    // A plain variable is not read for an owner that was not allowed it.
    let other = on_bus(&env, none, &["secrets", "check", "toolset:other", "API_KEY"], None);
    assert_eq!(other.status.code(), Some(1), "{}", text(&other));
}

/// A plain process variable answers only for an owner the caller allowed
/// it for (a toolset's consent, a provider's usual name); the error names
/// the reference and the owner.
#[tokio::test]
async fn a_plain_variable_answers_only_when_allowed_for_that_owner() {
    use atelier_core::secrets::{Owner, Source};
    let env = Env::new();
    let app = env.app().await;
    let owner = Owner::Toolset("t".into());
    let path = std::env::var("PATH").expect("PATH is set in tests");
    let (value, source) = app
        .secrets()
        .resolve(&owner, "PATH", &["PATH"], "${PATH} in server x")
        .await
        .expect("allowed");
    assert_eq!(
        (value.expose(), source),
        (path.as_str(), Source::AllowedEnv("PATH".into()))
    );
    let err = app
        .secrets()
        .resolve(&owner, "PATH", &[], "${PATH} in server x")
        .await
        .expect_err("not allowed");
    assert_eq!(err.kind(), "secret_not_set");
    let said = err.to_string();
    assert!(
        said.contains("${PATH} in server x")
            && said.contains("toolset:t")
            && said.contains("ATELIER_SECRET_TOOLSET_T__PATH"),
        "{said}"
    );
    assert!(!said.contains(&path), "the error holds no value");
}

/// A variable of the name earlier versions read (`ATELIER_SECRET_<ID>_<KEY>`)
/// is not read any more; the error names it and the name to use instead,
/// never its value.
#[test]
fn a_variable_of_the_former_name_is_named_with_its_new_name() {
    let env = Env::new();
    let out = on_bus_with(
        &env,
        "unix:path=/nonexistent/atelier-test-bus",
        &["secrets", "check", "toolset:csv-report", "API_KEY"],
        None,
        &[("ATELIER_SECRET_CSV_REPORT_API_KEY", "old-form-value-8812")],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("ATELIER_SECRET_CSV_REPORT_API_KEY is set")
            && said.contains("rename it ATELIER_SECRET_TOOLSET_CSV_REPORT__API_KEY"),
        "{said}"
    );
    assert!(!said.contains("old-form-value-8812"), "{said}");
}

/// `ATELIER_SECRET_…` names its owner's kind and ends the id with `__`: a
/// provider's key set in the environment never reaches a toolset or an MCP
/// server that happens to have the provider's id, even when the name older
/// versions read for any owner of that id (`ATELIER_SECRET_OPENAI_API_KEY`)
/// is set too.
#[test]
fn a_providers_key_in_the_environment_never_reaches_a_toolset_or_server_of_the_same_id() {
    const KEY: &str = "sk-provider-only-83f1c2d7";
    const DEAD: &str = "unix:path=/nonexistent/atelier-test-bus";
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let saw = t.path().join("saw.txt");
    let saw_s = saw.to_str().expect("path");
    let vars = [
        ("ATELIER_SECRET_PROVIDER_OPENAI__API_KEY", KEY),
        ("ATELIER_SECRET_OPENAI_API_KEY", KEY),
        ("OPENAI_API_KEY", KEY),
    ];
    let run = |args: &[&str], stdin: Option<&str>| -> Output {
        let out = on_bus_with(&env, DEAD, args, stdin, &vars);
        assert!(!text(&out).contains(KEY), "an output said the key: {}", text(&out));
        out
    };
    // A server that writes the API_KEY it was given (then exits).
    let script = "import os,sys; open(sys.argv[1],'w').write(os.environ.get('API_KEY','<none>'))";

    // The provider reads its key under its own name.
    let added = run(
        &[
            "provider",
            "add",
            "openai",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
        ],
        None,
    );
    assert!(added.status.success(), "{}", text(&added));
    let shown = run(&["--json", "provider", "show", "openai"], None);
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).expect("json");
    assert_eq!(shown["key_from"], "ATELIER_SECRET_PROVIDER_OPENAI__API_KEY");

    // A toolset with the provider's id, whose server asks for ${API_KEY}:
    // refused, naming the toolset's own variable; the server never runs.
    let manifest = format!(
        "manifest_version: \"1\"\nid: openai\nname: Look-alike\nversion: \"1.0.0\"\n\
         mcp_servers:\n  - id: openai-files\n    command: python3\n    \
           args: [\"-c\", \"{script}\", \"{saw_s}\"]\n    env:\n      API_KEY: \"${{API_KEY}}\"\n"
    );
    let zip = crate::bundles::zip_of(t.path(), "openai.zip", &[("toolset.yaml", manifest.as_bytes())]);
    let imported = run(&["toolset", "import", zip.to_str().expect("path")], None);
    assert!(imported.status.success(), "{}", text(&imported));
    for args in [
        &["toolset", "run-server", "openai", "openai-files"][..],
        &["mcp", "restart", "openai-files"][..],
    ] {
        let refused = run(args, None);
        assert_eq!(refused.status.code(), Some(1), "{args:?}: {}", text(&refused));
        let said = text(&refused);
        assert!(
            said.contains("${API_KEY} in env.API_KEY of MCP server \"openai-files\" has no value for toolset:openai")
                && said.contains("ATELIER_SECRET_TOOLSET_OPENAI__API_KEY"),
            "{args:?}: {said}"
        );
        assert!(
            !saw.exists(),
            "{args:?}: the server ran with {:?}",
            std::fs::read_to_string(&saw)
        );
    }
    let gone = run(&["toolset", "uninstall", "openai"], None);
    assert!(gone.status.success(), "{}", text(&gone));

    // A server of the person's with the provider's id: its own value, once
    // unset, is not replaced by the provider's.
    let added = run(
        &[
            "--allow-file-secrets",
            "mcp",
            "add",
            "openai",
            "--env",
            "API_KEY",
            "--",
            "python3",
            "-c",
            script,
            saw_s,
        ],
        Some("own-value-5120"),
    );
    assert_eq!(added.status.code(), Some(1), "it is no MCP server: {}", text(&added));
    assert_eq!(std::fs::read_to_string(&saw).expect("it ran"), "own-value-5120");
    std::fs::remove_file(&saw).expect("rm");
    let unset = run(&["secrets", "unset", "mcp:openai", "API_KEY"], None);
    assert!(unset.status.success(), "{}", text(&unset));
    let refused = run(&["mcp", "restart", "openai"], None);
    assert_eq!(refused.status.code(), Some(1));
    let said = text(&refused);
    assert!(
        said.contains("has no value for mcp:openai") && said.contains("ATELIER_SECRET_MCP_OPENAI__API_KEY"),
        "{said}"
    );
    assert!(!saw.exists(), "the server ran with {:?}", std::fs::read_to_string(&saw));
    assert_eq!(files_holding(env.data(), KEY.as_bytes()), Vec::<String>::new());
}
