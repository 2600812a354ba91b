//! What `validate` and `pack` say of Python written to be reused (seed
//! 002) and of bundles laid out as Python projects: `TOOLS` naming
//! functions imported from elsewhere in the bundle, what cannot be a tool,
//! a `TOOLS` only running can tell, an import of the bundle that fails, an
//! entry point without `input_schema`, postponed annotations of a module's
//! own Enum, and a root `requirements.txt`. Never "No problems found" for
//! a bundle the import refuses for a reason the source shows.

use std::path::{Path, PathBuf};

use crate::{Env, said, write};

const MANIFEST: &str = "manifest_version: \"1\"\nid: reuse\nname: Reuse\nversion: \"1.0.0\"\n";

fn bundle(root: &Path, name: &str, manifest_tail: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = root.join(name);
    write(&dir, "toolset.yaml", format!("{MANIFEST}{manifest_tail}"));
    for (path, text) in files {
        write(&dir, path, *text);
    }
    dir
}

#[test]
fn tools_imported_from_elsewhere_in_the_bundle_are_read_and_what_cannot_be_known_is_said() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let impl_py = "def add(a: int, b: int) -> int:\n    \"\"\"Adds.\"\"\"\n    return a + b\n";
    let dir = bundle(
        src.path(),
        "imported",
        "tools_from: [tools.api]\n",
        &[
            ("tools/impl.py", impl_py),
            ("tools/api.py", "import tools.impl as impl\n\nTOOLS = [impl.add]\n"),
        ],
    );
    let d = dir.to_str().expect("utf-8");
    let out = env.cli(&["toolset", "validate", d]);
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("reuse:add(a: integer, b: integer) — Adds."), "{text}");

    // Computed: validate cannot tell, and says so; `pack` does not let it by.
    let computed = bundle(
        src.path(),
        "computed",
        "tools_from: [tools.api]\n",
        &[
            ("tools/impl.py", impl_py),
            (
                "tools/api.py",
                "from tools import impl\n\nTOOLS = [getattr(impl, n) for n in ['add']]\n",
            ),
        ],
    );
    let c = computed.to_str().expect("utf-8");
    let out = env.cli(&["toolset", "validate", c]);
    let text = said(&out);
    assert!(out.status.success(), "a warning: {text}");
    assert!(
        text.contains(
            "warning tools_from[0]: tools.api.TOOLS is computed: its tools are checked when the toolset is imported"
        ) && !text.contains("No problems found"),
        "{text}"
    );
    let zip = src.path().join("computed.zip");
    let out = env.cli(&["toolset", "pack", c, "-o", zip.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));

    // What the import would refuse is an error before it: values that are
    // no function, and an import of a name the bundle does not define.
    let refused = bundle(
        src.path(),
        "refused",
        "tools_from: [tools.api, tools.gone]\n",
        &[
            ("tools/impl.py", impl_py),
            (
                "tools/api.py",
                "from tools.impl import add\n\nTOOLS = {\"run\": add, \"x\": 3, \"y\": None}\n",
            ),
            ("tools/gone.py", "from .impl import subtract\n\nTOOLS = [subtract]\n"),
        ],
    );
    let out = env.cli(&["toolset", "validate", refused.to_str().expect("utf-8")]);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "tools_from[0]: tools.api.TOOLS names what cannot be a tool: x (not callable: an int), y (not callable: \
             None)"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "tools/gone.py:1:1: ImportError: cannot import name 'subtract' from 'tools.impl' (it does not define it)"
        ),
        "{text}"
    );
    let out = env.cli(&["toolset", "import", refused.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1), "the import refuses it too: {}", said(&out));
}

#[test]
fn an_entry_point_without_input_schema_is_listed_with_the_arguments_its_signature_gives() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = bundle(
        src.path(),
        "derived",
        "tools:\n  - id: typed\n    name: Typed\n    entrypoint: tools.an:typed\n",
        &[(
            "tools/an.py",
            "from __future__ import annotations\nimport enum\n\nclass Color(enum.Enum):\n    RED = 'red'\n    BLUE = 'blue'\n\n\
             def typed(workspace, name: str, color: Color = Color.RED) -> dict:\n    \"\"\"Typed.\"\"\"\n    \
             return {'name': name, 'color': color.value}\n",
        )],
    );
    let d = dir.to_str().expect("utf-8");
    let out = env.cli(&["toolset", "validate", d]);
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    assert!(!text.contains("does not require it"), "{text}");
    assert!(
        text.contains("Tools without an input_schema (arguments derived from their functions' signatures):")
            && text.contains("reuse:typed(name: string, color?: \"red\"|\"blue\") — Typed."),
        "{text}"
    );
    // The module's own Enum under postponed annotations: the same schema
    // read from the source as the import makes.
    let report = env.json(&["toolset", "validate", d]);
    let read = report["derived"][0]["input_schema"].clone();
    assert_eq!(
        read["properties"]["color"],
        serde_json::json!({"enum": ["red", "blue"], "default": "red"})
    );
    env.json(&["toolset", "import", d]);
    let tool = env.json(&["tool", "show", "reuse:typed"]);
    assert_eq!(tool["input_schema"], read, "{tool}");
}

#[test]
fn a_root_requirements_txt_is_read_when_the_manifest_lists_none() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let tool = "tools:\n  - id: t\n    name: T\n    entrypoint: tools.t:run\n";
    let files = [("tools/t.py", "def run(workspace):\n    return {}\n")];
    let dir = bundle(src.path(), "txt", tool, &files);
    write(&dir, "requirements.txt", "# pinned\nhumanize==4.9.0  # sizes\n");
    let d = dir.to_str().expect("utf-8");
    let out = env.cli(&["toolset", "validate", d]);
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("(its requirements, read from requirements.txt: the manifest lists none)")
            && text.contains("pip     humanize==4.9.0"),
        "{text}"
    );
    let report = env.json(&["toolset", "validate", d]);
    assert_eq!(
        report["will_run"]["requirements"],
        serde_json::json!(["humanize==4.9.0"])
    );
    assert_eq!(report["will_run"]["requirements_file"], "requirements.txt");

    // What pip alone reads is a warning naming the line, not installed
    // (requirements_txt.rs has the rest).
    write(
        &dir,
        "requirements.txt",
        "humanize==4.9.0\n-r dev.txt\n--index-url https://example.com/simple\n",
    );
    let out = env.cli(&["toolset", "validate", d]);
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("requirements.txt:2:1 warning python.requirements: `-r dev.txt` is not installed"),
        "{text}"
    );

    // Both: the manifest's list wins, and the file is said not to be read.
    let both = bundle(
        src.path(),
        "both",
        &format!("python:\n  requirements: [humanize==4.9.0]\n{tool}"),
        &files,
    );
    write(&both, "requirements.txt", "humanize\n");
    let out = env.cli(&["toolset", "validate", both.to_str().expect("utf-8")]);
    let text = said(&out);
    assert!(
        text.contains("warning python.requirements: requirements.txt is not read"),
        "{text}"
    );
}
