//! LLM providers: the `Providers` facet (`app.providers()`). A provider is a
//! row (`providers`: kind, base URL, default model, plain headers) and,
//! for its key and secret headers, entries in the secret store under
//! `provider:<id>` — resolved only when a request is made, only for that
//! provider (no toolset, tool or MCP server can read them). From a record
//! it makes an [`atelier_llm::Client`]; it lists models, tests a
//! connection, and finds servers running on this computer ([`presets`]). A
//! provider the app's forms add without a default model is given one
//! ([`choose_model`]: the one rule for the model a chat starts with).

mod connect;
pub mod presets;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sqlx::Row;

pub use connect::{ConnectionTest, Detected, detect_at};
pub use presets::{PRESETS, Preset, choose_model, preset};

use crate::secrets::{Owner, Secret};
use crate::{Atelier, Error, Result, db, ids};

/// The secret store key of a provider's API key.
pub const API_KEY: &str = "api_key";

/// A provider as stored (never its key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ProviderRecord {
    pub id: String,
    /// `openai` (OpenAI-compatible) or `anthropic`.
    pub kind: String,
    pub preset: Option<String>,
    pub base_url: String,
    pub default_model: Option<String>,
    pub headers: BTreeMap<String, String>,
    /// Headers whose values are in the secret store.
    pub secret_headers: Vec<String>,
    /// Where its key comes from now (`keychain`, `file`, an environment
    /// variable's name), or none.
    pub key_from: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// What a person gives to add a provider.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, ts_rs::TS)]
pub struct ProviderSpec {
    pub id: String,
    /// A preset's name fills kind and base URL.
    pub preset: Option<String>,
    pub kind: Option<String>,
    pub base_url: Option<String>,
    pub default_model: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
}

/// What a person edits of a provider already set up (its id, kind and
/// preset stay; its key and secret headers go through
/// [`Providers::set_secret`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, ts_rs::TS)]
pub struct ProviderChanges {
    pub base_url: String,
    /// The model a chat uses when it names none; none: the chat must choose.
    pub default_model: Option<String>,
    /// Plain headers sent with every request, replacing the ones stored.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
}

/// The providers facet: `app.providers()`.
#[derive(Debug, Clone, Copy)]
pub struct Providers<'a> {
    app: &'a Atelier,
}

impl Atelier {
    /// LLM providers: configuration, keys, clients.
    pub fn providers(&self) -> Providers<'_> {
        Providers { app: self }
    }
}

fn kind_of(s: &str) -> Result<atelier_llm::Kind> {
    match s {
        "openai" => Ok(atelier_llm::Kind::Openai),
        "anthropic" => Ok(atelier_llm::Kind::Anthropic),
        other => Err(Error::InvalidData {
            what: "provider kind",
            reason: format!("{other:?}: use openai (OpenAI-compatible servers) or anthropic"),
        }),
    }
}

fn check_id(id: &str) -> Result<()> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !id.starts_with('-');
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidData {
            what: "provider id",
            reason: format!("{id:?}: use 1-64 of a-z, 0-9 and `-`"),
        })
    }
}

/// Plain headers are stored in the database and shown: one whose name says
/// it carries a credential is refused, and goes to the secret store instead
/// (`atelier provider secret ID --header NAME`, or the key field).
fn check_plain_headers(headers: &BTreeMap<String, String>) -> Result<()> {
    const CREDENTIAL_WORDS: [&str; 6] = ["auth", "key", "token", "secret", "password", "cookie"];
    for name in headers.keys() {
        let lower = name.to_ascii_lowercase();
        if CREDENTIAL_WORDS.iter().any(|w| lower.contains(w)) {
            return Err(Error::InvalidData {
                what: "provider header",
                reason: format!(
                    "{name} looks like a credential, and plain headers are stored and shown as written: \
                     give the API key as the provider's key, or this header as a secret one \
                     (atelier provider secret ID --header {name})"
                ),
            });
        }
    }
    Ok(())
}

fn check_url(url: &str) -> Result<()> {
    if url.starts_with("http://") || url.starts_with("https://") {
        Ok(())
    } else {
        Err(Error::InvalidData {
            what: "provider base URL",
            reason: format!("{url:?}: expected http://… or https://…"),
        })
    }
}

impl Providers<'_> {
    async fn key_from(&self, id: &str, preset: Option<&str>) -> Result<Option<String>> {
        let owner = Owner::Provider(id.to_owned());
        let env: Vec<&str> = preset
            .and_then(presets::preset)
            .and_then(|p| p.key_env)
            .into_iter()
            .collect();
        Ok(match self.app.secrets().source(&owner, API_KEY, &env).await? {
            Some(crate::secrets::Source::Store(k)) => Some(k.as_str().to_owned()),
            Some(crate::secrets::Source::AtelierEnv(v) | crate::secrets::Source::AllowedEnv(v)) => Some(v),
            None => None,
        })
    }

    async fn record(&self, row: &sqlx::sqlite::SqliteRow) -> Result<ProviderRecord> {
        let id: String = row.try_get("id")?;
        let preset: Option<String> = row.try_get("preset")?;
        let json = |col: &str| -> Result<String> { Ok(row.try_get(col)?) };
        let bad = |e: serde_json::Error| Error::InvalidData {
            what: "provider row",
            reason: e.to_string(),
        };
        Ok(ProviderRecord {
            key_from: self.key_from(&id, preset.as_deref()).await?,
            kind: row.try_get("kind")?,
            base_url: row.try_get("base_url")?,
            default_model: row.try_get("default_model")?,
            headers: serde_json::from_str(&json("headers")?).map_err(bad)?,
            secret_headers: serde_json::from_str(&json("secret_headers")?).map_err(bad)?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
            preset,
            id,
        })
    }

    /// Adds (or, with the same id, replaces) a provider; a preset fills in
    /// kind and URL.
    pub async fn add(&self, spec: &ProviderSpec) -> Result<ProviderRecord> {
        check_id(&spec.id)?;
        let p = match spec.preset.as_deref() {
            Some(name) => Some(presets::preset(name).ok_or_else(|| Error::InvalidData {
                what: "provider preset",
                reason: format!(
                    "{name:?}: use one of {}",
                    PRESETS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
                ),
            })?),
            None => None,
        };
        let kind = match (&spec.kind, p) {
            (Some(k), _) => k.clone(),
            (None, Some(p)) => match p.kind {
                atelier_llm::Kind::Openai => "openai".into(),
                atelier_llm::Kind::Anthropic => "anthropic".into(),
            },
            (None, None) => "openai".into(),
        };
        kind_of(&kind)?;
        let base_url = spec
            .base_url
            .clone()
            .or_else(|| p.map(|p| p.base_url.to_owned()))
            .ok_or_else(|| Error::InvalidData {
                what: "provider base URL",
                reason: "give --base-url (or a --preset)".into(),
            })?;
        check_url(&base_url)?;
        check_plain_headers(&spec.headers)?;
        let now = ids::now();
        let mut tx = db::begin_write(self.app.db()).await?;
        sqlx::query(
            "INSERT INTO providers (id, kind, preset, base_url, default_model, headers, created_at, updated_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7) ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, \
             preset = excluded.preset, base_url = excluded.base_url, default_model = excluded.default_model, \
             headers = excluded.headers, updated_at = excluded.updated_at",
        )
        .bind(&spec.id)
        .bind(&kind)
        .bind(p.map(|p| p.name))
        .bind(base_url.trim_end_matches('/'))
        .bind(spec.default_model.as_deref().map(str::trim).filter(|m| !m.is_empty()))
        .bind(serde_json::to_string(&spec.headers).map_err(|e| Error::Internal(e.to_string()))?)
        .bind(&now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        tracing::info!(provider = %spec.id, %kind, "provider saved");
        self.get(&spec.id).await
    }

    /// [`Providers::add`] and its API key in one step (the app's add forms):
    /// when the key cannot be stored (no keychain answers, no file allowed)
    /// a provider this added is removed again, so the form can be sent
    /// again as it is; the error says why the key was not kept. Given no
    /// default model, it is given the one [`choose_model`] picks from what
    /// it lists now (a chat that names none must not go to whatever model
    /// its server lists first: OpenAI's may be an image model).
    pub async fn add_with_key(&self, spec: &ProviderSpec, key: Option<Secret>) -> Result<ProviderRecord> {
        let existed = self.get(&spec.id).await.is_ok();
        let added = self.add(spec).await?;
        if let Some(key) = key
            && let Err(e) = self.set_secret(&spec.id, None, key).await
        {
            if !existed && let Err(undo) = self.remove(&spec.id).await {
                tracing::warn!(provider = %spec.id, error = %undo, "could not remove a provider whose key was not stored");
            }
            return Err(e);
        }
        if added.default_model.is_none() {
            self.give_default_model(&spec.id).await?;
        }
        self.get(&spec.id).await
    }

    /// Changes a provider's base URL, default model and plain headers, and
    /// its API key when one is given (the edit form in Settings: one save);
    /// an unknown id is an error, not an add. Everything is checked before
    /// anything is written; the row goes first and is put back when the key
    /// store refuses the key, so a refused save changes nothing and the form
    /// can be sent again as it is.
    pub async fn update(&self, id: &str, changes: &ProviderChanges, key: Option<Secret>) -> Result<ProviderRecord> {
        let base_url = changes.base_url.trim();
        check_url(base_url)?;
        check_plain_headers(&changes.headers)?;
        let model = changes
            .default_model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty());
        // Also says when there is no such provider.
        let before = self.get(id).await?;
        self.write_fields(id, base_url.trim_end_matches('/'), model, &changes.headers)
            .await?;
        if let Some(key) = key
            && let Err(e) = self.set_secret(id, None, key).await
        {
            let undone = self
                .write_fields(id, &before.base_url, before.default_model.as_deref(), &before.headers)
                .await;
            if let Err(undo) = undone {
                tracing::warn!(provider = %id, error = %undo, "could not put a provider's fields back after its key was refused");
            }
            return Err(e);
        }
        tracing::info!(provider = %id, "provider changed");
        self.get(id).await
    }

    /// Writes a provider's editable fields.
    async fn write_fields(
        &self,
        id: &str,
        base_url: &str,
        model: Option<&str>,
        headers: &BTreeMap<String, String>,
    ) -> Result<()> {
        let mut tx = db::begin_write(self.app.db()).await?;
        sqlx::query(
            "UPDATE providers SET base_url = ?2, default_model = ?3, headers = ?4, updated_at = ?5 WHERE id = ?1",
        )
        .bind(id)
        .bind(base_url)
        .bind(model)
        .bind(serde_json::to_string(headers).map_err(|e| Error::Internal(e.to_string()))?)
        .bind(ids::now())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn get(&self, id: &str) -> Result<ProviderRecord> {
        let row = sqlx::query("SELECT * FROM providers WHERE id = ?")
            .bind(id)
            .fetch_optional(self.app.db())
            .await?
            .ok_or_else(|| Error::InvalidData {
                what: "provider",
                reason: format!("no provider {id:?} (see `atelier provider list`)"),
            })?;
        self.record(&row).await
    }

    pub async fn list(&self) -> Result<Vec<ProviderRecord>> {
        let rows = sqlx::query("SELECT * FROM providers ORDER BY id")
            .fetch_all(self.app.db())
            .await?;
        let mut out = Vec::new();
        for r in &rows {
            out.push(self.record(r).await?);
        }
        Ok(out)
    }

    /// The provider, when exactly one is set up; else how many are (0 or
    /// more than 1) — in one read, as a run without a chosen provider asks.
    pub(crate) async fn sole(&self) -> Result<std::result::Result<ProviderRecord, usize>> {
        let rows = sqlx::query("SELECT * FROM providers ORDER BY id LIMIT 2")
            .fetch_all(self.app.db())
            .await?;
        Ok(match rows.as_slice() {
            [one] => Ok(self.record(one).await?),
            more => Err(more.len()),
        })
    }

    /// Removes a provider and its secrets.
    pub async fn remove(&self, id: &str) -> Result<()> {
        self.get(id).await?;
        let mut tx = db::begin_write(self.app.db()).await?;
        sqlx::query("DELETE FROM providers WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        let owner = Owner::Provider(id.to_owned());
        for n in self.app.secrets().list(Some(&owner)).await? {
            self.app.secrets().unset(&owner, &n.key).await?;
        }
        Ok(())
    }

    /// Stores the provider's API key (or a secret header's value).
    pub async fn set_secret(&self, id: &str, header: Option<&str>, value: Secret) -> Result<ProviderRecord> {
        self.get(id).await?;
        let owner = Owner::Provider(id.to_owned());
        match header {
            None => {
                self.app.secrets().set(&owner, API_KEY, value).await?;
            }
            Some(h) => {
                self.app.secrets().set(&owner, &format!("header.{h}"), value).await?;
                let mut tx = db::begin_write(self.app.db()).await?;
                sqlx::query(
                    "UPDATE providers SET secret_headers = (SELECT json_group_array(v) FROM \
                     (SELECT DISTINCT value AS v FROM json_each(secret_headers) UNION SELECT ?2 ORDER BY v)), \
                     updated_at = ?3 WHERE id = ?1",
                )
                .bind(id)
                .bind(h)
                .bind(ids::now())
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
            }
        }
        self.get(id).await
    }
}

#[cfg(test)]
mod tests;
