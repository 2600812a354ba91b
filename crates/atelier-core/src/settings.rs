//! App-wide settings a person chooses, stored in the `settings` table (one
//! JSON value per key, so keys come and go without migrations).
//!
//! Today there is one: the web origins whose pages a `frame` renderer may
//! show besides this computer's own (loopback pages are always allowed).
//! The desktop app builds its content security policy's `frame-src` from
//! this list when it starts, so an origin is refused by the webview itself,
//! not only hidden by the UI; that is why a change needs a restart there.

use serde::{Deserialize, Serialize};
use sqlx::Row;

use crate::{Atelier, Error, Result, ids};

/// App-wide settings: `app.settings()`. A view of the [`Atelier`] handle (cheap, `Copy`);
/// every operation of this area is a method here.
#[derive(Debug, Clone, Copy)]
pub struct SettingsStore<'a> {
    pub(crate) app: &'a crate::Atelier,
}

/// The settings, with their defaults filled in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Settings {
    /// Origins (`https://host[:port]`) whose pages frame renderers may show,
    /// besides loopback ones. Normalized by [`parse_origin`], sorted.
    pub frame_origins: Vec<String>,
}

const FRAME_ORIGINS: &str = "frame_origins";
/// The setting as the Settings screen names it (errors never show the stored key).
const FRAME_ORIGINS_LABEL: &str = "“Pages tools may show”";

/// Hosts whose pages are always framed: this computer's own.
const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

/// What a frame renderer may do with a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum FrameAccess {
    /// A page on this computer: always shown.
    Loopback,
    /// Its origin is allowed and in this run's CSP.
    Allowed,
    /// Allowed, but only after a restart (the CSP is fixed at start-up).
    NeedsRestart,
    /// Its origin is not allowed (the person may allow it).
    NotAllowed,
    /// Not an http(s) address.
    Invalid,
}

/// The answer for one page: the access, and the origin a person would
/// allow (None for an invalid address).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct FrameCheck {
    pub access: FrameAccess,
    pub origin: Option<String>,
}

/// The origin of a page's address (`https://host:port/path?q` →
/// `https://host:port`, normalized as [`parse_origin`] does), if it is an
/// http(s) address.
pub fn page_origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.is_empty() {
        return None;
    }
    parse_origin(&format!("{scheme}://{authority}")).ok()
}

/// Whether `url` is an http(s) page on this computer.
pub fn is_loopback_page(url: &str) -> bool {
    page_origin(url).is_some_and(|o| {
        let authority = o.split_once("://").map_or("", |(_, a)| a);
        split_host_port(authority).is_some_and(|(host, _)| LOOPBACK_HOSTS.contains(&host))
    })
}

/// What a frame renderer may do with `url`, given the saved settings and
/// the origins this run's CSP allows.
pub fn frame_access(url: &str, saved: &Settings, in_effect: &[String]) -> FrameCheck {
    let origin = page_origin(url);
    let access = match &origin {
        None => FrameAccess::Invalid,
        Some(_) if is_loopback_page(url) => FrameAccess::Loopback,
        Some(o) if in_effect.contains(o) => FrameAccess::Allowed,
        Some(o) if saved.frame_origins.contains(o) => FrameAccess::NeedsRestart,
        Some(_) => FrameAccess::NotAllowed,
    };
    FrameCheck { access, origin }
}

impl Atelier {
    async fn update_frame_origins(&self, change: impl FnOnce(&mut Vec<String>)) -> Result<Settings> {
        let mut tx = crate::db::begin_write(self.db()).await?;
        let stored: Option<String> = sqlx::query_scalar("SELECT value FROM settings WHERE key = ?")
            .bind(FRAME_ORIGINS)
            .fetch_optional(&mut *tx)
            .await?;
        let mut list: Vec<String> = match stored {
            Some(v) => decode_origins(&v)?,
            None => Vec::new(),
        };
        change(&mut list);
        list.sort();
        list.dedup();
        let value = serde_json::to_string(&list).map_err(|e| Error::Internal(e.to_string()))?;
        sqlx::query(
            "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(FRAME_ORIGINS)
        .bind(value)
        .bind(ids::now())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.settings().get().await
    }
}

impl SettingsStore<'_> {
    /// The current settings.
    pub async fn get(&self) -> Result<Settings> {
        let rows = sqlx::query("SELECT key, value FROM settings")
            .fetch_all(self.app.db())
            .await?;
        let mut settings = Settings::default();
        for row in rows {
            let key: String = row.get("key");
            let value: String = row.get("value");
            if key == FRAME_ORIGINS {
                settings.frame_origins = decode_origins(&value)?;
            }
        }
        Ok(settings)
    }

    /// Lets frame renderers show pages from `origin` (a URL; only its
    /// origin counts). Returns the new settings.
    pub async fn allow_frame_origin(&self, origin: &str) -> Result<Settings> {
        let origin = parse_origin(origin)?;
        self.app
            .update_frame_origins(|list| {
                if !list.contains(&origin) {
                    list.push(origin.clone());
                }
            })
            .await
    }

    /// Takes `origin` off the list (a no-op when it is not on it).
    pub async fn forbid_frame_origin(&self, origin: &str) -> Result<Settings> {
        let origin = parse_origin(origin)?;
        self.app
            .update_frame_origins(|list| list.retain(|o| *o != origin))
            .await
    }
}

/// The stored JSON list of frame origins.
fn decode_origins(text: &str) -> Result<Vec<String>> {
    serde_json::from_str(text).map_err(|e| Error::InvalidData {
        what: "the saved list of pages tools may show",
        reason: e.to_string(),
    })
}

fn invalid(value: &str, reason: impl Into<String>) -> Error {
    Error::InvalidSetting {
        key: FRAME_ORIGINS_LABEL,
        value: value.to_owned(),
        reason: reason.into(),
    }
}

/// The origin of a web address as a CSP source and as browsers print it:
/// `https://example.com`, `http://10.0.0.2:8080` (lower case, default port
/// dropped). A bare host means `https://`. Paths other than `/`, queries,
/// user names, wildcards and non-ASCII hosts (use the punycode form) are
/// refused, because each would widen or blur what the person allowed.
pub fn parse_origin(raw: &str) -> Result<String> {
    let text = raw.trim();
    if text.is_empty() {
        return Err(invalid(raw, "an origin such as https://example.com is needed"));
    }
    let (scheme, rest) = match text.split_once("://") {
        Some((s, r)) => (s.to_ascii_lowercase(), r),
        None => {
            // `javascript:…`, `data:…`: a scheme without `//`, not a host:port.
            if let Some((s, after)) = text.split_once(':')
                && s.bytes().all(|b| b.is_ascii_alphabetic())
                && !after.bytes().all(|b| b.is_ascii_digit())
            {
                return Err(invalid(
                    raw,
                    format!(
                        "only http and https pages can be framed, not {}:",
                        s.to_ascii_lowercase()
                    ),
                ));
            }
            ("https".to_owned(), text)
        }
    };
    if scheme != "http" && scheme != "https" {
        return Err(invalid(
            raw,
            format!("only http and https pages can be framed, not {scheme}:"),
        ));
    }
    let (authority, tail) = match rest.find(['/', '?', '#']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if !tail.is_empty() && tail != "/" {
        return Err(invalid(
            raw,
            "give only the origin (scheme, host and port), without a path, query or fragment",
        ));
    }
    if authority.contains('@') {
        return Err(invalid(raw, "user names and passwords are not part of an origin"));
    }
    let (host, port) =
        split_host_port(authority).ok_or_else(|| invalid(raw, "the port is not a number from 1 to 65535"))?;
    let host = host.to_ascii_lowercase();
    check_host(&host).map_err(|reason| invalid(raw, reason))?;
    let default_port = if scheme == "https" { 443 } else { 80 };
    Ok(match port {
        Some(p) if p != default_port => format!("{scheme}://{host}:{p}"),
        _ => format!("{scheme}://{host}"),
    })
}

fn split_host_port(authority: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']')? + 1;
        let (h, p) = authority.split_at(end);
        (h, p.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let port = match port {
        None => None,
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 && p.bytes().all(|b| b.is_ascii_digit()) => Some(n),
            _ => return None,
        },
    };
    Some((host, port))
}

fn check_host(host: &str) -> std::result::Result<(), &'static str> {
    if host.is_empty() {
        return Err("the host is missing");
    }
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return if !inner.is_empty() && inner.parse::<std::net::Ipv6Addr>().is_ok() {
            Ok(())
        } else {
            Err("the bracketed host is not an IPv6 address")
        };
    }
    if host.contains('*') {
        return Err("wildcards are not allowed: name each host");
    }
    if !host.is_ascii() {
        return Err("write international host names in their punycode form (xn--…)");
    }
    let labels_ok = host.split('.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    });
    if !labels_ok || host.len() > 253 {
        return Err("the host is not a valid host name or address");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{FrameAccess, FrameCheck, Settings, frame_access, parse_origin};

    #[test]
    fn a_page_is_framed_by_its_origin_and_loopback_pages_always() {
        let saved = Settings {
            frame_origins: vec!["https://docs.example.com".into(), "https://new.example.com".into()],
        };
        let in_effect = vec!["https://docs.example.com".to_owned()];
        let check = |url| frame_access(url, &saved, &in_effect);
        for url in [
            "http://localhost:5173/app",
            "http://127.0.0.1:8000",
            "http://[::1]:3000/x?y",
            "https://LOCALHOST/",
        ] {
            assert_eq!(check(url).access, FrameAccess::Loopback, "{url}");
        }
        let docs = check("https://Docs.Example.com:443/guide#intro");
        assert_eq!(
            (docs.access, docs.origin.as_deref()),
            (FrameAccess::Allowed, Some("https://docs.example.com"))
        );
        assert_eq!(check("https://new.example.com/a").access, FrameAccess::NeedsRestart);
        assert_eq!(check("https://other.example.com").access, FrameAccess::NotAllowed);
        // Look-alikes of loopback are not loopback.
        assert_eq!(check("http://localhost.evil.com/").access, FrameAccess::NotAllowed);
        assert_eq!(check("http://user@localhost/").access, FrameAccess::Invalid);
        for bad in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "not a url",
            "https://",
            "data:text/html,x",
        ] {
            assert_eq!(
                check(bad),
                FrameCheck {
                    access: FrameAccess::Invalid,
                    origin: None
                },
                "{bad}"
            );
        }
    }

    #[test]
    fn origins_are_normalized_as_browsers_print_them() {
        for (raw, want) in [
            ("https://Example.COM", "https://example.com"),
            ("example.com", "https://example.com"),
            ("https://example.com/", "https://example.com"),
            ("https://example.com:443", "https://example.com"),
            ("http://example.com:80", "http://example.com"),
            ("HTTP://10.0.0.2:8080", "http://10.0.0.2:8080"),
            ("https://[2001:db8::1]:8443", "https://[2001:db8::1]:8443"),
            ("  https://xn--bcher-kva.example  ", "https://xn--bcher-kva.example"),
        ] {
            assert_eq!(parse_origin(raw).expect("a valid origin"), want, "{raw}");
        }
    }

    #[test]
    fn anything_wider_or_vaguer_than_one_origin_is_refused_with_the_reason() {
        for (raw, reason) in [
            ("", "is needed"),
            ("ftp://example.com", "not ftp:"),
            ("javascript:alert(1)", "not javascript:"),
            ("https://example.com/app", "without a path"),
            ("https://example.com?x=1", "without a path"),
            ("https://user:pw@example.com", "user names"),
            ("https://*.example.com", "wildcards"),
            ("https://bücher.example", "punycode"),
            ("https://example.com:0", "port"),
            ("https://example.com:99999", "port"),
            ("https://example.com:8a", "port"),
            ("https://[nothex]", "IPv6"),
            ("https://-bad-.com", "not a valid host"),
            ("https://", "host is missing"),
        ] {
            let e = parse_origin(raw).expect_err("refused").to_string();
            assert!(e.contains(reason), "{raw:?}: {e}");
            assert!(
                e.contains("“Pages tools may show”"),
                "{raw:?}: the error names the setting: {e}"
            );
            assert!(
                !e.contains("frame_origins"),
                "{raw:?}: no internal key in the message: {e}"
            );
        }
    }
}
