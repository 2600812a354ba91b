//! Builtin tools under hostile input: what a model (or a document it read)
//! could make them do. Big files are capped, FIFOs refused at once, planted
//! symlinks never followed, and a builtin stops at its timeout or Cancel
//! like any tool.

use atelier_core::tools::{Approval, CallControl, CallStatus, ErrorKind, RunRequest, ToolCallRecord};
use serde_json::{Value, json};

use crate::Env;

async fn run(app: &atelier_core::Atelier, chat: &str, tool: &str, args: Value, control: CallControl) -> ToolCallRecord {
    app.tools()
        .run(RunRequest {
            chat_id: chat.to_owned(),
            tool_id: tool.to_owned(),
            args,
            approval: Approval::Approved,
            control,
            ..Default::default()
        })
        .await
        .expect("recorded")
}

#[tokio::test]
async fn read_file_returns_at_most_a_mebibyte_of_a_big_file_and_says_so() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    // 3 MiB of text whose multi-byte characters straddle the cap.
    let line = "é".repeat(511) + "\n";
    let big = line.repeat(3 * 1024);
    std::fs::write(ws.join("big.txt"), &big).expect("write");
    let call = run(
        &app,
        &chat.id,
        "read_file",
        json!({"path": "big.txt"}),
        Default::default(),
    )
    .await;
    assert_eq!(call.status, CallStatus::Success, "{:?}", call.error);
    let result = call.result.expect("result");
    let content = result["content"].as_str().expect("content");
    assert!(
        content.len() <= atelier_core::tools::builtin::READ_CAP,
        "{} bytes",
        content.len()
    );
    assert!(content.len() > 1_000_000, "{} bytes: most of a mebibyte", content.len());
    assert!(big.starts_with(content), "a prefix of the file, cut at a character");
    assert_eq!(result["size"], json!(big.len()));
    assert_eq!(result["truncated"], json!(true));
    assert!(result["note"].as_str().expect("note").contains(&big.len().to_string()));

    // A small file is whole, without a note.
    std::fs::write(ws.join("small.txt"), "hello\n").expect("write");
    let small = run(
        &app,
        &chat.id,
        "read_file",
        json!({"path": "small.txt"}),
        Default::default(),
    )
    .await;
    assert_eq!(
        small.result,
        Some(json!({"path": "small.txt", "content": "hello\n", "size": 6}))
    );
}

#[tokio::test]
async fn read_file_on_a_fifo_fails_at_once_instead_of_holding_the_chat() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    let made = std::process::Command::new("mkfifo")
        .arg(ws.join("pipe"))
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let call = run(&app, &chat.id, "read_file", json!({"path": "pipe"}), Default::default()).await;
    assert_eq!(
        (call.status, call.error_kind),
        (CallStatus::Error, Some(ErrorKind::Exception))
    );
    assert!(
        call.error.as_deref().unwrap_or_default().contains("not a regular file"),
        "{:?}",
        call.error
    );
    // The chat is free: the next call runs.
    let next = run(&app, &chat.id, "list_files", json!({}), Default::default()).await;
    assert_eq!(next.status, CallStatus::Success);
}

#[tokio::test]
async fn a_builtin_honours_the_calls_timeout_and_cancel() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let timed = CallControl {
        timeout: Some(std::time::Duration::ZERO),
        ..Default::default()
    };
    let call = run(&app, &chat.id, "list_files", json!({}), timed).await;
    assert_eq!(
        (call.status, call.error_kind),
        (CallStatus::Error, Some(ErrorKind::Timeout))
    );
    assert_eq!(call.error.as_deref(), Some("timed out after 0 s"));

    let cancelled = CallControl::default();
    cancelled.cancel.cancel();
    let call = run(
        &app,
        &chat.id,
        "write_file",
        json!({"path": "a.txt", "content": "x"}),
        cancelled,
    )
    .await;
    assert_eq!(call.status, CallStatus::Cancelled);
    assert!(
        !app.workspace_dir(&chat.id).join("a.txt").exists(),
        "a cancelled write did not run"
    );
}

#[tokio::test]
async fn list_files_never_lists_through_a_symlinked_folder() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    let outside = tempfile::tempdir().expect("tmp");
    std::fs::write(outside.path().join("passwd"), "root:x:0:0").expect("write");
    std::os::unix::fs::symlink(outside.path(), ws.join("etc")).expect("link");
    let call = run(&app, &chat.id, "list_files", json!({"path": "etc"}), Default::default()).await;
    assert_eq!(call.status, CallStatus::Error, "{:?}", call.result);
    assert!(
        call.error.as_deref().unwrap_or_default().contains("symlink"),
        "{:?}",
        call.error
    );
}

#[tokio::test]
async fn a_missing_file_is_named_by_its_workspace_path_never_the_data_dirs() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat").id;
    for tool in ["read_file", "delete_file"] {
        let call = run(
            &app,
            &chat,
            tool,
            json!({"path": "notes/nope.txt"}),
            CallControl::default(),
        )
        .await;
        assert_eq!(call.status, CallStatus::Error, "{tool}");
        let said = call.error.clone().unwrap_or_default();
        assert_eq!(said, "notes/nope.txt is not in the workspace", "{tool}");
        assert!(!said.contains(&env.data().display().to_string()), "{tool}: {said}");
    }
}
