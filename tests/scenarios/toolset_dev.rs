//! `toolset dev`, the author's inner loop: a local folder reloads on a real
//! change only — once per edit, never for a file merely read or saved
//! unchanged, never again for a broken version until it is edited — and an
//! edit that breaks it keeps the last good version installed; validation
//! that says what a typo meant and where broken YAML starts; strict mode
//! and `pack`.

use std::path::Path;
use std::time::Duration;

use atelier_core::Atelier;
use atelier_core::toolsets::watch::Reload;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

use crate::Env;

/// Watches `dir` in a task; reloads arrive on the receiver.
fn watch(
    app: &Atelier,
    dir: &Path,
) -> (
    CancellationToken,
    tokio::task::JoinHandle<atelier_core::Result<()>>,
    UnboundedReceiver<Reload>,
) {
    let cancel = CancellationToken::new();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let (app, dir, stop) = (app.clone(), dir.to_path_buf(), cancel.clone());
    let task = tokio::spawn(async move {
        app.toolsets()
            .watch(&dir, Default::default(), stop, move |r| drop(tx.send(r)))
            .await
    });
    (cancel, task, rx)
}

/// The next reload; bounded so a broken watcher fails instead of hanging.
async fn next(rx: &mut UnboundedReceiver<Reload>) -> Reload {
    tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("a reload")
        .expect("open")
}

/// How many reloads happen over `quiet`.
async fn count_over(rx: &mut UnboundedReceiver<Reload>, quiet: Duration) -> usize {
    tokio::time::sleep(quiet).await;
    let mut n = 0;
    while rx.try_recv().is_ok() {
        n += 1;
    }
    n
}

#[tokio::test]
async fn a_local_folder_reloads_on_save_and_keeps_the_last_good_version() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = src.path().join("live");
    atelier_core::toolsets::examples::init(&dir, "live").expect("init");
    let app = env.app().await;
    let (cancel, watcher, mut rx) = watch(&app, &dir);
    assert!(matches!(next(&mut rx).await, Reload::Reloaded(_)), "installed at start");

    let yaml_path = dir.join("toolset.yaml");
    let yaml = std::fs::read_to_string(&yaml_path).expect("read");
    std::fs::write(&yaml_path, yaml.replace("Count the words", "Count every word")).expect("write");
    match next(&mut rx).await {
        Reload::Reloaded(r) => assert_eq!(r.toolset.id, "live"),
        Reload::Rejected(e) => panic!("a valid edit was rejected: {e}"),
    }
    assert!(
        app.toolsets()
            .tool("live:word_count")
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
    match next(&mut rx).await {
        Reload::Rejected(e) => assert!(e.to_string().contains("tools[0].entrypoint"), "{e}"),
        Reload::Reloaded(_) => panic!("an invalid edit was installed"),
    }
    let still = app
        .toolsets()
        .tool("live:word_count")
        .await
        .expect("the last good version stays");
    assert!(still.description.starts_with("Count every word"));
    assert_eq!(still.entrypoint.as_deref(), Some("tools.words:word_count"));

    cancel.cancel();
    watcher.await.expect("join").expect("watch ended cleanly");
}

#[tokio::test]
async fn a_quiet_minute_reloads_nothing_and_each_edit_reloads_once() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = src.path().join("calm");
    atelier_core::toolsets::examples::init(&dir, "calm").expect("init");
    let app = env.app().await;
    let (cancel, watcher, mut rx) = watch(&app, &dir);
    assert!(matches!(next(&mut rx).await, Reload::Reloaded(_)), "installed at start");

    // A minute in which the folder is only read (each reload reads every
    // file; so do editors and tools), saved unchanged and touched.
    let yaml_path = dir.join("toolset.yaml");
    let yaml = std::fs::read_to_string(&yaml_path).expect("read");
    let quiet = async {
        for _ in 0..6 {
            tokio::time::sleep(Duration::from_secs(8)).await;
            for entry in walk(&dir) {
                let _ = std::fs::read(&entry);
            }
            std::fs::write(&yaml_path, &yaml).expect("save unchanged");
        }
    };
    let (reloads, ()) = tokio::join!(count_over(&mut rx, Duration::from_secs(60)), quiet);
    assert_eq!(reloads, 0, "reloads in a minute with no change");

    // One edit in two writes (as editors save): one reload.
    let edited = yaml.replace("Count the words", "Count all words");
    std::fs::write(&yaml_path, &edited[..edited.len() / 2]).expect("half");
    std::fs::write(&yaml_path, &edited).expect("whole");
    assert!(matches!(next(&mut rx).await, Reload::Reloaded(_)));
    assert_eq!(count_over(&mut rx, Duration::from_secs(3)).await, 0, "once per edit");

    // A broken version is reported once, not again and again.
    std::fs::write(&yaml_path, "manifest_version: \"1\"\nid: calm\ntools: [oops\n").expect("break");
    assert!(matches!(next(&mut rx).await, Reload::Rejected(_)));
    assert_eq!(
        count_over(&mut rx, Duration::from_secs(5)).await,
        0,
        "one report per broken edit"
    );
    cancel.cancel();
    watcher.await.expect("join").expect("watch ended cleanly");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("read dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[tokio::test]
async fn a_python_syntax_error_is_refused_with_its_file_and_line_as_the_author_knows_them() {
    use atelier_core::toolsets::ImportOptions;
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = src.path().join("typo");
    atelier_core::toolsets::examples::init(&dir, "typo").expect("init");
    let app = env.app().await;
    let force = ImportOptions {
        force: true,
        ..Default::default()
    };
    app.toolsets().import(&dir, &force).await.expect("the scaffold imports");
    let code = dir.join("tools/words.py");
    let good = std::fs::read_to_string(&code).expect("read");
    std::fs::write(&code, format!("{good}\ndef broken(:\n")).expect("break");
    let err = app
        .toolsets()
        .import(&dir, &force)
        .await
        .expect_err("a syntax error")
        .to_string();
    // Read before anything runs: the file, line and column, and the line.
    let line = good.lines().count() + 2;
    assert!(
        err.contains(&format!("tools/words.py:{line}:12: SyntaxError"))
            && err.contains(&format!("{line} | def broken(:")),
        "{err}"
    );
    assert!(
        !err.contains(".staging") && !err.contains("importlib"),
        "no scratch paths or machinery: {err}"
    );
    // The installed copy is still the good one.
    let installed = env.data().join("toolsets/typo/tools/words.py");
    assert_eq!(std::fs::read_to_string(installed).expect("installed"), good);
}

/// A scaffold with `edit` applied to its manifest, in a fresh folder.
fn scaffold_with(env_dir: &Path, name: &str, edit: impl Fn(String) -> String) -> std::path::PathBuf {
    let dir = env_dir.join(name);
    atelier_core::toolsets::examples::init(&dir, name).expect("init");
    let yaml = dir.join("toolset.yaml");
    let text = std::fs::read_to_string(&yaml).expect("read");
    std::fs::write(&yaml, edit(text)).expect("write");
    dir
}

#[test]
fn validate_names_typos_duplicates_and_where_broken_yaml_starts() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = scaffold_with(src.path(), "typos", |y| {
        y.replacen("    entrypoint:", "    rendrer: {type: code}\n    entrypoint:", 1)
            .replacen("type: string", "type: strin", 1)
            .replacen("name:", "name: First\nname:", 1)
            .replacen(
                "data: \"$return\"",
                "data: \"$return\"\n      title: \"Words of ${args.pth}\"",
                1,
            )
    });
    let out = env.cli(&["toolset", "validate", dir.to_str().expect("utf-8")]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("unknown key `rendrer`: did you mean `renderer`?"),
        "{said}"
    );
    assert!(said.contains("unknown type `strin` (did you mean `string`?)"), "{said}");
    assert!(said.contains("name: this key is given twice"), "{said}");
    assert!(
        said.contains("`$args.pth` is not an argument of this tool (its input_schema declares path, text, top); did you mean `$args.path`?"),
        "{said}"
    );

    let broken = scaffold_with(src.path(), "broken", |y| {
        y.replacen("tools:", "extra: [oops\ntools:", 1)
    });
    let out = env.cli(&["toolset", "validate", broken.to_str().expect("utf-8")]);
    let said = String::from_utf8_lossy(&out.stdout);
    // It points at the unclosed bracket, and shows that line.
    let line = std::fs::read_to_string(broken.join("toolset.yaml"))
        .expect("read")
        .lines()
        .position(|l| l.starts_with("extra: [oops"))
        .expect("the line")
        + 1;
    assert!(
        said.contains(&format!("toolset.yaml:{line}:8: not valid YAML")),
        "{said}"
    );
    assert!(said.contains(&format!("  {line} | extra: [oops")), "{said}");
}

#[test]
fn strict_mode_and_pack_refuse_warnings_unless_allowed_and_pack_says_its_sha256() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = scaffold_with(src.path(), "warned", |y| {
        y.replacen("    entrypoint:", "    rendrer: {type: code}\n    entrypoint:", 1)
    });
    let d = dir.to_str().expect("utf-8");
    env.ok(&["toolset", "validate", d]);
    let out = env.cli(&["toolset", "validate", "--strict", d]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("[an error in strict mode]"));
    let zip = src.path().join("warned.zip");
    let z = zip.to_str().expect("utf-8");
    let out = env.cli(&["toolset", "pack", d, "-o", z]);
    assert_eq!(out.status.code(), Some(1), "pack is strict");
    assert!(!zip.exists(), "nothing packed");
    let packed = env.json(&["toolset", "pack", d, "-o", z, "--allow-warnings"]);
    let bytes = std::fs::read(&zip).expect("zip");
    use sha2::Digest;
    let hex: String = sha2::Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(packed["sha256"], hex.as_str());
    assert_eq!(packed["warnings"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        packed["will_run"]["python_entrypoints"][0]["entrypoint"],
        "tools.words:word_count"
    );
}

/// The scaffold's first line points an editor at the schema beside it;
/// `toolset schema` prints the same document, `--write` refreshes an old
/// copy, and the copy is never packed.
#[test]
fn the_manifest_schema_sits_beside_a_scaffold_for_editors_and_is_never_packed() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = scaffold_with(src.path(), "edited", |y| y);
    let d = dir.to_str().expect("utf-8");
    let first = std::fs::read_to_string(dir.join("toolset.yaml")).expect("read");
    assert_eq!(
        first.lines().next(),
        Some("# yaml-language-server: $schema=.toolset.schema.json")
    );
    let printed = env.json(&["toolset", "schema"]);
    assert_eq!(printed["title"], "toolset.yaml");
    assert!(printed["properties"]["tools"].is_object());
    std::fs::write(dir.join(".toolset.schema.json"), "{}").expect("make it stale");
    env.ok(&["toolset", "schema", "--write", d]);
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(".toolset.schema.json")).expect("read")).expect("json");
    assert_eq!(written, printed);
    let zip = src.path().join("edited.zip");
    env.ok(&["toolset", "pack", d, "-o", zip.to_str().expect("utf-8")]);
    let archive = zip::ZipArchive::new(std::fs::File::open(&zip).expect("zip")).expect("read zip");
    let names: Vec<String> = archive.file_names().map(|n| n.expect("a name").into_owned()).collect();
    assert!(
        names.iter().any(|n| n == "toolset.yaml") && !names.iter().any(|n| n.contains("schema")),
        "{names:?}"
    );
}

#[test]
fn dev_with_run_calls_the_tool_after_each_good_reload_with_the_new_code() {
    use std::io::BufRead;
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = src.path().join("looped");
    atelier_core::toolsets::examples::init(&dir, "looped").expect("init");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_atelier"))
        .arg("--data-dir")
        .arg(env.data())
        .args(["toolset", "dev", dir.to_str().expect("utf-8")])
        .args(["--run", "word_count", "--args", r#"{"text": "a b a"}"#])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start dev");
    let (tx, rx) = std::sync::mpsc::channel();
    let out = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let wait_for = |want: &str| -> String {
        loop {
            let line = rx
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("no line with {want}"));
            if line.contains(want) {
                return line;
            }
        }
    };
    let first = wait_for("result:");
    assert!(
        first.contains(r#""top":[{"word":"a","count":2},{"word":"b","count":1}]"#),
        "{first}"
    );
    let code = dir.join("tools/words.py");
    let text = std::fs::read_to_string(&code).expect("read");
    std::fs::write(&code, text.replace("most_common(top)", "most_common(1)")).expect("edit");
    let second = wait_for("result:");
    assert!(
        second.contains(r#""top":[{"word":"a","count":2}]"#),
        "the new code ran: {second}"
    );
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn pack_and_a_local_import_leave_out_what_atelierignore_and_the_defaults_say() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = src.path().join("tidy");
    atelier_core::toolsets::examples::init(&dir, "tidy").expect("init");
    for (rel, text) in [
        ("venv/lib/site.py", "x"),
        ("tools/__pycache__/words.cpython-311.pyc", "x"),
        ("tools/words.py~", "x"),
        ("data/big.csv", "a,b"),
        ("data/keep.csv", "a,b"),
        (".atelierignore", "# the author's own\ndata/*.csv\n!data/keep.csv\n"),
    ] {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    let zip = src.path().join("tidy.zip");
    env.ok(&[
        "toolset",
        "pack",
        dir.to_str().expect("utf-8"),
        "-o",
        zip.to_str().expect("utf-8"),
    ]);
    let archive = zip::ZipArchive::new(std::fs::File::open(&zip).expect("open")).expect("zip");
    let mut names: Vec<String> = archive.file_names().map(|n| n.expect("a name").into_owned()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "README.md",
            "artifacts/words.html",
            "data/keep.csv",
            "tools/__init__.py",
            "tools/words.py",
            "toolset.yaml"
        ]
    );
    // A local import copies the same files.
    env.ok(&["toolset", "import", dir.to_str().expect("utf-8")]);
    let copy = env.data().join("toolsets/tidy");
    assert!(copy.join("data/keep.csv").is_file());
    assert!(!copy.join("venv").exists() && !copy.join("data/big.csv").exists());
}

#[tokio::test]
async fn export_keeps_the_authors_manifest_bytes_when_the_rows_say_the_same() {
    use atelier_core::toolsets::ImportOptions;
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = src.path().join("kept");
    atelier_core::toolsets::examples::init(&dir, "kept").expect("init");
    let yaml_path = dir.join("toolset.yaml");
    let authored = format!(
        "# Kept as written: this comment, the blank line and the order.\n\n{}",
        std::fs::read_to_string(&yaml_path).expect("read")
    );
    std::fs::write(&yaml_path, &authored).expect("write");
    let app = env.app().await;
    app.toolsets()
        .import(&dir, &ImportOptions::default())
        .await
        .expect("import");
    let out = src.path().join("kept.zip");
    app.toolsets().export("kept", &out).await.expect("export");
    assert_eq!(crate::bundles::entry_text(&out, "toolset.yaml"), authored);

    // Edited since the import: the rows are what is installed, and win.
    std::fs::write(&yaml_path, authored.replace("Word count", "Words")).expect("edit");
    app.toolsets().export("kept", &out).await.expect("export");
    let exported = crate::bundles::entry_text(&out, "toolset.yaml");
    assert!(
        !exported.contains("# Kept as written") && exported.contains("Word count"),
        "{exported}"
    );
}

#[tokio::test]
async fn a_signature_that_disagrees_with_the_input_schema_is_a_warning_of_the_import() {
    use atelier_core::toolsets::ImportOptions;
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let app = env.app().await;
    let warned = |r: &atelier_core::toolsets::records::ImportReport| {
        r.warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let renamed = scaffold_with(src.path(), "renamed", |y| {
        y.replacen("        top:", "        limit:", 1)
    });
    let r = app
        .toolsets()
        .import(&renamed, &ImportOptions::default())
        .await
        .expect("import");
    assert!(
        warned(&r)
            .contains("input_schema.properties.limit is not a parameter of the function (it takes: path, text, top)"),
        "{}",
        warned(&r)
    );

    let strict = scaffold_with(src.path(), "strict", |y| y);
    let code = strict.join("tools/words.py");
    let text = std::fs::read_to_string(&code).expect("read");
    std::fs::write(&code, text.replace("path: str = \"\"", "path: str")).expect("write");
    let r = app
        .toolsets()
        .import(&strict, &ImportOptions::default())
        .await
        .expect("import");
    assert!(
        warned(&r).contains("parameter `path` has no default, but input_schema does not require it"),
        "{}",
        warned(&r)
    );
    // A function that cannot take the workspace fails every call: an error.
    let lonely = scaffold_with(src.path(), "lonely", |y| y);
    let code = lonely.join("tools/words.py");
    let text = std::fs::read_to_string(&code).expect("read");
    std::fs::write(
        &code,
        text.replace("def word_count(workspace: Path, ", "def word_count("),
    )
    .expect("write");
    let err = app
        .toolsets()
        .import(&lonely, &ImportOptions::default())
        .await
        .expect_err("no workspace");
    assert!(err.to_string().contains("must take `workspace`"), "{err}");
}

#[test]
fn toolset_test_runs_the_fixtures_in_a_scratch_data_dir_and_says_what_failed() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = scaffold_with(src.path(), "fixtured", |y| y);
    std::fs::create_dir(dir.join("tests")).expect("mkdir");
    for (name, text) in [
        (
            "count.yaml",
            "tool: word_count\nargs: {path: notes.txt}\nfiles: {notes.txt: \"a b a\"}\nexpect:\n  result: {words: 3, top: [{word: a, count: 2}, {word: b, count: 1}]}\n  files: {notes.txt.words.txt: \"a\\t2\\nb\\t1\\n\"}\n",
        ),
        (
            "missing.yaml",
            "tool: word_count\nargs: {path: nope.txt}\nexpect:\n  status: error\n  error: is not a file in the workspace\n",
        ),
    ] {
        std::fs::write(dir.join("tests").join(name), text).expect("write");
    }
    let d = dir.to_str().expect("utf-8");
    let out = env.ok(&["toolset", "test", d]);
    assert!(
        out.contains("pass tests/count.yaml") && out.contains("2 fixture(s) passed"),
        "{out}"
    );
    // Nothing of the person's data dir is touched.
    assert!(!env.data().join("toolsets/fixtured").exists());

    std::fs::write(
        dir.join("tests/wrong.yaml"),
        "tool: word_count\nargs: {text: \"x y\"}\nexpect:\n  result: {words: 3}\n",
    )
    .expect("write");
    let out = env.cli(&["toolset", "test", d]);
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("FAIL tests/wrong.yaml\n  $return.words: expected 3, got 2"),
        "{said}"
    );
}
