//! One server's sign-in as it is kept: the client (id, secret, the
//! redirect URI it was registered with), the authorization server's
//! metadata (so a connection refreshes at the same token endpoint without
//! discovering again) and rmcp's credentials (tokens, granted scopes), as
//! JSON in a [`TokenStore`]; and the adapter rmcp's `AuthorizationManager`
//! reads and writes them through.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use rmcp::transport::auth::{
    AuthError, AuthorizationMetadata, CredentialRefreshGuard, CredentialStore, StoredCredentials,
};
use serde::{Deserialize, Serialize};

use super::TokenStore;

/// What a [`TokenStore`] holds for one server.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Saved {
    /// The server's URL the sign-in was made for: its tokens go to that
    /// one only (an id whose URL changed, or a record kept before this
    /// was, needs a new sign-in).
    #[serde(default)]
    pub resource: Option<String>,
    pub client_id: String,
    #[serde(default)]
    pub client_secret: Option<String>,
    pub redirect_uri: String,
    pub metadata: AuthorizationMetadata,
    #[serde(default)]
    pub credentials: Option<StoredCredentials>,
    /// Scopes a 403 `insufficient_scope` asked for since: the next
    /// sign-in asks for them too (it starts with none).
    #[serde(default)]
    pub wanted_scopes: Vec<String>,
}

impl Saved {
    pub(crate) fn load(store: &dyn TokenStore) -> Result<Option<Saved>, String> {
        match store.load()? {
            None => Ok(None),
            // A record this version cannot read is as good as none: the
            // person signs in again.
            Some(text) => Ok(serde_json::from_str(&text).ok()),
        }
    }

    /// Whether it holds a token (else a sign-in is needed).
    pub(crate) fn signed_in(&self) -> bool {
        self.credentials.as_ref().is_some_and(|c| c.token_response.is_some())
    }

    pub(crate) fn granted_scopes(&self) -> Vec<String> {
        self.credentials
            .as_ref()
            .map(|c| c.granted_scopes.clone())
            .unwrap_or_default()
    }
}

/// Keeps the scopes of a server's 403 `insufficient_scope` with its
/// sign-in, for the next one (a sign-in by a person may come much later,
/// without the challenge at hand). Best effort: a store that fails loses
/// them, and the next 403 says them again.
pub(crate) async fn remember_wanted(store: &Arc<dyn TokenStore>, scope: &str) {
    let store = Arc::clone(store);
    let scope = scope.to_owned();
    let _ = tokio::task::spawn_blocking(move || {
        let Ok(Some(mut saved)) = Saved::load(store.as_ref()) else {
            return;
        };
        for s in scope.split_whitespace() {
            if !saved.wanted_scopes.iter().any(|w| w == s) {
                saved.wanted_scopes.push(s.to_owned());
            }
        }
        if let Ok(text) = serde_json::to_string(&saved) {
            let _ = store.save(&text);
        }
    })
    .await;
}

/// The redirect URI the kept client was registered with, so that a
/// loopback listener can take the same port (and the client be reused).
pub fn previous_redirect(store: &dyn TokenStore) -> Option<String> {
    Saved::load(store).ok().flatten().map(|s| s.redirect_uri)
}

/// The secret values in a kept sign-in (the tokens, the client's secret),
/// for the caller's [`crate::Redact`]: the server's errors never show them.
pub fn secret_values(kept: &str) -> Vec<String> {
    let Ok(saved) = serde_json::from_str::<Saved>(kept) else {
        return Vec::new();
    };
    let tokens = serde_json::to_value(&saved.credentials).unwrap_or_default();
    let mut out: Vec<String> = ["access_token", "refresh_token"]
        .iter()
        .filter_map(|k| tokens["token_response"][k].as_str().map(str::to_owned))
        .collect();
    out.extend(saved.client_secret);
    out
}

/// rmcp's credential store over a [`TokenStore`]: what rmcp saves (after
/// the code exchange, after each refresh) goes with the client it was
/// made for.
pub(crate) struct Kept {
    /// The server's id: its refreshes take turns (see [`REFRESHING`]).
    pub server: String,
    pub store: Arc<dyn TokenStore>,
    /// Everything but the credentials.
    pub client: Saved,
}

/// One lock a server, for the whole process: a refresh token is good for
/// one use, so two connections to a server (two instances, a sign-in and
/// a connection) refreshing at once would have the second refused. The
/// second waits, then loads the tokens the first saved. Other processes
/// (a CLI beside the app) are not coordinated.
static REFRESHING: LazyLock<Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>> = LazyLock::new(Mutex::default);

fn store_error(e: String) -> AuthError {
    AuthError::CredentialStoreError(e)
}

#[async_trait::async_trait]
impl CredentialStore for Kept {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let store = Arc::clone(&self.store);
        let saved = tokio::task::spawn_blocking(move || Saved::load(store.as_ref()))
            .await
            .map_err(|e| store_error(e.to_string()))?
            .map_err(store_error)?;
        Ok(saved
            .filter(|s| s.client_id == self.client.client_id)
            .and_then(|s| s.credentials))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let mut record = Saved {
            credentials: Some(credentials),
            ..self.client.clone()
        };
        let store = Arc::clone(&self.store);
        tokio::task::spawn_blocking(move || {
            // Scopes a 403 asked for since this connection began
            // (`remember_wanted`) are kept, not undone by its refresh.
            if let Ok(Some(now)) = Saved::load(store.as_ref())
                && now.client_id == record.client_id
            {
                for s in now.wanted_scopes {
                    if !record.wanted_scopes.contains(&s) {
                        record.wanted_scopes.push(s);
                    }
                }
            }
            let text = serde_json::to_string(&record).map_err(|e| e.to_string())?;
            store.save(&text)
        })
        .await
        .map_err(|e| store_error(e.to_string()))?
        .map_err(store_error)
    }

    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        let lock = Arc::clone(
            REFRESHING
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(self.server.clone())
                .or_default(),
        );
        Ok(Some(CredentialRefreshGuard::new(lock.lock_owned().await)))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        let store = Arc::clone(&self.store);
        tokio::task::spawn_blocking(move || store.clear())
            .await
            .map_err(|e| store_error(e.to_string()))?
            .map_err(store_error)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use rmcp::transport::auth::CredentialStore;

    use super::super::{MemoryTokenStore, TokenStore};
    use super::{Kept, Saved, remember_wanted, secret_values};

    fn kept(server: &str, store: &Arc<dyn TokenStore>) -> Kept {
        let client = serde_json::from_value::<Saved>(serde_json::json!({
            "client_id": "c1",
            "redirect_uri": "http://127.0.0.1:4000/callback",
            "metadata": {"authorization_endpoint": "https://a/authorize", "token_endpoint": "https://a/token"},
        }))
        .expect("a record");
        Kept {
            server: server.to_owned(),
            store: Arc::clone(store),
            client,
        }
    }

    #[tokio::test]
    async fn a_refresh_keeps_the_scopes_a_403_asked_for_since_the_connection_began() {
        let store: Arc<dyn TokenStore> = Arc::new(MemoryTokenStore::default());
        let k = kept("s", &store);
        let credentials = |token: &str| {
            serde_json::from_value(serde_json::json!({
                "client_id": "c1",
                "token_response": {"access_token": token, "token_type": "bearer"},
            }))
            .expect("credentials")
        };
        k.save(credentials("at-1")).await.expect("saves");
        remember_wanted(&store, "write").await;
        k.save(credentials("at-2")).await.expect("saves");
        let now = Saved::load(store.as_ref()).expect("loads").expect("kept");
        assert_eq!(now.wanted_scopes, ["write"]);
        assert!(serde_json::to_string(&now.credentials).expect("json").contains("at-2"));
    }

    #[tokio::test]
    async fn refreshes_of_one_server_take_turns() {
        let store: Arc<dyn TokenStore> = Arc::new(MemoryTokenStore::default());
        let (a, b, other) = (
            kept("turns", &store),
            kept("turns", &store),
            kept("turns-other", &store),
        );
        let first = a.acquire_refresh_guard().await.expect("guard").expect("a guard");
        let waited = tokio::time::timeout(Duration::from_millis(100), b.acquire_refresh_guard()).await;
        assert!(
            waited.is_err(),
            "the second refresh went ahead while the first held the lock"
        );
        let _theirs = tokio::time::timeout(Duration::from_millis(100), other.acquire_refresh_guard())
            .await
            .expect("another server does not wait");
        drop(first);
        let _second = tokio::time::timeout(Duration::from_millis(100), b.acquire_refresh_guard())
            .await
            .expect("its turn came");
    }

    #[test]
    fn the_secret_values_of_a_kept_sign_in_are_its_tokens_and_client_secret() {
        let kept = serde_json::json!({
            "client_id": "client-1",
            "client_secret": "cs-7d41c2",
            "redirect_uri": "http://127.0.0.1:4000/callback",
            "metadata": {"authorization_endpoint": "https://a/authorize", "token_endpoint": "https://a/token"},
            "credentials": {
                "client_id": "client-1",
                "token_response": {"access_token": "at-91be0f", "token_type": "bearer", "refresh_token": "rt-5a7e33"},
            },
        });
        let mut got = secret_values(&kept.to_string());
        got.sort();
        assert_eq!(got, ["at-91be0f", "cs-7d41c2", "rt-5a7e33"]);
        assert!(secret_values("not json").is_empty());
    }
}
