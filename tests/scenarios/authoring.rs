//! What an author checks and ships: validation that says what a typo
//! meant and where broken YAML starts, strict mode, the manifest's JSON
//! Schema beside a scaffold, `pack` and what it leaves out, and an export
//! that keeps the author's manifest bytes.

use std::path::Path;

use crate::Env;

/// A scaffold with `edit` applied to its manifest, in a fresh folder.
pub(crate) fn scaffold_with(env_dir: &Path, name: &str, edit: impl Fn(String) -> String) -> std::path::PathBuf {
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
async fn export_keeps_the_authors_manifest_when_arguments_were_derived_from_a_signature() {
    use atelier_core::toolsets::ImportOptions;
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = src.path().join("derived");
    std::fs::create_dir_all(dir.join("tools")).expect("mkdir");
    let authored = "# No input_schema: the arguments come from the function.\n\
                    manifest_version: \"1\"\nid: derived\nname: Derived\nversion: 1.0.0\ntools:\n  \
                    - id: greet\n    name: Greet\n    entrypoint: tools.greet:run\n";
    std::fs::write(dir.join("toolset.yaml"), authored).expect("yaml");
    std::fs::write(
        dir.join("tools/greet.py"),
        "def run(workspace, name: str, times: int = 1) -> dict:\n    \"\"\"Says hello.\"\"\"\n    return {'text': ('hi ' + name) * times}\n",
    )
    .expect("py");
    let app = env.app().await;
    app.toolsets()
        .import(&dir, &ImportOptions::default())
        .await
        .expect("import");
    let tool = app.tools().tool("derived:greet").await.expect("tool");
    assert_eq!(
        tool.input_schema["required"],
        serde_json::json!(["name"]),
        "{}",
        tool.input_schema
    );
    let out = src.path().join("derived.zip");
    app.toolsets().export("derived", &out).await.expect("export");
    assert_eq!(crate::bundles::entry_text(&out, "toolset.yaml"), authored);
}

#[tokio::test]
async fn a_timeout_is_a_day_at_most_and_an_old_huge_one_never_panics_a_call() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let with_timeout = |name: &str, t: &str| {
        scaffold_with(src.path(), name, |y| {
            y.replacen("    entrypoint:", &format!("    timeout_s: {t}\n    entrypoint:"), 1)
        })
    };
    let refused = [
        (".inf", "got .inf, which is not a number of seconds"),
        (".NaN", "got .NaN, which is not a number of seconds"),
        ("-.inf", "got -.inf, which is not a number of seconds"),
        ("1e12", "got the number 1000000000000"),
        ("1e308", "got the number 1e+308"),
        ("0", "got the number 0"),
    ];
    for (i, (bad, got)) in refused.into_iter().enumerate() {
        let dir = with_timeout(&format!("t{i}"), bad);
        let out = env.cli(&["toolset", "validate", dir.to_str().expect("utf-8")]);
        let said = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{bad}: {said}");
        let expected =
            format!("tools[0].timeout_s: expected a number of seconds above 0 and at most 86400 (a day), {got}");
        assert!(said.contains(&expected), "{bad}: {said}");
    }
    let day = with_timeout("day", "86400");
    env.ok(&["toolset", "validate", day.to_str().expect("utf-8")]);
    env.ok(&["toolset", "import", day.to_str().expect("utf-8")]);

    // A data dir of a version that let any timeout in: the call runs.
    sqlx::query("UPDATE tools SET timeout_s = 1e300")
        .execute(env.app().await.db())
        .await
        .expect("old row");
    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let args = r#"{"text": "a b a"}"#;
    let call = env.json(&["run", "day:word_count", "--chat", &chat, "--args", args, "--quiet"]);
    assert_eq!(call["status"], "success", "{call}");

    // The same bound for a call's own limit, said before anything runs.
    let out = env.cli(&[
        "run",
        "day:word_count",
        "--chat",
        &chat,
        "--args",
        args,
        "--timeout",
        "1e300",
    ]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("--timeout must be a number of seconds above 0 and at most 86400 (a day), got"),
        "{said}"
    );
}
