//! `python.requirements`: installed into a venv outside the toolset folder as
//! a step of import, from a local wheel (no network), used by the worker; a
//! requirement that cannot be installed fails the import and leaves nothing.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use atelier_core::tools::RunRequest;
use atelier_core::tools::python::venv::InstallerSettings;
use atelier_core::toolsets::ImportOptions;
use atelier_core::{Atelier, DataDir, Observer, PythonSettings};
use serde_json::json;

/// Builds `tinyfmt-1.0.0-py3-none-any.whl`, a pure-Python package, in `dir`.
fn build_wheel(dir: &Path) {
    let script = r#"
import base64, hashlib, sys, zipfile
files = {
    "tinyfmt/__init__.py": "def shout(s):\n    return s.upper() + '!'\n",
    "tinyfmt-1.0.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinyfmt\nVersion: 1.0.0\n",
    "tinyfmt-1.0.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: atelier-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = []
for name, text in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
    record.append(f"{name},sha256={digest},{len(text.encode())}")
record.append("tinyfmt-1.0.0.dist-info/RECORD,,")
files["tinyfmt-1.0.0.dist-info/RECORD"] = "\n".join(record) + "\n"
with zipfile.ZipFile(sys.argv[1] + "/tinyfmt-1.0.0-py3-none-any.whl", "w") as z:
    for name, text in files.items():
        z.writestr(name, text)
"#;
    let status = std::process::Command::new("/usr/bin/python3.11")
        .args(["-c", script, &dir.display().to_string()])
        .status()
        .expect("run python3.11 to build the wheel fixture");
    assert!(status.success(), "building the wheel fixture failed");
}

fn toolset(dir: &Path, id: &str, requirement: &str) -> PathBuf {
    let root = dir.join(id);
    std::fs::create_dir_all(root.join("tools")).expect("mkdir");
    std::fs::write(
        root.join("toolset.yaml"),
        format!(
            r#"manifest_version: "1"
id: {id}
name: Requirements test
version: 1.0.0
python:
  requirements: ["{requirement}"]
tools:
  - id: shout
    name: Shout
    entrypoint: tools.loud:shout
    input_schema:
      type: object
      properties:
        text: {{type: string}}
      required: [text]
"#
        ),
    )
    .expect("write toolset.yaml");
    std::fs::write(
        root.join("tools/loud.py"),
        "import tinyfmt\n\ndef shout(workspace, text):\n    return {'said': tinyfmt.shout(text), 'from': tinyfmt.__file__}\n",
    )
    .expect("write tool");
    root
}

async fn app(data: &Path, wheels: &Path) -> Atelier {
    app_with(data, wheels, false).await
}

async fn app_with(data: &Path, wheels: &Path, pip_only: bool) -> Atelier {
    let settings = PythonSettings {
        worker: Some(env!("CARGO_BIN_EXE_atelier-worker").into()),
        installer: InstallerSettings {
            find_links: vec![wheels.to_path_buf()],
            no_index: true,
            pip_only,
            ..InstallerSettings::from_env()
        },
        ..PythonSettings::from_env()
    };
    Atelier::open_with(DataDir::new(data), settings).await.expect("open")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requirements_install_from_a_local_wheel_into_a_venv_the_tool_imports_from() {
    install_and_use(false).await;
}

/// Without uv, the interpreter's own venv and pip do the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requirements_install_with_venv_and_pip_when_uv_is_not_used() {
    install_and_use(true).await;
}

async fn install_and_use(pip_only: bool) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let wheels = tmp.path().join("wheels");
    std::fs::create_dir_all(&wheels).expect("mkdir");
    build_wheel(&wheels);
    let app = app_with(&tmp.path().join("data"), &wheels, pip_only).await;
    let src = toolset(tmp.path(), "loud", "tinyfmt==1.0.0");

    let steps = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = steps.clone();
    let observer = Observer::default().with_steps(move |s| seen.lock().expect("lock").push(s.to_owned()));
    let options = ImportOptions {
        observer,
        ..Default::default()
    };
    app.toolsets()
        .import(&src, &options)
        .await
        .expect("import with requirements");
    let steps = steps.lock().expect("lock").clone();
    assert!(
        steps.iter().any(|s| s.contains("installing tinyfmt==1.0.0")),
        "progress names what it installs: {steps:?}"
    );

    let chat = app.chats().create(None).await.expect("chat");
    let call = app
        .tools()
        .run(RunRequest {
            chat_id: chat.id.clone(),
            tool_id: "loud:shout".into(),
            args: json!({"text": "hi"}),
            ..Default::default()
        })
        .await
        .expect("run");
    assert_eq!(call.status, atelier_core::tools::CallStatus::Success, "{call:?}");
    let result = call.result.expect("result");
    assert_eq!(result["said"], "HI!");
    // Imported from the venv under <data>/venvs, not from the toolset folder.
    let from = result["from"].as_str().expect("path");
    assert!(
        from.starts_with(&tmp.path().join("data/venvs").display().to_string()),
        "{from}"
    );
    assert!(!src.join(".venv").exists() && !src.join("venv").exists());

    // While the toolset is installed gc keeps its environment; then not.
    let venvs = tmp.path().join("data/venvs");
    let count = || std::fs::read_dir(&venvs).map_or(0, |d| d.flatten().filter(|e| e.path().is_dir()).count());
    assert_eq!(count(), 1);
    let kept = app.workspace().gc(&Observer::default()).await.expect("gc");
    assert_eq!((kept.venvs_removed, count()), (0, 1), "a used environment stays");
    app.toolsets().uninstall("loud").await.expect("uninstall");
    let swept = app.workspace().gc(&Observer::default()).await.expect("gc");
    assert_eq!((swept.venvs_removed, count()), (1, 0), "an unused environment goes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_requirement_that_cannot_be_installed_fails_the_import_naming_it_and_installs_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let wheels = tmp.path().join("wheels");
    std::fs::create_dir_all(&wheels).expect("mkdir");
    build_wheel(&wheels);
    let data = tmp.path().join("data");
    let app = app(&data, &wheels).await;
    // The good requirement first: the one named must be the one that failed.
    let src = toolset(tmp.path(), "broken", "tinyfmt\", \"no-such-package==9.9");

    let steps = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let heard = steps.clone();
    let options = ImportOptions {
        observer: atelier_core::Observer::default()
            .with_steps(move |s| heard.lock().expect("steps").push(s.to_owned())),
        ..Default::default()
    };
    let err = app
        .toolsets()
        .import(&src, &options)
        .await
        .expect_err("the import must fail");
    assert_eq!(err.kind(), "requirements_failed");
    let message = err.to_string();
    assert!(
        message.contains("python.requirements[1] `no-such-package==9.9`"),
        "{message}"
    );
    assert!(
        steps
            .lock()
            .expect("steps")
            .iter()
            .any(|s| s.contains("installing tinyfmt, no-such-package==9.9")),
        "the install said what it was doing as it went"
    );
    // The error repeats only what went wrong, not the whole log.
    assert!(message.lines().count() <= 12, "{message}");
    assert!(app.toolsets().get("broken").await.is_err(), "nothing was installed");
    let venvs: Vec<_> = std::fs::read_dir(data.join("venvs"))
        .map(|d| d.flatten().filter(|e| e.path().is_dir()).collect())
        .unwrap_or_default();
    assert!(venvs.is_empty(), "no half-made venv is left: {venvs:?}");
}

/// A bundle whose manifest lists no requirements keeps them where Python
/// projects do: its root `requirements.txt` is read as `python.requirements`
/// (and said to be); one that lists none at all is told, when a tool
/// imports what is not installed, where to list it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_root_requirements_txt_is_installed_when_the_manifest_lists_none() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let wheels = tmp.path().join("wheels");
    std::fs::create_dir_all(&wheels).expect("mkdir");
    build_wheel(&wheels);
    let app = app(&tmp.path().join("data"), &wheels).await;
    let src = toolset(tmp.path(), "fromtxt", "x");
    let manifest = std::fs::read_to_string(src.join("toolset.yaml")).expect("read");
    let without = manifest.replace("python:\n  requirements: [\"x\"]\n", "");
    assert_ne!(without, manifest);
    std::fs::write(src.join("toolset.yaml"), &without).expect("write");
    std::fs::write(
        src.join("requirements.txt"),
        "# what the tool imports\ntinyfmt==1.0.0  # pinned\n\n",
    )
    .expect("write");

    let report = app
        .toolsets()
        .check_bundle(&src, &Observer::default())
        .await
        .expect("validate");
    assert!(report.valid && report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.will_run.requirements, ["tinyfmt==1.0.0"]);
    assert_eq!(report.will_run.requirements_file.as_deref(), Some("requirements.txt"));
    let imported = app
        .toolsets()
        .import(&src, &ImportOptions::default())
        .await
        .expect("import with requirements.txt");
    assert_eq!(imported.will_run.requirements_file.as_deref(), Some("requirements.txt"));
    assert_eq!(imported.toolset.python_requirements, ["tinyfmt==1.0.0"]);
    let chat = app.chats().create(None).await.expect("chat");
    let run = |tool: &str| RunRequest {
        chat_id: chat.id.clone(),
        tool_id: tool.into(),
        args: json!({"text": "hi"}),
        ..Default::default()
    };
    let call = app.tools().run(run("fromtxt:shout")).await.expect("run");
    assert_eq!(call.result.expect("result")["said"], "HI!");

    // Without it, the module's import fails (a local folder's import
    // imports every entry point), saying what to do.
    std::fs::remove_file(src.join("requirements.txt")).expect("rm");
    let err = app
        .toolsets()
        .import(
            &src,
            &ImportOptions {
                force: true,
                ..Default::default()
            },
        )
        .await
        .expect_err("tinyfmt is not installed")
        .to_string();
    assert!(
        err.contains("No module named 'tinyfmt' — list it under python.requirements in toolset.yaml"),
        "{err}"
    );
    let call = app.tools().run(run("fromtxt:shout")).await.expect("run");
    assert_eq!(call.result.expect("the last good version still runs")["said"], "HI!");
}

/// The toolset of [`toolset`] with no `python.requirements` and this root
/// `requirements.txt`.
fn txt_toolset(dir: &Path, id: &str, requirements_txt: &str) -> PathBuf {
    let src = toolset(dir, id, "x");
    let manifest = std::fs::read_to_string(src.join("toolset.yaml")).expect("read");
    let without = manifest.replace("python:\n  requirements: [\"x\"]\n", "");
    assert_ne!(without, manifest);
    std::fs::write(src.join("toolset.yaml"), without).expect("write");
    std::fs::write(src.join("requirements.txt"), requirements_txt).expect("write");
    src
}

/// The wheels folder with tinyfmt's wheel, and that wheel's SHA-256.
fn wheels(tmp: &Path) -> (PathBuf, String) {
    let wheels = tmp.join("wheels");
    std::fs::create_dir_all(&wheels).expect("mkdir");
    build_wheel(&wheels);
    let bytes = std::fs::read(wheels.join("tinyfmt-1.0.0-py3-none-any.whl")).expect("wheel");
    (wheels, atelier_core::store::Hash::of(&bytes).to_hex())
}

/// pip-compile --generate-hashes output: every line pinned with the hash
/// of the wheel it installs. The hashes are checked (installed in pip's
/// hash-checking mode), and stay with the toolset through an export, also
/// one whose manifest is regenerated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hash_locked_requirements_txt_is_installed_checking_its_hashes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (wheels, sha) = wheels(tmp.path());
    let app = app(&tmp.path().join("data"), &wheels).await;
    let src = txt_toolset(
        tmp.path(),
        "locked",
        &format!("tinyfmt==1.0.0 \\\n    --hash=sha256:{sha}\n    # via -r requirements.in\n"),
    );
    let pinned = format!("tinyfmt==1.0.0 --hash=sha256:{sha}");
    let report = app
        .toolsets()
        .check_bundle(&src, &Observer::default())
        .await
        .expect("validate");
    assert!(report.valid && report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.will_run.requirements, std::slice::from_ref(&pinned));

    let steps = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = steps.clone();
    let options = ImportOptions {
        observer: Observer::default().with_steps(move |s| seen.lock().expect("lock").push(s.to_owned())),
        ..Default::default()
    };
    let imported = app.toolsets().import(&src, &options).await.expect("import");
    assert_eq!(imported.toolset.python_requirements, std::slice::from_ref(&pinned));
    assert!(
        steps
            .lock()
            .expect("lock")
            .iter()
            .any(|s| s == "installing tinyfmt==1.0.0 (hash-checked)"),
        "{steps:?}"
    );
    let chat = app.chats().create(None).await.expect("chat");
    let call = app
        .tools()
        .run(RunRequest {
            chat_id: chat.id.clone(),
            tool_id: "locked:shout".into(),
            args: json!({"text": "hi"}),
            ..Default::default()
        })
        .await
        .expect("run");
    let result = call.result.expect("result");
    assert_eq!(result["said"], "HI!");
    // Installed from the requirements file the installer was given.
    let from = PathBuf::from(result["from"].as_str().expect("path"));
    let venv = from
        .ancestors()
        .find(|p| p.parent() == Some(&tmp.path().join("data/venvs")))
        .expect("in a venv");
    assert_eq!(
        std::fs::read_to_string(venv.join(".atelier-requirements.txt")).expect("requirements file"),
        format!("{pinned}\n")
    );

    // An edit since the import makes the export regenerate toolset.yaml
    // from the rows: the requirements stay the file's, hashes and all.
    let yaml = std::fs::read_to_string(src.join("toolset.yaml")).expect("read");
    std::fs::write(src.join("toolset.yaml"), yaml.replace("Requirements test", "Edited")).expect("write");
    let zip = tmp.path().join("locked.zip");
    app.toolsets().export("locked", &zip).await.expect("export");
    let other = app_with(&tmp.path().join("other"), &wheels, false).await;
    let again = other
        .toolsets()
        .import(&zip, &ImportOptions::default())
        .await
        .expect("import the export");
    assert_eq!(again.toolset.python_requirements, [pinned]);
    assert_eq!(again.will_run.requirements_file.as_deref(), Some("requirements.txt"));
    assert!(again.warnings.is_empty(), "{:?}", again.warnings);
    assert_eq!(
        again.toolset.name, "Requirements test",
        "regenerated from the rows, not the edited file"
    );
}

/// A wheel that is not the file the bundle locked fails the install,
/// under uv and under pip, naming the requirement and what is wrong.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_download_that_does_not_match_its_pinned_hash_fails_the_import_saying_so() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (wheels, sha) = wheels(tmp.path());
    let wrong: String = sha.chars().rev().collect();
    assert_ne!(wrong, sha);
    for (pip_only, id) in [(false, "tampered-uv"), (true, "tampered-pip")] {
        let data = tmp.path().join(id);
        let app = app_with(&data, &wheels, pip_only).await;
        let src = txt_toolset(tmp.path(), id, &format!("tinyfmt==1.0.0 --hash=sha256:{wrong}\n"));
        let err = app
            .toolsets()
            .import(&src, &ImportOptions::default())
            .await
            .expect_err("the hash does not match");
        assert_eq!(err.kind(), "requirements_failed", "{err}");
        let message = err.to_string();
        assert!(
            message.contains(
                "(python.requirements[0] `tinyfmt==1.0.0`): the downloaded file does not match the hash the \
                 bundle pinned"
            ),
            "{message}"
        );
        assert!(message.contains(&wrong), "what was pinned is shown: {message}");
        assert!(app.toolsets().get(id).await.is_err(), "nothing was installed");
        let venvs: Vec<_> = std::fs::read_dir(data.join("venvs"))
            .map(|d| d.flatten().filter(|e| e.path().is_dir()).collect())
            .unwrap_or_default();
        assert!(venvs.is_empty(), "no half-made venv is left: {venvs:?}");
    }
}

/// pip checks hashes only when every requirement has one: a file where
/// some lines have none installs without them, and the warning says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hashes_on_only_some_lines_are_not_checked_and_the_warning_says_why() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (wheels, sha) = wheels(tmp.path());
    let app = app(&tmp.path().join("data"), &wheels).await;
    let src = txt_toolset(
        tmp.path(),
        "partly",
        &format!("tinyfmt==1.0.0 --hash=sha256:{sha}\nsix>=1\n"),
    );
    let report = app
        .toolsets()
        .check_bundle(&src, &Observer::default())
        .await
        .expect("validate");
    assert!(report.valid, "{:?}", report.problems);
    assert_eq!(report.will_run.requirements, ["tinyfmt==1.0.0", "six>=1"]);
    let said: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        said,
        [
            "requirements.txt:1:1 warning python.requirements: the --hash pins of 1 requirement(s) are not checked: \
          pip checks hashes only when every requirement carries one, and line 2 (`six>=1`) has none; Atelier \
          installs the pinned versions without comparing hashes"
        ]
    );
}
