//! Snapshot → materialize round trips on real files.

use std::os::unix::fs::{PermissionsExt, symlink};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use atelier_core::Observer;

use crate::{Env, paths, snap, tree_of, write};

pub(crate) fn chmod(p: &std::path::Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

pub(crate) fn mode(p: &std::path::Path) -> u32 {
    std::fs::metadata(p).expect("stat").permissions().mode() & 0o777
}

#[tokio::test]
async fn exec_bits_unicode_names_deletions_and_emptied_folders_round_trip() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);

    write(&ws, "a.txt", "alpha\n");
    write(&ws, "bin/run.sh", "#!/bin/sh\necho hi\n");
    chmod(&ws.join("bin/run.sh"), 0o755);
    write(&ws, "dir/sub/ünï cødé ✓.txt", "unicode");
    write(&ws, "weird name & $dollar (1)", "w");
    write(&ws, "-dash", "d");
    write(&ws, ".hidden", "h");
    write(&ws, "deep/a/b/c/d.txt", "deep");
    write(&ws, "empty", "");
    std::fs::create_dir_all(ws.join("an/empty/folder")).expect("mkdir");
    let first = snap(&app, &chat.id).await;
    assert!(first.changed);
    assert_eq!(first.added, 8, "empty folders are not recorded, files are");
    std::fs::remove_dir_all(ws.join("an")).expect("rm");
    let state1 = tree_of(&ws);

    std::fs::remove_dir_all(ws.join("deep")).expect("rm");
    chmod(&ws.join("a.txt"), 0o755);
    write(&ws, "bin/run.sh", "#!/bin/sh\necho changed\n");
    write(&ws, "new.txt", "new");
    let second = snap(&app, &chat.id).await;
    assert_eq!((second.added, second.removed, second.modified), (1, 1, 2));
    let state2 = tree_of(&ws);

    let e1 = first.message_id.expect("first node");
    let e2 = second.message_id.expect("second node");
    app.workspace().checkout(&chat.id, &e1).await.expect("checkout 1");
    assert_eq!(tree_of(&ws), state1);
    assert_eq!(mode(&ws.join("bin/run.sh")), 0o755);
    assert_eq!(mode(&ws.join("a.txt")) & 0o100, 0);

    app.workspace().checkout(&chat.id, &e2).await.expect("checkout 2");
    let now = tree_of(&ws);
    assert_eq!(now, state2);
    assert!(
        !paths(&now).iter().any(|p| p.starts_with("deep")),
        "emptied folders are pruned: {:?}",
        paths(&now)
    );
    assert_eq!(mode(&ws.join("a.txt")) & 0o100, 0o100);

    app.workspace()
        .checkout(&chat.id, &chat.root_message_id)
        .await
        .expect("checkout root");
    assert!(tree_of(&ws).is_empty(), "the root is the empty workspace");
    assert!(
        !snap(&app, &chat.id).await.changed,
        "an empty workspace is a valid, unchanged state"
    );
}

#[tokio::test]
async fn symlinks_are_skipped_with_a_warning_and_never_followed() {
    let env = Env::new();
    let outside = tempfile::tempdir().expect("outside");
    write(outside.path(), "secret.txt", "do not touch");
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);

    write(&ws, "link/x", "inside");
    let with_dir = snap(&app, &chat.id).await.message_id.expect("node");

    std::fs::remove_dir_all(ws.join("link")).expect("rm");
    symlink(outside.path(), ws.join("link")).expect("symlink");
    symlink("secret.txt", ws.join("rel-link")).expect("symlink");
    let s = snap(&app, &chat.id).await;
    assert!(
        s.changed && s.removed == 1,
        "link/x is gone; the symlink itself is not stored"
    );
    assert!(
        s.warnings
            .iter()
            .any(|w| w.starts_with("link:") && w.contains("symlink")),
        "{:?}",
        s.warnings
    );
    assert!(
        s.warnings.iter().any(|w| w.starts_with("rel-link:")),
        "{:?}",
        s.warnings
    );
    let files = app.workspace().list_files(&chat.id, None).await.expect("ls");
    assert!(files.is_empty(), "no symlink in the manifest: {files:?}");

    // Materializing link/x must replace the symlink with a real folder, not
    // write through it.
    app.workspace().checkout(&chat.id, &with_dir).await.expect("checkout");
    assert!(std::fs::symlink_metadata(ws.join("link")).expect("stat").is_dir());
    assert_eq!(std::fs::read_to_string(ws.join("link/x")).expect("read"), "inside");
    assert_eq!(
        tree_of(outside.path()),
        vec![("secret.txt".to_owned(), b"do not touch".to_vec())]
    );
}

#[tokio::test]
async fn a_same_size_rewrite_right_after_a_snapshot_is_detected() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    write(&ws, "f", "aaaa");
    assert!(snap(&app, &chat.id).await.changed);
    // Same size, same second: only the stat cache's racy-clean rule (or the
    // nanosecond mtime) can tell.
    write(&ws, "f", "bbbb");
    let s = snap(&app, &chat.id).await;
    assert!(s.changed && s.modified == 1, "{s:?}");
    assert!(!snap(&app, &chat.id).await.changed);
    let bytes = app.workspace().read_file(&chat.id, "f", None).await.expect("cat");
    assert_eq!(bytes, b"bbbb");
}

#[tokio::test]
async fn snapshots_report_progress() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    for i in 0..50 {
        write(&ws, &format!("d{}/f{i}", i % 5), vec![b'x'; 1000 + i]);
    }
    let last = Arc::new((AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)));
    let seen = last.clone();
    let obs = Observer::default().with_progress(move |p| {
        seen.0.store(p.files_done, Ordering::SeqCst);
        seen.1.store(p.files_total, Ordering::SeqCst);
        seen.2.store(p.bytes_done, Ordering::SeqCst);
    });
    app.workspace().snapshot(&chat.id, &obs).await.expect("snapshot");
    assert_eq!(last.1.load(Ordering::SeqCst), 50);
    assert_eq!(last.0.load(Ordering::SeqCst), 50);
    assert_eq!(last.2.load(Ordering::SeqCst), (0..50).map(|i| 1000 + i).sum::<u64>());
}

#[tokio::test]
async fn a_manifest_costs_what_changed_not_the_whole_workspace() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    for i in 0..2000 {
        write(
            &ws,
            &format!("folder{:02}/file{i:04}.txt", i % 40),
            format!("content {i}"),
        );
    }
    snap(&app, &chat.id).await;
    let tree_bytes = || async {
        sqlx::query_scalar::<_, i64>("SELECT coalesce(sum(length(data)), 0) FROM workspace_trees WHERE chat_id = ?")
            .bind(&chat.id)
            .fetch_one(app.db())
            .await
            .expect("sum")
    };
    let full = tree_bytes().await;
    for i in 0..20 {
        write(
            &ws,
            &format!("folder{:02}/file{i:04}.txt", i % 40),
            format!("changed {i}"),
        );
        let s = snap(&app, &chat.id).await;
        assert!(s.changed);
        let m = app
            .workspace()
            .get_manifest(&chat.id, &s.manifest_id)
            .await
            .expect("manifest");
        assert_eq!(m.files.len(), 2000, "the API still returns the full map");
        assert_eq!(m.changes.len(), 1, "the row stores the change set: {:?}", m.changes);
    }
    let grown = tree_bytes().await - full;
    // 20 snapshots: each adds one ~50-entry folder tree and a 40-entry root.
    assert!(
        grown * 10 < full * 20,
        "20 one-file snapshots added {grown} bytes; one full set is {full}"
    );
    assert!(
        grown / 20 < full / 5,
        "per snapshot {} bytes vs full {full}",
        grown / 20
    );
}

#[tokio::test]
async fn a_checkout_blocked_by_an_untracked_symlink_leaves_the_folder_exactly_as_it_was() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    // B: a.txt = 2 and `x` a file.
    write(&ws, "a.txt", "2");
    write(&ws, "x", "x is a file here");
    let b = snap(&app, &chat.id).await.message_id.expect("b");
    // A (after B): a.txt = 1 and `x/` a folder.
    std::fs::remove_file(ws.join("x")).expect("rm");
    write(&ws, "a.txt", "1");
    write(&ws, "x/y.txt", "y");
    snap(&app, &chat.id).await;
    // An untracked symlink inside x/: x cannot become a file.
    symlink("/etc/hostname", ws.join("x/link")).expect("symlink");
    let before = tree_of(&ws);
    let err = app.workspace().checkout(&chat.id, &b).await.expect_err("blocked");
    let msg = err.to_string();
    assert!(msg.contains("x/link") && msg.contains("must become a file"), "{msg}");
    assert_eq!(
        tree_of(&ws),
        before,
        "nothing was changed before the obstacle was found"
    );
    // Once it is moved away, the checkout goes through.
    std::fs::remove_file(ws.join("x/link")).expect("rm link");
    app.workspace().checkout(&chat.id, &b).await.expect("checkout");
    assert_eq!(std::fs::read_to_string(ws.join("x")).expect("x"), "x is a file here");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).expect("a"), "2");
}

/// A file that became a folder holding an empty folder (a tool's `mkdir`)
/// becomes the file again on checkout. The empty folder was no obstacle to
/// the check before the checkout, then blocked it half-way: the folder's
/// files were already gone, the chat stayed on the other node, and the next
/// snapshot recorded the half-switched folder as a person's edit.
#[tokio::test]
async fn a_folder_with_only_an_empty_folder_left_becomes_the_file_again() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    write(&ws, "f", "file");
    let x = snap(&app, &chat.id).await.message_id.expect("x");
    std::fs::remove_file(ws.join("f")).expect("rm");
    write(&ws, "f/inner.txt", "inner");
    std::fs::create_dir(ws.join("f/sub")).expect("mkdir");
    std::fs::create_dir(ws.join("f/sub/deeper")).expect("mkdir");
    let y = snap(&app, &chat.id).await.message_id.expect("y");
    let moved = app.workspace().checkout(&chat.id, &x).await.expect("checkout");
    assert_eq!(
        std::fs::read_to_string(ws.join("f")).expect("f is a file again"),
        "file"
    );
    assert_eq!(moved.active_leaf_message_id, x, "the chat moved to X");
    // And back: the folder with its file.
    app.workspace().checkout(&chat.id, &y).await.expect("back");
    assert_eq!(std::fs::read_to_string(ws.join("f/inner.txt")).expect("inner"), "inner");
}
