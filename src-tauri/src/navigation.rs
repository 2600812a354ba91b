//! Where the app's webview may navigate. The window holds the IPC, so no
//! page but the app's own may ever load in it: a link opened from the
//! context menu, a middle click, or a page setting its own `location`
//! would otherwise replace the app with whatever a model's answer or a
//! tool's document linked to — a page that looks like Atelier and asks
//! for an API key.
//!
//! WebKitGTK asks about every navigation, the main frame's and each
//! frame's, through one callback that sees only the URL. So the allowed
//! destinations are the app's own pages plus what the CSP's `frame-src`
//! lets frames show (render frames, loopback, the origins the person
//! allowed, [`crate::frames`]): one list, read from the same config the
//! webview enforces. Everything else is refused and logged.
//!
//! That shared list lets a frame's origins (loopback, an allowed site) in
//! the main frame too. So a second check watches the main frame alone
//! (its page loads): a page that is not the app's is sent back to the app
//! as soon as it starts loading.

use std::sync::{Arc, Mutex};

use tauri::plugin::{Builder, TauriPlugin};
use tauri::utils::config::{Config, Csp, CspDirectiveSources};
use tauri::webview::PageLoadEvent;
use tauri::{Manager, Runtime, Url};

/// One allowed destination, as a CSP source expression says it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    /// `atelier-render:`: any URL of that scheme.
    Scheme(String),
    /// `http://localhost:*`, `https://example.com`: one origin, any port
    /// when `port` is `None`.
    Origin {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
}

/// The destinations this run's webview may load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destinations {
    sources: Vec<Source>,
}

impl Destinations {
    /// The app's own pages (`tauri://localhost`, and
    /// `http(s)://tauri.localhost` where custom schemes are mapped so, the
    /// dev server in a dev build), and the `frame-src` of `config`'s CSP.
    pub fn from_config(config: &Config) -> Self {
        let mut d = Self::app_pages(config);
        if let Some(Csp::DirectiveMap(map)) = config.app.security.csp.as_ref()
            && let Some(frame_src) = map.get("frame-src")
        {
            let listed: Vec<String> = match frame_src {
                CspDirectiveSources::List(l) => l.clone(),
                CspDirectiveSources::Inline(s) => s.split_whitespace().map(str::to_owned).collect(),
            };
            d.sources.extend(listed.iter().filter_map(|s| parse_source(s)));
        }
        d
    }

    /// The app's own pages only: what the main frame may show.
    pub fn app_pages(config: &Config) -> Self {
        let mut sources = vec![
            Source::Scheme("tauri".to_owned()),
            origin("http", "tauri.localhost", None),
            origin("https", "tauri.localhost", None),
        ];
        // The dev server only in a dev build: a release build serves its
        // pages itself, and a page on that port would be anyone's.
        if tauri::is_dev()
            && let Some(dev) = config.build.dev_url.as_ref()
            && let Some(host) = dev.host_str()
        {
            sources.push(origin(dev.scheme(), host, dev.port_or_known_default()));
        }
        Self { sources }
    }

    /// Whether the webview may load `url`. `about:blank` (a frame before
    /// its page) is harmless; `data:`, `blob:`, `file:` and every other
    /// origin are not.
    pub fn allows(&self, url: &Url) -> bool {
        if url.as_str() == "about:blank" {
            return true;
        }
        self.sources.iter().any(|s| match s {
            Source::Scheme(scheme) => url.scheme() == scheme,
            Source::Origin { scheme, host, port } => {
                url.scheme() == scheme
                    && url.host_str() == Some(host.as_str())
                    && port.is_none_or(|p| url.port_or_known_default() == Some(p))
            }
        })
    }
}

fn origin(scheme: &str, host: &str, port: Option<u16>) -> Source {
    Source::Origin {
        scheme: scheme.to_owned(),
        host: host.to_owned(),
        port,
    }
}

/// A CSP source expression as a destination: `scheme:`, or
/// `scheme://host[:port|:*]`. Keywords (`'self'`), wildcards in hosts and
/// paths are not destinations of ours and are skipped, never widened.
fn parse_source(s: &str) -> Option<Source> {
    if let Some(scheme) = s.strip_suffix(':')
        && !scheme.is_empty()
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return Some(Source::Scheme(scheme.to_ascii_lowercase()));
    }
    let (scheme, rest) = s.split_once("://")?;
    let (authority, any_port) = match rest.strip_suffix(":*") {
        Some(a) => (a, true),
        None => (rest, false),
    };
    if authority.contains(['/', '*', '@']) {
        return None;
    }
    let url = Url::parse(&format!("{scheme}://{authority}/")).ok()?;
    let host = url.host_str()?.to_owned();
    let port = if any_port { None } else { url.port_or_known_default() };
    Some(Source::Origin {
        scheme: url.scheme().to_owned(),
        host,
        port,
    })
}

/// Where the app's window goes back to when its first page is not known
/// yet (custom schemes are `http://<scheme>.localhost` on Windows).
fn default_home() -> Url {
    let home = if cfg!(windows) {
        "http://tauri.localhost/"
    } else {
        "tauri://localhost/"
    };
    Url::parse(home).unwrap_or_else(|_| unreachable!("a fixed, valid URL"))
}

/// The plugin that refuses every navigation [`Destinations`] does not
/// allow, read from the app's config (with the frame origins
/// [`crate::frames::allow_in_csp`] added at start), and sends the main
/// frame back to the app's page if another page starts loading there.
pub fn guard<R: Runtime>() -> TauriPlugin<R> {
    // The app's page as it first loaded: where the window goes back to.
    let home: Arc<Mutex<Option<Url>>> = Arc::default();
    Builder::new("navigation-guard")
        .on_navigation(|webview, url| {
            let allowed = Destinations::from_config(webview.config()).allows(url);
            if !allowed {
                tracing::warn!(%url, "refused a navigation away from the app");
            }
            allowed
        })
        .on_page_load(move |webview, payload| {
            let url = payload.url();
            let mut home = home.lock().unwrap_or_else(|p| p.into_inner());
            if Destinations::app_pages(webview.config()).allows(url) {
                if home.is_none() && url.as_str() != "about:blank" {
                    *home = Some(url.clone());
                }
                return;
            }
            if payload.event() == PageLoadEvent::Started {
                tracing::warn!(%url, "another page began to load in the app's window: back to the app");
                let back = home.clone().unwrap_or_else(default_home);
                if let Err(e) = webview.navigate(back) {
                    tracing::error!("could not take the window back to the app: {e}");
                }
            }
        })
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(extra_origins: &[String]) -> Config {
        let mut config: Config = serde_json::from_str(include_str!("../tauri.conf.json")).expect("config");
        crate::frames::allow_in_csp(&mut config, extra_origins);
        config
    }

    fn allows(d: &Destinations, url: &str) -> bool {
        d.allows(&Url::parse(url).expect("url"))
    }

    #[test]
    fn the_app_its_render_frames_and_allowed_frame_origins_load_and_nothing_else() {
        let d = Destinations::from_config(&config(&["https://charts.example.com".to_owned()]));
        for ok in [
            "tauri://localhost/index.html",
            "http://tauri.localhost/",
            "about:blank",
            "atelier-render://localhost/0123abcd/index.html",
            "http://atelier-render.localhost/0123abcd/chart.png",
            "http://localhost:8765/app",
            "http://127.0.0.1:3000/",
            "http://[::1]:9000/",
            "https://charts.example.com/embed?id=1",
            "http://localhost:5173/",
        ] {
            assert!(allows(&d, ok), "{ok} should load");
        }
        for refused in [
            "https://evil.example/atelier-login",
            "http://charts.example.com/",
            "https://charts.example.com:8443/",
            "https://sub.charts.example.com/",
            "https://localhost/",
            "file:///etc/passwd",
            "data:text/html,<script>1</script>",
            "blob:tauri://localhost/1234",
            "javascript:alert(1)",
            "about:srcdoc",
        ] {
            assert!(!allows(&d, refused), "{refused} should be refused");
        }
    }

    #[test]
    fn the_main_frame_shows_the_app_only_not_what_frames_may_show() {
        let d = Destinations::app_pages(&config(&["https://charts.example.com".to_owned()]));
        assert!(allows(&d, "tauri://localhost/index.html"));
        assert!(allows(&d, "http://tauri.localhost/"));
        for other in [
            "http://127.0.0.1:3000/",
            "http://localhost:8765/app",
            "https://charts.example.com/",
            "atelier-render://localhost/0123abcd/index.html",
        ] {
            assert!(!allows(&d, other), "{other} in the main frame");
        }
    }

    #[test]
    fn an_origin_not_allowed_at_start_does_not_load() {
        let d = Destinations::from_config(&config(&[]));
        assert!(!allows(&d, "https://charts.example.com/"));
    }

    #[test]
    fn keywords_and_wildcard_hosts_are_never_read_as_destinations() {
        for s in [
            "'self'",
            "*",
            "https://*.example.com",
            "https://*.example.com:*",
            "https://example.com/path",
            "https://example.com/p:*",
            "'none'",
        ] {
            assert_eq!(parse_source(s), None, "{s}");
        }
        assert_eq!(
            parse_source("http://127.0.0.1:*"),
            Some(origin("http", "127.0.0.1", None))
        );
        assert_eq!(
            parse_source("https://example.com"),
            Some(origin("https", "example.com", Some(443)))
        );
    }
}
