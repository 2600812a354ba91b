//! Private files (no group or other permission: an SSH key, a `.env`) stay
//! private through everything that writes a workspace file again: branch
//! switches, checkouts of older nodes, editor saves, restores, exports.
//! Before, only the x bit was kept, and a 0600 key came back 0644 —
//! readable by every local user.

use std::path::Path;

use atelier_core::Observer;
use atelier_core::model::Role;
use atelier_core::workspace::edits::FileChange;

use crate::branching::text;
use crate::round_trips::{chmod, mode};
use crate::{Env, snap, write};

/// The modes of `files` in `ws`, to compare in one assertion.
fn modes(ws: &Path, files: &[&str]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|f| ((*f).to_owned(), format!("{:o}", mode(&ws.join(f)))))
        .collect()
}

fn expect(pairs: &[(&str, u32)]) -> Vec<(String, String)> {
    pairs.iter().map(|(f, m)| ((*f).to_owned(), format!("{m:o}"))).collect()
}

#[tokio::test]
async fn a_private_key_and_a_private_script_are_private_again_after_a_branch_switch() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(Some("keys")).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    write(&ws, "README.md", "shared");
    write(&ws, ".env", "TOKEN=1");
    chmod(&ws.join(".env"), 0o600);
    let base = snap(&app, &chat.id).await.message_id.expect("base");

    app.workspace()
        .append_message(&chat.id, None, Role::User, text("set up deploy"))
        .await
        .expect("a");
    write(&ws, ".env", "TOKEN=2, branch A");
    write(&ws, "keys/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----");
    chmod(&ws.join("keys/id_ed25519"), 0o600);
    write(&ws, "deploy.sh", "#!/bin/sh\nssh -i keys/id_ed25519 host\n");
    chmod(&ws.join("deploy.sh"), 0o700);
    write(&ws, "run.sh", "#!/bin/sh\n");
    chmod(&ws.join("run.sh"), 0o755);
    // Over 1 MiB: put in place from a staged, verified copy, not from memory.
    write(&ws, "keys/big.pem", vec![b'k'; (1 << 20) + 1]);
    chmod(&ws.join("keys/big.pem"), 0o600);
    let a = snap(&app, &chat.id).await.message_id.expect("a node");
    let files = [
        "README.md",
        ".env",
        "keys/id_ed25519",
        "keys/big.pem",
        "deploy.sh",
        "run.sh",
    ];
    let state_a = expect(&[
        ("README.md", 0o644),
        (".env", 0o600),
        ("keys/id_ed25519", 0o600),
        ("keys/big.pem", 0o600),
        ("deploy.sh", 0o700),
        ("run.sh", 0o755),
    ]);
    assert_eq!(modes(&ws, &files), state_a);

    // Branch B from the base: .env is put back (replaced), the rest removed.
    app.workspace()
        .append_message(&chat.id, Some(&base), Role::User, text("plan B"))
        .await
        .expect("b");
    assert!(!ws.join("keys").exists() && !ws.join("deploy.sh").exists());
    assert_eq!(mode(&ws.join(".env")), 0o600, "replaced on the switch, still private");
    write(&ws, "b.txt", "B");
    let b = snap(&app, &chat.id).await.message_id.expect("b node");

    for _ in 0..2 {
        app.workspace().checkout(&chat.id, &a).await.expect("to a");
        assert_eq!(modes(&ws, &files), state_a, "every file as it was made");
        assert!(!snap(&app, &chat.id).await.changed, "the folder is exactly node A");
        app.workspace().checkout(&chat.id, &b).await.expect("to b");
        assert_eq!(mode(&ws.join(".env")), 0o600);
    }
}

#[tokio::test]
async fn making_a_file_private_is_recorded_and_checking_out_either_side_sets_the_mode() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    write(&ws, "token.txt", "s3cret");
    write(&ws, "tool.sh", "echo");
    chmod(&ws.join("tool.sh"), 0o755);
    let open = snap(&app, &chat.id).await.message_id.expect("open node");

    chmod(&ws.join("token.txt"), 0o600);
    chmod(&ws.join("tool.sh"), 0o700);
    let s = snap(&app, &chat.id).await;
    assert!(s.changed, "a chmod alone is a change");
    assert_eq!((s.added, s.removed, s.modified), (0, 0, 2));
    let private = s.message_id.expect("private node");
    let d = serde_json::to_value(app.workspace().diff(&chat.id, &open, &private).await.expect("diff")).expect("json");
    assert_eq!(
        d["modified"],
        serde_json::json!([
            {"path": "token.txt", "mode_only": true, "mode_from": 0o644, "mode_to": 0o600},
            {"path": "tool.sh", "mode_only": true, "mode_from": 0o755, "mode_to": 0o700},
        ])
    );
    assert!(!snap(&app, &chat.id).await.changed, "and recorded once");

    let files = ["token.txt", "tool.sh"];
    app.workspace().checkout(&chat.id, &open).await.expect("to open");
    assert_eq!(modes(&ws, &files), expect(&[("token.txt", 0o644), ("tool.sh", 0o755)]));
    app.workspace().checkout(&chat.id, &private).await.expect("to private");
    assert_eq!(modes(&ws, &files), expect(&[("token.txt", 0o600), ("tool.sh", 0o700)]));
    assert!(!snap(&app, &chat.id).await.changed);
}

/// A checkout by a CLI process under `umask`: the modes the two files got,
/// and whether the next snapshot saw a change.
async fn checkout_under(umask: &str) -> (Vec<(String, String)>, bool) {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    write(&ws, "notes.md", "shared with the group");
    write(&ws, ".env", "TOKEN=1");
    chmod(&ws.join("notes.md"), 0o644);
    chmod(&ws.join(".env"), 0o600);
    let first = snap(&app, &chat.id).await.message_id.expect("first");
    std::fs::remove_file(ws.join("notes.md")).expect("rm");
    std::fs::remove_file(ws.join(".env")).expect("rm");
    let empty = snap(&app, &chat.id).await.message_id.expect("emptied");
    assert_ne!(first, empty);
    let out = std::process::Command::new("sh")
        .args(["-c", &format!("umask {umask} && exec \"$0\" \"$@\"")])
        .arg(env!("CARGO_BIN_EXE_atelier"))
        .arg("--data-dir")
        .arg(env.data())
        .args(["chat", "checkout", &chat.id, &first])
        .env_remove("ATELIER_DATA_DIR")
        .output()
        .expect("run atelier");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got = modes(&ws, &["notes.md", ".env"]);
    (got, snap(&app, &chat.id).await.changed)
}

#[tokio::test]
async fn a_checkout_under_umask_077_writes_the_recorded_modes_and_records_no_change() {
    // A umask that takes every group and other bit: a shared file made
    // 0600 would look made private.
    let (got, changed) = checkout_under("077").await;
    assert_eq!(got, expect(&[("notes.md", 0o644), (".env", 0o600)]));
    assert!(!changed, "a file the umask made 0600 would look made private");
}

#[tokio::test]
async fn a_checkout_under_umask_027_keeps_the_others_out_as_any_new_file() {
    // A hardened umask: what the store writes is narrowed as any program's
    // new file is, never widened to every local user.
    let (got, changed) = checkout_under("027").await;
    assert_eq!(got, expect(&[("notes.md", 0o640), (".env", 0o600)]));
    assert!(!changed, "0640 is still a shared file: nothing changed");
}

#[tokio::test]
async fn editor_saves_keep_a_private_files_mode_restores_and_exports_put_it_back() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    write(&ws, ".env", "TOKEN=1");
    chmod(&ws.join(".env"), 0o600);
    write(&ws, "run.sh", "#!/bin/sh\n");
    chmod(&ws.join("run.sh"), 0o700);
    write(&ws, "notes.md", "shared");
    let first = snap(&app, &chat.id).await.message_id.expect("first");

    let save = |text: &str| {
        vec![FileChange::Write {
            path: ".env".into(),
            text: text.into(),
        }]
    };
    app.workspace()
        .save_edit(&chat.id, None, save("TOKEN=2"))
        .await
        .expect("save");
    assert_eq!(mode(&ws.join(".env")), 0o600, "an editor save keeps the mode");

    // Opened up by hand, then restored from the first node: content and mode.
    chmod(&ws.join(".env"), 0o644);
    snap(&app, &chat.id).await;
    app.workspace()
        .restore_file(&chat.id, ".env", &first)
        .await
        .expect("restore");
    assert_eq!(std::fs::read_to_string(ws.join(".env")).expect("read"), "TOKEN=1");
    assert_eq!(mode(&ws.join(".env")), 0o600, "restored as it was");

    let out = env.data().join("out");
    app.workspace()
        .export(&chat.id, Some(&first), &out.join("folder"), &Observer::default())
        .await
        .expect("export");
    assert_eq!(mode(&out.join("folder/.env")), 0o600, "an exported folder");
    app.workspace()
        .export_file(&chat.id, ".env", Some(&first), &out.join("saved.env"))
        .await
        .expect("save as");
    assert_eq!(mode(&out.join("saved.env")), 0o600, "one file saved elsewhere");
    // A partial file a killed export left behind, readable by all.
    std::fs::write(out.join("all.zip.partial"), "half").expect("leftover");
    chmod(&out.join("all.zip.partial"), 0o644);
    app.workspace()
        .export(&chat.id, Some(&first), &out.join("all.zip"), &Observer::default())
        .await
        .expect("export zip");
    assert_eq!(mode(&out.join("all.zip")), 0o600, "a ZIP holding a private file");
    // Unpacked elsewhere, each file gets its mode back from its entry.
    let mut zip = zip::ZipArchive::new(std::fs::File::open(out.join("all.zip")).expect("open")).expect("zip");
    let entry_mode = |zip: &mut zip::ZipArchive<std::fs::File>, name: &str| {
        zip.by_name(name).expect("entry").unix_mode().map(|m| m & 0o777)
    };
    assert_eq!(entry_mode(&mut zip, ".env"), Some(0o600), "a private file's entry");
    assert_eq!(entry_mode(&mut zip, "run.sh"), Some(0o700), "a private script's entry");
    assert_eq!(entry_mode(&mut zip, "notes.md"), Some(0o644), "a shared file's entry");
}
