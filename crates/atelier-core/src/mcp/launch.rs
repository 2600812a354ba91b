//! A server row as something to start: the command or URL with every
//! reference resolved for that server alone, the folder it works in, and
//! the roots it is offered.
//!
//! A toolset's server is launched as its toolset declares it
//! ([`crate::toolsets::Toolsets::launch_spec`]: its settings, its secrets,
//! the variables the person allowed it). A server of the person's holds
//! `${KEY}` references whose values are in the secret store under
//! `mcp:<id>`. Either way the process gets the minimal environment Python
//! workers get plus its declared `env` — never the app's own variables —
//! and works in the chat's workspace (chat-scoped, which is also its only
//! root) or in `<data>/mcp/<id>/` (shared, no roots; a chat-scoped
//! server's listing outside any chat works there too, offered an empty
//! folder as its root). Since it does not
//! work in its bundle, a command or argument naming a file of the bundle
//! is passed as that file's full path. Every secret resolved into a
//! launch (an `env` or header value, a token in a URL) is named in its
//! [`Redact`]: the instance's errors, status and stderr never show one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use atelier_mcp::{HttpSpec, Redact, ServerSpec, StdioSpec};

use super::Mcp;
use super::servers::ServerRecord;
use crate::secrets::{Owner, Secret};
use crate::toolsets::config::LaunchSpec;
use crate::{Error, Result};

/// What starting one instance needs.
#[derive(Debug)]
pub(crate) struct Launch {
    pub spec: ServerSpec,
    /// The chat's workspace for a chat-scoped instance.
    pub roots: Option<Vec<PathBuf>>,
    /// Every secret resolved into `spec`: no error, status or stderr line
    /// of the instance shows one.
    pub redact: Redact,
}

/// `${NAME}` exactly: the name.
fn whole_reference(v: &str) -> Option<&str> {
    v.strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .filter(|n| !n.contains(['$', '{', '}']))
}

/// What a launch is made of before it is a spec: every reference
/// resolved, and the bundle its files are in (a toolset's).
struct Parts {
    command: Option<String>,
    args: Vec<String>,
    url: Option<String>,
    env: BTreeMap<String, Secret>,
    headers: BTreeMap<String, Secret>,
    bundle: Option<PathBuf>,
    secrets: Vec<Secret>,
}

impl From<LaunchSpec> for Parts {
    fn from(s: LaunchSpec) -> Self {
        Self {
            command: s.command,
            args: s.args,
            url: s.url,
            env: s.env,
            headers: s.headers,
            bundle: Some(s.dir),
            secrets: s.secrets,
        }
    }
}

/// A toolset's server as `atelier toolset run-server` starts it by hand:
/// what the app starts for its shared instance.
#[derive(Debug)]
pub struct HandLaunch {
    pub toolset_id: String,
    pub server_id: String,
    /// The command (its bundle's files by full path), its whole
    /// environment and its folder; or the URL and headers.
    pub spec: ServerSpec,
    /// The `env` and `headers` it declares (the spec's environment has
    /// the app's minimal variables too).
    pub env_keys: Vec<String>,
    pub header_keys: Vec<String>,
    /// What the person should know (a local folder holding secrets).
    pub warnings: Vec<String>,
}

impl Mcp<'_> {
    /// Where a server's own files go (its folder when shared, its tmp).
    pub(crate) fn server_dir(&self, id: &str) -> PathBuf {
        self.app.data_dir().mcp_server_dir(id)
    }

    /// `<data>/mcp/<id>/` and its `tmp`, made.
    async fn own_dirs(&self, id: &str) -> Result<(PathBuf, PathBuf)> {
        let own = self.server_dir(id);
        let tmp = own.join("tmp");
        tokio::fs::create_dir_all(&tmp)
            .await
            .map_err(Error::io("create", &tmp))?;
        Ok((own, tmp))
    }

    /// How to start `server` for `chat` (`None`: the shared instance, or a
    /// listing outside any chat, whose caller chooses its roots).
    pub(crate) async fn launch(&self, server: &ServerRecord, chat: Option<&str>) -> Result<Launch> {
        let (own, tmp) = self.own_dirs(&server.id).await?;
        let (cwd, roots) = match chat {
            Some(c) => {
                let ws = self.app.workspace_dir(c);
                (ws.clone(), Some(vec![ws]))
            }
            None => (own, None),
        };
        let parts = if server.user_declared || server.toolsets.is_empty() {
            self.persons_parts(server).await?
        } else {
            // The first enabled toolset declaring it (they declare it alike).
            let toolset = &server.toolsets[0];
            Parts::from(self.app.toolsets().launch_spec(toolset, &server.id).await?)
        };
        let mut redact_values: Vec<String> = parts.secrets.iter().map(|s| s.expose().to_owned()).collect();
        if parts.url.is_some() {
            // Its kept sign-in's tokens and client secret, out of its errors too.
            redact_values.extend(self.sign_in_secrets(&server.id).await?);
        }
        let redact = Redact::new(redact_values);
        Ok(Launch {
            spec: spec(&server.id, parts, cwd, &tmp)?,
            roots,
            redact,
        })
    }

    /// Server `server_id` of toolset `toolset_id` as the app starts its
    /// shared instance ([`Self::launch`] without a chat): in
    /// `<data>/mcp/<id>/`, a file of its bundle named by its full path, on
    /// the app's minimal environment. What `atelier toolset run-server`
    /// starts, so that an author's run by hand is the app's.
    pub async fn toolset_launch(&self, toolset_id: &str, server_id: &str) -> Result<HandLaunch> {
        let s = self.app.toolsets().launch_spec(toolset_id, server_id).await?;
        let (own, tmp) = self.own_dirs(server_id).await?;
        let (env_keys, header_keys) = (s.env.keys().cloned().collect(), s.headers.keys().cloned().collect());
        let warnings = s.warnings.clone();
        Ok(HandLaunch {
            toolset_id: toolset_id.to_owned(),
            server_id: server_id.to_owned(),
            spec: spec(server_id, Parts::from(s), own, &tmp)?,
            env_keys,
            header_keys,
            warnings,
        })
    }

    /// A server of the person's: its `${KEY}`s from the secret store.
    async fn persons_parts(&self, server: &ServerRecord) -> Result<Parts> {
        let decl = self.decl(&server.id).await?;
        let owner = Owner::Mcp(server.id.clone());
        let mut maps = [BTreeMap::new(), BTreeMap::new()];
        let mut secrets = Vec::new();
        for (slot, (field, map)) in maps.iter_mut().zip([("env", &decl.env), ("headers", &decl.headers)]) {
            for (k, v) in map {
                let value = match whole_reference(v) {
                    Some(name) => {
                        let what = format!("{field}.{k} of MCP server {:?}", server.id);
                        let value = self.app.secrets().resolve(&owner, name, &[], &what).await?.0;
                        secrets.push(value.clone());
                        value
                    }
                    None => Secret::new(v.clone()),
                };
                slot.insert(k.clone(), value);
            }
        }
        let [env, headers] = maps;
        Ok(Parts {
            command: decl.command,
            args: decl.args,
            url: decl.url,
            env,
            headers,
            bundle: None,
            secrets,
        })
    }
}

/// The one place a launch becomes a spec: a stdio server works in `cwd`
/// with its bundle's files by full path, on the minimal environment (its
/// `TMPDIR` `tmp`) with its declared `env` on top.
fn spec(id: &str, parts: Parts, cwd: PathBuf, tmp: &Path) -> Result<ServerSpec> {
    let dir = parts.bundle.as_deref();
    match (parts.command, parts.url) {
        (Some(command), _) => Ok(ServerSpec::Stdio(StdioSpec {
            command: in_bundle(&command, dir),
            args: parts.args.iter().map(|a| arg_in_bundle(a, dir)).collect(),
            env: crate::environment::with_declared(tmp, parts.env.iter().map(|(k, v)| (k.as_str(), v.expose()))),
            cwd,
        })),
        (None, Some(url)) => Ok(ServerSpec::Http(HttpSpec {
            url,
            headers: parts
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), v.expose().to_owned()))
                .collect(),
        })),
        (None, None) => Err(Error::InvalidData {
            what: "MCP server",
            reason: format!("server {id:?} has neither a command nor a URL"),
        }),
    }
}

/// A relative command path (`./bin/server`, `bin/server`) names a file of
/// the toolset's bundle, wherever the server works; a bare name is looked
/// up on PATH.
fn in_bundle(command: &str, dir: Option<&Path>) -> String {
    match dir {
        Some(d) if command.contains('/') && Path::new(command).is_relative() => d.join(command).display().to_string(),
        _ => command.to_owned(),
    }
}

/// An argument naming a file of the bundle (`server.py`, `dist/index.js`)
/// becomes its full path: the server works in a workspace or its own
/// folder, not in the bundle, so a relative path would miss.
fn arg_in_bundle(arg: &str, dir: Option<&Path>) -> String {
    match dir {
        Some(d) if !arg.starts_with('-') && Path::new(arg).is_relative() && d.join(arg).is_file() => {
            d.join(arg).display().to_string()
        }
        _ => arg.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_bundle_paths() {
        assert_eq!(whole_reference("${API_KEY}"), Some("API_KEY"));
        assert_eq!(whole_reference("Bearer ${API_KEY}"), None);
        assert_eq!(in_bundle("./bin/srv", Some(Path::new("/t/x"))), "/t/x/./bin/srv");
        assert_eq!(in_bundle("npx", Some(Path::new("/t/x"))), "npx");
        assert_eq!(in_bundle("/usr/bin/node", Some(Path::new("/t/x"))), "/usr/bin/node");
        let bundle = tempfile::tempdir().expect("tmp");
        std::fs::write(bundle.path().join("server.py"), "").expect("write");
        let full = bundle.path().join("server.py").display().to_string();
        assert_eq!(arg_in_bundle("server.py", Some(bundle.path())), full);
        for kept in ["--port", "other.py", "-y"] {
            assert_eq!(arg_in_bundle(kept, Some(bundle.path())), kept);
        }
        assert_eq!(arg_in_bundle("server.py", None), "server.py");
    }
}
