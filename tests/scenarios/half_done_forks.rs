//! Forks and deletes cut half-way: a fork another process is copying is
//! left alone by a start and ends whole, one killed before its commit goes
//! and one killed after it is put in place, and a delete under way in
//! another process is left alone (one that died is put right).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use atelier_core::Atelier;

use crate::{Env, snap, tree_of, write};

/// `atelier chat fork <chat> <at>` held at failpoint `at_point` while the
/// file `flag` exists.
fn paused_fork(env: &Env, chat: &str, at: &str, at_point: &str, flag: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_atelier"))
        .arg("--data-dir")
        .arg(env.data())
        .args(["chat", "fork", chat, at])
        .env_remove("ATELIER_DATA_DIR")
        .env("ATELIER_FAILPOINT", format!("{at_point}:pause"))
        .env("ATELIER_FAILPOINT_FLAG", flag)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn fork")
}

/// A chat whose node `at` holds a.txt; (chat id, at).
async fn chat_to_fork(env: &Env) -> (String, String) {
    let app = env.app().await;
    let chat = app.chats().create(Some("Source")).await.expect("chat").id;
    write(&app.workspace_dir(&chat), "a.txt", "one");
    let at = snap(&app, &chat).await.message_id.expect("an edit node");
    (chat, at)
}

fn wait_for(flag: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !flag.exists() {
        assert!(Instant::now() < deadline, "the fork never reached its failpoint");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// SIGKILLs `child` once it is paused at its failpoint.
fn kill_paused(mut child: Child, flag: &Path) {
    wait_for(flag);
    child.kill().expect("SIGKILL the fork");
    child.wait().expect("reap");
    std::fs::remove_file(flag).expect("flag");
}

/// The chat that is not `source`: its fork.
async fn other_chat(app: &Atelier, source: &str) -> Option<atelier_core::model::Chat> {
    let chats = app.chats().list().await.expect("list");
    chats.into_iter().find(|c| c.id != source)
}

/// Names in `chats/` a fork stages with.
fn fork_staging(env: &Env) -> Vec<String> {
    std::fs::read_dir(env.data().join("chats"))
        .expect("chats dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".fork-"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fork_another_process_is_copying_survives_a_start_and_ends_whole() {
    let env = Env::new();
    let (chat, at) = chat_to_fork(&env).await;
    let flag = env.data().join("paused");
    let child = paused_fork(&env, &chat, &at, "fork-before-commit", &flag);
    wait_for(&flag);
    // The app (or any CLI command) starts while the fork copies.
    drop(env.app().await);
    std::fs::remove_file(&flag).expect("let the fork go on");
    let out = child.wait_with_output().expect("fork");
    assert!(
        out.status.success(),
        "the fork is not cut short by another start: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let app = env.app().await;
    let fork = other_chat(&app, &chat).await.expect("the fork");
    assert_eq!(fork.title, "Source (fork)");
    assert_eq!(
        tree_of(&app.workspace_dir(&fork.id)),
        vec![("a.txt".to_owned(), b"one".to_vec())],
        "the fork has its files"
    );
    assert_eq!(fork_staging(&env), Vec::<String>::new(), "nothing staged is left");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fork_killed_before_its_commit_goes_and_one_killed_after_it_is_put_in_place() {
    let env = Env::new();
    let (chat, at) = chat_to_fork(&env).await;
    let flag = env.data().join("paused");

    kill_paused(paused_fork(&env, &chat, &at, "fork-before-commit", &flag), &flag);
    assert_eq!(fork_staging(&env).len(), 2, "its folder and lock file are left");
    let app = env.app().await;
    assert!(other_chat(&app, &chat).await.is_none(), "no half-made fork");
    assert_eq!(fork_staging(&env), Vec::<String>::new(), "its copy is removed");
    drop(app);

    kill_paused(paused_fork(&env, &chat, &at, "fork-after-commit", &flag), &flag);
    let app = env.app().await;
    let fork = other_chat(&app, &chat).await.expect("the committed fork is kept");
    assert_eq!(fork_staging(&env), Vec::<String>::new(), "its folder is put in place");
    // Killed before its checkout: at its root, with every blob its nodes need.
    let leaf = app
        .chats()
        .tree(&fork.id)
        .await
        .expect("tree")
        .into_iter()
        .find(|n| n.message.parent_id.is_some())
        .expect("the forked node")
        .message
        .id;
    app.workspace().checkout(&fork.id, &leaf).await.expect("checkout");
    assert_eq!(
        tree_of(&app.workspace_dir(&fork.id)),
        vec![("a.txt".to_owned(), b"one".to_vec())]
    );
}

/// A delete moves the chat's folder to `chats/.trash-<id>` before its
/// commit, holding the chat's lock (whose file goes with the folder). A
/// start in another process in that window used to put the folder back
/// (the row was still there), and the delete then committed: a folder no
/// chat owns, for good. A delete under way is now left alone; one that
/// died before its commit is still put right.
#[tokio::test]
async fn a_delete_under_way_in_another_process_is_left_alone_by_a_start() {
    let env = Env::new();
    let chat = {
        let app = env.app().await;
        app.chats().create(Some("going")).await.expect("chat").id
    };
    let chats = env.data().join("chats");
    let (dir, trash) = (chats.join(&chat), chats.join(format!(".trash-{chat}")));
    // What a live delete holds between its rename and its commit.
    let lock = atelier_core::lock::FileLock::acquire(&dir.join("lock")).expect("the chat's lock");
    std::fs::rename(&dir, &trash).expect("the delete's rename");
    drop(env.app().await);
    assert!(
        trash.is_dir() && !dir.exists(),
        "a live delete's folder stays in the trash"
    );
    // It died before its commit: the next start puts the folder back.
    drop(lock);
    let app = env.app().await;
    assert!(dir.is_dir() && !trash.exists(), "a dead delete's folder is back");
    assert_eq!(app.chats().get(&chat).await.expect("the chat").title, "going");
}
