//! Secrets written in plain text in a server's `env` or `headers`: at
//! import they go to the secret store (bound to the toolset) and the
//! declaration keeps a `${NAME}` reference in their place; on a start,
//! rows and installed folders an older version left with such values are
//! moved the same way, once (a second start finds nothing to move).
//!
//! A `local` toolset's folder is its author's source and is never
//! rewritten: its rows keep references, and the values are read from the
//! folder when a server starts (`launch`).

use serde::Serialize;
use sqlx::Row;

use crate::secrets::{Owner, Secret, SecretOrigin};
use crate::store::Hash;
use crate::toolsets::manifest::{McpServerDecl, ToolsetManifest, is_literal, reference_name};
use crate::toolsets::undo::Undo;
use crate::{Atelier, Error, Result, db};

/// A literal value found in a declaration, and the key it is stored under.
#[derive(Debug, Clone)]
pub(crate) struct Literal {
    pub server: String,
    pub field: &'static str,
    pub name: String,
    /// The secret's key (and the `${NAME}` now in the declaration).
    pub key: String,
    pub value: Secret,
}

/// A secret value a bundle holds in plain text, as the consent step names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct SecretValue {
    pub server_id: String,
    /// `env` or `headers`.
    pub field: String,
    pub name: String,
}

impl From<&Literal> for SecretValue {
    fn from(l: &Literal) -> Self {
        Self {
            server_id: l.server.clone(),
            field: l.field.to_owned(),
            name: l.name.clone(),
        }
    }
}

/// Replaces every literal `env`/`headers` value by `${KEY}` and returns the
/// values. Two different values under the same name get distinct keys
/// (`API_KEY`, `API_KEY_<server>`); the same value under one name shares one.
pub(crate) fn extract(servers: &mut [McpServerDecl]) -> Vec<Literal> {
    let mut out: Vec<Literal> = Vec::new();
    for s in servers.iter_mut() {
        let server = s.id.clone();
        let fields = s
            .env
            .iter_mut()
            .map(|kv| ("env", kv))
            .chain(s.headers.iter_mut().map(|kv| ("headers", kv)));
        for (field, (name, v)) in fields {
            if !is_literal(v) {
                continue;
            }
            let base = reference_name(name);
            let mut key = base.clone();
            let mut n = 1;
            loop {
                match out.iter().find(|l| l.key == key) {
                    Some(l) if l.value.expose() == v.as_str() => break,
                    Some(_) => {
                        key = if n == 1 {
                            format!("{base}_{}", reference_name(&server))
                        } else {
                            format!("{base}_{}_{n}", reference_name(&server))
                        };
                        n += 1;
                    }
                    None => break,
                }
            }
            let value = Secret::new(std::mem::replace(v, format!("${{{key}}}")));
            out.push(Literal {
                server: server.clone(),
                field,
                name: name.clone(),
                key,
                value,
            });
        }
    }
    out
}

/// Stores extracted values for their toolset (one per key), recorded as
/// the bundle's (removing one warns that only a reinstall brings it back),
/// each value it replaces kept in `undo`.
pub(crate) async fn store(app: &Atelier, toolset: &str, literals: &[Literal], undo: &mut Undo) -> Result<()> {
    let owner = Owner::Toolset(toolset.to_owned());
    let mut done: Vec<&str> = Vec::new();
    for l in literals {
        if done.contains(&l.key.as_str()) {
            continue;
        }
        let stored = undo
            .set_secret(app, &owner, &l.key, l.value.clone(), SecretOrigin::Bundle)
            .await;
        if let Err(crate::Error::SecretsUnavailable(why)) = stored {
            // Say what needed the store: the person may not know the
            // bundle holds values in plain text.
            let values: Vec<String> = literals
                .iter()
                .map(|l| format!("mcp_servers {:?} {}.{}", l.server, l.field, l.name))
                .collect();
            return Err(crate::Error::SecretsUnavailable(format!(
                "toolset {toolset:?} writes values in plain text in its manifest ({}), which an import moves to \
                 the secret store: {why}",
                values.join(", ")
            )));
        }
        stored?;
        done.push(&l.key);
    }
    Ok(())
}

impl crate::toolsets::Toolsets<'_> {
    /// Moves plain-text values an older version left in server rows and
    /// installed folders into the secret store (every start does; call it
    /// again once a store is allowed). How many values moved.
    pub async fn move_plain_secrets(&self) -> Result<usize> {
        migrate(self.app).await
    }
}

/// Moves literal values an older version left in server rows and installed
/// folders into the secret store. Where no store is reachable it changes
/// nothing and says so (the next start tries again).
pub(crate) async fn migrate(app: &Atelier) -> Result<usize> {
    let rows = sqlx::query(
        "SELECT t.id, t.source_type, d.server_id, d.config FROM toolset_mcp_servers d \
         JOIN toolsets t ON t.id = d.toolset_id ORDER BY t.id, d.position, d.server_id",
    )
    .fetch_all(app.db())
    .await?;
    let mut by_toolset: Vec<(String, String, Vec<McpServerDecl>)> = Vec::new();
    for r in &rows {
        let id: String = r.try_get("id")?;
        let source: String = r.try_get("source_type")?;
        let config: String = r.try_get("config")?;
        let Ok(decl) = serde_json::from_str::<McpServerDecl>(&config) else {
            continue;
        };
        match by_toolset.last_mut() {
            Some((last, _, servers)) if *last == id => servers.push(decl),
            _ => by_toolset.push((id, source, vec![decl])),
        }
    }
    let mut moved = 0;
    for (id, source, mut servers) in by_toolset {
        let literals = extract(&mut servers);
        if literals.is_empty() {
            continue;
        }
        let local = source == "local";
        // The rows still hold the values until the commit below: a value
        // stored before a failure is stored again by the next start.
        if !local && let Err(e) = store(app, &id, &literals, &mut Undo::default()).await {
            tracing::warn!(toolset = %id, error = %e, "could not move the toolset's plain-text secrets into the secret store; they stay where they are until the next start");
            return Ok(moved);
        }
        let mut tx = db::begin_write(app.db()).await?;
        for s in &servers {
            let config = serde_json::to_string(&s.config_json()).map_err(|e| Error::Internal(e.to_string()))?;
            sqlx::query("UPDATE toolset_mcp_servers SET config = ? WHERE toolset_id = ? AND server_id = ?")
                .bind(&config)
                .bind(&id)
                .bind(&s.id)
                .execute(&mut *tx)
                .await?;
            sqlx::query("UPDATE mcp_servers SET config = ? WHERE id = ? AND user_declared = 0")
                .bind(&config)
                .bind(&s.id)
                .execute(&mut *tx)
                .await?;
        }
        if !local {
            rewrite_installed(app, &mut tx, &id, &servers).await?;
        }
        tx.commit().await?;
        moved += literals.len();
        tracing::info!(toolset = %id, count = literals.len(), local, "moved plain-text secrets out of the database and installed folder");
    }
    if moved > 0 {
        // The old pages are still in the main file until a checkpoint, and
        // the log keeps its frames until truncated.
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(app.db()).await?;
    }
    Ok(moved)
}

/// Rewrites an installed copy's `toolset.yaml` with the declarations'
/// references, and its file row's hash (inside the caller's transaction:
/// a crash before the commit redoes both on the next start).
async fn rewrite_installed(
    app: &Atelier,
    tx: &mut sqlx::SqliteConnection,
    id: &str,
    servers: &[McpServerDecl],
) -> Result<()> {
    let path = app
        .data_dir()
        .toolsets_dir()
        .join(id)
        .join(super::super::validate::MANIFEST_FILE);
    match tokio::fs::metadata(&path).await {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io("read", &path)(e)),
        Ok(_) => {}
    }
    let Some(mut manifest) = super::super::validate::text::read_parsed::<ToolsetManifest>(&path).await else {
        tracing::warn!(toolset = %id, path = %path.display(), "installed toolset.yaml does not parse; left as it is");
        return Ok(());
    };
    manifest.mcp_servers = servers.to_vec();
    let yaml = manifest.to_yaml();
    let tmp = path.with_extension("yaml.tmp");
    tokio::fs::write(&tmp, &yaml).await.map_err(Error::io("write", &tmp))?;
    tokio::fs::rename(&tmp, &path)
        .await
        .map_err(Error::io("replace", &path))?;
    sqlx::query("UPDATE toolset_files SET sha256 = ?, size = ? WHERE toolset_id = ? AND path = ?")
        .bind(Hash::of(yaml.as_bytes()).to_hex())
        .bind(i64::try_from(yaml.len()).unwrap_or(i64::MAX))
        .bind(id)
        .bind(super::super::validate::MANIFEST_FILE)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(id: &str, env: &[(&str, &str)]) -> McpServerDecl {
        McpServerDecl {
            id: id.into(),
            command: Some("npx".into()),
            args: vec![],
            env: env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
            url: None,
            headers: Default::default(),
            auto_enabled: true,
            timeout_s: None,
            extra: Default::default(),
        }
    }

    #[test]
    fn literals_become_references_with_distinct_keys() {
        let mut servers = vec![
            server(
                "a",
                &[("API_KEY", "sk-1"), ("HOME_DIR", "${HOME}"), ("AUTH", "Bearer ${T}")],
            ),
            server("b-2", &[("API_KEY", "sk-2")]),
            server("c", &[("API_KEY", "sk-1")]),
        ];
        let lits = extract(&mut servers);
        let keys: Vec<&str> = lits.iter().map(|l| l.key.as_str()).collect();
        assert_eq!(keys, ["API_KEY", "API_KEY_b_2", "API_KEY"]);
        assert_eq!(servers[0].env["API_KEY"], "${API_KEY}");
        assert_eq!(servers[0].env["HOME_DIR"], "${HOME}");
        assert_eq!(servers[0].env["AUTH"], "Bearer ${T}");
        assert_eq!(servers[1].env["API_KEY"], "${API_KEY_b_2}");
        assert_eq!(servers[2].env["API_KEY"], "${API_KEY}");
        assert_eq!(lits[1].value.expose(), "sk-2");
        assert!(extract(&mut servers).is_empty(), "a second pass finds nothing");
    }
}
