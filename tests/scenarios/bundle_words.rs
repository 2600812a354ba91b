//! What an import says of a bundle and what it skips: a symlink where the
//! importer skips anyway (`git archive`'s `.github/`, npm's
//! `node_modules/.bin/`) is skipped, not a refusal; a manifest misnamed,
//! too deep, or inside another ZIP is named with the way out; and a
//! bundle's own text reaches the terminal escaped, so it cannot hide the
//! list of what it will run.

use std::io::Write;
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;

use crate::Env;
use crate::bundles::{import_err, manifest, zip_of};

/// A ZIP's entries: (name, bytes).
type Entries<'a> = Vec<(&'a str, &'a [u8])>;

const HELLO: &[u8] = b"def run(workspace, name='x'):\n    return {'text': name}\n";

/// A ZIP of `files`, with `links` as symlink entries (name, target).
fn zip_with_links(dir: &Path, name: &str, files: &[(&str, &[u8])], links: &[(&str, &str)]) -> PathBuf {
    let path = dir.join(name);
    let mut z = zip::ZipWriter::new(std::fs::File::create(&path).expect("create"));
    for (n, data) in files {
        z.start_file(*n, SimpleFileOptions::default()).expect("entry");
        z.write_all(data).expect("write");
    }
    for (n, target) in links {
        z.add_symlink(*n, *target, SimpleFileOptions::default())
            .expect("symlink");
    }
    z.finish().expect("finish");
    path
}

#[tokio::test]
async fn symlinks_where_the_importer_skips_anyway_are_skipped_with_them() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let m = manifest("linked", "1.0.0", "");
    // As `git archive --prefix=linked-main/` writes a repository with a
    // symlink under .github/, and a Node server's node_modules/.bin.
    let zip = zip_with_links(
        t.path(),
        "linked.zip",
        &[
            ("linked-main/toolset.yaml", m.as_bytes()),
            ("linked-main/tools/hello.py", HELLO),
            ("linked-main/.github/ci.yml", b"on: push\n"),
            ("linked-main/node_modules/srv/index.js", b"console.log('hi')\n"),
        ],
        &[
            ("linked-main/.github/link.yaml", "ci.yml"),
            ("linked-main/node_modules/.bin/srv", "../srv/index.js"),
        ],
    );
    let app = env.app().await;
    app.toolsets()
        .import(&zip, &atelier_core::toolsets::ImportOptions::default())
        .await
        .expect("the skipped symlinks refuse nothing");
    let root = env.data().join("toolsets/linked");
    assert!(
        root.join("node_modules/srv/index.js").is_file(),
        "its node_modules is kept"
    );
    assert!(!root.join("node_modules/.bin").exists() && !root.join(".github").exists());

    // A symlink anywhere else still refuses the bundle.
    let bad = zip_with_links(
        t.path(),
        "bad.zip",
        &[("toolset.yaml", m.as_bytes()), ("tools/hello.py", HELLO)],
        &[("node_modules/srv/link.js", "/etc/passwd")],
    );
    let err = import_err(&Env::new(), &bad).await.to_string();
    assert!(
        err.contains("\"node_modules/srv/link.js\": symlinks are not allowed"),
        "{err}"
    );
}

#[tokio::test]
async fn a_manifest_not_where_it_belongs_is_named_with_the_way_out() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let m = manifest("where", "1.0.0", "");
    let inner = zip_of(t.path(), "inner.zip", &[("toolset.yaml", m.as_bytes())]);
    let inner_bytes = std::fs::read(&inner).expect("read");
    let cases: [(&str, Entries, &str); 5] = [
        (
            "yml.zip",
            vec![("toolset.yml", m.as_bytes()), ("tools/hello.py", HELLO)],
            "found toolset.yml: rename it to toolset.yaml",
        ),
        (
            "upper.zip",
            vec![("w/Toolset.yaml", m.as_bytes()), ("w/tools/hello.py", HELLO)],
            "found w/Toolset.yaml: rename it to toolset.yaml",
        ),
        (
            "deep.zip",
            vec![("a/b/toolset.yaml", m.as_bytes()), ("a/b/tools/hello.py", HELLO)],
            "found a/b/toolset.yaml: the manifest must be at the top of the archive or in its one top-level folder",
        ),
        (
            "beside.zip",
            vec![("w/toolset.yaml", m.as_bytes()), ("README.md", b"hi")],
            "found w/toolset.yaml, but README.md is outside its folder w/",
        ),
        (
            "outer.zip",
            vec![
                ("release/where-1.0.0.zip", inner_bytes.as_slice()),
                ("NOTES.txt", b"hi"),
            ],
            "it holds another ZIP, release/where-1.0.0.zip: unpack it and import that one",
        ),
    ];
    for (name, entries, says) in cases {
        let zip = zip_of(t.path(), name, &entries);
        let err = import_err(&env, &zip).await.to_string();
        assert!(err.contains(says), "{name}: {err}");
    }

    // A folder: its manifest one folder down, and the manifest itself given.
    let dir = t.path().join("outer");
    crate::write(&dir, "sub/toolset.yaml", &m);
    crate::write(&dir, "sub/tools/hello.py", HELLO);
    let err = import_err(&env, &dir).await.to_string();
    assert!(
        err.contains("found sub/toolset.yaml: give the folder sub/ itself"),
        "{err}"
    );
    let err = import_err(&env, &dir.join("sub/toolset.yaml")).await.to_string();
    assert!(
        err.contains("this is a manifest, not a bundle: give its folder") && err.contains("sub) or a ZIP"),
        "{err}"
    );

    // A module that fails to import is shown by its path in the bundle,
    // not the staging folder it was checked in.
    let broken = zip_of(
        t.path(),
        "broken.zip",
        &[
            ("toolset.yaml", format!("{m}tools_from: [tools.text]\n").as_bytes()),
            ("tools/hello.py", HELLO),
            ("tools/text.py", b"import os\nos.environ['NOPE_NOT_SET']\nTOOLS = []\n"),
        ],
    );
    let err = import_err(&env, &broken).await.to_string();
    assert!(err.contains("tools/text.py") && !err.contains(".staging-"), "{err}");
}

#[test]
fn a_bundles_text_reaches_the_terminal_escaped() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    // `\e[8m` hides what follows on a terminal: a name, a key or a
    // description holding it could hide "It will run, with your rights:".
    let m = "manifest_version: \"1\"\nid: ansi\nname: \"Nice \\e[8m\"\nversion: \"1.0.0\"\n\
             \"note\\e[8m\": 1\n\
             user_config:\n  region: {type: string, title: \"Region \\e[8m\", default: \"eu\\e[8m\"}\n\
             tools:\n  - id: hello\n    name: \"Hello \\e[8m\"\n    description: \"says hi \\e[2J\"\n    \
             entrypoint: tools.hello:run\n    input_schema: {type: object, properties: {name: {type: string}}}\n";
    let zip = zip_of(
        t.path(),
        "ansi.zip",
        &[("toolset.yaml", m.as_bytes()), ("tools/hello.py", HELLO)],
    );
    let zip = zip.to_str().expect("utf-8");
    let imported = env.ok(&["toolset", "import", zip]);
    assert!(
        imported.contains("It will run, with your rights:") && imported.contains("ansi:hello"),
        "{imported}"
    );
    assert!(
        imported.contains("Nice \\u{1b}[8m"),
        "the name is shown, escaped: {imported}"
    );
    for args in [
        vec!["toolset", "import", zip, "--force"],
        vec!["toolset", "validate", zip],
        vec!["toolset", "list"],
        vec!["toolset", "show", "ansi"],
        vec!["tool", "list"],
        vec!["tool", "show", "ansi:hello"],
        vec!["toolset", "config", "ansi"],
        vec![
            "agent",
            "create",
            "Evil \x1b[8m",
            "--id",
            "evil",
            "--description",
            "hides \x1b[2J",
        ],
        vec!["agent", "list"],
        vec!["agent", "show", "evil"],
    ] {
        let out = env.ok(&args);
        assert!(!out.contains('\x1b'), "{args:?} printed an escape byte: {out:?}");
    }
    // An error quoting what it was given: escaped too.
    let out = env.cli(&["tool", "show", "ansi:\x1b[8mhello"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && !err.contains('\x1b') && err.contains("\\u{1b}[8m"),
        "{err:?}"
    );
}
