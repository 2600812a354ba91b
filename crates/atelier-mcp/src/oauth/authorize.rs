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
use tokio::net::{TcpListener, TcpStream};
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

    /// Takes requests until one is for `/callback`; answers each. Each
    /// connection is read in a task of its own: a browser's preconnect
    /// that sends nothing must not hold up the redirect behind it.
    async fn callback(&self) -> Result<String, String> {
        let (found, mut taken) = tokio::sync::mpsc::channel::<String>(1);
        // Dropped with this future: no reader outlives the wait.
        let mut readers = tokio::task::JoinSet::new();
        loop {
            tokio::select! {
                accepted = self.listener.accept() => {
                    let (socket, _) = accepted.map_err(|e| e.to_string())?;
                    readers.spawn(serve(socket, found.clone()));
                }
                Some(target) = taken.recv() => {
                    return Ok(format!("http://127.0.0.1:{}{target}", self.port));
                }
            }
            while readers.try_join_next().is_some() {}
        }
    }
}

/// Reads one request and answers it; a `/callback` one's target goes to
/// `found`.
async fn serve(mut socket: TcpStream, found: tokio::sync::mpsc::Sender<String>) {
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
    let Some(page) = callback_page(&target) else {
        let _ = socket.write_all(&answer("404 Not Found", "Not here.")).await;
        return;
    };
    let _ = socket.write_all(&answer("200 OK", &page)).await;
    let _ = socket.shutdown().await;
    let _ = found.send(target).await;
}

/// The page a request for `target` gets when it is the redirect (its path
/// exactly `/callback`), in HTML: the authorization server's `error` is
/// escaped, since the page is on our loopback origin.
fn callback_page(target: &str) -> Option<String> {
    let path = target.split_once('?').map_or(target, |(p, _)| p);
    if path != "/callback" {
        return None;
    }
    let failed = reqwest::Url::parse(&format!("http://127.0.0.1{target}"))
        .ok()
        .and_then(|u| u.query_pairs().find(|(k, _)| k == "error").map(|(_, v)| v.into_owned()));
    Some(match &failed {
        Some(e) => format!("Sign-in failed ({}). You can close this tab.", html_escaped(e)),
        None => "Signed in to Atelier. You can close this tab.".to_owned(),
    })
}

fn html_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
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

    #[test]
    fn the_redirect_is_only_callback_and_its_error_is_escaped() {
        assert!(callback_page("/callbackX?code=1").is_none());
        assert!(callback_page("/callback/x").is_none());
        assert!(callback_page("/callback?code=1").is_some_and(|p| p.contains("Signed in")));
        assert!(callback_page("/callback").is_some());
        let page = callback_page("/callback?error=%3Cscript%3Ealert(1)%3C/script%3E%22%27&x=1").expect("page");
        assert!(!page.contains('<') && !page.contains('"'), "{page}");
        assert!(
            page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;"),
            "{page}"
        );
    }

    #[tokio::test]
    async fn a_silent_connection_does_not_hold_up_the_redirect() {
        let lb = Loopback::bind(
            None,
            Box::new(|_| {}),
            Duration::from_secs(10),
            CancellationToken::new(),
        )
        .await
        .expect("binds");
        let redirect = lb.redirect_uri();
        let addr = redirect
            .trim_start_matches("http://")
            .trim_end_matches("/callback")
            .to_owned();
        let browser = tokio::spawn(async move {
            // A preconnect that never sends, then the redirect.
            let silent = TcpStream::connect(&addr).await.expect("connects");
            tokio::time::sleep(Duration::from_millis(50)).await;
            let mut s = TcpStream::connect(&addr).await.expect("connects");
            s.write_all(b"GET /callback?code=c1&state=s1 HTTP/1.1\r\nHost: x\r\n\r\n")
                .await
                .expect("sends");
            let mut page = String::new();
            let _ = s.read_to_string(&mut page).await;
            drop(silent);
            page
        });
        let started = std::time::Instant::now();
        let got = lb.authorize("https://auth.example/a").await.expect("answers");
        assert_eq!(got, format!("{redirect}?code=c1&state=s1"));
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
        assert!(browser.await.expect("answers").contains("Signed in"));
    }

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
