//! Toolset bundles from real ZIPs built here: every rejection rule, the
//! import/upgrade/rollback cycle, shared MCP servers, export round trips.

use std::io::Write;
use std::path::{Path, PathBuf};

use atelier_core::Error;
use atelier_core::toolsets::ImportOptions;
use zip::write::SimpleFileOptions;

use crate::Env;

fn manifest(id: &str, version: &str, extra: &str) -> String {
    format!(
        "manifest_version: \"1\"\nid: {id}\nname: Test {id}\nversion: \"{version}\"\ntools:\n  - id: hello\n    \
         entrypoint: tools.hello:run\n    input_schema: {{type: object, properties: {{name: {{type: string}}}}}}\n    \
         renderer: {{type: code, content: \"$return.text\"}}\n{extra}"
    )
}

const SERVER: &str = "mcp_servers:\n  - id: shared\n    command: npx\n    args: [\"-y\", \"srv\"]\n    env:\n      API_KEY: \"sk-live-secret\"\n      HOME_DIR: \"${HOME}\"\n";

/// Writes a ZIP with `entries` (name, bytes); returns its path.
fn zip_of(dir: &Path, name: &str, entries: &[(&str, &[u8])]) -> PathBuf {
    let path = dir.join(name);
    let mut z = zip::ZipWriter::new(std::fs::File::create(&path).expect("create"));
    let opts = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (n, b) in entries {
        z.start_file(*n, opts).expect("entry");
        z.write_all(b).expect("write");
    }
    z.finish().expect("finish");
    path
}

fn toolset_zip(dir: &Path, name: &str, id: &str, version: &str, extra: &str) -> PathBuf {
    let m = manifest(id, version, extra);
    zip_of(
        dir,
        name,
        &[
            ("toolset.yaml", m.as_bytes()),
            (
                "tools/hello.py",
                format!("def run(workspace, name='x'):\n    return {{'text': '{version} ' + name}}\n").as_bytes(),
            ),
        ],
    )
}

/// Nothing of a refused bundle remains: no rows, no staging folder.
async fn assert_nothing_installed(env: &Env) {
    let app = env.app().await;
    assert!(app.list_toolsets().await.expect("list").is_empty());
    let leftovers: Vec<_> = std::fs::read_dir(env.data().join("toolsets"))
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}");
}

async fn import_err(env: &Env, zip: &Path) -> Error {
    env.app()
        .await
        .import_toolset(zip, &ImportOptions::default())
        .await
        .expect_err("must be refused")
}

#[tokio::test]
async fn each_unsafe_entry_is_refused_naming_the_entry_and_the_rule() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let m = manifest("x", "1.0.0", "");
    let ok_py: &[u8] = b"def run(workspace):\n    return {}\n";
    let cases: [(&str, &str, &str); 5] = [
        ("slip.zip", "../evil.py", "`..` would write outside"),
        ("abs.zip", "/etc/evil.py", "absolute paths are not allowed"),
        ("drive.zip", "C:/evil.py", "drive letters"),
        ("backslash.zip", "tools\\..\\..\\evil.py", "backslashes"),
        ("dup.zip", "./toolset.yaml", "duplicate entry name"),
    ];
    for (file, bad, rule) in cases {
        let zip = zip_of(
            t.path(),
            file,
            &[("toolset.yaml", m.as_bytes()), ("tools/hello.py", ok_py), (bad, b"x")],
        );
        let err = import_err(&env, &zip).await;
        assert_eq!(err.kind(), "invalid_bundle", "{file}: {err}");
        let msg = err.to_string();
        assert!(msg.contains(&format!("{bad:?}")) && msg.contains(rule), "{file}: {msg}");
    }
    assert_nothing_installed(&env).await;
}

#[tokio::test]
async fn symlinks_encryption_too_many_entries_and_non_zips_are_refused() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let m = manifest("x", "1.0.0", "");

    let link = t.path().join("link.zip");
    let mut z = zip::ZipWriter::new(std::fs::File::create(&link).expect("create"));
    z.start_file("toolset.yaml", SimpleFileOptions::default())
        .expect("entry");
    z.write_all(m.as_bytes()).expect("write");
    z.add_symlink("tools/hello.py", "/etc/passwd", SimpleFileOptions::default())
        .expect("symlink");
    z.finish().expect("finish");
    let err = import_err(&env, &link).await;
    assert!(
        err.to_string().contains("\"tools/hello.py\": symlinks are not allowed"),
        "{err}"
    );

    // Mark an entry encrypted (general-purpose flag bit 0) in both headers.
    let enc = zip_of(t.path(), "enc.zip", &[("toolset.yaml", m.as_bytes())]);
    let mut bytes = std::fs::read(&enc).expect("read");
    for (sig, flag_at) in [(b"PK\x03\x04", 6), (b"PK\x01\x02", 8)] {
        let at = bytes.windows(4).position(|w| w == sig).expect("header");
        bytes[at + flag_at] |= 1;
    }
    std::fs::write(&enc, bytes).expect("write");
    let err = import_err(&env, &enc).await;
    assert!(err.to_string().contains("encrypted entries are not supported"), "{err}");

    let names: Vec<String> = (0..10_001).map(|i| format!("assets/{i}.txt")).collect();
    let mut entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b""[..])).collect();
    entries.push(("toolset.yaml", m.as_bytes()));
    let many = zip_of(t.path(), "many.zip", &entries);
    let err = import_err(&env, &many).await;
    assert!(
        err.to_string()
            .contains("10002 entries; a bundle may have at most 10000"),
        "{err}"
    );

    // A character device: the file-type bits of the entry's Unix mode
    // (external attributes of the central directory header) say so.
    let dev = t.path().join("dev.zip");
    let mut z = zip::ZipWriter::new(std::fs::File::create(&dev).expect("create"));
    z.start_file("toolset.yaml", SimpleFileOptions::default())
        .expect("entry");
    z.write_all(m.as_bytes()).expect("write");
    z.start_file("assets/tty", SimpleFileOptions::default().unix_permissions(0o644))
        .expect("entry");
    z.finish().expect("finish");
    let mut bytes = std::fs::read(&dev).expect("read");
    let central: Vec<usize> = bytes
        .windows(4)
        .enumerate()
        .filter(|(_, w)| *w == b"PK\x01\x02")
        .map(|(i, _)| i)
        .collect();
    let at = *central.last().expect("central header") + 38;
    bytes[at..at + 4].copy_from_slice(&((0o020644u32) << 16).to_le_bytes());
    std::fs::write(&dev, bytes).expect("write");
    let err = import_err(&env, &dev).await;
    assert!(
        err.to_string()
            .contains("\"assets/tty\": device files, FIFOs and sockets are not allowed"),
        "{err}"
    );

    let not_zip = t.path().join("notes.zip");
    std::fs::write(&not_zip, "just text").expect("write");
    let err = import_err(&env, &not_zip).await;
    assert!(err.to_string().contains("not a readable ZIP archive"), "{err}");
    assert_nothing_installed(&env).await;
}

#[tokio::test]
async fn zip_bombs_are_refused_without_inflating_them() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let m = manifest("x", "1.0.0", "");
    // 4 GiB of zeros, a few MiB compressed, truthful headers (zip64).
    let bomb = t.path().join("bomb.zip");
    let mut z = zip::ZipWriter::new(std::fs::File::create(&bomb).expect("create"));
    z.start_file("toolset.yaml", SimpleFileOptions::default())
        .expect("entry");
    z.write_all(m.as_bytes()).expect("write");
    let opts = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(9))
        .large_file(true);
    z.start_file("assets/zeros.bin", opts).expect("entry");
    let zeros = vec![0u8; 8 << 20];
    for _ in 0..512 {
        z.write_all(&zeros).expect("write");
    }
    z.finish().expect("finish");
    let compressed = std::fs::metadata(&bomb).expect("stat").len();
    assert!(compressed < 16 << 20, "the bomb is {compressed} bytes");
    let err = import_err(&env, &bomb).await;
    assert!(
        err.to_string()
            .contains("bytes uncompressed; a bundle may hold at most 536870912"),
        "{err}"
    );

    // Headers that lie are caught while inflating: claiming less than the
    // real size is corrupt data; claiming a plausible size lets the ratio
    // rule stop it long before 64 MiB are written.
    let liar = zip_of(
        t.path(),
        "liar.zip",
        &[
            ("toolset.yaml", m.as_bytes()),
            ("assets/zeros.bin", &vec![0u8; 64 << 20]),
        ],
    );
    let original = std::fs::read(&liar).expect("read");
    let patch = |claimed: u32| {
        let mut bytes = original.clone();
        let size = (64u32 << 20).to_le_bytes();
        let mut patched = 0;
        for i in 0..bytes.len().saturating_sub(4) {
            if bytes[i..i + 4] == size {
                bytes[i..i + 4].copy_from_slice(&claimed.to_le_bytes());
                patched += 1;
            }
        }
        assert!(patched >= 2, "patched {patched} size fields");
        std::fs::write(&liar, bytes).expect("write");
    };
    patch(1000);
    let err = import_err(&env, &liar).await;
    assert!(err.to_string().contains("\"assets/zeros.bin\": corrupt data"), "{err}");
    patch(100 << 20);
    let err = import_err(&env, &liar).await;
    assert!(
        err.to_string()
            .contains("\"assets/zeros.bin\": inflates to more than 200×"),
        "{err}"
    );
    assert_nothing_installed(&env).await;
}

#[tokio::test]
async fn a_manifest_with_many_errors_reports_them_all() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let bad = "manifest_version: \"1\"\nid: Bad_Id\nname: x\nversion: one\ntools:\n  - id: a\n    entrypoint: nope\n  - id: a\n    entrypoint: tools.gone:run\n    renderer: {type: html}\n";
    let zip = zip_of(t.path(), "bad.zip", &[("toolset.yaml", bad.as_bytes())]);
    let out = env.cli(&["toolset", "validate", zip.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "toolset.yaml:2:5 id: \"Bad_Id\" is not a valid toolset id",
        "toolset.yaml:4:10 version: \"one\" is not a semantic version",
        "tools[0].entrypoint: expected \"module.path:function\", got \"nope\"",
        "tools[1].id: duplicate tool id \"a\"",
        "tools[1].entrypoint: module file \"tools/gone.py\" is not in the bundle",
        "tools[1].renderer.artifact: `artifact` is required",
    ] {
        assert!(stdout.contains(needle), "missing {needle:?} in:\n{stdout}");
    }
    let err = import_err(&env, &zip).await;
    assert_eq!(err.kind(), "invalid_manifest");
    assert!(err.to_string().contains("toolset.yaml has 6 error(s)"), "{err}");
}

#[tokio::test]
async fn a_folder_inside_the_zip_and_ignored_files_are_handled() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let m = manifest("nested", "1.0.0", "");
    let zip = zip_of(
        t.path(),
        "nested.zip",
        &[
            ("nested/toolset.yaml", m.as_bytes()),
            ("nested/tools/hello.py", b"def run(workspace):\n    return {}\n"),
            ("nested/tools/__pycache__/hello.cpython-311.pyc", b"junk"),
            ("nested/.git/config", b"junk"),
            ("__MACOSX/nested/._toolset.yaml", b"junk"),
        ],
    );
    let app = env.app().await;
    let r = app
        .import_toolset(&zip, &ImportOptions::default())
        .await
        .expect("import");
    assert_eq!(r.action, "installed");
    let d = app.get_toolset("nested").await.expect("show");
    let paths: Vec<&str> = d.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["tools/hello.py", "toolset.yaml"]);
    assert_eq!(d.files[0].kind, "python");
    assert_eq!(d.files[0].stored_path, "toolsets/nested/tools/hello.py");
    assert!(env.data().join("toolsets/nested/tools/hello.py").is_file());
}

#[tokio::test]
async fn upgrades_keep_state_and_a_failed_upgrade_leaves_the_old_version() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let app = env.app().await;
    let v1 = toolset_zip(t.path(), "v1.zip", "up", "1.0.0", "");
    app.import_toolset(&v1, &ImportOptions::default()).await.expect("v1");
    app.set_toolset_enabled("up", false).await.expect("disable");
    let again = app
        .import_toolset(&v1, &ImportOptions::default())
        .await
        .expect_err("same version");
    assert_eq!(again.kind(), "already_installed");
    assert!(again.to_string().contains("--force"));

    let v2 = toolset_zip(t.path(), "v2.zip", "up", "2.0.0", "");
    let r = app.import_toolset(&v2, &ImportOptions::default()).await.expect("v2");
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
        app.get_toolset("up").await.expect("still there").toolset.version,
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
    assert_eq!(app.list_toolsets().await.expect("list").len(), 1);
    let tools = app.list_tools().await.expect("tools");
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
        app.import_toolset(&zip, &ImportOptions::default())
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
        .import_toolset(&clash, &ImportOptions::default())
        .await
        .expect_err("conflict");
    assert!(err.to_string().contains("declared differently by toolset"), "{err}");
    let named_like_server = toolset_zip(t.path(), "shared.zip", "shared", "1.0.0", "");
    let err = app
        .import_toolset(&named_like_server, &ImportOptions::default())
        .await
        .expect_err("namespace");
    assert!(err.to_string().contains("share one namespace"), "{err}");

    app.uninstall_toolset("one").await.expect("uninstall one");
    assert_eq!(servers().await, ["shared"], "two still declares it");
    app.uninstall_toolset("two").await.expect("uninstall two");
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
    app.import_toolset(&zip, &ImportOptions::default())
        .await
        .expect("import");
    let e1 = t.path().join("e1.zip");
    let e2 = t.path().join("e2.zip");
    app.export_toolset("sec", &e1).await.expect("export");
    std::thread::sleep(std::time::Duration::from_millis(1100)); // a different second
    app.export_toolset("sec", &e2).await.expect("export");
    assert_eq!(
        std::fs::read(&e1).expect("e1"),
        std::fs::read(&e2).expect("e2"),
        "byte-identical exports"
    );

    let mut yaml = String::new();
    std::io::Read::read_to_string(
        &mut zip::ZipArchive::new(std::fs::File::open(&e1).expect("open"))
            .expect("zip")
            .by_name("toolset.yaml")
            .expect("yaml"),
        &mut yaml,
    )
    .expect("read");
    assert!(!yaml.contains("sk-live-secret"), "{yaml}");
    assert!(
        yaml.contains("API_KEY: ${API_KEY}") && yaml.contains("HOME_DIR: ${HOME}"),
        "{yaml}"
    );
    assert!(yaml.contains("x-future:"), "unknown keys are kept: {yaml}");

    let before = app.get_toolset("sec").await.expect("show");
    app.uninstall_toolset("sec").await.expect("uninstall");
    app.import_toolset(&e1, &ImportOptions::default())
        .await
        .expect("reimport");
    let e3 = t.path().join("e3.zip");
    app.export_toolset("sec", &e3).await.expect("export");
    assert_eq!(
        std::fs::read(&e1).expect("e1"),
        std::fs::read(&e3).expect("e3"),
        "export → import → export"
    );
    let after = app.get_toolset("sec").await.expect("show");
    assert_eq!(before.tools, after.tools);
    assert_eq!(before.mcp_servers.len(), after.mcp_servers.len());
    // The author's toolset.yaml was replaced by the regenerated one; every
    // other file is the same.
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
async fn local_folders_run_in_place_and_survive_uninstall() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = src.path().join("mine");
    let out = env.cli(&["toolset", "init", dir.to_str().expect("utf-8")]);
    assert!(out.status.success());
    let app = env.app().await;
    let r = app
        .import_toolset(&dir, &ImportOptions::default())
        .await
        .expect("import");
    assert_eq!(r.toolset.source_type, "local");
    assert!(!env.data().join("toolsets/mine").exists(), "nothing is copied");
    let d = app.get_toolset("mine").await.expect("show");
    assert!(
        d.files
            .iter()
            .all(|f| Path::new(&f.stored_path).starts_with(std::fs::canonicalize(&dir).expect("canon")))
    );
    app.uninstall_toolset("mine").await.expect("uninstall");
    assert!(
        dir.join("toolset.yaml").is_file(),
        "the author's folder is never deleted"
    );
}

#[tokio::test]
async fn a_running_call_blocks_disable_upgrade_and_uninstall() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let app = env.app().await;
    app.import_toolset(
        &toolset_zip(t.path(), "b.zip", "busy", "1.0.0", ""),
        &ImportOptions::default(),
    )
    .await
    .expect("import");
    let chat = app.create_chat(None).await.expect("chat");
    sqlx::query("INSERT INTO tool_calls (id, chat_id, tool_id, status, started_at) VALUES ('c1', ?, 'busy:hello', 'running', 'x')")
        .bind(&chat.id)
        .execute(app.db())
        .await
        .expect("call");
    let v2 = toolset_zip(t.path(), "b2.zip", "busy", "2.0.0", "");
    for err in [
        app.set_toolset_enabled("busy", false).await.expect_err("disable"),
        app.uninstall_toolset("busy").await.expect_err("uninstall"),
        app.import_toolset(&v2, &ImportOptions::default())
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
    assert_eq!(w["input_schema"]["required"][0], "path");
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
        text.contains("toolset.yaml:10:17 tools[0].entrypoint: expected \"module.path:function\""),
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
async fn a_local_folder_reloads_on_save_and_keeps_the_last_good_version() {
    use atelier_core::toolsets::watch::Reload;
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = src.path().join("live");
    atelier_core::toolsets::examples::init(&dir, "live").expect("init");
    let app = env.app().await;
    let cancel = tokio_util::sync::CancellationToken::new();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let watcher = {
        let (app, dir, cancel) = (app.clone(), dir.clone(), cancel.clone());
        tokio::spawn(async move { app.watch_toolset(&dir, cancel, move |r| drop(tx.send(r))).await })
    };
    // Waiting is bounded so a broken watcher fails the test instead of hanging.
    let mut next = async || {
        tokio::time::timeout(std::time::Duration::from_secs(20), rx.recv())
            .await
            .expect("a reload")
            .expect("open")
    };
    assert!(matches!(next().await, Reload::Reloaded(_)), "installed at start");

    let yaml_path = dir.join("toolset.yaml");
    let yaml = std::fs::read_to_string(&yaml_path).expect("read");
    std::fs::write(&yaml_path, yaml.replace("Count the words", "Count every word")).expect("write");
    match next().await {
        Reload::Reloaded(r) => assert_eq!(r.toolset.id, "live"),
        Reload::Rejected(e) => panic!("a valid edit was rejected: {e}"),
    }
    assert!(
        app.get_tool("live:word_count")
            .await
            .expect("tool")
            .description
            .starts_with("Count every word")
    );

    std::fs::write(
        &yaml_path,
        yaml.replace("Count the words", "Count every word")
            .replace("tools.words:word_count", "tools.words.word_count"),
    )
    .expect("write");
    match next().await {
        Reload::Rejected(e) => assert!(e.to_string().contains("tools[0].entrypoint"), "{e}"),
        Reload::Reloaded(_) => panic!("an invalid edit was installed"),
    }
    let still = app
        .get_tool("live:word_count")
        .await
        .expect("the last good version stays");
    assert!(still.description.starts_with("Count every word"));
    assert_eq!(still.entrypoint.as_deref(), Some("tools.words:word_count"));

    cancel.cancel();
    watcher.await.expect("join").expect("watch ended cleanly");
}
