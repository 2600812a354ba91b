//! Settings: what a person allows stays allowed after a restart, and
//! nothing wider than one origin gets in; a toolset's settings carried
//! across an upgrade, and the new required ones asked for.

use crate::Env;
use crate::bundles::zip_of;

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

#[test]
fn upgrades_keep_settings_and_ask_for_new_required_ones() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let v1 = "manifest_version: \"1\"\nid: gamma\nname: Gamma\nversion: \"1.0.0\"\n\
              user_config:\n  region: {type: string, title: Region, default: eu}\n  \
              limit: {type: number, title: Limit}\n";
    let zip1 = zip_of(t.path(), "g1.zip", &[("toolset.yaml", v1.as_bytes())]);
    env.ok(&[
        "toolset",
        "import",
        zip1.to_str().expect("p"),
        "--config",
        "region=us",
        "--config",
        "limit=4",
    ]);
    let v2 = "manifest_version: \"1\"\nid: gamma\nname: Gamma\nversion: \"2.0.0\"\n\
              user_config:\n  region: {type: string, title: Region, default: eu}\n  \
              root: {type: directory, title: Project folder, required: true}\n";
    let zip2 = zip_of(t.path(), "g2.zip", &[("toolset.yaml", v2.as_bytes())]);
    let asked = env.cli(&["toolset", "import", zip2.to_str().expect("p")]);
    assert_eq!(asked.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&asked.stderr).contains("toolset \"gamma\" needs \"root\""),
        "{}",
        String::from_utf8_lossy(&asked.stderr)
    );
    let missing = env.cli(&[
        "toolset",
        "import",
        zip2.to_str().expect("p"),
        "--config",
        "root=/no/such/dir",
    ]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("\"/no/such/dir\" is not an existing directory"));
    let root = t.path().display().to_string();
    env.ok(&[
        "toolset",
        "import",
        zip2.to_str().expect("p"),
        "--config",
        &format!("root={root}"),
    ]);
    let c = env.json(&["toolset", "config", "gamma"]);
    let value = |k: &str| {
        c["fields"]
            .as_array()
            .and_then(|f| f.iter().find(|x| x["key"] == k))
            .map(|x| x["value"].clone())
    };
    assert_eq!(value("region"), Some(serde_json::json!("us")), "kept: {c}");
    assert_eq!(value("root"), Some(serde_json::json!(root)));
    assert_eq!(value("limit"), None, "a key the new version dropped is gone: {c}");
    // A required setting with no default cannot be unset.
    let unset = env.cli(&["toolset", "config", "gamma", "root", "--unset"]);
    assert!(String::from_utf8_lossy(&unset.stderr).contains("is required"));
}
