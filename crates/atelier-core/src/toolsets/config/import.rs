//! The settings and secrets step of an import: what the consent step shows
//! ([`Consent`]), and what an import does with them — plain-text values
//! moved to the secret store, settings checked (required ones must have a
//! value), values of an earlier version kept where their keys still exist.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};
use sqlx::SqliteConnection;

use super::literals::{self, Literal, SecretValue};
use super::refs::{self, BUILTINS, Piece};
use super::values::{Planned, ToolsetConfig, check_value, form, plan, secret_key, set_allowance, write_values};
use crate::diagnostics::{Problem, Severity};
use crate::secrets::{Owner, SecretOrigin, StoreKind};
use crate::toolsets::manifest::{McpServerDecl, ToolsetManifest};
use crate::toolsets::undo::Undo;
use crate::{Atelier, Error, Result};

/// A `${NAME}` a bundle's servers read that is neither a path helper nor a
/// secret the bundle brings: a secret to set, or a variable of your
/// environment the toolset may read only if you allow it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct EnvReference {
    pub name: String,
    pub server_ids: Vec<String>,
    /// Whether this process's environment has the variable.
    pub in_environment: bool,
    /// Whether the person already allowed this toolset to read it.
    pub allowed: bool,
    /// Whether the secret store already holds it for this toolset.
    pub stored: bool,
    /// Where the stored value came from: the person, or the bundle (a
    /// value its ZIP held in plain text, moved to the secret store when it
    /// was imported); none while nothing is stored.
    pub origin: Option<SecretOrigin>,
}

/// What the consent step shows about settings and secrets.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ts_rs::TS)]
pub struct Consent {
    /// Values the bundle holds in plain text: they will be kept in the
    /// secret store (a ZIP), or read from the folder (a local toolset).
    pub secret_values: Vec<SecretValue>,
    /// The settings form (with the values of the installed version, if any).
    pub settings: Option<ToolsetConfig>,
    pub env_references: Vec<EnvReference>,
    /// Where secrets would go now; none: nowhere (the person must allow
    /// the file fallback first).
    pub secret_store: Option<StoreKind>,
}

/// An import's settings and secrets, checked before anything is written.
#[derive(Debug)]
pub(crate) struct Prepared {
    literals: Vec<Literal>,
    planned: Planned,
    /// Sensitive keys of the earlier version no longer declared sensitive.
    stale_secrets: Vec<String>,
    allow_env: Vec<String>,
    pub warnings: Vec<Problem>,
}

/// Each `${NAME}` the servers read (not a path helper), with the ids of the
/// servers that read it.
pub(super) fn env_references(servers: &[McpServerDecl]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for s in servers {
        let fields = s
            .command
            .iter()
            .chain(&s.url)
            .chain(&s.args)
            .chain(s.env.values())
            .chain(s.headers.values());
        for v in fields {
            for p in refs::parse(v).unwrap_or_default() {
                if let Piece::Var(name) = p
                    && !BUILTINS.contains(&name)
                {
                    let servers = out.entry(name.to_owned()).or_default();
                    if !servers.contains(&s.id) {
                        servers.push(s.id.clone());
                    }
                }
            }
        }
    }
    out
}

/// `${name}`, read by `server_ids`, as the person is shown it: whether the
/// environment has it, whether they allowed it, whether (and from where)
/// the secret store holds it (`stored`: the toolset's stored names).
pub(super) fn reference(
    name: String,
    server_ids: Vec<String>,
    allowed: &[String],
    stored: &[crate::secrets::SecretName],
) -> EnvReference {
    let origin = stored.iter().find(|n| n.key == name).map(|n| n.origin);
    EnvReference {
        in_environment: std::env::var_os(&name).is_some(),
        allowed: allowed.contains(&name),
        stored: origin.is_some(),
        origin,
        name,
        server_ids,
    }
}

/// What the consent step shows for a checked manifest.
pub(crate) async fn consent(app: &Atelier, manifest: &ToolsetManifest) -> Result<Consent> {
    let mut m = manifest.clone();
    let literals = literals::extract(&mut m.mcp_servers);
    let id = &m.id;
    let installed: bool = sqlx::query_scalar("SELECT count(*) > 0 FROM toolsets WHERE id = ?")
        .bind(id)
        .fetch_one(app.db())
        .await?;
    let (values, secrets) = if installed {
        app.toolsets().stored(id).await?
    } else {
        (Map::new(), Vec::new())
    };
    let allowed = if installed {
        app.toolsets().allowed_env(id).await?
    } else {
        Vec::new()
    };
    let stored_names = app.secrets().list(Some(&Owner::Toolset(id.clone()))).await?;
    let env_references = env_references(&m.mcp_servers)
        .into_iter()
        .filter(|(name, _)| !literals.iter().any(|l| &l.key == name))
        .map(|(name, server_ids)| reference(name, server_ids, &allowed, &stored_names))
        .collect();
    Ok(Consent {
        secret_values: literals.iter().map(SecretValue::from).collect(),
        settings: (!m.user_config.is_empty()).then(|| form(id, &m.user_config, &values, &secrets)),
        env_references,
        secret_store: app.secrets().status().await?.store,
    })
}

/// Checks an import's settings and takes its plain-text secrets out of the
/// manifest (`manifest` keeps references). A required setting with no value
/// (given, kept from the installed version, or a default) fails the import.
pub(crate) async fn prepare(
    app: &Atelier,
    manifest: &mut ToolsetManifest,
    local: bool,
    given: &Map<String, Value>,
    secrets_given: &BTreeMap<String, crate::secrets::Secret>,
    allow_env: &[String],
) -> Result<Prepared> {
    let literals = literals::extract(&mut manifest.mcp_servers);
    let id = manifest.id.clone();
    let decls = &manifest.user_config;
    let mut planned = plan(&id, decls, given, secrets_given, &[])?;
    let (values, secrets) = app.toolsets().stored(&id).await?;
    let mut missing = Vec::new();
    for (key, d) in decls {
        let kept = if d.sensitive {
            secrets.contains(key)
        } else {
            values.get(key).is_some_and(|v| check_value(d, v).is_ok())
        };
        let has =
            given.contains_key(key) || secrets_given.contains_key(key) || kept || (!d.sensitive && d.default.is_some());
        if d.required && !has {
            missing.push(key.clone());
        }
    }
    if !missing.is_empty() {
        return Err(Error::ConfigMissing {
            toolset: id,
            keys: missing,
            hint: "give them in the install form, or with `--config KEY=VALUE` (sensitive ones are asked for)".into(),
        });
    }
    // Values of the installed version whose keys are gone, changed type, or
    // turned sensitive are dropped; sensitive ones no longer declared so too.
    planned.unset.extend(
        values
            .iter()
            .filter(|(k, v)| decls.get(*k).is_none_or(|d| d.sensitive || check_value(d, v).is_err()))
            .map(|(k, _)| k.clone()),
    );
    let stale_secrets = secrets
        .into_iter()
        .filter(|k| decls.get(k).is_none_or(|d| !d.sensitive))
        .collect();
    let mut warnings = Vec::new();
    if local && !literals.is_empty() {
        let names: Vec<String> = literals
            .iter()
            .map(|l| format!("{}.{}.{}", l.server, l.field, l.name))
            .collect();
        warnings.push(Problem {
            severity: Severity::Warning,
            file: None,
            path: "mcp_servers".into(),
            line: None,
            column: None,
            message: format!(
                "the folder holds {} secret value{} in plain text ({}): Atelier reads {} from the folder at each start \
                 and never copies {} into its data; to keep {} in your keychain, run `atelier secrets set toolset:{id} NAME` \
                 and write \"${{NAME}}\" instead",
                literals.len(),
                if literals.len() == 1 { "" } else { "s" },
                names.join(", "),
                if literals.len() == 1 { "it" } else { "them" },
                if literals.len() == 1 { "it" } else { "them" },
                if literals.len() == 1 { "it" } else { "them" },
            ),
        });
    }
    Ok(Prepared {
        // A local folder's values stay in the folder.
        literals: if local { Vec::new() } else { literals },
        planned,
        stale_secrets,
        allow_env: allow_env.to_vec(),
        warnings,
    })
}

impl Prepared {
    /// Before the import's transaction: values into the secret store (it
    /// may refuse: then nothing is installed). What each replaces is kept
    /// in `undo`, to be put back if the import does not commit.
    pub(crate) async fn store_secrets(&self, app: &Atelier, id: &str, undo: &mut Undo) -> Result<()> {
        literals::store(app, id, &self.literals, undo).await?;
        let owner = Owner::Toolset(id.to_owned());
        for (key, secret) in &self.planned.secrets {
            // Typed in the install form (or given on stdin): the person's.
            undo.set_secret(app, &owner, &secret_key(key), secret.clone(), SecretOrigin::Person)
                .await?;
        }
        Ok(())
    }

    /// Inside the import's transaction: settings rows and allowances.
    pub(crate) async fn write_rows(&self, conn: &mut SqliteConnection, id: &str) -> Result<()> {
        write_values(conn, id, &self.planned.values, &self.planned.unset).await?;
        for var in &self.allow_env {
            set_allowance(conn, id, var, true).await?;
        }
        Ok(())
    }

    /// After the commit: secrets the new version no longer declares.
    pub(crate) async fn forget_stale(&self, app: &Atelier, id: &str) {
        let owner = Owner::Toolset(id.to_owned());
        for key in &self.stale_secrets {
            if let Err(e) = app.secrets().unset(&owner, &secret_key(key)).await {
                tracing::warn!(toolset = %id, key = %key, error = %e, "could not remove a setting the new version dropped");
            }
        }
    }

    /// How many plain-text values went to the secret store.
    pub(crate) fn moved(&self) -> usize {
        self.literals.len()
    }
}
