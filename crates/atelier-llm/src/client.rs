//! A provider and the HTTP client that talks to it: one streamed request
//! becomes one [`Turn`], its events delivered as they arrive; transient
//! failures are retried (exponential backoff, `Retry-After` honoured, at
//! most [`MAX_TRIES`]) but never once something reached the person. A
//! reply that comes whole (`application/json`: a server that ignores
//! `stream`, or an error under 200) is read as one ([`crate::whole`]); a
//! field a strict server refuses is left out from then on
//! ([`openai::OPTIONAL_FIELDS`]).

use std::fmt;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::accumulate::Builder;
use crate::error::{Error, ErrorKind, Result, from_status};
use crate::sse::SseParser;
use crate::types::{Event, Request, Turn};
use crate::{anthropic, openai, whole};

/// How many times a transient failure is tried in all.
pub const MAX_TRIES: u32 = 4;

/// The wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// OpenAI-compatible chat completions.
    Openai,
    /// Anthropic Messages.
    Anthropic,
}

/// Where requests go and how they are signed. The key is never printed.
#[derive(Clone)]
pub struct Provider {
    /// The person's name for it (errors say it).
    pub id: String,
    pub kind: Kind,
    /// `http://localhost:11434/v1` (OpenAI-compatible: up to `/v1`);
    /// `https://…` without `/v1` for Anthropic.
    pub base_url: String,
    pub api_key: Option<String>,
    /// Extra headers (OpenRouter's `HTTP-Referer`, a proxy's token…).
    pub headers: Vec<(String, String)>,
}

impl fmt::Debug for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Provider")
            .field("id", &self.id)
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("headers", &self.headers.iter().map(|(k, _)| k).collect::<Vec<_>>())
            .finish()
    }
}

/// A turn that failed or was stopped, with what had streamed (kept).
#[derive(Debug, Clone)]
pub struct Failed {
    pub error: Error,
    pub partial: Turn,
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for Failed {}

/// Backoff between tries; tests shorten it.
#[derive(Debug, Clone, Copy)]
pub struct Retry {
    pub first: Duration,
    pub max: Duration,
}

impl Default for Retry {
    fn default() -> Self {
        Self {
            first: Duration::from_millis(500),
            max: Duration::from_secs(20),
        }
    }
}

/// Talks to one provider.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    provider: Provider,
    retry: Retry,
}

fn install_crypto() {
    // rustls needs one process-wide provider; a second install is a no-op.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// One HTTP client for the process: building one costs milliseconds (TLS
/// set-up), and sharing it keeps connections to a provider open from one
/// run to the next instead of a new handshake per message.
fn shared_http() -> Result<reqwest::Client> {
    static HTTP: std::sync::OnceLock<std::result::Result<reqwest::Client, String>> = std::sync::OnceLock::new();
    HTTP.get_or_init(|| {
        install_crypto();
        reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| e.to_string())
    })
    .clone()
    .map_err(|e| Error::new(ErrorKind::Network, format!("could not set up HTTP: {e}")))
}

impl Client {
    pub fn new(provider: Provider) -> Result<Self> {
        let http = shared_http()?;
        Ok(Self {
            http,
            provider,
            retry: Retry::default(),
        })
    }

    pub fn with_retry(mut self, retry: Retry) -> Self {
        self.retry = retry;
        self
    }

    pub fn provider(&self) -> &Provider {
        &self.provider
    }

    fn url(&self, path: &str) -> String {
        let base = self.provider.base_url.trim_end_matches('/');
        match self.provider.kind {
            Kind::Openai => format!("{base}/{path}"),
            Kind::Anthropic if base.ends_with("/v1") => format!("{base}/{path}"),
            Kind::Anthropic => format!("{base}/v1/{path}"),
        }
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let mut r = self.http.request(method, self.url(path));
        match self.provider.kind {
            Kind::Openai => {
                if let Some(k) = &self.provider.api_key {
                    r = r.bearer_auth(k);
                }
            }
            Kind::Anthropic => {
                r = r.header("anthropic-version", anthropic::VERSION);
                if let Some(k) = &self.provider.api_key {
                    r = r.header("x-api-key", k);
                }
            }
        }
        for (k, v) in &self.provider.headers {
            r = r.header(k, v);
        }
        r
    }

    /// The error with any trace of this provider's secrets taken out: a
    /// server's words may echo the key (OpenAI's 401 shows it masked but
    /// with its ends), and errors reach the database, outputs and logs.
    fn scrub(&self, mut e: Error) -> Error {
        let secrets = self
            .provider
            .api_key
            .iter()
            .chain(self.provider.headers.iter().map(|(_, v)| v))
            .filter(|v| v.len() >= 8);
        for s in secrets {
            e.message = e.message.replace(s.as_str(), "<redacted>");
        }
        e.message = e
            .message
            .split(' ')
            .map(|w| {
                let bare = w.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '*' && c != '-' && c != '_');
                if bare.contains("***") || (bare.starts_with("sk-") && bare.len() > 8) {
                    w.replace(bare, "<redacted>")
                } else {
                    w.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
        e
    }

    fn network(&self, e: &reqwest::Error) -> Error {
        let what = if e.is_connect() {
            format!(
                "could not connect to {}: is the server of provider {} running?",
                self.provider.base_url, self.provider.id
            )
        } else if e.is_timeout() {
            format!("{} did not answer in time", self.provider.base_url)
        } else {
            format!("the connection to {} failed", self.provider.base_url)
        };
        Error::new(ErrorKind::Network, format!("{what} ({e})"))
    }

    /// Streams one turn: `on` sees every event as it arrives; the turn is
    /// returned whole, or with what had streamed when it failed or `cancel`
    /// fired.
    pub async fn stream(
        &self,
        req: &Request,
        cancel: &CancellationToken,
        on: &mut (dyn FnMut(&Event) + Send),
    ) -> std::result::Result<Turn, Failed> {
        let mut body = match self.provider.kind {
            Kind::Openai => openai::body(req, openai::is_openai_itself(&self.provider.base_url)),
            Kind::Anthropic => anthropic::body(req),
        };
        if self.provider.kind == Kind::Openai {
            for field in openai::refused_before(&self.provider.base_url) {
                openai::strip(&mut body, field);
            }
        }
        let path = match self.provider.kind {
            Kind::Openai => "chat/completions",
            Kind::Anthropic => "messages",
        };
        let taken = req.ids_in_use();
        let mut tries = 0;
        loop {
            tries += 1;
            let mut b = Builder::new(on).avoiding(taken.clone());
            let result = self.once(path, &body, &req.model, cancel, &mut b).await;
            // A field the server does not take: once more without it (a
            // refusal costs nothing), and never again to this server.
            let refused = match &result {
                Err(e) if !b.streamed => self.refused_field(e, &body),
                _ => None,
            };
            if let Some(field) = refused {
                tracing::info!(provider = %self.provider.id, field, "the server refuses a field: sent again without it");
                openai::remember_refused(&self.provider.base_url, field);
                openai::strip(&mut body, field);
                tries -= 1;
                continue;
            }
            match result {
                Ok(()) => return Ok(b.finish()),
                Err(e) if e.kind.is_transient() && !b.streamed && tries < MAX_TRIES => {
                    let wait = e
                        .retry_after
                        .unwrap_or_else(|| self.retry.first * 2u32.saturating_pow(tries - 1))
                        .min(self.retry.max);
                    tracing::info!(provider = %self.provider.id, try_ = tries, wait_ms = wait.as_millis() as u64, error = %e, "retrying");
                    drop(b);
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = cancel.cancelled() => {
                            return Err(Failed { error: Error::cancelled(), partial: Builder::new(on).partial() });
                        }
                    }
                }
                Err(error) => {
                    return Err(Failed {
                        error: self.scrub(error),
                        partial: b.partial(),
                    });
                }
            }
        }
    }

    /// The optional field an OpenAI-compatible server refused, if `e` is
    /// such a refusal.
    fn refused_field(&self, e: &Error, body: &Value) -> Option<&'static str> {
        (self.provider.kind == Kind::Openai)
            .then(|| openai::refused_field(e.status, &e.message, body))
            .flatten()
    }

    async fn once(
        &self,
        path: &str,
        body: &Value,
        model: &str,
        cancel: &CancellationToken,
        b: &mut Builder<'_>,
    ) -> Result<()> {
        let send = self
            .request(reqwest::Method::POST, path)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string())
            .send();
        let resp = tokio::select! {
            r = send => r.map_err(|e| self.network(&e))?,
            () = cancel.cancelled() => return Err(Error::cancelled()),
        };
        let status = resp.status().as_u16();
        if !(200..300).contains(&status) {
            let retry_after = retry_after(resp.headers());
            let text = resp.text().await.unwrap_or_default();
            return Err(from_status(status, &text, retry_after, &self.provider.id, model));
        }
        let labelled_json = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.trim_start().to_ascii_lowercase().starts_with("application/json"));
        // Labelled JSON: a whole reply, gathered, unless its first byte
        // says it is a stream after all (a proxy that mislabels SSE).
        let mut json_body: Option<Vec<u8>> = labelled_json.then(Vec::new);
        let mut bytes = resp.bytes_stream();
        let mut sse = SseParser::new();
        loop {
            let next = tokio::select! {
                n = bytes.next() => n,
                () = cancel.cancelled() => return Err(Error::cancelled()),
            };
            let events = match next {
                Some(Ok(chunk)) => match json_body.as_mut() {
                    Some(body) => {
                        body.extend_from_slice(&chunk);
                        match body.iter().find(|c| !c.is_ascii_whitespace()) {
                            Some(b'{' | b'[') | None => continue,
                            Some(_) => sse.feed(&json_body.take().unwrap_or_default()),
                        }
                    }
                    None => sse.feed(chunk.as_ref()),
                },
                Some(Err(e)) => {
                    return Err(Error::new(
                        ErrorKind::Network,
                        format!("the stream from {} broke off: {e}", self.provider.base_url),
                    ));
                }
                None if json_body.is_some() => {
                    let body = json_body.take().unwrap_or_default();
                    return whole::reply(
                        self.provider.kind,
                        &String::from_utf8_lossy(&body),
                        &self.provider.id,
                        b,
                    );
                }
                None => {
                    // A stream that ends without its end marker was cut.
                    let last = sse.finish().into_iter().collect::<Vec<_>>();
                    if self.dispatch(&last, b)? {
                        return Ok(());
                    }
                    return Err(Error::new(
                        ErrorKind::Network,
                        format!("the stream from {} ended before the answer did", self.provider.base_url),
                    ));
                }
            };
            if self.dispatch(&events, b)? {
                return Ok(());
            }
        }
    }

    /// Feeds parsed events to the adapter; whether the turn is complete.
    fn dispatch(&self, events: &[crate::sse::SseEvent], b: &mut Builder<'_>) -> Result<bool> {
        for e in events {
            let done = match self.provider.kind {
                Kind::Openai => openai::chunk(&e.event, &e.data, b)?,
                Kind::Anthropic => anthropic::event(&e.event, &e.data, b)?,
            };
            if done {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The models the provider lists (`GET …/models`) that can chat, in
    /// its order ([`crate::model_list`]: an embedding, speech or image
    /// model is left out). Anthropic pages its list (20 a page unless
    /// `limit`, at most 1000, is asked; the next page is `after_id` the last
    /// id while `has_more`): pages are followed, at most `MAX_MODEL_PAGES`.
    pub async fn models(&self) -> Result<Vec<String>> {
        if self.provider.kind == Kind::Openai {
            let listed = openai::models(&self.get_json("models").await?);
            return Ok(crate::model_list::chat_first(
                listed,
                openai::is_openai_itself(&self.provider.base_url),
            ));
        }
        let mut all = Vec::new();
        let mut path = "models?limit=1000".to_owned();
        for _ in 0..MAX_MODEL_PAGES {
            let page = self.get_json(&path).await?;
            all.extend(openai::models(&page));
            let next = page
                .get("last_id")
                .and_then(Value::as_str)
                .filter(|_| page.get("has_more").and_then(Value::as_bool) == Some(true));
            match next {
                Some(last) => path = format!("models?limit=1000&after_id={}", query_value(last)),
                None => break,
            }
        }
        Ok(crate::model_list::chat_first(all, false))
    }

    /// `GET {path}` read as JSON.
    async fn get_json(&self, path: &str) -> Result<Value> {
        let resp = self
            .request(reqwest::Method::GET, path)
            .send()
            .await
            .map_err(|e| self.network(&e))?;
        let status = resp.status().as_u16();
        let text = resp.text().await.map_err(|e| self.network(&e))?;
        if !(200..300).contains(&status) {
            return Err(self.scrub(from_status(status, &text, None, &self.provider.id, "")));
        }
        serde_json::from_str(&text).map_err(|e| {
            Error::new(
                ErrorKind::BadResponse,
                format!("the model list of {} is not JSON ({e})", self.provider.id),
            )
        })
    }
}

/// How long a server asked to wait: OpenAI's `retry-after-ms`
/// (milliseconds), else `Retry-After` in seconds (a date is not read).
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let number = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
    };
    // `try_`: an absurd number is no wait asked, not a panic.
    let ms = number("retry-after-ms").and_then(|ms| Duration::try_from_secs_f64(ms / 1000.0).ok());
    ms.or_else(|| number("retry-after").and_then(|s| Duration::try_from_secs_f64(s).ok()))
}

/// How many pages of models are read at most (10,000 models at 1000 a page).
const MAX_MODEL_PAGES: usize = 10;

/// A value as it may stand in a URL's query: model ids are letters, digits
/// and `-._`, anything else is percent-encoded.
fn query_value(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
