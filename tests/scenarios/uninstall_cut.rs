//! An uninstall a crash cut short is all or nothing: killed before its
//! commit, the toolset is whole on the next start (its folder, its
//! secrets' names and values, its servers' sign-ins); killed right after
//! it, the next start removes what the uninstall had left to remove (the
//! values, the sign-ins of the servers that went, the folder). A lock file
//! a crash left with nothing beside it (an uninstall's, an export's or
//! upload's, a fork's) goes at start; one a live process holds stays.

use std::path::Path;

use crate::Env;

/// Toolset `gone`: a server whose plain-text token goes to the secrets
/// file at import, and an HTTP server a person signs in to.
fn import_gone(env: &Env, dir: &Path) {
    let m = "manifest_version: \"1\"\nid: gone\nname: Gone\nversion: \"1.0.0\"\n\
             tools:\n  - id: hello\n    entrypoint: tools.hello:run\n    \
               input_schema: {type: object, properties: {}}\n\
             mcp_servers:\n  - id: gone-srv\n    command: /bin/true\n    env:\n      TOKEN: \"tok-GONE-4242\"\n  \
             - id: gone-web\n    url: \"http://127.0.0.1:9/mcp\"\n";
    let zip = crate::bundles::zip_of(
        dir,
        "gone.zip",
        &[
            ("toolset.yaml", m.as_bytes()),
            ("tools/hello.py", b"def run(workspace):\n    return {}\n"),
        ],
    );
    let out = cli(
        env,
        &[
            "toolset",
            "import",
            zip.to_str().expect("utf-8"),
            "--allow-file-secrets",
        ],
        None,
    );
    assert!(out.status.success(), "{}", crate::secrets::text(&out));
}

/// `atelier …` with no keychain (secrets in the file), killed at `failpoint`.
fn cli(env: &Env, args: &[&str], failpoint: Option<&str>) -> std::process::Output {
    let vars: Vec<(&str, &str)> = failpoint.map(|f| ("ATELIER_FAILPOINT", f)).into_iter().collect();
    crate::secrets::on_bus_with(env, crate::toolset_secrets::DEAD_BUS, args, Some(""), &vars)
}

/// What a sign-in to `gone-web` leaves: its token in the secrets file and
/// its name in the database.
async fn sign_in(env: &Env) {
    let file = env.data().join("secrets.json");
    let mut data: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("secrets file")).expect("secrets file JSON");
    data["mcp:gone-web"] = serde_json::json!({"oauth.sign-in": "tok-SIGNIN-77"});
    std::fs::write(&file, data.to_string()).expect("write the secrets file");
    let app = env.app().await;
    sqlx::query(
        "INSERT INTO secret_names (owner, key, store, updated_at) VALUES ('mcp:gone-web', 'oauth.sign-in', 'file', ?)",
    )
    .bind(atelier_core::ids::now())
    .execute(app.db())
    .await
    .expect("the sign-in's name");
}

fn secrets_file(env: &Env) -> String {
    std::fs::read_to_string(env.data().join("secrets.json")).unwrap_or_default()
}

/// The names in `toolsets/`.
fn toolsets_dir(env: &Env) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(env.data().join("toolsets"))
        .expect("toolsets")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn an_uninstall_killed_before_its_commit_loses_nothing_and_one_killed_after_it_is_finished() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    import_gone(&env, t.path());
    sign_in(&env).await;
    let names = |app: atelier_core::Atelier| async move {
        let list = app.secrets().list(None).await.expect("names");
        let mut names: Vec<String> = list.into_iter().map(|n| format!("{} {}", n.owner, n.key)).collect();
        names.sort();
        names
    };

    let out = cli(
        &env,
        &["toolset", "uninstall", "gone"],
        Some("uninstall-before-commit:abort"),
    );
    assert!(!out.status.success(), "killed: {}", crate::secrets::text(&out));
    let app = env.app().await;
    app.toolsets().get("gone").await.expect("still installed");
    assert!(
        env.data().join("toolsets/gone/toolset.yaml").is_file(),
        "its folder is back"
    );
    let file = secrets_file(&env);
    assert!(
        file.contains("tok-GONE-4242") && file.contains("tok-SIGNIN-77"),
        "no value is lost to an uninstall that did not happen"
    );
    assert_eq!(
        names(app.clone()).await,
        ["mcp:gone-web oauth.sign-in", "toolset:gone TOKEN"]
    );
    assert_eq!(toolsets_dir(&env), ["gone"], "nothing of the uninstall is left");
    drop(app);

    let out = cli(
        &env,
        &["toolset", "uninstall", "gone"],
        Some("uninstall-after-commit:abort"),
    );
    assert!(!out.status.success(), "killed: {}", crate::secrets::text(&out));
    assert!(secrets_file(&env).contains("tok-GONE-4242"), "the crash came first");
    let app = env.app().await;
    assert!(app.toolsets().get("gone").await.is_err(), "uninstalled");
    let file = secrets_file(&env);
    assert!(
        !file.contains("tok-GONE-4242") && !file.contains("tok-SIGNIN-77"),
        "the start finished it: {file}"
    );
    assert_eq!(names(app.clone()).await, Vec::<String>::new());
    assert_eq!(toolsets_dir(&env), Vec::<String>::new());
}

#[tokio::test]
async fn a_lock_file_a_crash_left_alone_goes_at_start_and_a_held_one_stays() {
    let env = Env::new();
    drop(env.app().await);
    let toolsets = env.data().join("toolsets");
    std::fs::create_dir_all(&toolsets).expect("toolsets");
    // An uninstall killed between its lock and its journal; one running.
    let dead = toolsets.join(".trash-gone-01a22360-0000-7000-8000-000000000000.lock");
    std::fs::write(&dead, "").expect("a dead uninstall's lock file");
    let live = toolsets.join(".trash-here-01a22360-0000-7000-8000-000000000001.lock");
    let held = atelier_core::lock::FileLock::acquire(&live).expect("a live uninstall's lock");
    // An export and an upload killed between their lock and their folder.
    let chat = env.app().await.chats().create(Some("c")).await.expect("chat").id;
    let chat_dir = env.data().join("chats").join(&chat);
    std::fs::write(chat_dir.join("export-01a0dead.lock"), "").expect("export lock");
    let staging = chat_dir.join("upload-01a0live.lock");
    let uploading = atelier_core::lock::FileLock::acquire(&staging).expect("a live upload's lock");
    // A fork killed between its lock and its folder.
    let fork = env.data().join("chats/.fork-01a0dead.lock");
    std::fs::write(&fork, "").expect("a dead fork's lock file");

    drop(env.app().await);
    assert!(!dead.exists(), "a dead uninstall's lock file goes");
    assert!(live.exists(), "a live uninstall's stays");
    assert!(!chat_dir.join("export-01a0dead.lock").exists(), "a dead export's goes");
    assert!(staging.exists(), "a live upload's stays");
    assert!(!fork.exists(), "a dead fork's goes");
    drop((held, uploading));
}

/// A journal past its commit (no row) that this version cannot read — a
/// later version's — stays with its lock file: the secret values it names
/// would otherwise be left in the store for good. One beside a row (an
/// uninstall that never committed: nothing to do) goes.
#[tokio::test]
async fn an_unreadable_journal_of_a_committed_uninstall_stays_for_a_version_that_can_read_it() {
    let env = Env::new();
    drop(env.app().await);
    let toolsets = env.data().join("toolsets");
    std::fs::create_dir_all(&toolsets).expect("toolsets");
    let stem = toolsets.join(".trash-gone-01a22360-0000-7000-8000-000000000002");
    let journal = stem.with_extension("json");
    std::fs::write(&journal, r#"{"format": 9, "values": ["toolset:gone/TOKEN"]}"#).expect("journal");
    std::fs::write(stem.with_extension("lock"), "").expect("its lock file");
    drop(env.app().await);
    drop(env.app().await);
    assert!(journal.exists(), "kept at every start");

    // The same beside an installed toolset's row: an uninstall that never
    // committed, and nothing is left to do.
    let src = tempfile::tempdir().expect("src");
    let dir = crate::authoring::scaffold_with(src.path(), "here", |y| y);
    env.ok(&["toolset", "import", dir.to_str().expect("utf-8")]);
    let here = toolsets.join(".trash-here-01a22360-0000-7000-8000-000000000003.json");
    std::fs::write(&here, "{\"secrets\": [[").expect("a journal cut short");
    drop(env.app().await);
    assert!(!here.exists(), "gone: its uninstall never happened");
    assert!(journal.exists());
}
