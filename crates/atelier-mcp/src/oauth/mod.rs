//! OAuth sign-in for streamable-HTTP servers (the MCP authorization spec,
//! 2025-06-18 and 2025-11-25), on rmcp's OAuth client: the server's 401
//! and its `WWW-Authenticate` challenge, protected resource metadata
//! (RFC 9728) and authorization server metadata (RFC 8414, OpenID
//! discovery, with their fallbacks), the client (a pre-registered id, a
//! Client ID Metadata Document, else dynamic registration, RFC 7591), the
//! authorization code with PKCE S256 and the `resource` parameter
//! (RFC 8707), refresh, and the scopes to ask for (the challenge's, else
//! the resource's; on a 403 `insufficient_scope`, those granted plus the
//! new ones).
//!
//! This crate keeps nothing: a [`TokenStore`] the caller gives holds one
//! sign-in as an opaque secret (the core puts it in its secret store under
//! the server's owner). How the person gets from the authorization URL to
//! the redirect is an [`Authorizer`]: a browser and a loopback listener
//! ([`Loopback`], RFC 8252) or, for tests and the conformance suite, a GET
//! that reads the redirect ([`Headless`]).

mod authorize;
mod flow;
mod saved;

use std::sync::{Arc, Mutex, PoisonError};

pub use authorize::{Authorizer, Headless, Loopback, Opener};
pub(crate) use flow::manager_for;
pub use flow::{SignInOptions, sign_in};
pub(crate) use saved::remember_wanted;
pub use saved::{previous_redirect, secret_values};

/// Where one server's sign-in is kept: tokens, the registered client (its
/// secret too) and the authorization server's metadata, as one opaque
/// string. It is a secret: never in a database, a log or an error.
pub trait TokenStore: Send + Sync {
    fn load(&self) -> Result<Option<String>, String>;
    fn save(&self, value: &str) -> Result<(), String>;
    fn clear(&self) -> Result<(), String>;
}

/// A [`TokenStore`] in memory (a process that signs in and forgets, like
/// the conformance client; tests).
#[derive(Debug, Default, Clone)]
pub struct MemoryTokenStore(Arc<Mutex<Option<String>>>);

impl TokenStore for MemoryTokenStore {
    fn load(&self) -> Result<Option<String>, String> {
        Ok(self.0.lock().unwrap_or_else(PoisonError::into_inner).clone())
    }

    fn save(&self, value: &str) -> Result<(), String> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(value.to_owned());
        Ok(())
    }

    fn clear(&self) -> Result<(), String> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = None;
        Ok(())
    }
}

/// What a connection to a server that may want a sign-in is given: where
/// its sign-in is kept. With it, a kept token goes with every request
/// (refreshed when it expires or is refused); without one, the server's
/// 401 is [`crate::McpError::Unauthorized`].
#[derive(Clone)]
pub struct OAuth {
    pub store: Arc<dyn TokenStore>,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OAuth { store }")
    }
}
