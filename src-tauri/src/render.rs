//! Tool HTML is served from our own URI scheme, never `srcdoc`: each render
//! gets an unguessable token, the first path segment of every URL it may
//! load (`atelier-render://localhost/<token>/index.html`, and the artifact's
//! own scripts, styles and images beside it). Every response carries a CSP
//! that allows nothing but inline code and that token's path — no network,
//! no other frames — plus `nosniff` and `no-referrer`. The UI shows it in an
//! `<iframe sandbox="allow-scripts">`: an opaque origin that never receives
//! the IPC key.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Read;
use std::sync::Mutex;

use tauri::http::{Request, Response, StatusCode, header};
use tauri::{Manager, Runtime, UriSchemeContext, UriSchemeResponder};

use crate::AppState;

pub const SCHEME: &str = "atelier-render";

/// Tokens issued for renders: token → tool call id.
#[derive(Debug, Default)]
pub struct Renders {
    tokens: Mutex<HashMap<String, String>>,
}

impl Renders {
    /// A fresh URL for a call's document.
    pub fn issue(&self, call_id: &str) -> String {
        let token = random_token();
        self.tokens
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(token.clone(), call_id.to_owned());
        format!("{}/{token}/index.html", base())
    }

    fn call_of(&self, token: &str) -> Option<String> {
        self.tokens
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(token)
            .cloned()
    }
}

/// The scheme's origin as the webview sees it (Windows maps custom schemes
/// to `http://<scheme>.localhost`).
fn base() -> String {
    if cfg!(windows) {
        format!("http://{SCHEME}.localhost")
    } else {
        format!("{SCHEME}://localhost")
    }
}

/// 128 bits from the OS.
fn random_token() -> String {
    let mut bytes = [0u8; 16];
    let filled = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if filled.is_err() {
        // Not reachable on the platforms we ship; still never a fixed token.
        bytes = *uuid::Uuid::now_v7().as_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The CSP of everything served under `token`.
pub fn csp(token: &str) -> String {
    let own = format!("{}/{token}/", base());
    format!(
        "default-src 'none'; script-src 'unsafe-inline' {own}; style-src 'unsafe-inline' {own}; \
         img-src data: {own}; font-src {own}; media-src {own}; connect-src 'none'; frame-src 'none'; \
         child-src 'none'; worker-src 'none'; form-action 'none'; base-uri 'none'"
    )
}

fn mime(path: &str) -> &'static str {
    match path.rsplit('.').next().map(str::to_ascii_lowercase).as_deref() {
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("woff2") => "font/woff2",
        Some("woff") => "font/woff",
        _ => "application/octet-stream",
    }
}

fn respond(status: StatusCode, token: &str, content_type: &str, body: Vec<u8>) -> Response<Cow<'static, [u8]>> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, content_type)
        .header(header::CONTENT_SECURITY_POLICY, csp(token))
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(header::REFERRER_POLICY, "no-referrer")
        .header(header::CACHE_CONTROL, "no-store")
        .body(Cow::Owned(body))
        .unwrap_or_else(|_| Response::new(Cow::Borrowed(&b""[..])))
}

/// Answers one request of the scheme.
pub async fn serve(state: &AppState, path: &str) -> Response<Cow<'static, [u8]>> {
    let path = path.trim_start_matches('/');
    let (token, rest) = path.split_once('/').unwrap_or((path, ""));
    let Some(call_id) = state.renders.call_of(token) else {
        return respond(StatusCode::NOT_FOUND, "-", "text/plain", b"unknown render".to_vec());
    };
    let rest = percent_decode(rest);
    let served = if rest == "index.html" {
        state
            .app
            .render_html(&call_id)
            .await
            .map(|doc| (mime("index.html"), doc.into_bytes()))
    } else {
        state
            .app
            .render_asset(&call_id, &rest)
            .await
            .map(|bytes| (mime(&rest), bytes))
    };
    match served {
        Ok((content_type, body)) => respond(StatusCode::OK, token, content_type, body),
        Err(e) => {
            tracing::debug!(call = %call_id, path = %rest, error = %e, "render request refused");
            respond(StatusCode::NOT_FOUND, token, "text/plain", b"not found".to_vec())
        }
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(b) = s.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The scheme handler given to Tauri.
pub fn handler<R: Runtime>(ctx: UriSchemeContext<'_, R>, request: Request<Vec<u8>>, responder: UriSchemeResponder) {
    let app = ctx.app_handle().clone();
    let path = request.uri().path().to_owned();
    tauri::async_runtime::spawn(async move {
        let state = app.state::<AppState>();
        responder.respond(serve(&state, &path).await);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_csp_allows_no_network_and_only_the_tokens_path() {
        let c = csp("abc");
        assert!(c.contains("connect-src 'none'") && c.contains("default-src 'none'"));
        assert!(c.contains("script-src 'unsafe-inline' atelier-render://localhost/abc/"));
        assert!(!c.contains("unsafe-eval"));
    }

    #[test]
    fn tokens_are_long_random_and_distinct() {
        let (a, b) = (random_token(), random_token());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
