//! App settings: what a person allows stays allowed after a restart, and
//! nothing wider than one origin gets in.

use crate::Env;

#[tokio::test]
async fn allowed_frame_origins_are_normalized_kept_across_restarts_and_removable() {
    let env = Env::new();
    let app = env.app().await;
    assert!(
        app.settings().get().await.expect("settings").frame_origins.is_empty(),
        "nothing is allowed by default"
    );

    app.settings()
        .allow_frame_origin("https://Docs.Example.com/")
        .await
        .expect("settings");
    app.settings()
        .allow_frame_origin("http://10.0.0.2:8080")
        .await
        .expect("settings");
    let s = app
        .settings()
        .allow_frame_origin("docs.example.com")
        .await
        .expect("settings");
    assert_eq!(
        s.frame_origins,
        ["http://10.0.0.2:8080", "https://docs.example.com"],
        "deduplicated, sorted"
    );
    drop(app);

    let app = env.app().await;
    assert_eq!(
        app.settings().get().await.expect("settings").frame_origins,
        ["http://10.0.0.2:8080", "https://docs.example.com"]
    );
    let s = app
        .settings()
        .forbid_frame_origin("https://docs.example.com:443")
        .await
        .expect("settings");
    assert_eq!(s.frame_origins, ["http://10.0.0.2:8080"]);
    let s = app
        .settings()
        .forbid_frame_origin("https://never-allowed.example")
        .await
        .expect("settings");
    assert_eq!(
        s.frame_origins,
        ["http://10.0.0.2:8080"],
        "removing an unknown origin changes nothing"
    );
}

#[tokio::test]
async fn a_refused_origin_names_the_setting_and_changes_nothing() {
    let env = Env::new();
    let app = env.app().await;
    app.settings()
        .allow_frame_origin("https://ok.example")
        .await
        .expect("settings");
    let e = app
        .settings()
        .allow_frame_origin("https://*.example.com")
        .await
        .expect_err("refused");
    assert_eq!(e.kind(), "invalid_setting");
    assert!(
        e.to_string().contains("Pages tools may show") && e.to_string().contains("wildcards"),
        "{e}"
    );
    assert_eq!(
        app.settings().get().await.expect("settings").frame_origins,
        ["https://ok.example"]
    );
}

#[test]
fn the_cli_shares_the_settings_with_the_app() {
    let env = Env::new();
    let out = env.ok(&["settings", "allow-frame-origin", "HTTPS://Example.org:443/"]);
    assert!(out.contains("https://example.org"), "{out}");
    let shown = env.json(&["settings", "show"]);
    assert_eq!(shown["frame_origins"], serde_json::json!(["https://example.org"]));
    let bad = env.cli(&["settings", "allow-frame-origin", "ftp://example.org"]);
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("Pages tools may show") && err.contains("not ftp:"),
        "{err}"
    );
    env.ok(&["settings", "forbid-frame-origin", "example.org"]);
    assert!(env.ok(&["settings", "show"]).contains("this computer only"));
}
