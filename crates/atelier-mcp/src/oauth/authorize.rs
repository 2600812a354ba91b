//! Getting from the authorization URL to the redirect that carries the
//! code. [`Loopback`] is the native-app way (RFC 8252 §7.3): a listener on
//! `127.0.0.1` and a free port, the URL handed to an [`Opener`] (the
//! system browser), the first `/callback` request taken. [`Headless`] GETs
//! the URL and reads the redirect without following it, for an
//! authorization server that redirects at once (the conformance suite's,
//! test fixtures').

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// Takes the person through an authorization URL.
pub trait Authorizer: Send + Sync {
    /// The redirect URI to register and to ask for.
    fn redirect_uri(&self) -> String;
    /// The full URL the authorization server redirected to (its query has
    /// `code`, `state`, maybe `iss`, or `error`), or why there is none.
    fn authorize<'a>(&'a self, url: &'a str) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send + 'a>>;
}

/// GETs the authorization URL and reads where it redirects.
#[derive(Debug, Clone)]
pub struct Headless {
    pub redirect_uri: String,
}

impl Default for Headless {
    fn default() -> Self {
        Self {
            redirect_uri: "http://127.0.0.1/callback".to_owned(),
        }
    }
}

impl Authorizer for Headless {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize<'a>(&'a self, url: &'a str) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send + 'a>> {
        Box::pin(async move {
            let client = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(Duration::from_secs(30))
                .build()
                .map_err(|e| e.to_string())?;
            let answer = client
                .get(url)
                .send()
                .await
                .map_err(|e| format!("the authorization page could not be reached: {e}"))?;
            answer
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
                .ok_or_else(|| {
                    format!(
                        "the authorization page answered HTTP {} without a redirect",
                        answer.status().as_u16()
                    )
                })
        })
    }
}

/// Shows the authorization URL to the person: opens a browser, prints it.
pub type Opener = Box<dyn Fn(&str) + Send + Sync>;

/// A loopback listener for the redirect (`http://127.0.0.1:<port>/callback`).
pub struct Loopback {
    listener: TcpListener,
    port: u16,
    open: Opener,
    wait: Duration,
    cancel: CancellationToken,
}

impl std::fmt::Debug for Loopback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loopback")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

impl Loopback {
    /// Listens on `127.0.0.1`, on the port of `previous` (the redirect the
    /// kept client was registered with) when it is free, else on any.
    /// Waits `wait` for the redirect, or until `cancel`.
    pub async fn bind(
        previous: Option<&str>,
        open: Opener,
        wait: Duration,
        cancel: CancellationToken,
    ) -> std::io::Result<Self> {
        let port = previous
            .and_then(|u| reqwest::Url::parse(u).ok())
            .filter(|u| u.host_str() == Some("127.0.0.1"))
            .and_then(|u| u.port());
        let listener = match port {
            Some(p) => match TcpListener::bind(("127.0.0.1", p)).await {
                Ok(l) => l,
                Err(_) => TcpListener::bind(("127.0.0.1", 0)).await?,
            },
            None => TcpListener::bind(("127.0.0.1", 0)).await?,
        };
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener,
            port,
            open,
            wait,
            cancel,
        })
    }

    /// Takes requests until one is for `/callback`; answers each.
    async fn callback(&self) -> Result<String, String> {
        loop {
            let (mut socket, _) = self.listener.accept().await.map_err(|e| e.to_string())?;
            let mut buf = vec![0u8; 8192];
            let mut read = 0;
            // The request line and headers; the body (none) is not read.
            while read < buf.len() {
                let n = match tokio::time::timeout(Duration::from_secs(5), socket.read(&mut buf[read..])).await {
                    Ok(Ok(n)) => n,
                    _ => 0,
                };
                read += n;
                if n == 0 || buf[..read].windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
            let head = String::from_utf8_lossy(&buf[..read]);
            let target = head
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("GET "))
                .and_then(|l| l.split(' ').next())
                .unwrap_or_default()
                .to_owned();
            if !target.starts_with("/callback") {
                let _ = socket.write_all(&answer("404 Not Found", "Not here.")).await;
                continue;
            }
            let failed = reqwest::Url::parse(&format!("http://127.0.0.1{target}"))
                .ok()
                .and_then(|u| u.query_pairs().find(|(k, _)| k == "error").map(|(_, v)| v.into_owned()));
            let page = match &failed {
                Some(e) => format!("Sign-in failed ({e}). You can close this tab."),
                None => "Signed in to Atelier. You can close this tab.".to_owned(),
            };
            let _ = socket.write_all(&answer("200 OK", &page)).await;
            let _ = socket.shutdown().await;
            return Ok(format!("http://127.0.0.1:{}{target}", self.port));
        }
    }
}

fn answer(status: &str, text: &str) -> Vec<u8> {
    let body = format!("<!doctype html><meta charset=utf-8><title>Atelier</title><p>{text}</p>");
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

impl Authorizer for Loopback {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    fn authorize<'a>(&'a self, url: &'a str) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send + 'a>> {
        Box::pin(async move {
            (self.open)(url);
            tokio::select! {
                r = self.callback() => r,
                () = tokio::time::sleep(self.wait) => Err(format!(
                    "no answer from the browser within {} s", self.wait.as_secs()
                )),
                () = self.cancel.cancelled() => Err("cancelled".to_owned()),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_loopback_listener_takes_the_callback_and_reuses_a_free_port() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let opened = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let seen = std::sync::Arc::clone(&opened);
        let lb = Loopback::bind(
            None,
            Box::new(move |u| *seen.lock().expect("lock") = u.to_owned()),
            Duration::from_secs(10),
            CancellationToken::new(),
        )
        .await
        .expect("binds");
        let redirect = lb.redirect_uri();
        let hit = redirect.clone();
        let browser = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let c = reqwest::Client::new();
            let base = hit.trim_end_matches("/callback").to_owned();
            assert_eq!(
                c.get(format!("{base}/favicon.ico"))
                    .send()
                    .await
                    .expect("answers")
                    .status(),
                404
            );
            c.get(format!("{hit}?code=c1&state=s1"))
                .send()
                .await
                .expect("answers")
                .text()
                .await
                .expect("answers")
        });
        let got = lb
            .authorize("https://auth.example/authorize?x=1")
            .await
            .expect("answers");
        assert_eq!(got, format!("{redirect}?code=c1&state=s1"));
        assert_eq!(*opened.lock().expect("lock"), "https://auth.example/authorize?x=1");
        assert!(browser.await.expect("answers").contains("Signed in"));
        drop(lb);
        let again = Loopback::bind(
            Some(&redirect),
            Box::new(|_| {}),
            Duration::from_millis(100),
            CancellationToken::new(),
        )
        .await
        .expect("binds");
        assert_eq!(again.redirect_uri(), redirect, "the kept client's port, free again");
        let e = again.authorize("u").await.expect_err("no browser came");
        assert!(e.contains("within"), "{e}");
    }
}
