//! Talking to a provider: a client with its key and secret headers resolved
//! for that provider only, its model list (chat models only, the one a chat
//! uses when it names none first), the default model a new provider is
//! given, a connection test, and the model servers found running on this
//! computer.

use std::time::Duration;

use serde::Serialize;

use super::{API_KEY, PRESETS, Preset, ProviderRecord, Providers, choose_model, kind_of};
use crate::secrets::Owner;
use crate::{Error, Result};

/// A provider's answer to a test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ConnectionTest {
    pub provider_id: String,
    pub ok: bool,
    /// The models it offers for chats; the first is the one a chat uses
    /// when it names none (its default model, else [`choose_model`]'s).
    pub models: Vec<String>,
    /// The error kind (`auth`, `network`…) and sentence, when it failed.
    pub error_kind: Option<String>,
    pub error: Option<String>,
}

/// A server found running on this computer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Detected {
    pub preset: String,
    pub title: String,
    pub base_url: String,
    /// Its chat models, the one it would start with first ([`choose_model`]).
    pub models: Vec<String>,
}

impl Providers<'_> {
    /// A client for requests to this provider: its key and secret headers
    /// resolved now, for this provider only.
    pub async fn client(&self, id: &str) -> Result<atelier_llm::Client> {
        let rec = self.get(id).await?;
        self.client_for(rec).await
    }

    /// [`Self::client`] for a provider already read.
    pub(crate) async fn client_for(&self, rec: ProviderRecord) -> Result<atelier_llm::Client> {
        let owner = Owner::Provider(rec.id.clone());
        let env: Vec<&str> = rec
            .preset
            .as_deref()
            .and_then(super::preset)
            .and_then(|p| p.key_env)
            .into_iter()
            .collect();
        // `key_from` was found by the same order as the record was read:
        // none means there is no key to look up (a local server needs none).
        let api_key = match rec.key_from {
            None => None,
            Some(_) => match self.app.secrets().resolve(&owner, API_KEY, &env, "the API key").await {
                Ok((s, _)) => Some(s.expose().to_owned()),
                Err(Error::SecretNotSet { .. } | Error::SecretsUnavailable(_)) => None,
                Err(e) => return Err(e),
            },
        };
        let mut headers: Vec<(String, String)> = rec.headers.into_iter().collect();
        for h in &rec.secret_headers {
            let (s, _) = self
                .app
                .secrets()
                .resolve(&owner, &format!("header.{h}"), &[], &format!("header {h}"))
                .await?;
            headers.push((h.clone(), s.expose().to_owned()));
        }
        atelier_llm::Client::new(atelier_llm::Provider {
            id: rec.id,
            kind: kind_of(&rec.kind)?,
            base_url: rec.base_url,
            api_key,
            headers,
        })
        .map_err(|e| Error::Provider {
            kind: e.kind.as_str(),
            message: e.message,
        })
    }

    /// The models the provider offers for chats, the one a chat uses when
    /// it names none first.
    pub async fn models(&self, id: &str) -> Result<Vec<String>> {
        self.listing(id).await?.map_err(|e| Error::Provider {
            kind: e.kind.as_str(),
            message: e.message,
        })
    }

    /// Tries the provider (its model list): a report, not an error.
    pub async fn test(&self, id: &str) -> Result<ConnectionTest> {
        Ok(match self.listing(id).await? {
            Ok(models) => ConnectionTest {
                provider_id: id.to_owned(),
                ok: true,
                models,
                error_kind: None,
                error: None,
            },
            Err(e) => ConnectionTest {
                provider_id: id.to_owned(),
                ok: false,
                models: Vec::new(),
                error_kind: Some(e.kind.as_str().to_owned()),
                error: Some(e.message),
            },
        })
    }

    /// The provider's model list, or what its server answered. A 404 there
    /// is no missing model (the client's reading of a 404) but a wrong base
    /// URL, and the usual one is an OpenAI-compatible server given without
    /// its `/v1` (`http://localhost:11434`): when the same server answers
    /// under `/v1`, the error says so.
    async fn listing(&self, id: &str) -> Result<std::result::Result<Vec<String>, atelier_llm::Error>> {
        let rec = self.get(id).await?;
        let base = rec.base_url.trim_end_matches('/').to_owned();
        let with_v1 = (rec.kind == "openai" && without_path(&base)).then(|| ProviderRecord {
            base_url: format!("{base}/v1"),
            ..rec.clone()
        });
        let current = rec.default_model.clone();
        let preset = rec.preset.as_deref().and_then(super::preset);
        let client = self.client_for(rec).await?;
        let e = match client.models().await {
            Err(e) if e.kind == atelier_llm::ErrorKind::ModelNotFound => e,
            Ok(models) => return Ok(Ok(first_choice(models, current.as_deref(), preset))),
            other => return Ok(other),
        };
        let mut message = format!("{id} has no model list at {base} (404): check the base URL");
        if let Some(v1) = with_v1
            && self.client_for(v1).await?.models().await.is_ok()
        {
            message = format!(
                "{id} has no model list at {base} (404), but the server answers at {base}/v1: use that as the base URL"
            );
        }
        Ok(Err(atelier_llm::Error { message, ..e }))
    }

    /// The provider's default model: the one it has (another process may
    /// have given it one meanwhile), else [`choose_model`] of what it lists
    /// now, saved as its default. None when it lists nothing or cannot be
    /// asked within `LIST_WAIT` (it stays without, and a chat names its
    /// model); an add stands either way.
    pub(crate) async fn give_default_model(&self, id: &str) -> Result<Option<String>> {
        let rec = self.get(id).await?;
        if rec.default_model.is_some() {
            return Ok(rec.default_model);
        }
        let listed = tokio::time::timeout(LIST_WAIT, self.listing(id)).await;
        let models = match listed {
            Ok(Ok(Ok(models))) => models,
            Ok(Ok(Err(e))) => {
                tracing::info!(provider = %id, error = %e.message, "no default model given: its models could not be listed");
                return Ok(None);
            }
            Ok(Err(e)) => {
                tracing::info!(provider = %id, error = %e, "no default model given: its models could not be listed");
                return Ok(None);
            }
            Err(_) => {
                tracing::info!(provider = %id, "no default model given: its model list did not come in time");
                return Ok(None);
            }
        };
        // `listing` put the choice first.
        let Some(model) = models.into_iter().next() else {
            return Ok(None);
        };
        self.write_fields(id, &rec.base_url, Some(&model), &rec.headers).await?;
        tracing::info!(provider = %id, %model, "default model chosen");
        Ok(Some(model))
    }

    /// Local servers at the presets' default ports that answer now.
    pub async fn detect(&self) -> Vec<Detected> {
        detect_at(PRESETS.iter().filter(|p| p.local).map(|p| (p, p.base_url.to_owned()))).await
    }
}

/// How long an add waits for the model list it chooses a default from.
const LIST_WAIT: Duration = Duration::from_secs(15);

/// `models` with the one a chat uses when it names none first: the
/// provider's default model when it is listed, else [`choose_model`]'s.
fn first_choice(mut models: Vec<String>, default: Option<&str>, preset: Option<&Preset>) -> Vec<String> {
    let chosen = default
        .filter(|d| models.iter().any(|m| m == d))
        .map(str::to_owned)
        .or_else(|| choose_model(preset, &models));
    if let Some(at) = chosen.and_then(|c| models.iter().position(|m| *m == c)) {
        let first = models.remove(at);
        models.insert(0, first);
    }
    models
}

/// Whether `url` (no trailing `/`) is an origin alone, with no path.
fn without_path(url: &str) -> bool {
    url.split_once("://").is_some_and(|(_, rest)| !rest.contains('/'))
}

/// Probes each `(preset, base URL)` at once, briefly; those that list
/// models, in the order given.
pub async fn detect_at(candidates: impl Iterator<Item = (&'static Preset, String)>) -> Vec<Detected> {
    let mut set = tokio::task::JoinSet::new();
    for (i, (p, url)) in candidates.enumerate() {
        set.spawn(async move {
            let client = atelier_llm::Client::new(atelier_llm::Provider {
                id: p.name.to_owned(),
                kind: p.kind,
                base_url: url.clone(),
                api_key: None,
                headers: Vec::new(),
            })
            .ok()?;
            let models = tokio::time::timeout(Duration::from_millis(800), client.models())
                .await
                .ok()?
                .ok()?;
            Some((
                i,
                Detected {
                    preset: p.name.to_owned(),
                    title: p.title.to_owned(),
                    base_url: url,
                    models: first_choice(models, None, Some(p)),
                },
            ))
        });
    }
    let mut found: Vec<(usize, Detected)> = set.join_all().await.into_iter().flatten().collect();
    found.sort_by_key(|(i, _)| *i);
    found.into_iter().map(|(_, d)| d).collect()
}
