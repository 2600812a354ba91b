//! What starting a toolset's MCP server needs: its command, arguments,
//! environment, URL and headers with every reference resolved for that
//! toolset only (its secrets, its settings, the environment variables the
//! person allowed it). The MCP layer starts the process from a
//! [`LaunchSpec`]; nothing here starts anything.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::check::expand_value;
use super::refs::{self, BUILTINS, Piece};
use super::values::secret_key;
use crate::secrets::{Owner, Secret};
use crate::toolsets::Toolsets;
use crate::toolsets::manifest::{McpServerDecl, ToolsetManifest, UserConfigDecl, is_literal};
use crate::toolsets::validate::MANIFEST_FILE;
use crate::{Error, Result};

/// A server's launch with every reference resolved. `Debug` shows names,
/// never a value of `env`, `headers` or `args` (a setting may be in them).
pub struct LaunchSpec {
    pub toolset_id: String,
    pub server_id: String,
    pub command: Option<String>,
    pub args: Vec<String>,
    pub env: BTreeMap<String, Secret>,
    pub url: Option<String>,
    pub headers: BTreeMap<String, Secret>,
    /// The toolset's folder (`${__dirname}`), where a command runs.
    pub dir: PathBuf,
    /// The server's private temporary folder (`<data>/mcp/<id>/tmp`), its
    /// `TMPDIR` as Atelier starts it.
    pub tmp: PathBuf,
    /// What the person should know (a local folder holding secrets).
    pub warnings: Vec<String>,
    /// Every secret value resolved into it (the toolset's secrets, the
    /// variables the person allowed it, its sensitive settings, a local
    /// folder's plain values): what no error about the server may show.
    pub secrets: Vec<Secret>,
}

impl fmt::Debug for LaunchSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LaunchSpec")
            .field("toolset_id", &self.toolset_id)
            .field("server_id", &self.server_id)
            .field("command", &self.command)
            .field("args", &format_args!("<{} args>", self.args.len()))
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("url", &self.url.as_ref().map(|_| "<url>"))
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("dir", &self.dir)
            .field("tmp", &self.tmp)
            .field("secrets", &format_args!("<{} secrets>", self.secrets.len()))
            .finish()
    }
}

impl LaunchSpec {
    /// The whole environment of the server's process, as Atelier starts
    /// it ([`crate::environment::with_declared`]): what programs need, its
    /// own `TMPDIR` (created now), and its declared `env` — nothing else of
    /// this process's (a provider's key, another owner's
    /// `ATELIER_SECRET_*`).
    pub async fn environment(&self) -> Result<Vec<(String, String)>> {
        tokio::fs::create_dir_all(&self.tmp)
            .await
            .map_err(Error::io("create", &self.tmp))?;
        Ok(crate::environment::with_declared(
            &self.tmp,
            self.env.iter().map(|(k, v)| (k.as_str(), v.expose())),
        ))
    }
}

/// What references resolve against, for one toolset.
struct Scope<'a> {
    ts: &'a Toolsets<'a>,
    id: &'a str,
    server: &'a str,
    dir: PathBuf,
    decls: IndexMap<String, UserConfigDecl>,
    values: Map<String, Value>,
    allowed: Vec<String>,
    /// The secret values resolved so far.
    secrets: Mutex<Vec<Secret>>,
}

impl Scope<'_> {
    async fn var(&self, name: &str, at: &str) -> Result<String> {
        if BUILTINS.contains(&name) {
            return Ok(match name {
                "HOME" => dirs::home_dir().map(|h| h.display().to_string()).unwrap_or_default(),
                "__dirname" => self.dir.display().to_string(),
                _ => std::path::MAIN_SEPARATOR.to_string(),
            });
        }
        let owner = Owner::Toolset(self.id.to_owned());
        let allowed: Vec<&str> = self.allowed.iter().filter(|v| *v == name).map(String::as_str).collect();
        let reference = format!("${{{name}}} in {at} of MCP server {:?}", self.server);
        match self.ts.app.secrets().resolve(&owner, name, &allowed, &reference).await {
            Ok((s, _)) => Ok(self.secret(s)),
            Err(Error::SecretNotSet {
                reference,
                owner,
                key,
                mut hint,
            }) => {
                if std::env::var_os(name).is_some() {
                    hint.push_str(&format!(
                        "; your environment has {name}, but toolset {:?} may not read it unless you allow it: \
                         `atelier toolset allow-env {} {name}`",
                        self.id, self.id
                    ));
                }
                Err(Error::SecretNotSet {
                    reference,
                    owner,
                    key,
                    hint,
                })
            }
            Err(e) => Err(e),
        }
    }

    /// A secret's value, kept in mind as one.
    fn secret(&self, s: Secret) -> String {
        let value = s.expose().to_owned();
        self.secrets.lock().unwrap_or_else(PoisonError::into_inner).push(s);
        value
    }

    /// A setting's value(s) as text; an optional one with no value is empty.
    async fn config(&self, key: &str) -> Result<Vec<String>> {
        let Some(decl) = self.decls.get(key) else {
            return Err(Error::ConfigInvalid {
                toolset: self.id.to_owned(),
                key: key.to_owned(),
                reason: format!("no such setting (named by MCP server {:?})", self.server),
            });
        };
        let missing = || Error::ConfigMissing {
            toolset: self.id.to_owned(),
            keys: vec![key.to_owned()],
            hint: format!(
                "MCP server {:?} needs it; set it with `atelier toolset config {} {key}`",
                self.server, self.id
            ),
        };
        if decl.sensitive {
            let owner = Owner::Toolset(self.id.to_owned());
            let reference = format!("setting {key:?} of toolset {:?}", self.id);
            return match self
                .ts
                .app
                .secrets()
                .resolve(&owner, &secret_key(key), &[], &reference)
                .await
            {
                Ok((s, _)) => Ok(vec![self.secret(s)]),
                Err(Error::SecretNotSet { .. }) if decl.required => Err(missing()),
                Err(Error::SecretNotSet { .. }) => Ok(vec![String::new()]),
                Err(e) => Err(e),
            };
        }
        let v = match self.values.get(key).or(decl.default.as_ref()) {
            Some(v) => expand_value(decl, v),
            None if decl.required => return Err(missing()),
            None => return Ok(vec![String::new()]),
        };
        Ok(match v {
            Value::Array(items) => items.iter().map(text).collect(),
            other => vec![text(&other)],
        })
    }

    async fn resolve(&self, value: &str, at: &str) -> Result<String> {
        let pieces = refs::parse(value).map_err(|e| Error::ConfigInvalid {
            toolset: self.id.to_owned(),
            key: at.to_owned(),
            reason: e,
        })?;
        let mut out = String::new();
        for p in pieces {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Var(name) => out.push_str(&self.var(name, at).await?),
                Piece::Config(key) => out.push_str(&self.config(key).await?.join(",")),
            }
        }
        Ok(out)
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

impl Toolsets<'_> {
    /// How to start MCP server `server_id` of toolset `toolset_id`, every
    /// reference resolved for that toolset (see the module docs). A value
    /// that cannot be resolved is an error naming the reference, the
    /// server and the toolset.
    pub async fn launch_spec(&self, toolset_id: &str, server_id: &str) -> Result<LaunchSpec> {
        let row: Option<(String, String, Option<String>)> = sqlx::query_as(
            "SELECT d.config, t.source_type, t.source_ref FROM toolset_mcp_servers d JOIN toolsets t \
             ON t.id = d.toolset_id WHERE d.toolset_id = ? AND d.server_id = ?",
        )
        .bind(toolset_id)
        .bind(server_id)
        .fetch_optional(self.app.db())
        .await?;
        let Some((config, source, source_ref)) = row else {
            self.config_decls(toolset_id).await?;
            return Err(Error::InvalidData {
                what: "MCP server",
                reason: format!("toolset {toolset_id:?} declares no MCP server {server_id:?}"),
            });
        };
        let decl: McpServerDecl = serde_json::from_str(&config).map_err(|e| Error::InvalidData {
            what: "MCP server declaration",
            reason: e.to_string(),
        })?;
        let local = source == "local";
        let dir = match (&source_ref, local) {
            (Some(r), true) => PathBuf::from(r),
            _ => self.app.data_dir().toolsets_dir().join(toolset_id),
        };
        let mut warnings = Vec::new();
        // A local folder is read as its author wrote it: its plain-text
        // values are used from there, never copied into the data dir.
        let mut plain: BTreeMap<(&'static str, String), String> = BTreeMap::new();
        if local {
            let path = dir.join(MANIFEST_FILE);
            if let Some(m) = super::super::validate::text::read_parsed::<ToolsetManifest>(&path).await
                && let Some(s) = m.mcp_servers.into_iter().find(|s| s.id == server_id)
            {
                for (field, map) in [("env", s.env), ("headers", s.headers)] {
                    for (k, v) in map.into_iter().filter(|(_, v)| is_literal(v)) {
                        warnings.push(format!(
                            "{} holds {field}.{k} of MCP server {server_id:?} in plain text",
                            path.display()
                        ));
                        plain.insert((field, k), v);
                    }
                }
            }
        }
        let (values, _) = self.stored(toolset_id).await?;
        let scope = Scope {
            ts: self,
            id: toolset_id,
            server: server_id,
            dir: dir.clone(),
            decls: self.config_decls(toolset_id).await?,
            values,
            allowed: self.allowed_env(toolset_id).await?,
            secrets: Mutex::default(),
        };
        let command = match &decl.command {
            Some(c) => Some(scope.resolve(c, "command").await?),
            None => None,
        };
        let url = match &decl.url {
            Some(u) => Some(scope.resolve(u, "url").await?),
            None => None,
        };
        let mut args = Vec::new();
        for (i, a) in decl.args.iter().enumerate() {
            match refs::whole_config(a) {
                Some(key) if scope.decls.get(key).is_some_and(|d| d.multiple) => {
                    args.extend(scope.config(key).await?.into_iter().filter(|s| !s.is_empty()));
                }
                _ => args.push(scope.resolve(a, &format!("args[{i}]")).await?),
            }
        }
        let mut maps = [BTreeMap::new(), BTreeMap::new()];
        for (slot, (field, map)) in maps.iter_mut().zip([("env", &decl.env), ("headers", &decl.headers)]) {
            for (k, v) in map {
                let value = match plain.remove(&(field, k.clone())) {
                    Some(p) => scope.secret(Secret::new(p)),
                    None => scope.resolve(v, &format!("{field}.{k}")).await?,
                };
                slot.insert(k.clone(), Secret::new(value));
            }
        }
        let [env, headers] = maps;
        Ok(LaunchSpec {
            toolset_id: toolset_id.to_owned(),
            server_id: server_id.to_owned(),
            command,
            args,
            env,
            url,
            headers,
            dir,
            tmp: self.app.data_dir().mcp_server_dir(server_id).join("tmp"),
            warnings,
            secrets: scope.secrets.into_inner().unwrap_or_else(PoisonError::into_inner),
        })
    }
}
