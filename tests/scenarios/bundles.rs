//! Toolset bundles from real ZIPs built here: every rejection rule, the
//! import/upgrade/rollback cycle, shared MCP servers, export round trips.

use std::io::Write;
use std::path::{Path, PathBuf};

use atelier_core::Error;
use atelier_core::toolsets::ImportOptions;
use zip::write::SimpleFileOptions;

use crate::Env;

pub(crate) fn manifest(id: &str, version: &str, extra: &str) -> String {
    format!(
        "manifest_version: \"1\"\nid: {id}\nname: Test {id}\nversion: \"{version}\"\ntools:\n  - id: hello\n    \
         entrypoint: tools.hello:run\n    input_schema: {{type: object, properties: {{name: {{type: string}}}}}}\n    \
         renderer: {{type: code, content: \"$return.text\"}}\n{extra}"
    )
}

pub(crate) const SERVER: &str = "mcp_servers:\n  - id: shared\n    command: npx\n    args: [\"-y\", \"srv\"]\n    env:\n      API_KEY: \"${API_KEY}\"\n      HOME_DIR: \"${HOME}\"\n";

/// The text of one entry of a ZIP.
pub(crate) fn entry_text(zip: &Path, name: &str) -> String {
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut zip::ZipArchive::new(std::fs::File::open(zip).expect("open"))
            .expect("zip")
            .by_name(name)
            .expect("entry"),
        &mut text,
    )
    .expect("read");
    text
}

/// Writes a ZIP with `entries` (name, bytes); returns its path.
pub(crate) fn zip_of(dir: &Path, name: &str, entries: &[(&str, &[u8])]) -> PathBuf {
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

pub(crate) fn toolset_zip(dir: &Path, name: &str, id: &str, version: &str, extra: &str) -> PathBuf {
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
pub(crate) async fn assert_nothing_installed(env: &Env) {
    let app = env.app().await;
    assert!(app.toolsets().list().await.expect("list").is_empty());
    let leftovers: Vec<_> = std::fs::read_dir(env.data().join("toolsets"))
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}");
}

pub(crate) async fn import_err(env: &Env, zip: &Path) -> Error {
    env.app()
        .await
        .toolsets()
        .import(zip, &ImportOptions::default())
        .await
        .expect_err("must be refused")
}

#[tokio::test]
async fn each_unsafe_entry_is_refused_naming_the_entry_and_the_rule() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let m = manifest("x", "1.0.0", "");
    let ok_py: &[u8] = b"def run(workspace):\n    return {}\n";
    let long = format!("tools/{}.py", "x".repeat(4000));
    let shown = format!("tools/{}…", "x".repeat(114));
    let zip = zip_of(
        t.path(),
        "long.zip",
        &[("toolset.yaml", m.as_bytes()), (long.as_str(), ok_py)],
    );
    let msg = import_err(&env, &zip).await.to_string();
    assert!(msg.contains("the name is too long") && msg.contains(&shown), "{msg}");
    assert!(
        msg.len() < 400,
        "a short message, not the 4 KB name: {} bytes",
        msg.len()
    );
    // The entry as it is read: a backslash is Windows' separator.
    let cases: [(&str, &str, &str, &str); 6] = [
        ("slip.zip", "../evil.py", "../evil.py", "`..` would write outside"),
        (
            "abs.zip",
            "/etc/evil.py",
            "/etc/evil.py",
            "absolute paths are not allowed",
        ),
        ("drive.zip", "C:/evil.py", "C:/evil.py", "drive letters"),
        (
            "backslash.zip",
            "tools\\..\\..\\evil.py",
            "tools/../../evil.py",
            "`..` would write outside",
        ),
        (
            "unc.zip",
            "\\\\server\\evil.py",
            "//server/evil.py",
            "absolute paths are not allowed",
        ),
        ("dup.zip", "./toolset.yaml", "./toolset.yaml", "duplicate entry name"),
    ];
    for (file, bad, read_as, rule) in cases {
        let zip = zip_of(
            t.path(),
            file,
            &[("toolset.yaml", m.as_bytes()), ("tools/hello.py", ok_py), (bad, b"x")],
        );
        let err = import_err(&env, &zip).await;
        assert_eq!(err.kind(), "invalid_bundle", "{file}: {err}");
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("{read_as:?}")) && msg.contains(rule),
            "{file}: {msg}"
        );
    }
    assert_nothing_installed(&env).await;
}

#[tokio::test]
async fn two_entries_with_one_name_are_refused_naming_it() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let m = manifest("x", "1.0.0", "");
    // The writer refuses a second `tools/e.py`: write `tools/f.py` and
    // rename it in the bytes (local header and central directory alike).
    let zip = zip_of(
        t.path(),
        "twins.zip",
        &[
            ("toolset.yaml", m.as_bytes()),
            ("tools/hello.py", b"def run(workspace):\n    return {}\n"),
            ("tools/e.py", b"HARMLESS = 1\n"),
            ("tools/f.py", b"import os; os.system('evil')\n"),
        ],
    );
    let bytes = std::fs::read(&zip).expect("read");
    let patched: Vec<u8> = {
        let (from, to) = (b"tools/f.py", b"tools/e.py");
        let mut out = bytes.clone();
        let mut i = 0;
        while i + from.len() <= out.len() {
            if &out[i..i + from.len()] == from {
                out[i..i + from.len()].copy_from_slice(to);
            }
            i += 1;
        }
        out
    };
    assert_ne!(bytes, patched);
    std::fs::write(&zip, patched).expect("write");
    let err = import_err(&env, &zip).await;
    assert_eq!(err.kind(), "invalid_bundle", "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("\"tools/e.py\"") && msg.contains("duplicate entry name"),
        "{msg}"
    );
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
            .contains("GiB uncompressed; a bundle may hold at most 512 MiB"),
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
    assert!(err.to_string().contains("the toolset has 6 error(s)"), "{err}");
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
        .toolsets()
        .import(&zip, &ImportOptions::default())
        .await
        .expect("import");
    assert_eq!(r.action.as_str(), "installed");
    let d = app.toolsets().get("nested").await.expect("show");
    let paths: Vec<&str> = d.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["tools/hello.py", "toolset.yaml"]);
    assert_eq!(d.files[0].kind, "python");
    assert_eq!(d.files[0].stored_path, "toolsets/nested/tools/hello.py");
    assert!(env.data().join("toolsets/nested/tools/hello.py").is_file());
}
