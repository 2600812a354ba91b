//! Tool HTML is served from our own URI scheme, never `srcdoc`: each render
//! gets an unguessable token, the first path segment of every URL it may
//! load (`atelier-render://localhost/<token>/index.html`, and the artifact's
//! own scripts, styles and images beside it). Every response carries a CSP
//! that allows nothing but inline code and that token's path — no network,
//! no other frames, and `sandbox allow-scripts` should it ever load outside
//! its frame — plus `nosniff` and `no-referrer`. The UI shows it in an
//! `<iframe sandbox="allow-scripts">`: an opaque origin that never receives
//! the IPC key. Tokens live for the run, the oldest forgotten past
//! [`MAX_TOKENS`] (a remounted renderer asks for a new one).
//!
//! The same scheme serves single workspace file versions (images the UI
//! shows with `<img>`): a token pins (chat, manifest, path), the response is
//! typed only for image formats (else `application/octet-stream`) and its
//! CSP forbids scripts outright, so an SVG opened on its own runs nothing.

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::io::Read;
use std::sync::Mutex;

use tauri::http::{Request, Response, StatusCode, header};
use tauri::{Manager, Runtime, UriSchemeContext, UriSchemeResponder};

use atelier_core::tools::views::FileRef;

use crate::AppState;

pub const SCHEME: &str = "atelier-render";

/// What a token lets the webview load.
#[derive(Debug, Clone)]
enum Grant {
    /// A call's html document and its toolset's files beside the artifact.
    Html { call_id: String },
    /// One workspace file version, under its own name.
    File(FileRef),
}

/// How many tokens a run keeps: far more than a screen shows at once, so
/// a long session's map stays bounded and an old token stops working.
pub const MAX_TOKENS: usize = 4096;

/// Tokens issued for renders and files, oldest first in `order`.
#[derive(Debug, Default)]
pub struct Renders {
    tokens: Mutex<Issued>,
}

#[derive(Debug, Default)]
struct Issued {
    grants: HashMap<String, Grant>,
    order: VecDeque<String>,
}

impl Renders {
    fn insert(&self, grant: Grant) -> String {
        let token = random_token();
        let mut issued = self.tokens.lock().unwrap_or_else(|p| p.into_inner());
        issued.grants.insert(token.clone(), grant);
        issued.order.push_back(token.clone());
        while issued.order.len() > MAX_TOKENS {
            if let Some(old) = issued.order.pop_front() {
                issued.grants.remove(&old);
            }
        }
        token
    }

    /// A fresh URL for a call's document.
    pub fn issue(&self, call_id: &str) -> String {
        let token = self.insert(Grant::Html {
            call_id: call_id.to_owned(),
        });
        format!("{}/{token}/index.html", base())
    }

    /// A fresh URL for one workspace file version.
    pub fn issue_file(&self, file: FileRef) -> String {
        let name = percent_encode(file_name(&file.path));
        let token = self.insert(Grant::File(file));
        format!("{}/{token}/{name}", base())
    }

    fn grant_of(&self, token: &str) -> Option<Grant> {
        self.tokens
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .grants
            .get(token)
            .cloned()
    }
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The CSP of a workspace file: nothing runs, nothing loads.
pub const FILE_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox";

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
         child-src 'none'; worker-src 'none'; form-action 'none'; base-uri 'none'; sandbox allow-scripts"
    )
}

/// Content types a workspace file may be served as: images only.
fn image_mime(path: &str) -> &'static str {
    match mime(path) {
        m @ ("image/svg+xml" | "image/png" | "image/jpeg" | "image/gif" | "image/webp") => m,
        _ if path.to_ascii_lowercase().ends_with(".bmp") => "image/bmp",
        _ if path.to_ascii_lowercase().ends_with(".ico") => "image/x-icon",
        _ if path.to_ascii_lowercase().ends_with(".avif") => "image/avif",
        _ => "application/octet-stream",
    }
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

fn respond(status: StatusCode, csp: &str, content_type: &str, body: Vec<u8>) -> Response<Cow<'static, [u8]>> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, content_type)
        .header(header::CONTENT_SECURITY_POLICY, csp)
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
    let rest = percent_decode(rest);
    let call_id = match state.renders.grant_of(token) {
        None => {
            return respond(
                StatusCode::NOT_FOUND,
                FILE_CSP,
                "text/plain",
                b"unknown render".to_vec(),
            );
        }
        Some(Grant::File(file)) => return serve_file(state, &file, &rest).await,
        Some(Grant::Html { call_id }) => call_id,
    };
    let csp = csp(token);
    let served = if rest == "index.html" {
        state
            .app
            .tools()
            .render_html(&call_id)
            .await
            .map(|doc| (mime("index.html"), doc.into_bytes()))
    } else {
        state
            .app
            .tools()
            .render_asset(&call_id, &rest)
            .await
            .map(|bytes| (mime(&rest), bytes))
    };
    match served {
        Ok((content_type, body)) => respond(StatusCode::OK, &csp, content_type, body),
        Err(e) => {
            tracing::debug!(call = %call_id, path = %rest, error = %e, "render request refused");
            respond(StatusCode::NOT_FOUND, &csp, "text/plain", b"not found".to_vec())
        }
    }
}

/// A pinned workspace file, only under its own name.
async fn serve_file(state: &AppState, file: &FileRef, rest: &str) -> Response<Cow<'static, [u8]>> {
    if rest != file_name(&file.path) {
        return respond(StatusCode::NOT_FOUND, FILE_CSP, "text/plain", b"not found".to_vec());
    }
    match state
        .app
        .workspace()
        .read_file(&file.chat_id, &file.path, Some(&file.manifest_id))
        .await
    {
        Ok(bytes) => respond(StatusCode::OK, FILE_CSP, image_mime(&file.path), bytes),
        Err(e) => {
            tracing::debug!(chat = %file.chat_id, path = %file.path, error = %e, "file request refused");
            respond(StatusCode::NOT_FOUND, FILE_CSP, "text/plain", b"not found".to_vec())
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
        // Loaded anywhere but its frame, a render is still sandboxed.
        assert!(c.ends_with("; sandbox allow-scripts"), "{c}");
    }

    #[test]
    fn the_oldest_tokens_are_forgotten_past_the_cap() {
        let renders = Renders::default();
        let token_of = |url: String| url.split('/').nth(3).expect("token").to_owned();
        let first = token_of(renders.issue("call-0"));
        let mut last = String::new();
        for i in 1..=MAX_TOKENS {
            last = token_of(renders.issue(&format!("call-{i}")));
        }
        assert!(renders.grant_of(&first).is_none(), "the oldest token still works");
        assert!(
            matches!(renders.grant_of(&last), Some(Grant::Html { call_id }) if call_id == format!("call-{MAX_TOKENS}"))
        );
        assert_eq!(renders.tokens.lock().expect("lock").grants.len(), MAX_TOKENS);
    }

    #[test]
    fn workspace_files_are_served_as_images_or_opaque_bytes_never_as_pages() {
        assert_eq!(image_mime("a/b/pic.PNG"), "image/png");
        assert_eq!(image_mime("x.svg"), "image/svg+xml");
        assert_eq!(image_mime("page.html"), "application/octet-stream");
        assert_eq!(image_mime("app.js"), "application/octet-stream");
        assert!(FILE_CSP.contains("default-src 'none'") && FILE_CSP.ends_with("sandbox"));
        assert!(!FILE_CSP.contains("script-src"));
        assert_eq!(percent_encode("a b/ü.png"), "a%20b%2F%C3%BC.png");
    }

    #[test]
    fn tokens_are_long_random_and_distinct() {
        let (a, b) = (random_token(), random_token());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
