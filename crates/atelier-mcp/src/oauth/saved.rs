//! One server's sign-in as it is kept: the client (id, secret, the
//! redirect URI it was registered with), the authorization server's
//! metadata (so a connection refreshes at the same token endpoint without
//! discovering again) and rmcp's credentials (tokens, granted scopes), as
//! JSON in a [`TokenStore`]; and the adapter rmcp's `AuthorizationManager`
//! reads and writes them through.

use std::sync::Arc;

use rmcp::transport::auth::{AuthError, AuthorizationMetadata, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};

use super::TokenStore;

/// What a [`TokenStore`] holds for one server.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Saved {
    pub client_id: String,
    #[serde(default)]
    pub client_secret: Option<String>,
    pub redirect_uri: String,
    pub metadata: AuthorizationMetadata,
    #[serde(default)]
    pub credentials: Option<StoredCredentials>,
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

/// The redirect URI the kept client was registered with, so that a
/// loopback listener can take the same port (and the client be reused).
pub fn previous_redirect(store: &dyn TokenStore) -> Option<String> {
    Saved::load(store).ok().flatten().map(|s| s.redirect_uri)
}

/// rmcp's credential store over a [`TokenStore`]: what rmcp saves (after
/// the code exchange, after each refresh) goes with the client it was
/// made for.
pub(crate) struct Kept {
    pub store: Arc<dyn TokenStore>,
    /// Everything but the credentials.
    pub client: Saved,
}

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
        let record = Saved {
            credentials: Some(credentials),
            ..self.client.clone()
        };
        let text = serde_json::to_string(&record).map_err(|e| store_error(e.to_string()))?;
        let store = Arc::clone(&self.store);
        tokio::task::spawn_blocking(move || store.save(&text))
            .await
            .map_err(|e| store_error(e.to_string()))?
            .map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        let store = Arc::clone(&self.store);
        tokio::task::spawn_blocking(move || store.clear())
            .await
            .map_err(|e| store_error(e.to_string()))?
            .map_err(store_error)
    }
}
