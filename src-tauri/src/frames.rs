//! Which web pages frame renderers may show. Loopback pages always; other
//! origins only when the person allowed them (core [`Settings`]). The list
//! goes into the window's CSP `frame-src` when the app starts — the webview
//! itself refuses anything else, whatever the UI does — so an origin
//! allowed while running applies after a restart, and the UI says so.

use atelier_core::settings::Settings;
use serde::Serialize;
use tauri::utils::config::{Config, Csp, CspDirectiveSources};

/// The settings as saved and the frame origins this run's CSP allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct SettingsView {
    pub saved: Settings,
    /// Allowed origins in effect since start-up; saved ones missing here
    /// wait for a restart.
    pub frame_origins_in_effect: Vec<String>,
}

/// Adds `origins` to the `frame-src` of the app's CSP. Origins come from
/// the core's parser (no wildcards, paths or quotes); anything else is
/// skipped rather than widening the policy.
pub fn allow_in_csp(config: &mut Config, origins: &[String]) {
    let Some(Csp::DirectiveMap(map)) = config.app.security.csp.as_mut() else {
        tracing::warn!("the app's CSP is not a directive map; no extra frame origins applied");
        return;
    };
    let frame_src = map
        .entry("frame-src".to_owned())
        .or_insert_with(|| CspDirectiveSources::List(Vec::new()));
    for origin in origins {
        match atelier_core::settings::parse_origin(origin) {
            Ok(o) if o == *origin => {
                if !frame_src.contains(origin) {
                    frame_src.push(origin);
                }
            }
            _ => tracing::warn!(%origin, "skipping a frame origin that is not in normal form"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame_src(config: &Config) -> String {
        match &config.app.security.csp {
            Some(Csp::DirectiveMap(m)) => match m.get("frame-src") {
                Some(CspDirectiveSources::List(l)) => l.join(" "),
                Some(CspDirectiveSources::Inline(s)) => s.clone(),
                None => String::new(),
            },
            _ => String::new(),
        }
    }

    #[test]
    fn allowed_origins_join_the_frame_src_and_malformed_ones_do_not() {
        let mut config: Config = serde_json::from_str(include_str!("../tauri.conf.json")).expect("config");
        let before = frame_src(&config);
        assert!(
            before.contains("http://127.0.0.1:*") && !before.contains("example"),
            "{before}"
        );
        allow_in_csp(
            &mut config,
            &[
                "https://docs.example.com".to_owned(),
                "https://*.example.org".to_owned(),
                "https://x.example 'unsafe-inline'".to_owned(),
            ],
        );
        let after = frame_src(&config);
        assert!(after.starts_with(&before), "{after}");
        assert!(after.ends_with(" https://docs.example.com"), "{after}");
        assert!(!after.contains("example.org") && !after.contains("unsafe"), "{after}");
    }
}
