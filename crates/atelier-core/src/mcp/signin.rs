//! Signing in to an HTTP MCP server (OAuth, `atelier_mcp::oauth`): the
//! sign-in — tokens, the registered client and its secret, the
//! authorization server's metadata — is one secret under the server's
//! owner `mcp:<id>`, key [`KEY`] (a key no `${NAME}` reference can name,
//! so it never reaches a header or an environment). Never in the database,
//! a log or an error. `login` takes the person through their browser and a
//! loopback redirect; `logout` forgets it.

use std::sync::Arc;
use std::time::Duration;

use atelier_mcp::oauth::{Loopback, OAuth, Opener, SignInOptions, TokenStore};
use tokio_util::sync::CancellationToken;

use super::{Mcp, ServerRecord, ServerSpec};
use crate::secrets::{Owner, Secret};
use crate::{Atelier, Error, Result};

/// The secret a server's sign-in is kept in.
pub(crate) const KEY: &str = "oauth.sign-in";

/// One server's kept sign-in in the secret store. atelier-mcp calls it off
/// the async threads (a keychain blocks), so it waits on the core's async
/// secret store there.
struct Kept {
    app: Atelier,
    owner: Owner,
}

impl Kept {
    async fn read(&self) -> Result<Option<String>> {
        match self.app.secrets().resolve(&self.owner, KEY, &[], "its sign-in").await {
            Ok((value, _)) => Ok(Some(value.expose().to_owned())),
            Err(Error::SecretNotSet { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

impl TokenStore for Kept {
    fn load(&self) -> std::result::Result<Option<String>, String> {
        tokio::runtime::Handle::current()
            .block_on(self.read())
            .map_err(|e| e.to_string())
    }

    fn save(&self, value: &str) -> std::result::Result<(), String> {
        tokio::runtime::Handle::current()
            .block_on(self.app.secrets().set(&self.owner, KEY, Secret::new(value)))
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn clear(&self) -> std::result::Result<(), String> {
        tokio::runtime::Handle::current()
            .block_on(self.app.secrets().unset(&self.owner, KEY))
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

impl ServerRecord {
    /// Whether its last connection failed because it wants a sign-in
    /// (again): what the person can do about it is `login`.
    pub fn needs_sign_in(&self) -> bool {
        self.last_error
            .as_deref()
            .is_some_and(atelier_mcp::McpError::says_sign_in_needed)
    }
}

impl Mcp<'_> {
    /// Where server `id`'s connections find its sign-in.
    pub(crate) fn oauth(&self, id: &str) -> OAuth {
        OAuth {
            store: Arc::new(Kept {
                app: self.app.clone(),
                owner: Owner::Mcp(id.to_owned()),
            }),
        }
    }

    /// The secret values of server `id`'s kept sign-in (none without one).
    pub(crate) async fn sign_in_secrets(&self, id: &str) -> Result<Vec<String>> {
        let kept = Kept {
            app: self.app.clone(),
            owner: Owner::Mcp(id.to_owned()),
        };
        Ok(kept
            .read()
            .await?
            .map(|v| atelier_mcp::oauth::secret_values(&v))
            .unwrap_or_default())
    }

    /// Signs in to HTTP server `id`: the authorization URL goes to `open`
    /// (a browser; the CLI prints it too), the redirect comes back to a
    /// listener on `127.0.0.1` within `wait` (or until `cancel`). Then the
    /// server is connected to afresh and listed (when it is active).
    pub async fn login(
        &self,
        id: &str,
        open: Opener,
        wait: Duration,
        cancel: CancellationToken,
    ) -> Result<ServerRecord> {
        let server = self.get(id).await?;
        let launch = self.launch(&server, None).await?;
        let ServerSpec::Http(spec) = &launch.spec else {
            return Err(Error::Conflict(format!(
                "MCP server {id:?} is a command (stdio): there is nothing to sign in to"
            )));
        };
        let store = self.oauth(id).store;
        let before = {
            let store = Arc::clone(&store);
            tokio::task::spawn_blocking(move || atelier_mcp::oauth::previous_redirect(store.as_ref()))
                .await
                .ok()
                .flatten()
        };
        let redirect = Loopback::bind(before.as_deref(), open, wait, cancel)
            .await
            .map_err(Error::io("listen for the sign-in's redirect on", "127.0.0.1"))?;
        let options = SignInOptions {
            client_name: "Atelier".to_owned(),
            ..SignInOptions::default()
        };
        atelier_mcp::oauth::sign_in(id, spec, store, &redirect, &options, None)
            .await
            .map_err(|e| Error::Mcp(launch.redact.error(e)))?;
        if server.active {
            self.refresh(id).await
        } else {
            Ok(server)
        }
    }

    /// Forgets the sign-in of each of `before`'s HTTP servers (id, URL)
    /// that is gone or now has another URL: a toolset's upgrade or
    /// uninstall changes rows without `remove`, and a token must never go
    /// to a server it was not made for. Only the sign-in: a toolset's
    /// other secrets are its own. Best effort, said in the log.
    pub(crate) async fn forget_moved_sign_ins(&self, before: &[(String, Option<String>)]) {
        for (id, url) in before {
            let Some(url) = url else { continue };
            let now: Option<Option<String>> =
                sqlx::query_scalar("SELECT json_extract(config, '$.url') FROM mcp_servers WHERE id = ?")
                    .bind(id)
                    .fetch_optional(self.app.db())
                    .await
                    .unwrap_or(None);
            if now.flatten().as_deref() == Some(url.as_str()) {
                continue;
            }
            self.stop_all(id).await;
            if let Err(e) = self.app.secrets().unset(&Owner::Mcp(id.clone()), KEY).await {
                tracing::warn!(server = %id, error = %e, "could not forget the sign-in of a server whose URL changed or that went");
            }
        }
    }

    /// Forgets server `id`'s sign-in (its instances stop: they held its
    /// token); whether there was one.
    pub async fn logout(&self, id: &str) -> Result<bool> {
        self.get(id).await?;
        self.stop_all(id).await;
        self.app.secrets().unset(&Owner::Mcp(id.to_owned()), KEY).await
    }
}
