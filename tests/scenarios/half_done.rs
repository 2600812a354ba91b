//! Work a crash cut half-way: a checkout killed while it moved the folder
//! is finished (not recorded as the person's edit), and what a killed
//! uninstall, export or upload left is put right by the next start (forks
//! and deletes: `half_done_forks`).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use atelier_core::Atelier;

use crate::{Env, snap, tree_of, write};

/// Files in the big state: enough that removing or writing them takes
/// long enough to be killed half-way.
const FILES: usize = 2_000;

fn name(i: usize) -> String {
    format!("d{:02}/f{i:04}.txt", i / 100)
}

fn first() -> String {
    name(0)
}

fn last() -> String {
    name(FILES - 1)
}

/// A chat whose root is empty and whose active leaf `big` holds FILES
/// files; returns (chat id, root id, big's id).
async fn chat_with_big_state(app: &Atelier) -> (String, String, String) {
    let chat = app.chats().create(Some("half done")).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    for i in 0..FILES {
        write(&ws, &name(i), format!("file {i}\n"));
    }
    let big = snap(app, &chat.id).await.message_id.expect("big state");
    (chat.id, chat.root_message_id, big)
}

fn checkout_child(env: &Env, chat: &str, target: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_atelier"))
        .arg("--data-dir")
        .arg(env.data())
        .args(["chat", "checkout", chat, target])
        .env_remove("ATELIER_DATA_DIR")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn checkout")
}

/// Kills `child` (SIGKILL) as soon as `half_way` says the folder is half
/// moved; panics if the child ends first.
fn kill_half_way(mut child: Child, half_way: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if half_way() {
            child.kill().expect("SIGKILL the checkout");
            child.wait().expect("reap");
            return;
        }
        assert!(
            child.try_wait().expect("poll").is_none(),
            "the checkout ended before it was seen half-way"
        );
        assert!(Instant::now() < deadline, "the checkout never got half-way");
        std::thread::sleep(Duration::from_micros(200));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_checkout_killed_while_removing_is_finished_and_only_a_hand_edit_is_recorded() {
    let env = Env::new();
    let app = env.app().await;
    let (chat, root, big) = chat_with_big_state(&app).await;
    let ws = app.workspace_dir(&chat);

    let child = checkout_child(&env, &chat, &root);
    kill_half_way(child, || !ws.join(first()).exists());
    assert!(
        ws.join(last()).exists(),
        "killed half-way: the last file is still there"
    );
    write(&ws, "notes.txt", "mine");

    let outcome = snap(&app, &chat).await;
    assert_eq!(
        (outcome.added, outcome.removed, outcome.modified),
        (1, 0, 0),
        "only the hand-made file is an edit, not the files the checkout was removing: {outcome:?}"
    );
    assert_eq!(tree_of(&ws), vec![("notes.txt".to_owned(), b"mine".to_vec())]);
    let edit = app
        .chats()
        .message(&chat, outcome.message_id.as_deref().expect("edit node"))
        .await
        .expect("edit");
    assert_eq!(
        edit.parent_id.as_deref(),
        Some(root.as_str()),
        "the checkout to the root was finished, the edit is made there (not under {big})"
    );
    assert!(
        !env.data().join("chats").join(&chat).join("moving.json").exists(),
        "nothing is left to finish"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_checkout_killed_while_writing_is_finished_by_the_next_start() {
    let env = Env::new();
    let (chat, root, big) = {
        let app = env.app().await;
        let ids = chat_with_big_state(&app).await;
        app.workspace().checkout(&ids.0, &ids.1).await.expect("to the root");
        ids
    };
    let ws = env.data().join("chats").join(&chat).join("workspace");
    let nodes_before = {
        let app = env.app().await;
        app.chats().tree(&chat).await.expect("tree").len()
    };

    let child = checkout_child(&env, &chat, &big);
    kill_half_way(child, || ws.join(first()).exists());
    let written = walk_count(&ws);
    assert!(written < FILES, "killed half-way: {written} of {FILES} written");

    let app = env.app().await;
    let chat_now = app.chats().get(&chat).await.expect("chat");
    assert_eq!(
        chat_now.active_leaf_message_id, big,
        "the start finished the checkout the person asked for (from {root})"
    );
    assert_eq!(walk_count(&ws), FILES, "every file of the target is there");
    assert_eq!(
        std::fs::read_to_string(ws.join(last())).expect("last"),
        format!("file {}\n", FILES - 1)
    );
    let outcome = snap(&app, &chat).await;
    assert!(!outcome.changed, "no edit is recorded: {outcome:?}");
    assert_eq!(
        app.chats().tree(&chat).await.expect("tree").len(),
        nodes_before,
        "no phantom branch of the files the checkout had written"
    );
}

/// Regular files under `root`.
fn walk_count(root: &Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(root).expect("read_dir").flatten() {
        let ft = e.file_type().expect("file type");
        if ft.is_dir() {
            n += walk_count(&e.path());
        } else if ft.is_file() {
            n += 1;
        }
    }
    n
}

#[tokio::test]
async fn staging_folders_a_crash_left_go_at_start_and_by_gc_and_a_live_one_stays() {
    let env = Env::new();
    let chat = {
        let app = env.app().await;
        app.chats().create(Some("staging")).await.expect("chat").id
    };
    let chat_dir = env.data().join("chats").join(&chat);
    // An export and an upload killed while they copied (an old one without
    // its lock file too), and one another process is filling now.
    write(&chat_dir, "export-01a0dead/a/big.bin", [7u8; 4096]);
    write(&chat_dir, "upload-01a0dead/photo.jpg", "half a photo");
    write(&chat_dir, "upload-01a0dead.lock", "");
    write(&chat_dir, "upload-01a0live/doc.txt", "still copying");
    let live = atelier_core::lock::FileLock::acquire(&chat_dir.join("upload-01a0live.lock")).expect("live lock");

    let app = env.app().await;
    assert!(
        !chat_dir.join("export-01a0dead").exists(),
        "a dead export's copy goes at start"
    );
    assert!(
        !chat_dir.join("upload-01a0dead").exists(),
        "a dead upload's copy goes at start"
    );
    assert!(!chat_dir.join("upload-01a0dead.lock").exists(), "with its lock file");
    assert!(
        chat_dir.join("upload-01a0live/doc.txt").exists(),
        "an upload being copied by a live process stays"
    );

    write(&chat_dir, "export-01a0late/x.txt", "left by a crash since");
    let report = app
        .workspace()
        .gc(&atelier_core::Observer::default())
        .await
        .expect("gc");
    assert_eq!(report.temp_files_removed, 1, "{report:?}");
    assert!(!chat_dir.join("export-01a0late").exists(), "gc removes it too");
    assert!(chat_dir.join("upload-01a0live").exists(), "gc leaves the live one");

    drop(live);
    app.workspace()
        .gc(&atelier_core::Observer::default())
        .await
        .expect("gc");
    assert!(
        !chat_dir.join("upload-01a0live").exists(),
        "once its process is gone, it goes"
    );
    // What the app's own exports and uploads stage is gone when they end.
    let out = env.data().join("out.zip");
    app.workspace()
        .export(&chat, None, &out, &atelier_core::Observer::default())
        .await
        .expect("export");
    let left: Vec<String> = std::fs::read_dir(&chat_dir)
        .expect("chat dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("export-") || n.starts_with("upload-"))
        .collect();
    assert_eq!(left, Vec::<String>::new());
}

#[tokio::test]
async fn an_upload_killed_while_put_in_place_is_finished_as_the_upload() {
    let env = Env::new();
    let (chat, leaf, manifest) = {
        let app = env.app().await;
        let chat = app.chats().create(Some("upload")).await.expect("chat");
        write(&app.workspace_dir(&chat.id), "data/old.txt", "there before");
        let s = snap(&app, &chat.id).await;
        (chat.id, s.message_id.expect("node"), s.manifest_id)
    };
    // The state a process killed in the middle of putting an upload of
    // `data/` in place leaves: one file moved, one still staged, the move
    // marked, the staging folder's lock free.
    let chat_dir = env.data().join("chats").join(&chat);
    write(&chat_dir, "workspace/data/one.txt", "uploaded 1");
    write(&chat_dir, "upload-01a0kill/data/two.txt", "uploaded 2");
    write(&chat_dir, "upload-01a0kill.lock", "");
    let marker = serde_json::json!({
        "from_leaf": leaf, "from": manifest, "to_leaf": leaf, "to": manifest,
        "upload": {"staging": "upload-01a0kill", "dest": ""},
    });
    std::fs::write(chat_dir.join("moving.json"), marker.to_string()).expect("marker");

    let app = env.app().await;
    assert_eq!(
        tree_of(&chat_dir.join("workspace")),
        vec![
            ("data/".to_owned(), Vec::new()),
            ("data/old.txt".to_owned(), b"there before".to_vec()),
            ("data/one.txt".to_owned(), b"uploaded 1".to_vec()),
            ("data/two.txt".to_owned(), b"uploaded 2".to_vec()),
        ],
        "the upload is finished"
    );
    let m = app.workspace().manifest(&chat, None).await.expect("manifest");
    assert_eq!(
        m.source,
        atelier_core::model::ManifestSource::UserUpload,
        "recorded as the person's upload, not as an edit"
    );
    assert!(!chat_dir.join("upload-01a0kill").exists(), "its staging folder is gone");
    assert!(!snap(&app, &chat).await.changed, "nothing left to record");
}

/// Imports toolset `gone` (a server whose plain-text token goes to the
/// secrets file) with the CLI.
fn import_gone(env: &Env, dir: &Path) {
    let m = "manifest_version: \"1\"\nid: gone\nname: Gone\nversion: \"1.0.0\"\n\
             tools:\n  - id: hello\n    entrypoint: tools.hello:run\n    \
               input_schema: {type: object, properties: {}}\n\
             mcp_servers:\n  - id: gone-srv\n    command: /bin/true\n    env:\n      TOKEN: \"tok-GONE-4242\"\n";
    let zip = crate::bundles::zip_of(
        dir,
        "gone.zip",
        &[
            ("toolset.yaml", m.as_bytes()),
            ("tools/hello.py", b"def run(workspace):\n    return {}\n"),
        ],
    );
    let zip = zip.to_str().expect("utf-8");
    let out = crate::secrets::on_bus_with(
        env,
        crate::toolset_secrets::DEAD_BUS,
        &["toolset", "import", zip, "--allow-file-secrets"],
        Some(""),
        &[],
    );
    assert!(out.status.success(), "{}", crate::secrets::text(&out));
}

#[tokio::test]
async fn an_uninstall_killed_after_its_commit_leaves_no_folder_after_a_start() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    import_gone(&env, t.path());
    let installed = env.data().join("toolsets/gone");
    let secrets_file = || std::fs::read_to_string(env.data().join("secrets.json")).unwrap_or_default();
    assert!(installed.is_dir() && secrets_file().contains("tok-GONE-4242"));

    // What an uninstall killed right after its commit left (before it
    // moved the folder aside first): the row gone, the folder there.
    {
        let app = env.app().await;
        sqlx::query("DELETE FROM toolsets WHERE id = 'gone'")
            .execute(app.db())
            .await
            .expect("the uninstall's commit");
    }
    // While an import of that id runs in another process (its lock held),
    // the folder may be its, not yet committed: a start leaves it.
    let importing = atelier_core::lock::FileLock::acquire(&env.data().join("toolsets/.import-gone.lock"))
        .expect("an import's lock");
    drop(env.app().await);
    assert!(
        installed.is_dir(),
        "a start never removes what a live import put in place"
    );
    drop(importing);
    let app = env.app().await;
    assert!(
        !installed.exists(),
        "the start removes the folder of an uninstalled toolset"
    );
    drop(app);

    // Killed before its commit, the folder moved aside: it comes back.
    import_gone(&env, t.path());
    let aside = env
        .data()
        .join("toolsets/.trash-gone-01a22360-0000-7000-8000-000000000000");
    std::fs::rename(&installed, &aside).expect("aside");
    let app = env.app().await;
    assert!(installed.join("toolset.yaml").exists(), "the folder is back");
    assert!(!aside.exists());
    assert!(
        secrets_file().contains("tok-GONE-4242"),
        "the installed toolset keeps its secret"
    );

    // A whole uninstall leaves nothing behind.
    app.toolsets().uninstall("gone").await.expect("uninstall");
    assert!(!secrets_file().contains("tok-GONE-4242"), "{}", secrets_file());
    assert!(app.secrets().list(None).await.expect("names").is_empty());
    let left: Vec<String> = std::fs::read_dir(env.data().join("toolsets"))
        .expect("toolsets")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, Vec::<String>::new());
}
