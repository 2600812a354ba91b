//! The one environment tool code starts with.
//!
//! Python workers and MCP servers do not inherit the app's
//! environment: it may hold a provider's API key or anything else a person
//! exported, and a tool — or a command a tool runs — could read it. They get
//! what programs need to behave (where commands are, who and where the user
//! is, language and time zone, the terminal type, the proxy settings and
//! the certificate authorities a TLS-inspecting proxy needs trusted, so
//! HTTPS and package installs work behind one), a private temporary folder, and
//! nothing else of the app's. What a toolset declares reaches it explicitly
//! (settings as parameters, an MCP server's declared `env`).

use std::ffi::OsString;
use std::path::Path;

/// Variables passed through unchanged when the app has them.
const PASSED: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    // Where trusted certificates are (OpenSSL, Python's requests, curl,
    // Node): file paths, never secrets.
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
];

/// The person's desktop session, passed to MCP servers only: where the
/// display, the session bus and the SSH agent are (a headed browser, a
/// keyring-backed login, git over ssh-agent need them) and the login
/// shell (the TS SDK passes it; servers that run commands use it).
/// Addresses, not secrets: a server is a program the person chose to run,
/// with their rights. Python tools stay headless: a plotting library that
/// sees a display opens windows from a worker thread.
const SESSION: &[&str] = &[
    "SHELL",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "XDG_RUNTIME_DIR",
    "XDG_SESSION_TYPE",
    "DBUS_SESSION_BUS_ADDRESS",
    "SSH_AUTH_SOCK",
];

/// The environment of one tool instance: the passed variables, `LC_*`, and
/// `TMPDIR` (with `TMP`, `TEMP`) set to `tmp`, its own folder.
pub(crate) fn minimal(tmp: &Path) -> Vec<(OsString, OsString)> {
    minimal_of(tmp, std::env::vars_os())
}

/// [`minimal`] out of `vars` (the app's environment).
fn minimal_of(tmp: &Path, vars: impl Iterator<Item = (OsString, OsString)>) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = vars
        .filter(|(k, _)| k.to_str().is_some_and(|k| PASSED.contains(&k) || k.starts_with("LC_")))
        .collect();
    for k in ["TMPDIR", "TMP", "TEMP"] {
        env.push((k.into(), tmp.as_os_str().to_owned()));
    }
    if !env.iter().any(|(k, _)| k == "PATH") {
        env.push(("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()));
    }
    env
}

/// The whole environment of a server's process: [`minimal`] and the
/// desktop session ([`SESSION`]), with the variables it declares on top (a
/// declared one replaces a passed one).
/// Atelier's MCP servers and `atelier toolset run-server` start with it.
/// A variable that is not UTF-8 is left out (a server's environment is
/// text).
pub(crate) fn with_declared<'a>(
    tmp: &Path,
    declared: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Vec<(String, String)> {
    with_declared_of(tmp, declared, std::env::vars_os().collect())
}

/// [`with_declared`] out of `vars` (the app's environment).
fn with_declared_of<'a>(
    tmp: &Path,
    declared: impl IntoIterator<Item = (&'a str, &'a str)>,
    vars: Vec<(OsString, OsString)>,
) -> Vec<(String, String)> {
    let declared: Vec<(String, String)> = declared
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let session: Vec<(OsString, OsString)> = vars
        .iter()
        .filter(|(k, _)| k.to_str().is_some_and(|k| SESSION.contains(&k)))
        .cloned()
        .collect();
    let mut env: Vec<(String, String)> = minimal_of(tmp, vars.into_iter())
        .into_iter()
        .chain(session)
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| !declared.iter().any(|(d, _)| d == k))
        .collect();
    env.extend(declared);
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_declared_variables_go_on_top_of_the_minimal_ones() {
        // The test process has cargo's variables; PATH is always there.
        let env = with_declared(Path::new("/t"), [("PATH", "/mine"), ("API_KEY", "k")]);
        let get = |name: &str| {
            env.iter()
                .filter(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(get("PATH"), ["/mine"]);
        assert_eq!(get("API_KEY"), ["k"]);
        assert_eq!(get("TMPDIR"), ["/t"]);
        assert!(get("CARGO_PKG_NAME").is_empty(), "{env:?}");
    }

    #[test]
    fn servers_see_the_desktop_session_and_python_tools_do_not() {
        let app: Vec<(OsString, OsString)> = [
            ("PATH", "/usr/bin"),
            ("DISPLAY", ":42"),
            ("SSH_AUTH_SOCK", "/run/user/1000/ssh-agent.sock"),
            ("OPENAI_API_KEY", "sk-1"),
        ]
        .into_iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
        let server = with_declared_of(Path::new("/t"), [], app.clone());
        for (k, v) in [("DISPLAY", ":42"), ("SSH_AUTH_SOCK", "/run/user/1000/ssh-agent.sock")] {
            assert!(server.iter().any(|(a, b)| a == k && b == v), "{k} in {server:?}");
        }
        assert!(!server.iter().any(|(k, _)| k == "OPENAI_API_KEY"), "{server:?}");
        let tool = minimal_of(Path::new("/t"), app.into_iter());
        let keys: Vec<&OsString> = tool.iter().map(|(k, _)| k).collect();
        assert!(
            !keys
                .iter()
                .any(|k| *k == "DISPLAY" || *k == "SSH_AUTH_SOCK" || *k == "OPENAI_API_KEY"),
            "{keys:?}"
        );
    }

    #[test]
    fn only_the_listed_variables_and_a_private_tmpdir_pass() {
        let env = minimal(Path::new("/data/chats/c/tmp/t"));
        let keys: Vec<String> = env.iter().map(|(k, _)| k.to_string_lossy().into_owned()).collect();
        // Cargo sets these for every test process; a tool must not see them.
        assert!(std::env::var_os("CARGO_PKG_NAME").is_some());
        assert!(!keys.iter().any(|k| k.starts_with("CARGO")), "{keys:?}");
        assert!(
            keys.iter()
                .all(|k| PASSED.contains(&k.as_str()) || k.starts_with("LC_") || k.starts_with("TMP") || k == "TEMP")
        );
        let tmpdir = env.iter().find(|(k, _)| k == "TMPDIR").map(|(_, v)| v.clone());
        assert_eq!(tmpdir, Some("/data/chats/c/tmp/t".into()));
        assert!(keys.contains(&"PATH".to_owned()));
    }
}
