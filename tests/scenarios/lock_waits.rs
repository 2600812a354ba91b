//! Waiting for a chat another process or task is working in: the wait
//! says what it waits for and who holds it, in the holder's words; Ctrl+C,
//! a dropped future or a cancelled token end it and leave nothing behind;
//! a description left by a dead process is not passed off as live.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use atelier_core::lock::{FileLock, LockContext, Place, Waiting};
use atelier_core::{Atelier, Error};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::{Env, snap, write};

/// A chat titled "Notes" whose active leaf is its root, and a node with a
/// file to check out: a checkout that would move the folder.
async fn notes(app: &Atelier) -> (atelier_core::model::Chat, String) {
    let chat = app.chats().create(Some("Notes")).await.expect("chat");
    write(&app.workspace_dir(&chat.id), "a.txt", "from the edit");
    let edit = snap(app, &chat.id).await.message_id.expect("an edit node");
    app.workspace()
        .checkout(&chat.id, &chat.root_message_id)
        .await
        .expect("back to the root");
    (chat, edit)
}

fn chat_lock(app: &Atelier, chat_id: &str) -> PathBuf {
    app.data_dir().chat_dir(chat_id).join("lock")
}

/// Holds `path` as a holder doing `doing` would.
async fn hold(path: &Path, doing: &str) -> FileLock {
    LockContext::default()
        .doing(doing)
        .scope(FileLock::acquire_async(path, Place::Present, async { String::new() }))
        .await
        .expect("lock")
        .expect("the lock file exists")
}

/// A context whose waits arrive on the returned channel.
fn told() -> (LockContext, UnboundedReceiver<Waiting>) {
    let (tx, rx) = unbounded_channel();
    let context = LockContext::default().on_wait(move |w| {
        let _ = tx.send(w.clone());
    });
    (context, rx)
}

/// How many of this process's open files are `path`.
fn open_in_this_process(path: &Path) -> usize {
    let path = std::fs::canonicalize(path).expect("lock path");
    std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|target| *target == path)
        .count()
}

#[tokio::test]
async fn a_checkout_behind_a_tool_call_says_who_holds_the_chat_and_ctrl_c_ends_it() {
    let env = Env::new();
    let app = env.app().await;
    let (chat, edit) = notes(&app).await;
    let held = hold(&chat_lock(&app, &chat.id), "a tool call (csv.hello)").await;

    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_atelier"))
        .arg("--data-dir")
        .arg(env.data())
        .args(["chat", "checkout", &chat.id, &edit])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn checkout");
    let stderr = child.stderr.take().expect("stderr");
    let (lines_tx, lines) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    let line = lines.recv().expect("the checkout says it waits before anything else");
    assert_eq!(
        line,
        format!(
            "waiting for chat \"Notes\" ({}): a tool call (csv.hello) runs in process {} ({}) (Ctrl+C to stop)…",
            chat.id,
            std::process::id(),
            std::env::current_exe()
                .expect("exe")
                .file_name()
                .expect("name")
                .to_string_lossy()
        )
    );

    rustix::process::kill_process(rustix::process::Pid::from_child(&child), rustix::process::Signal::INT)
        .expect("Ctrl+C");
    let status = child.wait().expect("wait");
    reader.join().expect("reader");
    assert!(!status.success(), "stopped, not done: {status}");
    let now = app.chats().get(&chat.id).await.expect("chat");
    assert_eq!(now.active_leaf_message_id, chat.root_message_id, "nothing moved");
    assert!(!app.workspace_dir(&chat.id).join("a.txt").exists());

    drop(held);
    env.ok(&["chat", "checkout", &chat.id, &edit]);
    assert!(
        app.workspace_dir(&chat.id).join("a.txt").exists(),
        "free, it goes through"
    );
}

#[tokio::test]
async fn a_wait_in_a_second_handle_is_told_and_ends_when_dropped_or_cancelled() {
    let env = Env::new();
    let holder_app = env.app().await;
    let waiter = env.app().await;
    let (chat, edit) = notes(&holder_app).await;
    let lock = chat_lock(&holder_app, &chat.id);
    let held = hold(&lock, "a tool call (csv.hello)").await;

    // Told, then dropped: no thread is left waiting on the lock file.
    let (context, mut waits) = told();
    let workspace = waiter.workspace();
    let mut checkout = Box::pin(context.scope(workspace.checkout(&chat.id, &edit)));
    let waiting = tokio::select! {
        r = &mut checkout => panic!("the checkout did not wait: {r:?}"),
        w = waits.recv() => w.expect("told"),
    };
    assert_eq!(
        waiting.to_string(),
        format!(
            "waiting for chat \"Notes\" ({}): a tool call (csv.hello) runs in this process",
            chat.id
        )
    );
    assert_eq!(waiting.holder.map(|h| h.pid), Some(std::process::id()));
    drop(checkout);
    assert_eq!(open_in_this_process(&lock), 1, "only the holder has the lock file open");

    // Cancelled by its token: an error that says so, nothing moved.
    let token = tokio_util::sync::CancellationToken::new();
    let (context, mut waits) = told();
    let mut checkout = Box::pin(
        context
            .cancel_on(token.clone())
            .scope(workspace.checkout(&chat.id, &edit)),
    );
    tokio::select! {
        r = &mut checkout => panic!("the checkout did not wait: {r:?}"),
        w = waits.recv() => assert!(w.is_some()),
    }
    token.cancel();
    assert!(matches!(checkout.await, Err(Error::Cancelled)));
    drop(held);
    let now = waiter.chats().get(&chat.id).await.expect("chat");
    assert_eq!(now.active_leaf_message_id, chat.root_message_id);
    waiter.workspace().checkout(&chat.id, &edit).await.expect("free now");
}

#[tokio::test]
async fn a_description_a_dead_process_left_is_not_shown_as_the_holder() {
    let env = Env::new();
    let app = env.app().await;
    let (chat, edit) = notes(&app).await;
    let lock = chat_lock(&app, &chat.id);
    let mut gone = std::process::Command::new("true").spawn().expect("spawn");
    let dead = gone.id();
    gone.wait().expect("wait");
    // A holder that wrote nothing (an older version, or one that has just
    // taken the lock) over the line a crashed holder left.
    let held = hold(&lock, "a snapshot").await;
    std::fs::write(
        &lock,
        format!("{{\"pid\":{dead},\"program\":\"atelier\",\"doing\":\"a tool call (csv.hello)\"}}\n"),
    )
    .expect("stale line");

    let (context, mut waits) = told();
    let workspace = app.workspace();
    let mut checkout = Box::pin(context.scope(workspace.checkout(&chat.id, &edit)));
    let waiting = tokio::select! {
        r = &mut checkout => panic!("the checkout did not wait: {r:?}"),
        w = waits.recv() => w.expect("told"),
    };
    assert_eq!(waiting.holder, None, "process {dead} is gone");
    assert_eq!(
        waiting.to_string(),
        format!(
            "waiting for chat \"Notes\" ({}): another task or process holds it",
            chat.id
        )
    );
    drop(held);
    checkout.await.expect("the checkout goes through once the lock is free");
}
