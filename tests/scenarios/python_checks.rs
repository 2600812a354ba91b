//! What `validate`, `pack` and an import say of a toolset's Python before
//! anything of it runs or any requirement is installed: each module
//! compiled, each entrypoint function found and its signature compared
//! with its `input_schema`, `tools_from` tools derived from the source.

use std::path::Path;

use crate::{Env, said, write};

/// A scaffold whose manifest also asks for a requirement no index has
/// and a `tools_from` module that imports it: nothing may try to install
/// it for the checks to speak.
fn author(root: &Path, name: &str) -> std::path::PathBuf {
    let dir = root.join(name);
    atelier_core::toolsets::examples::init(&dir, name).expect("init");
    let yaml = dir.join("toolset.yaml");
    let mut text = std::fs::read_to_string(&yaml).expect("read");
    text.push_str("python:\n  requirements: [atelier-no-such-package-xyz==9.9]\ntools_from: [tools.extra]\n");
    std::fs::write(&yaml, text).expect("write");
    write(
        &dir,
        "tools/extra.py",
        r#""""Tools listed by TOOLS."""
from typing import Annotated, Optional

import atelier_no_such_package_xyz  # installed by the requirement, later

TOOLS = [count_lines, shout]


def count_lines(workspace, path: str, top: Optional[int] = None) -> dict:
    """Counts the lines of a file.

    Args:
        path: A file in the workspace.
    """
    return {}


def shout(workspace, text: Annotated[str, "What to shout"], times: int = 2) -> dict:
    return {}
"#,
    );
    dir
}

fn no_venv_was_made(env: &Env) {
    let venvs = env.data().join("venvs");
    let made: Vec<_> = std::fs::read_dir(&venvs)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(made.is_empty(), "a venv was made: {made:?}");
}

#[test]
fn validate_shows_the_tools_from_tools_with_their_derived_arguments_before_any_install() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = author(src.path(), "derived");
    let d = dir.to_str().expect("utf-8");
    let out = env.cli(&["toolset", "validate", d]);
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("derived:count_lines(path: string, top?: integer|null) — Counts the lines of a file."),
        "{text}"
    );
    assert!(text.contains("derived:shout(text: string, times?: integer)"), "{text}");
    let report = env.json(&["toolset", "validate", d]);
    let shout = &report["exported"][1]["input_schema"];
    assert_eq!(shout["properties"]["text"]["description"], "What to shout");
    assert_eq!(shout["properties"]["times"]["default"], 2);
    let count = &report["exported"][0]["input_schema"];
    assert_eq!(count["properties"]["path"]["description"], "A file in the workspace.");
    assert_eq!(count["required"], serde_json::json!(["path"]));
    no_venv_was_made(&env);
}

/// Reading the source runs none of it: an annotation or a default that
/// would run code is read as text (no type, no default), never evaluated.
#[test]
fn validate_runs_nothing_of_the_bundle_not_even_its_annotations() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = src.path().join("sly");
    atelier_core::toolsets::examples::init(&dir, "sly").expect("init");
    let ran = src.path().join("ran");
    let marker = ran.to_str().expect("utf-8");
    write(
        &dir,
        "tools/extra.py",
        format!(
            "TOOLS = [f]\n\ndef f(workspace, a: __import__('pathlib').Path('{marker}-a').touch(), \
             b=__import__('pathlib').Path('{marker}-b').touch()) -> dict:\n    return {{}}\n"
        ),
    );
    let yaml = dir.join("toolset.yaml");
    let text = std::fs::read_to_string(&yaml).expect("read") + "tools_from: [tools.extra]\n";
    std::fs::write(&yaml, text).expect("write");
    let report = env.json(&["toolset", "validate", dir.to_str().expect("utf-8")]);
    assert_eq!(report["exported"][0]["name"], "f", "{report}");
    assert_eq!(
        report["exported"][0]["input_schema"]["properties"]["a"],
        serde_json::json!({})
    );
    assert!(
        !src.path().join("ran-a").exists() && !src.path().join("ran-b").exists(),
        "code of the bundle ran"
    );
}

#[test]
fn validate_catches_each_python_error_without_installing_anything() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = author(src.path(), "broken");
    // A syntax error in a module no entrypoint names, a misspelt function,
    // a signature that does not take a schema property, a function that
    // cannot be given `workspace`, and an export `tools:` also declares.
    write(&dir, "tools/helpers.py", "def helper(x):\n    return [x for x in\n");
    let yaml = dir.join("toolset.yaml");
    let text = std::fs::read_to_string(&yaml).expect("read");
    let text = text
        .replacen("entrypoint: tools.words:word_count", "entrypoint: tools.words:word_cont", 1)
        .replacen(
            "tools:\n",
            "tools:\n  - id: shout\n    name: Shout\n    entrypoint: tools.more:shout\n    input_schema: {type: object, properties: {text: {type: string}, loud: {type: boolean}}}\n  - id: nows\n    name: No workspace\n    entrypoint: tools.more:nows\n    input_schema: {type: object}\n",
            1,
        );
    std::fs::write(&yaml, text).expect("write");
    write(
        &dir,
        "tools/more.py",
        "import atelier_no_such_package_xyz\n\ndef shout(workspace, text):\n    return {}\n\ndef nows(path=''):\n    return {}\n",
    );
    let out = env.cli(&["toolset", "validate", dir.to_str().expect("utf-8")]);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("tools/helpers.py:2:")
            && text.contains("SyntaxError")
            && text.contains("2 |     return [x for x in"),
        "the syntax error with its file, line and source:\n{text}"
    );
    assert!(
        text.contains("tools.words has no function `word_cont` (it defines: word_count); did you mean `word_count`?"),
        "{text}"
    );
    assert!(
        text.contains(
            "tools.more:shout: input_schema.properties.loud is not a parameter of the function (it takes: text)"
        ),
        "{text}"
    );
    assert!(
        text.contains("tools.more:nows: the function must take `workspace`"),
        "{text}"
    );
    assert!(
        text.contains("tools_from[0]: tools.extra: exports \"shout\", which `tools:` also declares"),
        "{text}"
    );
    no_venv_was_made(&env);
}

#[test]
fn an_import_and_a_pack_refuse_a_syntax_error_before_installing_requirements() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = author(src.path(), "syntax");
    let words = dir.join("tools/words.py");
    let text = std::fs::read_to_string(&words).expect("read");
    std::fs::write(&words, text.replacen("    if path:", "    if path\n", 1)).expect("write");
    let d = dir.to_str().expect("utf-8");
    let zip = src.path().join("syntax.zip");
    let z = zip.to_str().expect("utf-8");
    let out = env.cli(&["toolset", "pack", d, "-o", z]);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("tools/words.py:") && text.contains("SyntaxError"),
        "{text}"
    );
    assert!(!zip.exists(), "nothing packed");

    // A ZIP made anyway (by another tool) is refused at import, with the
    // same words, before the requirement is looked for.
    let files: Vec<(String, Vec<u8>)> = crate::tree_of(&dir)
        .into_iter()
        .filter(|(p, _)| !p.starts_with('.'))
        .collect();
    let mut w = zip::ZipWriter::new(std::fs::File::create(&zip).expect("create"));
    for (p, bytes) in &files {
        w.start_file(p.as_str(), zip::write::SimpleFileOptions::default())
            .expect("entry");
        std::io::Write::write_all(&mut w, bytes).expect("write");
    }
    w.finish().expect("finish");
    let out = env.cli(&["toolset", "import", z]);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("tools/words.py:") && text.contains("SyntaxError"),
        "{text}"
    );
    assert!(
        !text.contains("atelier-no-such-package"),
        "no install was tried: {text}"
    );
    no_venv_was_made(&env);
}

/// A `tools:` entry without `entrypoint` adds to the tool a `tools_from`
/// module exports — a name, a renderer, a confirmation — instead of
/// clashing with it; the installed tool has them, and an export writes the
/// entry back as the author wrote it. One that names no export is refused
/// before anything runs.
#[test]
fn a_tools_entry_without_entrypoint_adds_a_name_renderer_and_confirmation_to_an_export() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = src.path().join("adds");
    atelier_core::toolsets::examples::init(&dir, "adds").expect("init");
    write(
        &dir,
        "tools/extra.py",
        "__all__ = ['shout']\n\ndef shout(workspace, text: str) -> dict:\n    \"\"\"Says it louder.\"\"\"\n    return {'text': text.upper()}\n",
    );
    let yaml = dir.join("toolset.yaml");
    let text = std::fs::read_to_string(&yaml).expect("read");
    let text = text.replacen(
        "tools:\n",
        "tools:\n  # Adds to tools.extra's shout.\n  - id: shout\n    name: Shout it\n    requires_confirmation: true\n    renderer: {type: code, content: \"$return.text\", language: text}\n",
        1,
    ) + "tools_from: [tools.extra]\n";
    std::fs::write(&yaml, &text).expect("write");
    let d = dir.to_str().expect("utf-8");
    let report = env.json(&["toolset", "validate", d]);
    assert_eq!(report["valid"], true, "{report}");
    assert_eq!(report["exported"][0]["adds"], true);

    env.ok(&["toolset", "import", d]);
    let tool = env.json(&["tool", "show", "adds:shout"]);
    assert_eq!(tool["name"], "Shout it");
    assert_eq!(tool["description"], "Says it louder.");
    assert_eq!(tool["requires_confirmation"], true);
    assert_eq!(tool["render_config"]["renderer"], "code");
    assert_eq!(tool["input_schema"]["required"], serde_json::json!(["text"]));

    let zip = src.path().join("adds.zip");
    env.ok(&["toolset", "export", "adds", "-o", zip.to_str().expect("utf-8")]);
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&zip).expect("zip")).expect("read zip");
    let mut exported = String::new();
    std::io::Read::read_to_string(&mut archive.by_name("toolset.yaml").expect("manifest"), &mut exported)
        .expect("read");
    assert_eq!(exported, text, "the author's manifest, comment and all");

    // An entry that names no export, and one with no tools_from at all.
    std::fs::write(&yaml, text.replacen("  - id: shout\n", "  - id: shot\n", 1)).expect("write");
    let out = env.cli(&["toolset", "validate", d]);
    let told = said(&out);
    assert_eq!(out.status.code(), Some(1), "{told}");
    assert!(
        told.contains("none exports \"shot\" (they export: shout); did you mean `shout`?"),
        "{told}"
    );
    std::fs::write(&yaml, text.replace("tools_from: [tools.extra]\n", "")).expect("write");
    let told = said(&env.cli(&["toolset", "validate", d]));
    assert!(told.contains("tool \"shout\" has no `entrypoint`"), "{told}");
}

/// What the source cannot tell is left to the import, not guessed: a
/// decorated entrypoint, exports changed after they are written, an odd
/// annotation — none of them is refused or switches the other checks off;
/// and `entrypoint: ~` is no entrypoint, said, not a tool dropped.
#[test]
fn what_the_source_cannot_tell_is_not_guessed_and_a_null_entrypoint_is_said() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = src.path().join("unsure");
    atelier_core::toolsets::examples::init(&dir, "unsure").expect("init");
    write(
        &dir,
        "tools/deco.py",
        "def with_ws(f):\n    return lambda workspace, **kw: f(**kw)\n\n@with_ws\ndef run(text=''):\n    return {}\n",
    );
    write(
        &dir,
        "tools/grown.py",
        "__all__ = ['a']\n__all__ += ['b']\n\ndef a(workspace):\n    return {}\n\ndef b(workspace, x: [int] = None):\n    return {}\n",
    );
    write(
        &dir,
        "tools/odd.py",
        "__all__ = ['c']\n\ndef c(workspace, x: [int]):\n    return {}\n",
    );
    let yaml = dir.join("toolset.yaml");
    let text = std::fs::read_to_string(&yaml).expect("read");
    let text = text.replacen(
        "tools:\n",
        "tools:\n  - id: deco\n    name: Deco\n    entrypoint: tools.deco:run\n    input_schema: {type: object}\n  - id: b\n    name: Grown\n",
        1,
    ) + "tools_from: [tools.grown, tools.odd]\n";
    std::fs::write(&yaml, &text).expect("write");
    let d = dir.to_str().expect("utf-8");
    let out = env.cli(&["toolset", "validate", d]);
    let told = said(&out);
    assert!(out.status.success(), "{told}");
    assert!(
        !told.contains("must take `workspace`") && !told.contains("none exports"),
        "{told}"
    );
    assert!(!told.contains("not checked"), "the other checks still ran: {told}");

    // The odd annotation did not switch the rest off: a syntax error elsewhere is still said.
    write(&dir, "tools/broken.py", "def x(:\n");
    let told = said(&env.cli(&["toolset", "validate", d]));
    assert!(
        told.contains("tools/broken.py:1:") && told.contains("SyntaxError"),
        "{told}"
    );
    std::fs::remove_file(dir.join("tools/broken.py")).expect("rm");

    std::fs::write(
        &yaml,
        text.replacen("    entrypoint: tools.deco:run\n", "    entrypoint: ~\n", 1),
    )
    .expect("write");
    let out = env.cli(&["toolset", "validate", d]);
    let told = said(&out);
    assert_eq!(out.status.code(), Some(1), "{told}");
    assert!(
        told.contains(
            "tools[0].input_schema: an entry without `entrypoint` adds to a tool a `tools_from:` module exports"
        ),
        "{told}"
    );
}

/// A ZIP import says what `validate` says of its Python: a signature that
/// disagrees with the schema, and — with no worker to read it — that the
/// Python was not checked.
#[test]
fn a_zip_import_warns_as_validate_does_of_its_python() {
    let t = tempfile::tempdir().expect("tmp");
    let manifest = "manifest_version: \"1\"\nid: py\nname: Py\nversion: \"1.0.0\"\ntools:\n  - id: a\n    \
                    entrypoint: tools.m:pipes\n    \
                    input_schema: {type: object, properties: {zzz: {type: string}}, required: [zzz]}\n";
    let code = "from pathlib import Path\n\ndef pipes(workspace: Path, x: str = '') -> dict:\n    return {'x': x}\n";
    let zip = crate::bundles::zip_of(
        t.path(),
        "py.zip",
        &[("toolset.yaml", manifest.as_bytes()), ("tools/m.py", code.as_bytes())],
    );
    let zip = zip.to_str().expect("utf-8");
    let mismatch = "input_schema.properties.zzz is not a parameter of the function";
    let env = Env::new();
    let validated = env.ok(&["toolset", "validate", zip]);
    assert!(validated.contains(mismatch), "{validated}");
    let imported = env.ok(&["toolset", "import", zip]);
    assert!(
        imported.contains("Warnings:")
            && imported.contains(&format!("tools[0].input_schema: tools.m:pipes: {mismatch}")),
        "{imported}"
    );

    let without = Env::new();
    let out = without.cli_env(&["toolset", "import", zip], &[("ATELIER_WORKER", "/nonexistent")]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        said.contains("warning: the Python modules were not checked: could not start the Python worker"),
        "{said}"
    );
}

/// `tools_from` exports only tools: a class named by `__all__` or `TOOLS`
/// is refused by name — read from the source by `validate`, found by the
/// import when the list is computed (which `validate` says it cannot read)
/// — while a plain function without `workspace` is a tool (seed 002: reuse
/// existing functions unchanged); `TOOLS` keeps a module's public `__all__`
/// out of it.
#[tokio::test]
async fn tools_from_refuses_classes_by_name_and_takes_plain_functions() {
    let t = tempfile::tempdir().expect("tmp");
    let manifest = "manifest_version: \"1\"\nid: tf\nname: TF\nversion: \"1.0.0\"\ntools_from: [tools.text]\n";
    let module = |exports: &str| {
        format!(
            "from enum import Enum\nfrom pathlib import Path\n\nclass Color(Enum):\n    RED = 'red'\n\n\
             def slugify(text: str) -> str:\n    return text.lower()\n\n\
             def upper(workspace: Path, text: str) -> dict:\n    \"\"\"Upper.\"\"\"\n    return {{'t': slugify(text)}}\n\n{exports}\n"
        )
    };
    let zip = |name: &str, exports: &str| {
        let code = module(exports);
        let z = crate::bundles::zip_of(
            t.path(),
            name,
            &[
                ("toolset.yaml", manifest.as_bytes()),
                ("tools/text.py", code.as_bytes()),
            ],
        );
        z.to_str().expect("utf-8").to_owned()
    };
    let env = Env::new();
    let listed = zip("all.zip", "__all__ = ['upper', 'slugify', 'Color']");
    let out = env.cli(&["toolset", "validate", &listed]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(
            "tools_from[0]: tools.text.__all__ names what cannot be a tool: Color (a class) (a tool is a function, \
             sync or async); if __all__ is the module's public API, list its tools in TOOLS instead"
        ),
        "{said}"
    );
    let computed = zip("computed.zip", "TOOLS = list((upper, Color))");
    let out = env.cli(&["toolset", "validate", &computed]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(
            "warning tools_from[0]: tools.text.TOOLS is computed: its tools are checked when the toolset is imported"
        ) && !said.contains("No problems found"),
        "{said}"
    );
    let out = env.cli(&["toolset", "import", &computed]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("tools.text.TOOLS names what cannot be a tool: Color (a class)"),
        "{said}"
    );
    let plain = zip("plain.zip", "TOOLS = list((upper, slugify))");
    let imported = env.json(&["toolset", "import", &plain]);
    assert_eq!(
        imported["tools"],
        serde_json::json!(["tf:upper", "tf:slugify"]),
        "{imported}"
    );
    let tools = zip("tools.zip", "__all__ = ['upper', 'slugify', 'Color']\nTOOLS = [upper]");
    let imported = env.json(&["toolset", "import", "--force", &tools]);
    assert_eq!(imported["tools"], serde_json::json!(["tf:upper"]), "{imported}");
}
