//! `toolset dev`, the author's inner loop: a local folder reloads on a real
//! change only — once per edit, never for a file merely read or saved
//! unchanged, never again for a broken version until it is edited — and an
//! edit that breaks it keeps the last good version installed; `dev --run`,
//! signature warnings of a local import, and `toolset test`.

use std::path::Path;
use std::time::Duration;

use atelier_core::Atelier;
use atelier_core::toolsets::watch::Reload;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

use crate::Env;
use crate::authoring::scaffold_with;

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
