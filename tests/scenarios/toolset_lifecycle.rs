//! Installed toolsets over time: upgrades and rollback, concurrent imports,
//! shared MCP servers, export round trips, local folders and hot reload,
//! busy toolsets, and the author's walkthrough.

use std::path::Path;

use atelier_core::toolsets::ImportOptions;

use crate::Env;
use crate::bundles::{SERVER, toolset_zip};

#[tokio::test]
async fn upgrades_keep_state_and_a_failed_upgrade_leaves_the_old_version() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let app = env.app().await;
    let v1 = toolset_zip(t.path(), "v1.zip", "up", "1.0.0", "");
    app.toolsets().import(&v1, &ImportOptions::default()).await.expect("v1");
    app.toolsets().set_enabled("up", false).await.expect("disable");
    let again = app
        .toolsets()
        .import(&v1, &ImportOptions::default())
        .await
        .expect_err("same version");
    assert_eq!(again.kind(), "already_installed");
    assert!(again.to_string().contains("--force"));

    let v2 = toolset_zip(t.path(), "v2.zip", "up", "2.0.0", "");
    let r = app.toolsets().import(&v2, &ImportOptions::default()).await.expect("v2");
    assert_eq!(
        (r.action.as_str(), r.previous_version.as_deref()),
        ("upgraded", Some("1.0.0"))
    );
    assert!(!r.toolset.enabled, "an upgrade keeps the enabled state");
    let code = std::fs::read_to_string(env.data().join("toolsets/up/tools/hello.py")).expect("read");
    assert!(code.contains("2.0.0"));

    // v3 breaks at the last moment (after the folder swap, before commit).
    let v3 = toolset_zip(t.path(), "v3.zip", "up", "3.0.0", "");
    app.close().await;
    let out = env.cli_env(
        &["toolset", "import", v3.to_str().expect("utf-8")],
        &[("ATELIER_FAILPOINT", "import-before-commit")],
    );
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let app = env.app().await;
    assert_eq!(
        app.toolsets().get("up").await.expect("still there").toolset.version,
        "2.0.0"
    );
    let code = std::fs::read_to_string(env.data().join("toolsets/up/tools/hello.py")).expect("read");
    assert!(code.contains("2.0.0"), "the old files are back: {code}");
    let dirs: Vec<String> = std::fs::read_dir(env.data().join("toolsets"))
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(dirs, ["up"], "no staging or old folders left");

    // v4 crashes there (the process dies after the swap, before the
    // commit): the next start puts the 2.0.0 folder back and cleans up.
    app.close().await;
    let v4 = toolset_zip(t.path(), "v4.zip", "up", "4.0.0", "");
    let out = env.cli_env(
        &["toolset", "import", v4.to_str().expect("utf-8")],
        &[("ATELIER_FAILPOINT", "import-before-commit:abort")],
    );
    assert!(!out.status.success(), "the failpoint should have killed the process");
    let left: Vec<String> = std::fs::read_dir(env.data().join("toolsets"))
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        left.iter().any(|n| n.starts_with(".old-")),
        "the crash left the swap half-done: {left:?}"
    );
    let app = env.app().await;
    assert_eq!(app.toolsets().get("up").await.expect("there").toolset.version, "2.0.0");
    let code = std::fs::read_to_string(env.data().join("toolsets/up/tools/hello.py")).expect("read");
    assert!(
        code.contains("2.0.0"),
        "the installed code agrees with the database: {code}"
    );
    let dirs: Vec<String> = std::fs::read_dir(env.data().join("toolsets"))
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        dirs,
        ["up"],
        "recovery removed the old folder, the journal and the lock"
    );
}

#[tokio::test]
async fn an_import_killed_while_unpacking_leaves_nothing_after_the_next_start() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    env.app().await.close().await;
    // A big bundle, so the kill lands while it is unpacked.
    let big: Vec<u8> = (0..64u32 << 20).map(|i| (i % 251) as u8).collect();
    let zip = crate::bundles::zip_of(
        t.path(),
        "big.zip",
        &[
            ("toolset.yaml", crate::bundles::manifest("big", "1.0.0", "").as_bytes()),
            ("tools/hello.py", b"def run(workspace):\n    return {}\n"),
            ("assets/blob.bin", &big),
        ],
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_atelier"))
        .arg("--data-dir")
        .arg(env.data())
        .args(["toolset", "import", zip.to_str().expect("utf-8")])
        .env_remove("ATELIER_DATA_DIR")
        .spawn()
        .expect("spawn");
    let staging = |data: &std::path::Path| {
        std::fs::read_dir(data.join("toolsets"))
            .map(|d| {
                d.flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with(".staging-"))
            })
            .unwrap_or(false)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !staging(env.data()) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().expect("kill");
    child.wait().expect("reap");
    let app = env.app().await;
    let left: Vec<String> = std::fs::read_dir(env.data().join("toolsets"))
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    // Killed before its commit, or just after: the folder agrees with the rows.
    let installed = app.toolsets().list().await.expect("list").iter().any(|t| t.id == "big");
    assert_eq!(env.data().join("toolsets/big").exists(), installed);
}

#[tokio::test]
async fn concurrent_imports_of_one_bundle_install_it_once() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let zip = toolset_zip(t.path(), "c.zip", "conc", "1.0.0", "");
    env.app().await.close().await; // migrate first, so both race on the import itself
    let spawn = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_atelier"))
            .arg("--data-dir")
            .arg(env.data())
            .args(["toolset", "import"])
            .arg(&zip)
            .output()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(spawn);
        let b = s.spawn(spawn);
        (a.join().expect("a").expect("run"), b.join().expect("b").expect("run"))
    });
    let codes = [a.status.code(), b.status.code()];
    assert!(
        codes.contains(&Some(0)) && codes.contains(&Some(1)),
        "one wins, one fails: {codes:?}"
    );
    let loser = if a.status.success() { &b } else { &a };
    assert!(
        String::from_utf8_lossy(&loser.stderr).contains("already installed"),
        "{}",
        String::from_utf8_lossy(&loser.stderr)
    );
    let app = env.app().await;
    assert_eq!(app.toolsets().list().await.expect("list").len(), 1);
    let tools = app.toolsets().tools().await.expect("tools");
    assert_eq!(
        tools.iter().filter(|t| t.toolset_id.as_deref() == Some("conc")).count(),
        1
    );
}

#[tokio::test]
async fn shared_mcp_servers_outlive_one_of_their_toolsets() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let app = env.app().await;
    for id in ["one", "two"] {
        let zip = toolset_zip(t.path(), &format!("{id}.zip"), id, "1.0.0", SERVER);
        app.toolsets()
            .import(&zip, &ImportOptions::default())
            .await
            .expect("import");
    }
    let servers = || async {
        sqlx::query_scalar::<_, String>("SELECT id FROM mcp_servers ORDER BY id")
            .fetch_all(app.db())
            .await
            .expect("q")
    };
    assert_eq!(servers().await, ["shared"]);
    let other = SERVER.replace("srv", "other-srv");
    let clash = toolset_zip(t.path(), "three.zip", "three", "1.0.0", &other);
    let err = app
        .toolsets()
        .import(&clash, &ImportOptions::default())
        .await
        .expect_err("conflict");
    assert!(err.to_string().contains("declared differently by toolset"), "{err}");
    let named_like_server = toolset_zip(t.path(), "shared.zip", "shared", "1.0.0", "");
    let err = app
        .toolsets()
        .import(&named_like_server, &ImportOptions::default())
        .await
        .expect_err("namespace");
    assert!(err.to_string().contains("share one namespace"), "{err}");

    app.toolsets().uninstall("one").await.expect("uninstall one");
    assert_eq!(servers().await, ["shared"], "two still declares it");
    app.toolsets().uninstall("two").await.expect("uninstall two");
    assert!(servers().await.is_empty());
    assert!(!env.data().join("toolsets/two").exists());
}

#[tokio::test]
async fn exports_are_deterministic_round_trip_and_strip_secrets() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let app = env.app().await;
    let zip = toolset_zip(
        t.path(),
        "s.zip",
        "sec",
        "1.0.0",
        &format!("x-future: {{keep: me}}\n{SERVER}"),
    );
    app.toolsets()
        .import(&zip, &ImportOptions::default())
        .await
        .expect("import");
    let e1 = t.path().join("e1.zip");
    let e2 = t.path().join("e2.zip");
    app.toolsets().export("sec", &e1).await.expect("export");
    std::thread::sleep(std::time::Duration::from_millis(1100)); // a different second
    app.toolsets().export("sec", &e2).await.expect("export");
    assert_eq!(
        std::fs::read(&e1).expect("e1"),
        std::fs::read(&e2).expect("e2"),
        "byte-identical exports"
    );

    let yaml = crate::bundles::entry_text(&e1, "toolset.yaml");
    // (Plain-text values never get this far: toolset_secrets.)
    // The author's bytes, as nothing in them differs from what is installed.
    assert!(
        yaml.contains("API_KEY: \"${API_KEY}\"") && yaml.contains("HOME_DIR: \"${HOME}\""),
        "{yaml}"
    );
    assert!(yaml.contains("x-future:"), "unknown keys are kept: {yaml}");

    let before = app.toolsets().get("sec").await.expect("show");
    app.toolsets().uninstall("sec").await.expect("uninstall");
    app.toolsets()
        .import(&e1, &ImportOptions::default())
        .await
        .expect("reimport");
    let e3 = t.path().join("e3.zip");
    app.toolsets().export("sec", &e3).await.expect("export");
    assert_eq!(
        std::fs::read(&e1).expect("e1"),
        std::fs::read(&e3).expect("e3"),
        "export → import → export"
    );
    let after = app.toolsets().get("sec").await.expect("show");
    assert_eq!(before.tools, after.tools);
    assert_eq!(before.mcp_servers.len(), after.mcp_servers.len());
    // Every other file is the same.
    let others = |d: &atelier_core::toolsets::records::ToolsetDetails| {
        d.files
            .iter()
            .filter(|f| f.path != "toolset.yaml")
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(others(&before), others(&after));
}

#[tokio::test]
async fn local_folders_run_from_a_copy_without_their_manifest_and_survive_uninstall() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = src.path().join("mine");
    let out = env.cli(&["toolset", "init", dir.to_str().expect("utf-8")]);
    assert!(out.status.success());
    let app = env.app().await;
    let r = app
        .toolsets()
        .import(&dir, &ImportOptions::default())
        .await
        .expect("import");
    assert_eq!(r.toolset.source_type.as_str(), "local");
    assert_eq!(
        r.toolset.source_ref.as_deref().map(Path::new),
        Some(std::fs::canonicalize(&dir).expect("canon").as_path()),
        "the author's folder is what is watched"
    );
    // The code runs from a copy of this version; the manifest, which may
    // hold the author's plain-text values, is not copied.
    let copy = env.data().join("toolsets/mine");
    assert!(copy.join("tools/words.py").is_file(), "the code is copied");
    assert!(!copy.join("toolset.yaml").exists(), "the manifest is not");
    let d = app.toolsets().get("mine").await.expect("show");
    let yaml = d.files.iter().find(|f| f.path == "toolset.yaml").expect("manifest row");
    assert!(Path::new(&yaml.stored_path).starts_with(std::fs::canonicalize(&dir).expect("canon")));
    app.toolsets().uninstall("mine").await.expect("uninstall");
    assert!(!copy.exists(), "the copy goes");
    assert!(
        dir.join("toolset.yaml").is_file() && dir.join("tools/words.py").is_file(),
        "the author's folder is never deleted"
    );
}

#[tokio::test]
async fn a_running_call_blocks_disable_upgrade_and_uninstall() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let app = env.app().await;
    app.toolsets()
        .import(
            &toolset_zip(t.path(), "b.zip", "busy", "1.0.0", ""),
            &ImportOptions::default(),
        )
        .await
        .expect("import");
    let chat = app.chats().create(None).await.expect("chat");
    sqlx::query("INSERT INTO tool_calls (id, chat_id, tool_id, status, started_at) VALUES ('c1', ?, 'busy:hello', 'running', 'x')")
        .bind(&chat.id)
        .execute(app.db())
        .await
        .expect("call");
    let v2 = toolset_zip(t.path(), "b2.zip", "busy", "2.0.0", "");
    for err in [
        app.toolsets().set_enabled("busy", false).await.expect_err("disable"),
        app.toolsets().uninstall("busy").await.expect_err("uninstall"),
        app.toolsets()
            .import(&v2, &ImportOptions::default())
            .await
            .expect_err("upgrade"),
    ] {
        assert_eq!(err.kind(), "toolset_busy");
        assert!(err.to_string().contains(&chat.id), "{err}");
    }
}

#[test]
fn the_author_walkthrough_init_validate_pack_import_list_export() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let dir = t.path().join("word-tools");
    let s = |p: &Path| p.to_str().expect("utf-8").to_owned();
    env.ok(&["toolset", "init", &s(&dir)]);
    let v = env.ok(&["toolset", "validate", &s(&dir)]);
    assert!(
        v.contains("No problems found.") && v.contains("word-tools:word_count"),
        "{v}"
    );
    let zip = t.path().join("w.zip");
    env.ok(&["toolset", "pack", &s(&dir), "-o", &s(&zip)]);
    let imported = env.json(&["toolset", "import", &s(&zip)]);
    assert_eq!(imported["action"], "installed");
    assert_eq!(
        imported["will_run"]["python_entrypoints"][0]["entrypoint"],
        "tools.words:word_count"
    );
    let tools = env.json(&["tool", "list"]);
    let word = |list: &serde_json::Value| {
        list.as_array()
            .expect("list")
            .iter()
            .find(|t| t["tool_id"] == "word-tools:word_count")
            .cloned()
    };
    let w = word(&tools).expect("listed");
    assert_eq!(w["render_config"]["renderer"], "html");
    assert!(
        w["input_schema"]["properties"]["text"].is_object(),
        "it counts a text too"
    );
    let shown = env.json(&["tool", "show", "word-tools:word_count"]);
    assert_eq!(shown["requires_confirmation"], false);
    env.ok(&["toolset", "export", "word-tools", "-o", &s(&t.path().join("out.zip"))]);
    env.ok(&["toolset", "disable", "word-tools"]);
    assert!(
        word(&env.json(&["tool", "list"])).is_none(),
        "a disabled toolset's tools leave the list"
    );
    env.ok(&["toolset", "enable", "word-tools"]);
    assert!(word(&env.json(&["tool", "list"])).is_some());

    // A broken edit: the author reads what to fix.
    let yaml = std::fs::read_to_string(dir.join("toolset.yaml")).expect("read");
    std::fs::write(
        dir.join("toolset.yaml"),
        yaml.replace("tools.words:word_count", "tools.words.word_count"),
    )
    .expect("write");
    let out = env.cli(&["toolset", "validate", &s(&dir)]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("toolset.yaml:11:17 tools[0].entrypoint: expected \"module.path:function\""),
        "{text}"
    );
}

#[test]
fn the_examples_install_from_the_binary() {
    let env = Env::new();
    let r = env.json(&["toolset", "install-examples"]);
    assert_eq!(r.as_array().map(Vec::len), Some(2));
    let tools = env.json(&["tool", "list"]);
    let ids: Vec<&str> = tools
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|t| t["tool_id"].as_str())
        .filter(|id| id.contains(':'))
        .collect();
    assert_eq!(
        ids,
        [
            "app-builder:read_file",
            "app-builder:run_command",
            "app-builder:write_file",
            "csv-report:analyze_csv",
            "csv-report:chart_column",
            "csv-report:make_sample"
        ]
    );
    let run = tools
        .as_array()
        .expect("list")
        .iter()
        .find(|t| t["tool_id"] == "app-builder:run_command")
        .expect("run");
    assert_eq!(run["requires_confirmation"], true);
    assert_eq!(
        env.json(&["toolset", "install-examples"]),
        serde_json::json!([]),
        "idempotent"
    );

    // Old HTML renders keep working after an uninstall: artifacts stay by hash.
    let shown = env.json(&["toolset", "show", "csv-report"]);
    let html = shown["files"]
        .as_array()
        .expect("files")
        .iter()
        .find(|f| f["path"] == "artifacts/report.html")
        .expect("artifact");
    assert_eq!(html["kind"], "artifact");
    let sha = html["sha256"].as_str().expect("sha").to_owned();
    env.ok(&["toolset", "uninstall", "csv-report"]);
    let kept = env.data().join("artifacts").join(&sha[..2]).join(&sha);
    assert!(kept.is_file(), "{} should outlive the toolset", kept.display());
}

#[tokio::test]
async fn only_a_fresh_data_dir_is_seeded_with_the_examples() {
    let env = Env::new();
    let app = env.app().await;
    let seeded = app.agents().seed_if_fresh().await.expect("seed");
    assert!(!seeded.is_empty(), "a fresh data dir gets the examples");
    let installed = app.toolsets().list().await.expect("list").len();
    assert_eq!(installed, seeded.len());

    // Someone uninstalls every example and chats: the next start keeps it so.
    for t in app.toolsets().list().await.expect("list") {
        app.toolsets().uninstall(&t.id).await.expect("uninstall");
    }
    app.chats().create(None).await.expect("chat");
    assert!(app.agents().seed_if_fresh().await.expect("seed again").is_empty());
    assert!(app.toolsets().list().await.expect("list").is_empty());
}
