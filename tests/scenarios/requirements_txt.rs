//! A bundle laid out as a Python project keeps its requirements in a root
//! `requirements.txt` that pip-compile may have hash-pinned and that may
//! hold what pip alone reads (`-e .`, `-r dev.txt`, `--index-url`): the
//! release lines are installed, checking their hashes (every one has some),
//! and the other lines are warnings naming their line — in
//! `python.requirements` they stay errors.

use std::path::Path;

use crate::{Env, write};

/// `tinyfmt-1.0.0-py3-none-any.whl` (pure Python) in `dir`.
fn wheel(dir: &Path) {
    let script = r#"
import sys, zipfile
info = "tinyfmt-1.0.0.dist-info/"
with zipfile.ZipFile(sys.argv[1] + "/tinyfmt-1.0.0-py3-none-any.whl", "w") as z:
    z.writestr("tinyfmt/__init__.py", "def shout(s):\n    return s.upper()\n")
    z.writestr(info + "METADATA", "Metadata-Version: 2.1\nName: tinyfmt\nVersion: 1.0.0\n")
    z.writestr(info + "WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr(info + "RECORD", "")
"#;
    let ok = std::process::Command::new("/usr/bin/python3.11")
        .args(["-c", script, &dir.display().to_string()])
        .status()
        .expect("python3.11");
    assert!(ok.success(), "the wheel fixture");
}

const MANIFEST: &str = "manifest_version: \"1\"\nid: proj\nname: Project\nversion: \"1.0.0\"\n\
    tools:\n  - id: shout\n    name: Shout\n    entrypoint: tools.loud:shout\n";

/// pip-compile's output: the release, then the hashes of its files (one
/// per wheel; the one this machine downloads matches one of them).
fn requirements(sha: &str) -> String {
    format!(
        "-e .\n-r dev.txt\n--index-url https://example.com/simple\n\
         tinyfmt==1.0.0 \\\n    --hash=sha256:{} \\\n    --hash=sha256:{sha}\n    \
         # via -r requirements.in\n",
        "0".repeat(64)
    )
}

#[test]
fn a_projects_hash_pinned_requirements_txt_with_dev_lines_validates_and_imports_with_warnings() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let wheels = src.path().join("wheels");
    std::fs::create_dir_all(&wheels).expect("mkdir");
    wheel(&wheels);
    let dir = src.path().join("proj");
    write(&dir, "toolset.yaml", MANIFEST);
    write(
        &dir,
        "tools/loud.py",
        "import tinyfmt\n\ndef shout(workspace, text: str) -> dict:\n    return {'said': tinyfmt.shout(text)}\n",
    );
    let whl = std::fs::read(wheels.join("tinyfmt-1.0.0-py3-none-any.whl")).expect("wheel");
    let sha = atelier_core::store::Hash::of(&whl).to_hex();
    write(&dir, "requirements.txt", requirements(&sha));
    let pinned = format!("tinyfmt==1.0.0 --hash=sha256:{} --hash=sha256:{sha}", "0".repeat(64));
    let d = dir.to_str().expect("utf-8");

    let out = env.cli(&["toolset", "validate", d]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    for (line, what) in [
        (1, "-e ."),
        (2, "-r dev.txt"),
        (3, "--index-url https://example.com/simple"),
    ] {
        let said = format!(
            "requirements.txt:{line}:1 warning python.requirements: `{what}` is not installed: Atelier installs \
             named releases only; list what the tools need under python.requirements in toolset.yaml"
        );
        assert!(text.contains(&said), "{said}\n{text}");
    }
    assert!(!text.contains("not checked"), "{text}");
    assert!(
        text.contains("pip     tinyfmt==1.0.0  (hash-checked)") && !text.contains(&sha),
        "the release is shown, not its hashes: {text}"
    );
    let report = env.json(&["toolset", "validate", d]);
    assert_eq!(report["will_run"]["requirements"], serde_json::json!([pinned]));

    // The import installs the release line from the local wheel, checking
    // its hash.
    let wheels = wheels.to_str().expect("utf-8");
    let local = [("ATELIER_FIND_LINKS", wheels), ("ATELIER_NO_INDEX", "1")];
    let out = env.cli_env(&["toolset", "import", d, "--json"], &local);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let imported: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        imported["toolset"]["python_requirements"],
        serde_json::json!([pinned]),
        "{imported}"
    );

    // In python.requirements the same lines are errors.
    let listed = src.path().join("listed");
    write(
        &listed,
        "toolset.yaml",
        MANIFEST.replace("tools:\n", "python:\n  requirements: [\"-e .\"]\ntools:\n"),
    );
    write(
        &listed,
        "tools/loud.py",
        "def shout(workspace, text: str) -> dict:\n    return {}\n",
    );
    let out = env.cli(&["toolset", "validate", listed.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
}
