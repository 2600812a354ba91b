//! Changes made through the app: editor saves (also from an older call,
//! which branches there), restoring a file, and files dropped onto the
//! workspace.

use atelier_core::Observer;
use atelier_core::model::ManifestSource;
use atelier_core::workspace::edits::FileChange;

use crate::{Env, snap, tree_of, write};

fn write_change(path: &str, text: &str) -> FileChange {
    FileChange::Write {
        path: path.to_owned(),
        text: text.to_owned(),
    }
}

#[tokio::test]
async fn saving_an_editor_adds_an_edit_node_and_saving_an_older_one_branches_there() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    write(&ws, "app.py", "print(1)\n");
    let first = snap(&app, &chat.id).await.message_id.expect("first");
    write(&ws, "later.txt", "work after the first node");
    let later = snap(&app, &chat.id).await.message_id.expect("later");
    let later_state = tree_of(&ws);

    // Saving on the active leaf: a child of it.
    let saved = app
        .workspace()
        .save_edit(&chat.id, None, vec![write_change("app.py", "print(2)\n")])
        .await
        .expect("save");
    assert!(saved.changed && saved.modified == 1, "{saved:?}");
    let node = app
        .chats()
        .message(&chat.id, saved.message_id.as_deref().expect("node"))
        .await
        .expect("message");
    assert_eq!(node.parent_id.as_deref(), Some(later.as_str()));
    assert_eq!(std::fs::read_to_string(ws.join("app.py")).expect("read"), "print(2)\n");
    let diff = app.workspace().diff(&chat.id, &later, &node.id).await.expect("diff");
    assert_eq!(diff.modified.len(), 1);
    assert!(
        diff.modified[0]
            .diff
            .as_deref()
            .is_some_and(|d| d.contains("-print(1)") && d.contains("+print(2)")),
        "{diff:?}"
    );

    // Saving from the first node's view: a branch at `first`; the later
    // work is untouched on its own branch.
    let branch = app
        .workspace()
        .save_edit(
            &chat.id,
            Some(&first),
            vec![write_change("app.py", "print('branch')\n")],
        )
        .await
        .expect("save at first");
    let branch_node = app
        .chats()
        .message(&chat.id, branch.message_id.as_deref().expect("node"))
        .await
        .expect("message");
    assert_eq!(branch_node.parent_id.as_deref(), Some(first.as_str()));
    assert_eq!(
        tree_of(&ws),
        vec![("app.py".to_owned(), b"print('branch')\n".to_vec())],
        "the branch starts from the first node: no later.txt"
    );
    let chat_now = app.chats().get(&chat.id).await.expect("chat");
    assert_eq!(chat_now.active_leaf_message_id, branch_node.id);
    app.workspace().checkout(&chat.id, &later).await.expect("back");
    assert_eq!(tree_of(&ws), later_state);

    // Saving unchanged text adds no node; a path outside is refused.
    let same = app
        .workspace()
        .save_edit(
            &chat.id,
            None,
            vec![write_change("later.txt", "work after the first node")],
        )
        .await
        .expect("no-op");
    assert!(!same.changed && same.message_id.is_none());
    let e = app
        .workspace()
        .save_edit(&chat.id, None, vec![write_change("../escape.txt", "x")])
        .await
        .expect_err("outside");
    assert_eq!(e.kind(), "invalid_path", "{e}");
    assert!(!env.data().join("chats").join(&chat.id).join("escape.txt").exists());
}

#[tokio::test]
async fn a_file_is_restored_from_an_earlier_node_or_removed_if_it_was_not_there() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    write(&ws, "notes.md", "v1");
    let v1 = snap(&app, &chat.id).await.message_id.expect("v1");
    write(&ws, "notes.md", "v2");
    write(&ws, "new.txt", "added later");
    snap(&app, &chat.id).await;

    let r = app
        .workspace()
        .restore_file(&chat.id, "notes.md", &v1)
        .await
        .expect("restore");
    assert!(r.changed && r.modified == 1, "{r:?}");
    assert_eq!(std::fs::read_to_string(ws.join("notes.md")).expect("read"), "v1");
    assert_eq!(
        std::fs::read_to_string(ws.join("new.txt")).expect("read"),
        "added later",
        "only that file"
    );
    let r = app
        .workspace()
        .restore_file(&chat.id, "new.txt", &v1)
        .await
        .expect("restore absent");
    assert!(r.changed && r.removed == 1, "{r:?}");
    assert!(!ws.join("new.txt").exists());
}

#[tokio::test]
async fn dropped_files_and_folders_become_a_user_upload_node_and_a_zip_stays_a_file() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    let outside = env.data().join("outside");
    write(&outside, "report.csv", "a,b\n1,2\n");
    write(&outside, "bundle.zip", b"PK\x05\x06not really a toolset");
    write(&outside, "photos/a.txt", "A");
    write(&outside, "photos/deep/b.txt", "B");
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc/passwd", outside.join("photos/link")).expect("symlink");

    let up = app
        .workspace()
        .upload_files(
            &chat.id,
            vec![
                outside.join("report.csv"),
                outside.join("bundle.zip"),
                outside.join("photos"),
            ],
            "inbox",
            &Observer::default(),
        )
        .await
        .expect("upload");
    assert!(up.changed && up.added == 4, "{up:?}");
    #[cfg(unix)]
    assert!(
        up.warnings
            .iter()
            .any(|w| w.contains("photos/link") && w.contains("symlink")),
        "{:?}",
        up.warnings
    );
    let manifest = app
        .workspace()
        .manifest(&chat.id, Some(&up.manifest_id))
        .await
        .expect("manifest");
    assert_eq!(manifest.source, ManifestSource::UserUpload);
    // The tree says so too, so views tell an upload from a hand edit.
    let tree = app.chats().tree(&chat.id).await.expect("tree");
    let node = tree
        .iter()
        .find(|n| n.message.manifest_id == up.manifest_id)
        .expect("the upload node");
    assert_eq!(node.source, ManifestSource::UserUpload);
    assert_eq!(tree[0].source, ManifestSource::Empty, "the root");
    let paths: Vec<&str> = manifest.files.keys().map(String::as_str).collect();
    assert_eq!(
        paths,
        [
            "inbox/bundle.zip",
            "inbox/photos/a.txt",
            "inbox/photos/deep/b.txt",
            "inbox/report.csv"
        ]
    );
    assert!(
        app.toolsets()
            .list()
            .await
            .expect("toolsets")
            .iter()
            .all(|t| t.id != "bundle")
    );

    // A missing source fails before anything moves: no node, same files.
    let before = tree_of(&ws);
    let e = app
        .workspace()
        .upload_files(&chat.id, vec![outside.join("gone.txt")], "", &Observer::default())
        .await
        .expect_err("missing");
    assert_eq!(e.kind(), "io", "{e}");
    assert_eq!(tree_of(&ws), before);
    assert_eq!(
        app.chats().get(&chat.id).await.expect("chat").active_manifest_id,
        up.manifest_id
    );
}

#[tokio::test]
async fn a_nodes_workspace_exports_as_a_folder_or_a_zip_and_a_bad_blob_leaves_nothing() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    write(&ws, "run.sh", "#!/bin/sh\necho hi\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(ws.join("run.sh"), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    write(&ws, "src/ü.txt", "unicode");
    let first = snap(&app, &chat.id).await.message_id.expect("first");
    write(&ws, "later.txt", "not in the first node");
    snap(&app, &chat.id).await;

    let out = env.data().join("out");
    let folder = app
        .workspace()
        .export(&chat.id, Some(&first), &out.join("first"), &Observer::default())
        .await
        .expect("folder");
    assert_eq!((folder.files, folder.bytes), (2, 25));
    assert_eq!(
        tree_of(&out.join("first")),
        vec![
            ("run.sh".to_owned(), b"#!/bin/sh\necho hi\n".to_vec()),
            ("src/".to_owned(), Vec::new()),
            ("src/ü.txt".to_owned(), b"unicode".to_vec()),
        ]
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(out.join("first/run.sh"))
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "the executable bit survives");
    }
    let e = app
        .workspace()
        .export(&chat.id, Some(&first), &out.join("first"), &Observer::default())
        .await
        .expect_err("not empty");
    assert_eq!(e.kind(), "conflict", "{e}");

    let zip = app
        .workspace()
        .export(&chat.id, None, &out.join("now.zip"), &Observer::default())
        .await
        .expect("zip");
    assert_eq!(zip.files, 3);
    let mut archive = zip::ZipArchive::new(std::fs::File::open(out.join("now.zip")).expect("open")).expect("zip");
    let mut names: Vec<String> = (0..archive.len())
        .map(|i| archive.by_index(i).expect("entry").name().expect("name").to_string())
        .collect();
    names.sort();
    assert_eq!(names, ["later.txt", "run.sh", "src/ü.txt"]);
    let run = archive.by_name("run.sh").expect("run.sh");
    #[cfg(unix)]
    assert_eq!(
        run.unix_mode().map(|m| m & 0o111),
        Some(0o111),
        "the executable bit survives in a ZIP"
    );
    assert!(
        run.last_modified().is_some_and(|t| t.year() >= 2026),
        "dated when the node was recorded, not 1980"
    );
    drop(run);

    // A corrupt blob: the export fails naming the file, and leaves no ZIP.
    let manifest = app.workspace().manifest(&chat.id, None).await.expect("manifest");
    let sha = &manifest.files["later.txt"];
    std::fs::write(crate::blob_path(env.data(), &chat.id, sha), "tampered").expect("tamper");
    let e = app
        .workspace()
        .export(&chat.id, None, &out.join("bad.zip"), &Observer::default())
        .await
        .expect_err("corrupt");
    assert!(e.to_string().contains("later.txt"), "{e}");
    assert!(!out.join("bad.zip").exists() && !out.join("bad.zip.partial").exists());

    // A name with a backslash (fine on Linux) would be a folder to a
    // Windows unzip, `..\` included: no ZIP, a folder is fine.
    std::fs::remove_file(ws.join("later.txt")).expect("rm");
    write(&ws, "a\\..\\b.txt", "odd");
    snap(&app, &chat.id).await;
    let e = app
        .workspace()
        .export(&chat.id, None, &out.join("odd.zip"), &Observer::default())
        .await
        .expect_err("no ZIP");
    assert!(
        e.to_string().contains("backslash") && e.to_string().contains("a\\\\..\\\\b.txt"),
        "{e}"
    );
    assert!(!out.join("odd.zip").exists());
    app.workspace()
        .export(&chat.id, None, &out.join("odd"), &Observer::default())
        .await
        .expect("a folder");
}

/// Save as…: one file version out of the workspace, replacing the chosen
/// file; a corrupt blob or a folder as the target leaves things as they were.
#[tokio::test]
async fn one_file_of_a_node_is_saved_as_a_chosen_file() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    std::fs::create_dir_all(ws.join("img")).expect("mkdir");
    std::fs::write(ws.join("img/pic.bin"), [0u8, 159, 146, 150]).expect("write");
    let first = snap(&app, &chat.id).await.message_id.expect("first");
    std::fs::write(ws.join("img/pic.bin"), b"newer").expect("write");
    snap(&app, &chat.id).await;

    let out = env.data().join("out");
    std::fs::create_dir_all(&out).expect("mkdir");
    std::fs::write(out.join("old.bin"), b"replace me").expect("write");
    let saved = app
        .workspace()
        .export_file(&chat.id, "img/pic.bin", Some(&first), &out.join("old.bin"))
        .await
        .expect("saved");
    assert_eq!((saved.files, saved.bytes), (1, 4));
    assert_eq!(std::fs::read(out.join("old.bin")).expect("read"), [0u8, 159, 146, 150]);
    app.workspace()
        .export_file(&chat.id, "img/pic.bin", None, &out.join("now.bin"))
        .await
        .expect("saved");
    assert_eq!(std::fs::read(out.join("now.bin")).expect("read"), b"newer");

    let e = app
        .workspace()
        .export_file(&chat.id, "img/nope.bin", None, &out.join("x.bin"))
        .await
        .expect_err("missing");
    assert_eq!(e.kind(), "file_not_found", "{e}");
    let e = app
        .workspace()
        .export_file(&chat.id, "img/pic.bin", None, &out)
        .await
        .expect_err("a folder");
    assert_eq!(e.kind(), "conflict", "{e}");

    let sha = &app.workspace().manifest(&chat.id, None).await.expect("manifest").files["img/pic.bin"];
    std::fs::write(crate::blob_path(env.data(), &chat.id, sha), "tampered").expect("tamper");
    let e = app
        .workspace()
        .export_file(&chat.id, "img/pic.bin", None, &out.join("old.bin"))
        .await
        .expect_err("corrupt");
    assert!(e.to_string().contains("img/pic.bin"), "{e}");
    assert_eq!(
        std::fs::read(out.join("old.bin")).expect("read"),
        [0u8, 159, 146, 150],
        "untouched"
    );
    let left: Vec<_> = std::fs::read_dir(&out)
        .expect("ls")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left.len(), 2, "no partial file left: {left:?}");
}

#[cfg(unix)]
#[tokio::test]
async fn an_upload_never_goes_through_a_symlinked_target_folder() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    let elsewhere = env.data().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    std::os::unix::fs::symlink(&elsewhere, ws.join("inbox")).expect("symlink");
    write(&env.data().join("src"), "a.txt", "A");
    let e = app
        .workspace()
        .upload_files(
            &chat.id,
            vec![env.data().join("src/a.txt")],
            "inbox",
            &Observer::default(),
        )
        .await
        .expect_err("through a symlink");
    assert_eq!(e.kind(), "invalid_path", "{e}");
    assert!(e.to_string().contains("inbox"), "{e}");
    assert!(
        std::fs::read_dir(&elsewhere).expect("read").next().is_none(),
        "nothing written outside"
    );
}
