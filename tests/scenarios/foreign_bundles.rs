//! Bundles made by other people's tools, written here byte for byte as
//! those tools write them: Windows' "Compressed folder" (CP437 names
//! without the UTF-8 flag), PowerShell (backslash separators, a manifest
//! with a byte order mark and CRLF), macOS (decomposed accents), `zip -r`
//! (the executable bit of a server script), a Node server's
//! `node_modules`, other compression methods; and archives whose headers
//! disagree, which other ZIP tools would read as other files.

use std::path::{Path, PathBuf};

use atelier_core::toolsets::ImportOptions;

use crate::Env;
use crate::bundles::{assert_nothing_installed, import_err};

/// One entry as the writing tool put it.
struct Raw<'a> {
    name: &'a [u8],
    data: &'a [u8],
    /// 0 stored, 12 bzip2…: the data is stored either way (a method this
    /// reader refuses is refused before it is read).
    method: u16,
    /// General purpose flags (bit 11: the name is UTF-8).
    flags: u16,
    /// Unix mode in the high half of the external attributes (0: none,
    /// as DOS tools write).
    mode: u32,
}

impl<'a> Raw<'a> {
    fn file(name: &'a str, data: &'a [u8]) -> Self {
        Self {
            name: name.as_bytes(),
            data,
            method: 0,
            flags: 0,
            mode: 0,
        }
    }
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A ZIP of `entries`, laid out as every writer lays one out: local
/// headers and data, the central directory, its end record.
fn raw_zip(dir: &Path, file: &str, entries: &[Raw<'_>]) -> PathBuf {
    let (mut out, mut central) = (Vec::new(), Vec::new());
    let u16le = |v: &mut Vec<u8>, x: u16| v.extend_from_slice(&x.to_le_bytes());
    let u32le = |v: &mut Vec<u8>, x: u32| v.extend_from_slice(&x.to_le_bytes());
    for e in entries {
        let offset = u32::try_from(out.len()).expect("small");
        let (crc, size) = (crc32(e.data), u32::try_from(e.data.len()).expect("small"));
        let name_len = u16::try_from(e.name.len()).expect("short");
        u32le(&mut out, 0x0403_4b50);
        for x in [20, e.flags, e.method, 0, 0x21] {
            u16le(&mut out, x);
        }
        for x in [crc, size, size] {
            u32le(&mut out, x);
        }
        u16le(&mut out, name_len);
        u16le(&mut out, 0);
        out.extend_from_slice(e.name);
        out.extend_from_slice(e.data);
        u32le(&mut central, 0x0201_4b50);
        // Made by Unix (3) when a mode is given, else by DOS.
        let made_by = if e.mode == 0 { 20 } else { 0x0314 };
        for x in [made_by, 20, e.flags, e.method, 0, 0x21] {
            u16le(&mut central, x);
        }
        for x in [crc, size, size] {
            u32le(&mut central, x);
        }
        for x in [name_len, 0, 0, 0, 0] {
            u16le(&mut central, x);
        }
        u32le(&mut central, e.mode << 16);
        u32le(&mut central, offset);
        central.extend_from_slice(e.name);
    }
    let (start, len) = (out.len(), central.len());
    out.extend_from_slice(&central);
    u32le(&mut out, 0x0605_4b50);
    let n = u16::try_from(entries.len()).expect("few");
    for x in [0, 0, n, n] {
        u16le(&mut out, x);
    }
    u32le(&mut out, u32::try_from(len).expect("small"));
    u32le(&mut out, u32::try_from(start).expect("small"));
    u16le(&mut out, 0);
    let path = dir.join(file);
    std::fs::write(&path, out).expect("write");
    path
}

const PY: &[u8] = b"def run(workspace):\n    return {\"text\": \"hi\"}\n";

fn manifest(id: &str, artifact: &str) -> String {
    format!(
        "manifest_version: \"1\"\nid: {id}\nname: Foreign\nversion: \"1.0.0\"\ntools:\n  - id: hello\n    entrypoint: tools.hello:run\n    \
         renderer: {{type: html, artifact: \"{artifact}\"}}\n"
    )
}

#[tokio::test]
async fn windows_and_macos_archives_install_with_the_names_their_authors_typed() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let app = env.app().await;
    // PowerShell 5: `\` separators, one top folder, a manifest saved by
    // Notepad with a byte order mark and CRLF.
    let m = format!("\u{feff}{}", manifest("win", "artifacts/view.html")).replace('\n', "\r\n");
    let zip = raw_zip(
        t.path(),
        "powershell.zip",
        &[
            Raw::file("win\\toolset.yaml", m.as_bytes()),
            Raw::file("win\\tools\\hello.py", PY),
            Raw::file("win\\artifacts\\view.html", b"<p>hi</p>"),
        ],
    );
    app.toolsets()
        .import(&zip, &ImportOptions::default())
        .await
        .expect("PowerShell's ZIP");
    let files = env.data().join("toolsets/win");
    assert!(files.join("tools/hello.py").is_file() && files.join("artifacts/view.html").is_file());

    // Windows' "Compressed folder": CP437 names, no UTF-8 flag ("ü" is 0x81).
    let m = manifest("cp", "artifacts/übersicht.html");
    let zip = raw_zip(
        t.path(),
        "explorer.zip",
        &[
            Raw::file("toolset.yaml", m.as_bytes()),
            Raw::file("tools/hello.py", PY),
            Raw {
                name: b"artifacts/\x81bersicht.html",
                ..Raw::file("", b"<p>hi</p>")
            },
        ],
    );
    app.toolsets()
        .import(&zip, &ImportOptions::default())
        .await
        .expect("Explorer's ZIP");
    assert!(env.data().join("toolsets/cp/artifacts/übersicht.html").is_file());

    // macOS: UTF-8 names decomposed ("u" + U+0308), flagged or not.
    let m = manifest("mac", "artifacts/übersicht.html");
    let zip = raw_zip(
        t.path(),
        "finder.zip",
        &[
            Raw::file("toolset.yaml", m.as_bytes()),
            Raw::file("tools/hello.py", PY),
            Raw::file("artifacts/u\u{308}bersicht.html", b"<p>hi</p>"),
            Raw::file("__MACOSX/tools/._hello.py", b"resource fork"),
        ],
    );
    app.toolsets()
        .import(&zip, &ImportOptions::default())
        .await
        .expect("Finder's ZIP");
    assert!(env.data().join("toolsets/mac/artifacts/übersicht.html").is_file());
}

#[tokio::test]
async fn a_server_script_stays_executable_and_its_node_modules_are_installed() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let app = env.app().await;
    let m = "manifest_version: \"1\"\nid: kit\nname: Kit\nversion: \"1.0.0\"\nmcp_servers:\n  - id: kitsrv\n    command: \"${__dirname}/server/run.sh\"\n";
    let zip = raw_zip(
        t.path(),
        "kit.zip",
        &[
            Raw::file("toolset.yaml", m.as_bytes()),
            Raw {
                mode: 0o100_755,
                ..Raw::file("server/run.sh", b"#!/bin/sh\nexec node index.js\n")
            },
            Raw {
                mode: 0o100_644,
                ..Raw::file("server/node_modules/dep/index.js", b"module.exports = 1;\n")
            },
        ],
    );
    app.toolsets()
        .import(&zip, &ImportOptions::default())
        .await
        .expect("import");
    let dir = env.data().join("toolsets/kit/server");
    let mode = std::fs::metadata(dir.join("run.sh"))
        .expect("run.sh")
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "executable: {mode:o}");
    assert!(
        dir.join("node_modules/dep/index.js").is_file(),
        "a ZIP's node_modules is the author's"
    );
    let index = std::fs::metadata(dir.join("node_modules/dep/index.js"))
        .expect("index")
        .permissions()
        .mode();
    assert_eq!(index & 0o111, 0, "only what was executable is: {index:o}");
    // Exported, it is still executable (and packed the same way).
    let out = t.path().join("kit-export.zip");
    app.toolsets().export("kit", &out).await.expect("export");
    let mut z = zip::ZipArchive::new(std::fs::File::open(&out).expect("open")).expect("zip");
    let run = z.by_name("server/run.sh").expect("run.sh").unix_mode().expect("mode");
    assert_eq!(run & 0o111, 0o111, "{run:o}");
}

#[tokio::test]
async fn other_methods_and_contradicting_headers_are_refused_saying_why() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let m = manifest("x", "artifacts/view.html");
    let bzip2 = raw_zip(
        t.path(),
        "bzip2.zip",
        &[
            Raw::file("toolset.yaml", m.as_bytes()),
            Raw {
                method: 12,
                ..Raw::file("tools/hello.py", PY)
            },
        ],
    );
    let msg = import_err(&env, &bzip2).await.to_string();
    assert!(
        msg.contains("\"tools/hello.py\"") && msg.contains("bzip2") && msg.contains("with Deflate"),
        "{msg}"
    );
    // A file and, under the same name, a folder of another entry.
    let clash = raw_zip(
        t.path(),
        "clash.zip",
        &[
            Raw::file("toolset.yaml", m.as_bytes()),
            Raw::file("tools", b"x"),
            Raw::file("tools/hello.py", PY),
        ],
    );
    let msg = import_err(&env, &clash).await.to_string();
    assert!(msg.contains("\"tools\"") && msg.contains("also the folder"), "{msg}");
    assert!(!msg.contains(".staging"), "names the bundle, not a temp folder: {msg}");
    // Two directory records pointing at one local header: the bytes of
    // one entry counted twice (the overlapping-entries bomb).
    let mut bytes = std::fs::read(raw_zip(
        t.path(),
        "one.zip",
        &[Raw::file("toolset.yaml", m.as_bytes()), Raw::file("tools/hello.py", PY)],
    ))
    .expect("read");
    let second = bytes
        .windows(4)
        .rposition(|w| w == [0x50, 0x4b, 0x01, 0x02])
        .expect("second record");
    // Its local header offset (record + 42) now points at the first entry.
    bytes[second + 42..second + 46].copy_from_slice(&0u32.to_le_bytes());
    let overlap = t.path().join("overlap.zip");
    std::fs::write(&overlap, bytes).expect("write");
    let msg = import_err(&env, &overlap).await.to_string();
    assert!(msg.contains("contradict") && msg.contains("other ZIP tools"), "{msg}");
    // A manifest in an encoding that is not UTF-8 names the bundle.
    let latin1 = raw_zip(
        t.path(),
        "latin1.zip",
        &[
            Raw::file("toolset.yaml", b"id: x\nname: Gr\xfc\xdfe\n"),
            Raw::file("tools/hello.py", PY),
        ],
    );
    let msg = import_err(&env, &latin1).await.to_string();
    assert!(
        msg.contains("latin1.zip") && msg.contains("line 2") && msg.contains("save it as UTF-8"),
        "{msg}"
    );
    assert!(!msg.contains(".staging"), "{msg}");
    assert_nothing_installed(&env).await;
}

#[tokio::test]
async fn a_folder_with_a_virtual_environment_of_any_name_imports_without_it() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let dir = t.path().join("withenv");
    for (path, body) in [
        ("toolset.yaml", manifest("withenv", "artifacts/view.html")),
        ("tools/hello.py", String::from_utf8_lossy(PY).into_owned()),
        ("artifacts/view.html", "<p>hi</p>".to_owned()),
        ("server/pyenv/pyvenv.cfg", "home = /usr/bin\n".to_owned()),
        ("server/venv/pyvenv.cfg", "home = /usr/bin\n".to_owned()),
    ] {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, body).expect("write");
    }
    // A venv's interpreter is a symlink, which a toolset may not hold.
    for venv in ["server/pyenv", "server/venv"] {
        std::fs::create_dir_all(dir.join(venv).join("bin")).expect("bin");
        std::os::unix::fs::symlink("/usr/bin/python3", dir.join(venv).join("bin/python")).expect("symlink");
    }
    let app = env.app().await;
    app.toolsets()
        .import(&dir, &ImportOptions::default())
        .await
        .expect("the venvs are left out");
    let files: Vec<String> = app
        .toolsets()
        .get("withenv")
        .await
        .expect("details")
        .files
        .into_iter()
        .map(|f| f.path)
        .collect();
    assert!(!files.iter().any(|f| f.starts_with("server/")), "{files:?}");
}
