//! Talking to a provider: a client with its key and secret headers resolved
//! for that provider only, its model list, a connection test, and the model
//! servers found running on this computer.

use std::time::Duration;

use serde::Serialize;

use super::{API_KEY, PRESETS, Preset, ProviderRecord, Providers, kind_of};
use crate::secrets::Owner;
use crate::{Error, Result};

/// A provider's answer to a test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ConnectionTest {
    pub provider_id: String,
    pub ok: bool,
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

    /// The models the provider lists.
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
        let client = self.client_for(rec).await?;
        let e = match client.models().await {
            Err(e) if e.kind == atelier_llm::ErrorKind::ModelNotFound => e,
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

    /// Local servers at the presets' default ports that answer now.
    pub async fn detect(&self) -> Vec<Detected> {
        detect_at(PRESETS.iter().filter(|p| p.local).map(|p| (p, p.base_url.to_owned()))).await
    }
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
                    models,
                },
            ))
        });
    }
    let mut found: Vec<(usize, Detected)> = set.join_all().await.into_iter().flatten().collect();
    found.sort_by_key(|(i, _)| *i);
    found.into_iter().map(|(_, d)| d).collect()
}
