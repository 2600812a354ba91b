//! Secrets: API keys and tokens of LLM providers, toolsets and MCP servers.
//!
//! A value lives in the OS keychain ([`stores::Keychain`]), or — only where
//! no keychain answers and only after the person agreed (the
//! `allow_file_secrets` setting, or the CLI's `--allow-file-secrets`) — in
//! `secrets.json` (mode 0600) in the data dir. The database keeps the
//! *names* only (`secret_names`), for listing. A value is never logged,
//! never in an error, never in `--json` output ([`Secret`] has no `Display`
//! and a redacting `Debug`).
//!
//! Every secret has an [`Owner`]; [`Secrets::resolve`] is the one rule for
//! every reference: the owner's entry in the store; else the environment
//! variable `ATELIER_SECRET_<KIND>_<ID>__<KEY>` ([`Owner::env_var`]: no two
//! owners share one, so a toolset named like a provider never reads the
//! provider's); else a plain variable of the
//! process environment only if the caller says that owner may read it (a
//! toolset the person allowed it for; a provider's usual `OPENAI_API_KEY`).
//! Another owner's value is never an answer.

mod owner;
pub mod stores;

use serde::Serialize;

pub use owner::{Owner, Secret, SecretOrigin, StoreKind, check_key};
use stores::{FileStore, Keychain, SecretStore};

use crate::{Atelier, Error, Result, blocking, db, ids};

/// The settings key of the person's consent to the file fallback.
const ALLOW_FILE: &str = "allow_file_secrets";

/// The secrets facet: `app.secrets()`.
#[derive(Debug, Clone, Copy)]
pub struct Secrets<'a> {
    pub(crate) app: &'a Atelier,
    /// The CLI's `--allow-file-secrets`: consent for this process only.
    allow_file_now: bool,
}

/// Where secrets go on this machine, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct SecretsStatus {
    /// Whether the OS keychain answers.
    pub keychain: bool,
    /// Why it does not, in one line.
    pub keychain_error: Option<String>,
    /// Whether the person allowed the file fallback (the setting).
    pub file_allowed: bool,
    /// Where a secret set now would go; none: nowhere (say how to allow the fallback).
    pub store: Option<StoreKind>,
    /// The fallback file, when it is (or would be) used.
    pub file: Option<String>,
    /// How many secrets are stored (names known).
    pub count: usize,
}

/// A stored secret's name: never its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct SecretName {
    pub owner: String,
    pub key: String,
    pub store: StoreKind,
    /// Whether the person typed it or a toolset's bundle brought it.
    pub origin: SecretOrigin,
    pub updated_at: String,
}

/// Where a resolved value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Store(StoreKind),
    /// `ATELIER_SECRET_<KIND>_<ID>__<KEY>` ([`Owner::env_var`]).
    AtelierEnv(String),
    /// A process variable the caller allowed for this owner.
    AllowedEnv(String),
}

impl Atelier {
    /// Secrets: the keychain (or the agreed file), names, resolution.
    pub fn secrets(&self) -> Secrets<'_> {
        Secrets {
            app: self,
            allow_file_now: self.file_secrets_allowed_now(),
        }
    }
}

impl<'a> Secrets<'a> {
    /// This facet with the file fallback allowed for this process (the
    /// CLI's `--allow-file-secrets`), whatever the setting says.
    pub fn allowing_file(self, yes: bool) -> Self {
        Self {
            allow_file_now: self.allow_file_now || yes,
            ..self
        }
    }

    fn file_store(&self) -> FileStore {
        FileStore::new(self.app.data_dir().root().join("secrets.json"))
    }

    async fn file_allowed_setting(&self) -> Result<bool> {
        let v: Option<String> = sqlx::query_scalar("SELECT value FROM settings WHERE key = ?")
            .bind(ALLOW_FILE)
            .fetch_optional(self.app.db())
            .await?;
        Ok(v.as_deref() == Some("true"))
    }

    /// Records (or takes back) the person's consent to the file fallback.
    pub async fn allow_file_fallback(&self, yes: bool) -> Result<SecretsStatus> {
        let mut tx = db::begin_write(self.app.db()).await?;
        sqlx::query(
            "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(ALLOW_FILE)
        .bind(if yes { "true" } else { "false" })
        .bind(ids::now())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.status().await
    }

    /// Where secrets go now, and why.
    pub async fn status(&self) -> Result<SecretsStatus> {
        let probe = blocking(|| Ok(Keychain::probe())).await?;
        let file_allowed = self.file_allowed_setting().await?;
        let count: i64 = sqlx::query_scalar("SELECT count(*) FROM secret_names")
            .fetch_one(self.app.db())
            .await?;
        let store = match (&probe, file_allowed || self.allow_file_now) {
            (Ok(()), _) => Some(StoreKind::Keychain),
            (Err(_), true) => Some(StoreKind::File),
            (Err(_), false) => None,
        };
        Ok(SecretsStatus {
            keychain: probe.is_ok(),
            keychain_error: probe.err(),
            file_allowed,
            file: (store != Some(StoreKind::Keychain)).then(|| self.file_store().path().display().to_string()),
            store,
            count: usize::try_from(count).unwrap_or(0),
        })
    }

    /// Where a stored secret was put (its name says), if it was.
    async fn known_store(&self, owner: &Owner, key: &str) -> Result<Option<StoreKind>> {
        let known: Option<String> = sqlx::query_scalar("SELECT store FROM secret_names WHERE owner = ? AND key = ?")
            .bind(owner.to_string())
            .bind(key)
            .fetch_optional(self.app.db())
            .await?;
        Ok(known.as_deref().and_then(StoreKind::parse))
    }

    fn store_of(&self, kind: StoreKind) -> Box<dyn SecretStore> {
        match kind {
            StoreKind::Keychain => Box::new(Keychain),
            StoreKind::File => Box::new(self.file_store()),
        }
    }

    /// The store a secret goes to now (see the module docs).
    async fn store(&self) -> Result<Box<dyn SecretStore>> {
        let status = self.status().await?;
        match status.store {
            Some(StoreKind::Keychain) => Ok(Box::new(Keychain)),
            Some(StoreKind::File) => Ok(Box::new(self.file_store())),
            None => Err(Error::SecretsUnavailable(format!(
                "no keychain is reachable ({}); to keep secrets in a file only you can read ({}), \
                 allow it: `atelier secrets allow-file` or `--allow-file-secrets`",
                status.keychain_error.unwrap_or_default(),
                self.file_store().path().display()
            ))),
        }
    }

    /// Stores a secret the person gave for its owner (the origin a bundle
    /// import records is [`Self::set_from`]'s): a value replacing one a
    /// bundle brought is the person's from then on.
    pub async fn set(&self, owner: &Owner, key: &str, value: Secret) -> Result<SecretName> {
        self.set_from(owner, key, value, SecretOrigin::Person).await
    }

    /// Stores a secret for its owner, recording where the value came from.
    pub(crate) async fn set_from(
        &self,
        owner: &Owner,
        key: &str,
        value: Secret,
        origin: SecretOrigin,
    ) -> Result<SecretName> {
        check_key(key)?;
        let store = self.store().await?;
        let kind = store.kind();
        // Kept before in the other store (the file, before a keychain was
        // reachable): removed there once the new one holds the value, so
        // no stale copy stays on disk.
        let before = self.known_store(owner, key).await?.filter(|k| *k != kind);
        let old = before.map(|k| self.store_of(k));
        let (o, k) = (owner.clone(), key.to_owned());
        blocking(move || {
            store.set(&o, &k, &value)?;
            match old {
                Some(old) => old.delete(&o, &k).map(|_| ()),
                None => Ok(()),
            }
        })
        .await?;
        let name = SecretName {
            owner: owner.to_string(),
            key: key.to_owned(),
            store: kind,
            origin,
            updated_at: ids::now(),
        };
        let mut tx = db::begin_write(self.app.db()).await?;
        sqlx::query(
            "INSERT INTO secret_names (owner, key, store, origin, updated_at) VALUES (?, ?, ?, ?, ?) \
             ON CONFLICT (owner, key) DO UPDATE SET store = excluded.store, origin = excluded.origin, \
             updated_at = excluded.updated_at",
        )
        .bind(&name.owner)
        .bind(&name.key)
        .bind(kind.as_str())
        .bind(origin.as_str())
        .bind(&name.updated_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(name)
    }

    /// Removes a secret; whether it had a value.
    pub async fn unset(&self, owner: &Owner, key: &str) -> Result<bool> {
        check_key(key)?;
        let store = match self.known_store(owner, key).await? {
            Some(kind) => self.store_of(kind),
            None => self.store().await?,
        };
        let (o, k) = (owner.clone(), key.to_owned());
        let had = blocking(move || store.delete(&o, &k)).await?;
        let mut tx = db::begin_write(self.app.db()).await?;
        let named = sqlx::query("DELETE FROM secret_names WHERE owner = ? AND key = ?")
            .bind(owner.to_string())
            .bind(key)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(had || named.rows_affected() > 0)
    }

    /// Deletes the values `keys` of `owner` (each from the store its name
    /// said) whose names are gone — deleted by the caller's transaction
    /// that committed. Values go only after their names, never before: an
    /// uninstall that does not commit (a failed commit, a crash) keeps both,
    /// and the next start, handed the same keys, finds the names back and
    /// deletes nothing. Whether every value that had to go went: one its
    /// store cannot delete now (no keychain) is named in the log, and the
    /// caller keeps the keys to try again later.
    pub(crate) async fn delete_unnamed(&self, owner: &Owner, keys: &[(String, StoreKind)]) -> Result<bool> {
        let named: std::collections::HashSet<String> =
            self.list(Some(owner)).await?.into_iter().map(|n| n.key).collect();
        let mut all = true;
        for (key, kind) in keys.iter().filter(|(k, _)| !named.contains(k)) {
            let store = self.store_of(*kind);
            let (o, k) = (owner.clone(), key.clone());
            if let Err(e) = blocking(move || store.delete(&o, &k)).await {
                tracing::warn!(%owner, %key, error = %e, "could not remove a secret's value");
                all = false;
            }
        }
        Ok(all)
    }

    /// The names of the stored secrets (of one owner), never their values.
    pub async fn list(&self, owner: Option<&Owner>) -> Result<Vec<SecretName>> {
        let rows: Vec<(String, String, String, String, String)> = sqlx::query_as(
            "SELECT owner, key, store, origin, updated_at FROM secret_names WHERE ?1 IS NULL OR owner = ?1 \
             ORDER BY owner, key",
        )
        .bind(owner.map(ToString::to_string))
        .fetch_all(self.app.db())
        .await?;
        rows.into_iter()
            .map(|(owner, key, store, origin, updated_at)| {
                Ok(SecretName {
                    store: StoreKind::parse(&store).ok_or(Error::InvalidData {
                        what: "secret store",
                        reason: store,
                    })?,
                    origin: SecretOrigin::parse(&origin).ok_or(Error::InvalidData {
                        what: "secret origin",
                        reason: origin,
                    })?,
                    owner,
                    key,
                    updated_at,
                })
            })
            .collect()
    }

    /// Where `key` of `owner` would come from, by the same order as
    /// [`Self::resolve`], without reading a value (listings show it, and a
    /// keychain read per listed row would be slow and may prompt).
    pub async fn source(&self, owner: &Owner, key: &str, allowed_env: &[&str]) -> Result<Option<Source>> {
        check_key(key)?;
        if let Some(kind) = self.known_store(owner, key).await? {
            return Ok(Some(Source::Store(kind)));
        }
        if let Some(var) = owner.env_var(key)
            && std::env::var_os(&var).is_some()
        {
            return Ok(Some(Source::AtelierEnv(var)));
        }
        Ok(allowed_env
            .iter()
            .find(|n| std::env::var_os(n).is_some())
            .map(|n| Source::AllowedEnv((*n).to_owned())))
    }

    /// The value of `key` for `owner` (see the module docs for the order).
    /// `allowed_env`: process variables this owner may read, as the person
    /// allowed them (or a provider's usual names). `reference` names what
    /// asked (`${API_KEY}` in server `x`), for the error.
    pub async fn resolve(
        &self,
        owner: &Owner,
        key: &str,
        allowed_env: &[&str],
        reference: &str,
    ) -> Result<(Secret, Source)> {
        check_key(key)?;
        if let Some(kind) = self.known_store(owner, key).await? {
            let store = self.store_of(kind);
            let (o, k) = (owner.clone(), key.to_owned());
            if let Some(v) = blocking(move || store.get(&o, &k)).await? {
                return Ok((v, Source::Store(kind)));
            }
        }
        let var = owner.env_var(key);
        if let Some(var) = &var
            && let Some(v) = std::env::var_os(var).and_then(|v| v.into_string().ok())
        {
            return Ok((Secret::new(v), Source::AtelierEnv(var.clone())));
        }
        for name in allowed_env {
            if let Some(v) = std::env::var_os(name).and_then(|v| v.into_string().ok()) {
                return Ok((Secret::new(v), Source::AllowedEnv((*name).to_owned())));
            }
        }
        let mut hint = match &var {
            Some(var) => format!(", or the environment variable {var}"),
            None => format!(
                " (no environment variable stands for {owner}: only an id of lower-case letters, \
                 digits and single `-`s has one)"
            ),
        };
        let former = owner.former_env_var(key);
        if std::env::var_os(&former).is_some() {
            hint.push_str(&format!(
                "; {former} is set, but that name is no longer read (it did not say whose key it was){}",
                var.map(|v| format!(": rename it {v}")).unwrap_or_default()
            ));
        }
        Err(Error::SecretNotSet {
            reference: reference.to_owned(),
            owner: owner.to_string(),
            key: key.to_owned(),
            hint,
        })
    }
}
