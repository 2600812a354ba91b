//! The sign-in itself, and the authorization manager a connection sends
//! its kept token with.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use rmcp::transport::auth::{
    AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationMetadata, AuthorizationRequest,
    AuthorizationSession, OAuthClientConfig,
};

use super::saved::{Kept, Saved};
use super::{Authorizer, TokenStore};
use crate::error::McpError;
use crate::spec::HttpSpec;

/// How to sign in, beyond the server and where to keep it.
#[derive(Debug, Clone, Default)]
pub struct SignInOptions {
    /// The name a dynamically registered client gets.
    pub client_name: String,
    /// A client registered with the authorization server beforehand
    /// (its secret, if confidential): used instead of registering one.
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// An https URL of this client's metadata document (SEP-991): its id
    /// where the authorization server takes such ids.
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for; empty: the challenge's, else the resource's,
    /// plus those granted before.
    pub scopes: Vec<String>,
}

fn failed(server: &str, message: impl Into<String>) -> McpError {
    McpError::SignIn {
        server: server.to_owned(),
        message: message.into(),
    }
}

/// What went wrong, in words (rmcp's own, after what we were doing).
fn said(server: &str, doing: &str, e: &AuthError) -> McpError {
    let why = match e {
        AuthError::PkceUnsupported => "the authorization server does not support PKCE with S256".to_owned(),
        AuthError::NoAuthorizationSupport => "the server publishes no authorization metadata".to_owned(),
        other => other.to_string(),
    };
    failed(server, format!("{doing}: {why}"))
}

/// Signs in to `spec`'s server and keeps the sign-in in `store`:
/// discovery from `challenge` (the `WWW-Authenticate` of a 401 or 403; when
/// `None`, the server is asked once, unsigned, for one), the client, the
/// authorization through `authorizer`, the code exchanged for tokens.
pub async fn sign_in(
    server: &str,
    spec: &HttpSpec,
    store: Arc<dyn TokenStore>,
    authorizer: &dyn Authorizer,
    options: &SignInOptions,
    challenge: Option<&str>,
) -> Result<(), McpError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let probed = match challenge {
        Some(c) => Some(c.to_owned()),
        None => probe(spec).await,
    };
    let before = kept(server, &store).await?;
    let mut manager = AuthorizationManager::new_allowing_private_addresses(spec.url.as_str())
        .await
        .map_err(|e| said(server, "the server's address", &e))?;
    let found = manager
        .resolve_metadata_from_challenge(probed.as_deref())
        .await
        .map_err(|e| said(server, "finding its authorization server", &e))?;
    let metadata = found.metadata;
    // The authorization page goes to the person's browser (the OS opener)
    // and the tokens to these endpoints: a malicious server's metadata
    // must not make us launch `file:` or a custom scheme, or send a code
    // in the clear across the network.
    check_endpoints(server, &metadata)?;
    manager.set_metadata(metadata.clone());
    let redirect_uri = authorizer.redirect_uri();

    // Scopes: the caller's, else the challenge's or the resource's, plus
    // what was granted before (a step-up keeps what worked).
    let mut scopes = options.scopes.clone();
    if scopes.is_empty() {
        scopes = with_kept_scopes(manager.select_initial_scopes(&[]).await, before.as_ref());
    }
    let scope_refs: Vec<&str> = scopes.iter().map(String::as_str).collect();

    let cimd = metadata
        .additional_fields
        .get("client_id_metadata_document_supported")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    // The client: a pre-registered one, the one registered last time (same
    // authorization server, same redirect), a metadata document, else a
    // new registration.
    let (client_id, client_secret) = if let Some(id) = &options.client_id {
        (id.clone(), options.client_secret.clone())
    } else if let Some(b) = before
        .as_ref()
        .filter(|b| b.redirect_uri == redirect_uri && b.metadata.issuer == metadata.issuer)
        .filter(|b| b.metadata.token_endpoint == metadata.token_endpoint)
    {
        (b.client_id.clone(), b.client_secret.clone())
    } else if let Some(url) = options.client_metadata_url.as_ref().filter(|_| cimd) {
        (url.clone(), None)
    } else if metadata.registration_endpoint.is_some() {
        let config = manager
            .register_client(&options.client_name, &redirect_uri, &scope_refs)
            .await
            .map_err(|e| said(server, "registering Atelier with its authorization server", &e))?;
        (config.client_id, config.client_secret)
    } else {
        return Err(failed(
            server,
            "its authorization server takes no registration: a client id registered with it beforehand is needed",
        ));
    };

    let mut request = AuthorizationRequest::new(redirect_uri.clone())
        .with_client_name(options.client_name.clone())
        .with_preregistered_client(client_id.clone());
    if let Some(secret) = &client_secret {
        request = request.with_client_secret(secret.clone());
    }
    if !scopes.is_empty() {
        request = request.with_scopes(scopes.iter().cloned());
    }
    let mut session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| said(server, "starting the authorization", &e))?;
    session.auth_manager.set_credential_store(Kept {
        server: server.to_owned(),
        store,
        client: Saved {
            resource: Some(spec.url.clone()),
            client_id,
            client_secret,
            redirect_uri,
            metadata,
            credentials: None,
            wanted_scopes: Vec::new(),
        },
    });
    let redirect = authorizer
        .authorize(&session.auth_url)
        .await
        .map_err(|e| failed(server, format!("the authorization did not finish: {e}")))?;
    if let Some(error) = reqwest::Url::parse(&redirect)
        .ok()
        .and_then(|u| u.query_pairs().find(|(k, _)| k == "error").map(|(_, v)| v.into_owned()))
    {
        return Err(failed(server, format!("the authorization server refused: {error}")));
    }
    let callback =
        AuthorizationCallback::from_redirect_url(&redirect).map_err(|e| said(server, "reading the redirect", &e))?;
    session
        .auth_manager
        .exchange_code_for_token_with_issuer(&callback.code, &callback.csrf_token, callback.issuer.as_deref())
        .await
        .map_err(|e| said(server, "exchanging the code for a token", &e))?;
    Ok(())
}

/// Refuses authorization server metadata whose authorization, token or
/// registration endpoint is not `https` (or `http` on this computer's
/// loopback, as a local authorization server is).
fn check_endpoints(server: &str, metadata: &AuthorizationMetadata) -> Result<(), McpError> {
    let endpoints = [
        ("authorization_endpoint", Some(&metadata.authorization_endpoint)),
        ("token_endpoint", Some(&metadata.token_endpoint)),
        ("registration_endpoint", metadata.registration_endpoint.as_ref()),
    ];
    for (name, url) in endpoints {
        if let Some(url) = url
            && let Err(why) = safe_endpoint(url)
        {
            return Err(failed(
                server,
                format!("its authorization server's {name} {why}; refused, nothing was opened"),
            ));
        }
    }
    Ok(())
}

/// Why `url` may not be an OAuth endpoint, in words naming its scheme
/// (never the whole address: it may carry a query).
fn safe_endpoint(url: &str) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|_| "is not a URL".to_owned())?;
    // `host_str` is lowercased, and an IPv6 host comes in brackets.
    let host = parsed.host_str().unwrap_or_default();
    let loopback =
        host == "localhost" || host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback()) || host == "[::1]";
    match parsed.scheme() {
        "https" if !host.is_empty() => Ok(()),
        "http" if loopback => Ok(()),
        "http" => Err("is plain http to another computer (https is needed)".to_owned()),
        other => Err(format!("is a {other}: address, not https")),
    }
}

/// `scopes` plus those the kept sign-in was granted and those a 403 asked
/// for since, each once.
fn with_kept_scopes(mut scopes: Vec<String>, before: Option<&Saved>) -> Vec<String> {
    if let Some(b) = before {
        for s in b.granted_scopes().into_iter().chain(b.wanted_scopes.iter().cloned()) {
            if !scopes.contains(&s) {
                scopes.push(s);
            }
        }
    }
    scopes
}

/// The `WWW-Authenticate` a server answers an unsigned handshake with
/// (the same requests a connection makes), if it refuses one.
async fn probe(spec: &HttpSpec) -> Option<String> {
    let headers = crate::http::headers(&spec.headers).ok()?;
    let config = StreamableHttpClientTransportConfig::with_uri(spec.url.clone()).custom_headers(headers);
    let transport = StreamableHttpClientTransport::from_config(config);
    let mode = ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    };
    match tokio::time::timeout(Duration::from_secs(30), ().serve_with_lifecycle(transport, mode)).await {
        Ok(Ok(service)) => {
            let _ = service.cancel().await;
            None
        }
        Ok(Err(e)) => e.auth_challenge().map(str::to_owned),
        Err(_) => None,
    }
}

/// What `store` keeps (read off the async threads: a keychain blocks).
async fn kept(server: &str, store: &Arc<dyn TokenStore>) -> Result<Option<Saved>, McpError> {
    let store = Arc::clone(store);
    tokio::task::spawn_blocking(move || Saved::load(store.as_ref()))
        .await
        .map_err(|e| failed(server, e.to_string()))?
        .map_err(|e| failed(server, format!("its kept sign-in could not be read: {e}")))
}

/// Whether `saved` holds a token made for `url`: a token goes only to the
/// server it was signed in to, never to whatever URL the id has now.
fn usable_for(saved: &Saved, url: &str) -> bool {
    saved.signed_in() && saved.resource.as_deref() == Some(url)
}

/// The manager a connection sends its token with, when `store` keeps a
/// sign-in for `url` (`None`: send nothing, a 401 says sign in).
pub(crate) async fn manager_for(
    server: &str,
    url: &str,
    store: &Arc<dyn TokenStore>,
) -> Result<Option<AuthorizationManager>, McpError> {
    let saved = kept(server, store).await?;
    let Some(saved) = saved.filter(|s| usable_for(s, url)) else {
        return Ok(None);
    };
    let mut manager = AuthorizationManager::new_allowing_private_addresses(url)
        .await
        .map_err(|e| said(server, "the server's address", &e))?;
    manager.set_metadata(saved.metadata.clone());
    manager.set_credential_store(Kept {
        server: server.to_owned(),
        store: Arc::clone(store),
        client: Saved {
            credentials: None,
            ..saved.clone()
        },
    });
    if !manager
        .initialize_from_store()
        .await
        .map_err(|e| said(server, "reading its kept sign-in", &e))?
    {
        return Ok(None);
    }
    // `initialize_from_store` configures a public client: the secret goes
    // with refreshes of a confidential one.
    let mut config = OAuthClientConfig::new(saved.client_id.clone(), saved.redirect_uri.clone());
    if let Some(secret) = &saved.client_secret {
        config = config.with_client_secret(secret.clone());
    }
    manager
        .configure_client(config)
        .map_err(|e| said(server, "reading its kept sign-in", &e))?;
    Ok(Some(manager))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::saved::{Saved, remember_wanted};
    use super::super::{MemoryTokenStore, TokenStore};
    use super::{manager_for, safe_endpoint, with_kept_scopes};

    #[tokio::test]
    async fn a_kept_sign_in_goes_only_to_the_url_it_was_made_for() {
        let record = |resource: Option<&str>| {
            let mut kept = serde_json::json!({
                "client_id": "c1",
                "redirect_uri": "http://127.0.0.1:4000/callback",
                "metadata": {"authorization_endpoint": "https://a/authorize", "token_endpoint": "https://a/token"},
                "credentials": {"client_id": "c1", "token_response": {"access_token": "at", "token_type": "bearer"}},
            });
            if let Some(r) = resource {
                kept["resource"] = r.into();
            }
            let memory = MemoryTokenStore::default();
            memory.save(&kept.to_string()).expect("saved");
            Arc::new(memory) as Arc<dyn TokenStore>
        };
        let _ = rustls::crypto::ring::default_provider().install_default();
        let first = "http://127.0.0.1:1/mcp";
        let manager = manager_for("s", first, &record(Some(first))).await.expect("reads");
        assert!(manager.is_some());
        // Another URL under the same id, or a record that does not say
        // which URL it was for: no token is sent.
        for (store, url) in [(record(Some(first)), "http://127.0.0.1:2/mcp"), (record(None), first)] {
            assert!(manager_for("s", url, &store).await.expect("reads").is_none(), "{url}");
        }
    }

    #[test]
    fn only_https_or_loopback_http_endpoints_are_taken() {
        for ok in [
            "https://auth.example.com/authorize",
            "http://127.0.0.1:8080/authorize",
            "http://localhost/token",
            "http://[::1]:9/register",
        ] {
            assert_eq!(safe_endpoint(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("file:///etc/passwd", "is a file: address"),
            ("vscode://x/y", "is a vscode: address"),
            ("javascript:alert(1)", "is a javascript: address"),
            ("http://auth.example.com/authorize", "plain http to another computer"),
            ("not a url", "is not a URL"),
        ] {
            let e = safe_endpoint(bad).expect_err(bad);
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[tokio::test]
    async fn a_403s_scopes_are_kept_and_asked_for_with_those_granted_at_the_next_sign_in() {
        let kept = serde_json::json!({
            "client_id": "c1",
            "redirect_uri": "http://127.0.0.1:4000/callback",
            "metadata": {"authorization_endpoint": "https://a/authorize", "token_endpoint": "https://a/token"},
            "credentials": {
                "client_id": "c1",
                "token_response": {"access_token": "at", "token_type": "bearer"},
                "granted_scopes": ["read"],
            },
        });
        let memory = MemoryTokenStore::default();
        memory.save(&kept.to_string()).expect("saved");
        let store: Arc<dyn TokenStore> = Arc::new(memory);
        remember_wanted(&store, "write admin").await;
        remember_wanted(&store, "write").await;
        let before = Saved::load(store.as_ref()).expect("loads");
        assert_eq!(
            with_kept_scopes(vec!["read".into(), "offline_access".into()], before.as_ref()),
            ["read", "offline_access", "write", "admin"]
        );
        assert_eq!(with_kept_scopes(vec!["x".into()], None), ["x"]);
    }
}
