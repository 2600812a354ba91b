//! Where a toolset's stored value came from: one its ZIP brought in plain
//! text (moved to the secret store at import) is `bundle` — in the record
//! the toolset's details receive and in `atelier secrets list` — until the
//! person replaces it (the details' Replace, `atelier secrets set`), and an
//! upgrade keeps each origin right: a value it brings again is the
//! bundle's, one it does not touch keeps its own.

use atelier_core::secrets::{Secret, SecretOrigin};
use atelier_core::toolsets::ImportOptions;

use crate::Env;
use crate::bundles::zip_of;
use crate::secrets::{on_bus, text};
use crate::toolset_secrets::{DEAD_BUS, ok};

const BROUGHT: &str = "sk-bundle-brought-7731";

/// Version `version` of toolset `origin`: `API_KEY` and `HOOK` written in
/// plain text (`hook` a value, or a reference), `TOKEN` read from `${TOKEN}`.
fn origin_zip(dir: &std::path::Path, version: &str, hook: &str) -> std::path::PathBuf {
    let m = format!(
        "manifest_version: \"1\"\nid: origin\nname: Origin\nversion: \"{version}\"\n\
         mcp_servers:\n  - id: origin-srv\n    command: /bin/true\n    env:\n      \
           API_KEY: \"{BROUGHT}\"\n      HOOK: \"{hook}\"\n      TOKEN: \"${{TOKEN}}\"\n"
    );
    zip_of(dir, &format!("origin-{version}.zip"), &[("toolset.yaml", m.as_bytes())])
}

/// Each `${NAME}` of toolset `origin` with the origin of its stored value,
/// as the toolset's details receive them.
async fn origins(app: &atelier_core::Atelier) -> Vec<(String, Option<SecretOrigin>)> {
    let refs = app.toolsets().env_references("origin").await.expect("references");
    for r in &refs {
        assert_eq!(r.stored, r.origin.is_some(), "{r:?}");
    }
    refs.into_iter().map(|r| (r.name, r.origin)).collect()
}

#[tokio::test]
async fn a_value_the_bundle_brought_says_so_until_the_person_replaces_it() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let app = env.app().await;
    // The file store (no keychain on a test machine), as the person allows it.
    app.secrets().allow_file_fallback(true).await.expect("allow the file");
    app.toolsets()
        .import(
            &origin_zip(t.path(), "1.0.0", "hook-brought-1"),
            &ImportOptions::default(),
        )
        .await
        .expect("import");
    use SecretOrigin::{Bundle, Person};
    let name = |n: &str| n.to_owned();
    assert_eq!(
        origins(&app).await,
        [
            (name("API_KEY"), Some(Bundle)),
            (name("HOOK"), Some(Bundle)),
            (name("TOKEN"), None)
        ]
    );
    let listed = ok(&on_bus(&env, DEAD_BUS, &["secrets", "list", "toolset:origin"], None));
    let line = |listed: &str, key: &str| {
        listed
            .lines()
            .find(|l| l.starts_with(&format!("toolset:origin  {key}  (")))
            .unwrap_or_else(|| panic!("{key} not listed: {listed}"))
            .to_owned()
    };
    assert!(line(&listed, "API_KEY").contains(", from the bundle, "), "{listed}");
    assert!(line(&listed, "HOOK").contains(", from the bundle, "), "{listed}");
    assert!(!listed.contains("  TOKEN  "), "nothing brought it: {listed}");
    let json = on_bus(&env, DEAD_BUS, &["--json", "secrets", "list"], None);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap_or_else(|_| panic!("{}", text(&json)));
    assert_eq!(json[0]["origin"], "bundle", "{json}");

    // Replaced in the toolset's details, and with `atelier secrets set`:
    // the person's from then on. A name nothing brought is the person's.
    let refs = app
        .toolsets()
        .set_env_secret("origin", "API_KEY", Secret::new("sk-typed-by-me"))
        .await
        .expect("replace");
    let api = refs.iter().find(|r| r.name == "API_KEY").expect("API_KEY");
    assert_eq!(api.origin, Some(Person), "{refs:?}");
    let set = on_bus(
        &env,
        DEAD_BUS,
        &["--json", "secrets", "set", "toolset:origin", "HOOK"],
        Some("hook-typed-2"),
    );
    let set: serde_json::Value = serde_json::from_str(&ok(&set)).expect("json");
    assert_eq!(set["origin"], "person", "{set}");
    app.toolsets()
        .set_env_secret("origin", "TOKEN", Secret::new("tok-typed-3"))
        .await
        .expect("set");
    assert_eq!(
        origins(&app).await,
        [
            (name("API_KEY"), Some(Person)),
            (name("HOOK"), Some(Person)),
            (name("TOKEN"), Some(Person))
        ]
    );
    let listed = ok(&on_bus(&env, DEAD_BUS, &["secrets", "list"], None));
    assert!(!listed.contains("from the bundle"), "{listed}");

    // An upgrade that brings API_KEY again makes it the bundle's; HOOK,
    // now a reference in the bundle, keeps the person's value and origin.
    app.toolsets()
        .import(&origin_zip(t.path(), "2.0.0", "${HOOK}"), &ImportOptions::default())
        .await
        .expect("upgrade");
    assert_eq!(
        origins(&app).await,
        [
            (name("API_KEY"), Some(Bundle)),
            (name("HOOK"), Some(Person)),
            (name("TOKEN"), Some(Person))
        ]
    );
    let spec = app
        .toolsets()
        .launch_spec("origin", "origin-srv")
        .await
        .expect("resolved");
    assert_eq!(
        (spec.env["API_KEY"].expose(), spec.env["HOOK"].expose()),
        (BROUGHT, "hook-typed-2")
    );
}
