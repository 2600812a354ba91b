//! `atelier mcp login` / `logout` against a real OAuth-protected MCP server
//! on loopback (tests/mcp/oauth_server.py: the PyPI `mcp` SDK's auth routes,
//! an authorization server that approves at once). The "browser" is the
//! CLI's test hook `ATELIER_BROWSER` set to `curl -sL`: it follows the
//! authorization URL to the CLI's loopback redirect. The sign-in is kept in
//! the secret store (a private Secret Service), never in the data dir.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use crate::Env;
use crate::bundles::zip_of;
use crate::mcp_cli::{assert_none_left, chat, repo};
use crate::secrets::{Keyring, files_holding, on_bus_with, text};

/// tests/mcp/oauth_server.py, up on a free port.
struct OAuthServer {
    child: Child,
    url: String,
    /// Its stderr lines (`fixture: authorized CLIENT_ID` per authorization).
    lines: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl OAuthServer {
    fn start(args: &[&str]) -> Self {
        let python = repo().join(".tools/mcp-venv/bin/python");
        assert!(python.exists(), "{} (run scripts/install.sh)", python.display());
        let mut child = Command::new(python)
            .arg(repo().join("tests/mcp/oauth_server.py"))
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("python");
        let mut err = BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        while !line.contains("oauth server at") {
            line.clear();
            assert!(err.read_line(&mut line).expect("read") > 0, "oauth_server.py exited");
        }
        let url = line.trim().rsplit(' ').next().expect("url").to_owned();
        let lines: std::sync::Arc<std::sync::Mutex<Vec<String>>> = std::sync::Arc::default();
        let kept = std::sync::Arc::clone(&lines);
        std::thread::spawn(move || {
            for l in err.lines().map_while(Result::ok) {
                kept.lock().expect("lock").push(l);
            }
        });
        Self { child, url, lines }
    }

    fn authorized(&self) -> usize {
        self.said("fixture: authorized")
    }

    fn said(&self, prefix: &str) -> usize {
        let lines = self.lines.lock().expect("lock");
        lines.iter().filter(|l| l.starts_with(prefix)).count()
    }
}

impl Drop for OAuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_server_that_needs_sign_in_says_so_then_login_signs_in_and_logout_forgets() {
    let keyring = Keyring::start();
    let server = OAuthServer::start(&[]);
    let env = Env::new();
    const BROWSER: (&str, &str) = ("ATELIER_BROWSER", "curl -sSL -o /dev/null");
    let cli = |args: &[&str]| on_bus_with(&env, &keyring.address, args, None, &[BROWSER]);

    // Added without a sign-in: the server answers 401, and says so.
    let added = cli(&["mcp", "add", "guarded", "--url", &server.url]);
    assert!(!added.status.success(), "{}", text(&added));
    assert!(text(&added).contains("needs a sign-in"), "{}", text(&added));
    let shown = cli(&["--json", "mcp", "show", "guarded"]);
    let shown: Value = serde_json::from_slice(&shown.stdout).expect("json");
    assert_eq!(shown["status"], "needs sign-in", "{shown}");
    let listed = cli(&["mcp", "list"]);
    assert!(text(&listed).contains("sign-in"), "{}", text(&listed));
    assert!(
        shown["server"]["last_error"]
            .as_str()
            .unwrap_or_default()
            .contains("needs a sign-in"),
        "{shown}"
    );

    // Login: the URL printed, the "browser" run, the redirect taken, the
    // server listed with the token.
    let login = cli(&["mcp", "login", "guarded", "--timeout", "30"]);
    assert!(login.status.success(), "{}", text(&login));
    let said = text(&login);
    assert!(said.contains("Sign in at:") && said.contains("/authorize?"), "{said}");
    assert!(
        said.contains("Signed in to guarded: connected to oauth-fixture"),
        "{said}"
    );
    assert_eq!(server.authorized(), 1);

    // A call goes with the kept token, in another process.
    let c = chat(&env);
    let call = cli(&["--json", "run", "guarded:whoami", "--chat", &c, "--args", "{}", "--yes"]);
    assert!(call.status.success(), "{}", text(&call));
    let call: Value = serde_json::from_slice(&call.stdout).expect("json");
    assert_eq!(call["status"], "success", "{call}");
    assert!(call["result"].to_string().contains("signed in as "), "{call}");

    // The tokens are in the secret store, not in the data dir.
    let names = cli(&["--json", "secrets", "list"]);
    assert!(text(&names).contains("oauth.sign-in"), "{}", text(&names));
    for needle in ["at-", "rt-", "access_token", "refresh_token"] {
        assert_eq!(
            files_holding(env.data(), needle.as_bytes()),
            Vec::<String>::new(),
            "{needle}"
        );
    }

    // A second login reuses the registered client and the port.
    let again = cli(&["mcp", "login", "guarded", "--timeout", "30"]);
    assert!(again.status.success(), "{}", text(&again));
    assert_eq!(server.authorized(), 2);

    // Logout: gone, and the server needs a sign-in again.
    let out = cli(&["mcp", "logout", "guarded"]);
    assert!(text(&out).contains("Signed out of guarded"), "{}", text(&out));
    let restart = cli(&["mcp", "restart", "guarded"]);
    assert!(!restart.status.success());
    assert!(text(&restart).contains("needs a sign-in"), "{}", text(&restart));
    let none = cli(&["mcp", "logout", "guarded"]);
    assert!(text(&none).contains("had no sign-in"), "{}", text(&none));
    assert_none_left(&env, "sign-in");
}

#[test]
fn a_login_whose_browser_never_comes_back_gives_up_and_keeps_nothing() {
    let keyring = Keyring::start();
    let server = OAuthServer::start(&[]);
    let env = Env::new();
    // A "browser" that does nothing: the wait ends at the timeout.
    let cli = |args: &[&str]| on_bus_with(&env, &keyring.address, args, None, &[("ATELIER_BROWSER", "true")]);
    let _ = cli(&["mcp", "add", "guarded", "--url", &server.url]);
    let login = cli(&["mcp", "login", "guarded", "--timeout", "1"]);
    assert!(!login.status.success());
    assert!(
        text(&login).contains("no answer from the browser within 1 s"),
        "{}",
        text(&login)
    );
    assert_eq!(server.authorized(), 0);
    let names = cli(&["--json", "secrets", "list"]);
    assert!(!text(&names).contains("oauth.sign-in"), "{}", text(&names));
}

#[test]
fn an_expired_token_is_refreshed_without_a_new_sign_in() {
    let keyring = Keyring::start();
    // Tokens that last 2 s.
    let server = OAuthServer::start(&["--token-seconds", "2"]);
    let env = Env::new();
    let cli = |args: &[&str]| {
        on_bus_with(
            &env,
            &keyring.address,
            args,
            None,
            &[("ATELIER_BROWSER", "curl -sSL -o /dev/null")],
        )
    };
    let _ = cli(&["mcp", "add", "guarded", "--url", &server.url]);
    let login = cli(&["mcp", "login", "guarded", "--timeout", "30"]);
    assert!(login.status.success(), "{}", text(&login));
    std::thread::sleep(std::time::Duration::from_secs(3));
    let c = chat(&env);
    let call = cli(&["--json", "run", "guarded:whoami", "--chat", &c, "--args", "{}", "--yes"]);
    assert!(call.status.success(), "{}", text(&call));
    let call: Value = serde_json::from_slice(&call.stdout).expect("json");
    assert_eq!(call["status"], "success", "{call}");
    assert_eq!((server.authorized(), server.said("fixture: refreshed") > 0), (1, true));
}

#[test]
fn an_authorization_server_with_a_file_address_is_refused_and_nothing_is_opened() {
    let keyring = Keyring::start();
    let server = OAuthServer::start(&["--authorization-endpoint", "file:///etc/passwd"]);
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let marker = t.path().join("browser-ran");
    // The "browser" leaves a mark if it is ever run.
    let browser = format!("touch {}", marker.display());
    let cli = |args: &[&str]| on_bus_with(&env, &keyring.address, args, None, &[("ATELIER_BROWSER", &browser)]);
    let _ = cli(&["mcp", "add", "guarded", "--url", &server.url]);
    let login = cli(&["mcp", "login", "guarded", "--timeout", "2"]);
    assert!(!login.status.success(), "{}", text(&login));
    let said = text(&login);
    assert!(
        said.contains("authorization_endpoint is a file: address") && said.contains("guarded"),
        "{said}"
    );
    assert!(!said.contains("Sign in at:"), "{said}");
    assert!(!marker.exists(), "the browser was run: {said}");
    assert_eq!(server.authorized(), 0);
}

#[test]
fn a_sign_in_never_goes_to_another_url_the_id_gets_later() {
    let keyring = Keyring::start();
    let (first, second) = (OAuthServer::start(&[]), OAuthServer::start(&[]));
    let env = Env::new();
    const BROWSER: (&str, &str) = ("ATELIER_BROWSER", "curl -sSL -o /dev/null");
    let cli = |args: &[&str]| on_bus_with(&env, &keyring.address, args, None, &[BROWSER]);
    let t = tempfile::tempdir().expect("tmp");
    let import = |version: &str, url: &str| import_remote(&cli, t.path(), version, url);
    let kept = || text(&cli(&["--json", "secrets", "list"])).contains("oauth.sign-in");
    let needs_sign_in = || {
        let shown: Value = serde_json::from_slice(&cli(&["--json", "mcp", "show", "guarded"]).stdout).expect("json");
        assert_eq!(shown["status"], "needs sign-in", "{shown}");
    };

    // A toolset's server, signed in to.
    import("1.0.0", &first.url);
    let login = cli(&["mcp", "login", "guarded", "--timeout", "30"]);
    assert!(login.status.success(), "{}", text(&login));
    assert!(first.said("fixture: bearer at-") > 0);

    // An upgrade that keeps the server's URL keeps its sign-in; one that
    // moves it does not, and the new server never sees the token.
    import("1.0.1", &first.url);
    assert!(kept());
    import("1.0.2", &second.url);
    assert!(!kept());
    let _ = cli(&["mcp", "restart", "guarded"]);
    needs_sign_in();
    assert_eq!(
        second.said("fixture: bearer"),
        0,
        "the first server's token went to the second"
    );

    // Signed in at the second; the toolset goes and the same id comes back
    // at the first: the second's token stays with the second.
    let login = cli(&["mcp", "login", "guarded", "--timeout", "30"]);
    assert!(login.status.success(), "{}", text(&login));
    let before = first.said("fixture: bearer");
    let gone = cli(&["toolset", "uninstall", "remote"]);
    assert!(gone.status.success(), "{}", text(&gone));
    assert!(!kept());
    let added = cli(&["mcp", "add", "guarded", "--url", &first.url]);
    assert!(text(&added).contains("needs a sign-in"), "{}", text(&added));
    needs_sign_in();
    assert_eq!(
        first.said("fixture: bearer"),
        before,
        "the second server's token went to the first"
    );
}

/// Imports toolset `remote` at `version`, its one server `guarded` at `url`.
fn import_remote(cli: &dyn Fn(&[&str]) -> std::process::Output, dir: &std::path::Path, version: &str, url: &str) {
    let manifest = format!(
        "manifest_version: \"1\"\nid: remote\nname: Remote\nversion: \"{version}\"\n\
         mcp_servers:\n  - id: guarded\n    url: \"{url}\"\n"
    );
    let zip = zip_of(
        dir,
        &format!("remote-{version}.zip"),
        &[("toolset.yaml", manifest.as_bytes())],
    );
    let out = cli(&["toolset", "import", zip.to_str().expect("path")]);
    assert!(out.status.success(), "{}", text(&out));
}
