//! Confirmations as the desktop app asks for them: a `requires_confirmation`
//! call waits as `awaiting_approval` until someone answers — through a
//! channel of requests (`Approval::Ask`) or by call id (`Approval::Wait`,
//! the app's Approve and Deny buttons); a denial or a cancel is recorded
//! and runs nothing.

use atelier_core::Observer;

use crate::Env;

/// The desktop app's way: a confirmation tool waits as `awaiting_approval`
/// until the person answers; yes runs it, no records `denied by user`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmation_tool_waits_for_the_answer_and_obeys_it() {
    use atelier_core::tools::{Approval, RunRequest};
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    std::fs::write(app.workspace_dir(&chat.id).join("doomed.txt"), "x").expect("write");
    for answer in [false, true] {
        let (asker, mut requests) = tokio::sync::mpsc::channel(1);
        let a = app.clone();
        let chat_id = chat.id.clone();
        let call = tokio::spawn(async move {
            a.tools()
                .run(RunRequest {
                    chat_id,
                    tool_id: "delete_file".into(),
                    args: serde_json::json!({"path": "doomed.txt"}),
                    approval: Approval::Ask(asker),
                    ..Default::default()
                })
                .await
        });
        let request = requests.recv().await.expect("the call asks");
        assert_eq!(
            (request.tool_id.as_str(), &request.args["path"]),
            ("delete_file", &serde_json::json!("doomed.txt"))
        );
        let waiting = app.tools().call(&request.call_id).await.expect("record");
        assert_eq!(waiting.status, atelier_core::tools::CallStatus::AwaitingApproval);
        assert!(
            app.workspace_dir(&chat.id).join("doomed.txt").exists(),
            "nothing ran yet"
        );
        request.respond.send(answer).expect("answer");
        let done = call.await.expect("join").expect("recorded");
        if answer {
            assert_eq!(done.status, atelier_core::tools::CallStatus::Success, "{done:?}");
            assert!(!app.workspace_dir(&chat.id).join("doomed.txt").exists());
        } else {
            assert_eq!(
                (done.status.as_str(), done.error.as_deref()),
                ("error", Some("denied by user"))
            );
            assert!(app.workspace_dir(&chat.id).join("doomed.txt").exists());
        }
    }
}

/// The app's buttons: the call waits until `answer_approval` is called
/// with its id (told through `on_awaiting`); a cancel while waiting ends
/// it cancelled (nobody said no), and answering a call that no longer
/// waits says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_call_is_answered_by_id_and_a_cancel_cancels_it() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    std::fs::write(app.workspace_dir(&chat.id).join("doomed.txt"), "x").expect("write");
    for how in ["deny", "cancel", "approve"] {
        let Waiting { call, id, cancel } = start_waiting_call(&app, &chat.id).await;
        assert_eq!(
            app.tools().call(&id).await.expect("record").status,
            atelier_core::tools::CallStatus::AwaitingApproval
        );
        assert!(
            app.workspace_dir(&chat.id).join("doomed.txt").exists(),
            "nothing ran yet"
        );
        match how {
            "deny" => assert!(app.tools().answer_approval(&id, false), "{how}: the call was waiting"),
            "cancel" => assert!(app.tools().cancel(&id) && cancel.is_cancelled()),
            _ => assert!(app.tools().answer_approval(&id, true), "{how}: the call was waiting"),
        }
        let done = call.await.expect("join").expect("recorded");
        assert!(!app.tools().answer_approval(&id, true), "{how}: nothing waits any more");
        if how == "approve" {
            assert_eq!(done.status, atelier_core::tools::CallStatus::Success, "{done:?}");
            assert!(!app.workspace_dir(&chat.id).join("doomed.txt").exists());
        } else {
            let ended = if how == "cancel" {
                ("cancelled", Some("cancelled"))
            } else {
                ("error", Some("denied"))
            };
            assert_eq!(
                (
                    done.status.as_str(),
                    done.error_kind.map(atelier_core::tools::ErrorKind::as_str)
                ),
                ended,
                "{how}"
            );
            assert!(app.workspace_dir(&chat.id).join("doomed.txt").exists(), "{how}");
        }
    }
}

/// A `delete_file` call of `doomed.txt` waiting for an answer by id.
struct Waiting {
    call: tokio::task::JoinHandle<atelier_core::Result<atelier_core::tools::ToolCallRecord>>,
    id: String,
    cancel: tokio_util::sync::CancellationToken,
}

/// Starts that call and returns once it says it waits.
async fn start_waiting_call(app: &atelier_core::Atelier, chat_id: &str) -> Waiting {
    use atelier_core::tools::{Approval, CallControl, RunEvent, RunRequest};
    let (tell, mut told) = tokio::sync::mpsc::unbounded_channel::<String>();
    let control = CallControl::with_events(move |event| {
        if let RunEvent::AwaitingApproval { call_id } = event {
            let _ = tell.send(call_id);
        }
    });
    let cancel = control.cancel.clone();
    let (a, chat_id) = (app.clone(), chat_id.to_owned());
    let call = tokio::spawn(async move {
        a.tools()
            .run(RunRequest {
                chat_id,
                tool_id: "delete_file".into(),
                args: serde_json::json!({"path": "doomed.txt"}),
                approval: Approval::Wait,
                control,
                ..Default::default()
            })
            .await
    });
    let id = told.recv().await.expect("the call says it waits");
    Waiting { call, id, cancel }
}

/// While a person makes up their mind, the chat is not frozen: files
/// dropped onto the workspace are recorded at once, and the approved call
/// then runs on the workspace as it is by then, under the new node.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chat_stays_usable_while_a_call_waits_for_its_answer() {
    use std::time::Duration;

    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    std::fs::write(app.workspace_dir(&chat.id).join("doomed.txt"), "x").expect("write");
    let Waiting { call, id, .. } = start_waiting_call(&app, &chat.id).await;

    let outside = env.data().join("outside");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::write(outside.join("dropped.txt"), "dropped while asking").expect("write");
    let upload = tokio::time::timeout(
        Duration::from_secs(20),
        app.workspace()
            .upload_files(&chat.id, vec![outside.join("dropped.txt")], "", &Observer::default()),
    )
    .await
    .expect("the drop is not held up by the waiting call")
    .expect("upload");
    let upload_node = upload.message_id.expect("the drop is a node");
    assert_eq!(
        app.tools().call(&id).await.expect("record").status,
        atelier_core::tools::CallStatus::AwaitingApproval,
        "still waiting"
    );

    assert!(app.tools().answer_approval(&id, true));
    let done = call.await.expect("join").expect("recorded");
    assert_eq!(done.status, atelier_core::tools::CallStatus::Success, "{done:?}");
    let node = app
        .chats()
        .message(&chat.id, done.node_id.as_deref().expect("a tool node"))
        .await
        .expect("node");
    assert_eq!(
        node.parent_id.as_deref(),
        Some(upload_node.as_str()),
        "runs after the drop"
    );
    let files: Vec<String> = app
        .workspace()
        .list_files(&chat.id, Some(&node.id))
        .await
        .expect("files")
        .into_iter()
        .map(|f| f.path)
        .collect();
    assert_eq!(files, ["dropped.txt"], "the drop kept, the doomed file deleted");
}

/// A chat deleted while one of its calls waits for an answer: the delete
/// is not held up, and answering yes afterwards runs nothing and leaves no
/// trace of the chat on disk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_deleted_while_a_call_waits_leaves_nothing_behind() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    std::fs::write(app.workspace_dir(&chat.id).join("doomed.txt"), "x").expect("write");
    let Waiting { call, id, .. } = start_waiting_call(&app, &chat.id).await;
    app.chats().delete(&chat.id).await.expect("delete while the call waits");
    let folder = app.data_dir().chat_dir(&chat.id);
    assert!(!folder.exists(), "deleted");

    assert!(
        app.tools().answer_approval(&id, true),
        "the call still waits for its answer"
    );
    let err = call.await.expect("join").expect_err("the chat is gone");
    assert_eq!(err.kind(), "chat_not_found", "{err}");
    assert!(!folder.exists(), "answering re-created {}", folder.display());
    assert!(app.tools().call(&id).await.is_err(), "the call went with its chat");
}

/// A call waiting in one process is left alone by another process's
/// start-up recovery; once its process is gone (here: its task dropped
/// mid-wait), the next start marks it interrupted, and nothing ran.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recovery_tells_a_live_wait_from_a_dead_one() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    std::fs::write(app.workspace_dir(&chat.id).join("doomed.txt"), "x").expect("write");
    let Waiting { call, id, .. } = start_waiting_call(&app, &chat.id).await;

    let other = env.app().await;
    assert_eq!(
        other.tools().call(&id).await.expect("record").status,
        atelier_core::tools::CallStatus::AwaitingApproval,
        "a live wait survives another start"
    );

    call.abort();
    assert!(call.await.expect_err("aborted").is_cancelled());
    let restarted = env.app().await;
    let dead = restarted.tools().call(&id).await.expect("record");
    assert_eq!(
        (
            dead.status.as_str(),
            dead.error_kind.map(atelier_core::tools::ErrorKind::as_str)
        ),
        ("interrupted", Some("interrupted")),
        "{dead:?}"
    );
    assert!(
        dead.error.as_deref().is_some_and(|e| e.contains("did not run")),
        "{dead:?}"
    );
    assert!(app.workspace_dir(&chat.id).join("doomed.txt").exists(), "nothing ran");
    assert!(
        !env.data()
            .join("chats")
            .join(&chat.id)
            .join("waiting")
            .join(&id)
            .exists(),
        "the waiting lock is cleaned up"
    );
}

/// A person's policy beats the author's choice, for every caller: `ask`
/// makes a tool that never asked ask (the CLI without `--yes` records a
/// denial), `allow` lets a confirmation tool run unasked, `default` goes
/// back to the author's word.
#[test]
fn a_tool_policy_overrides_the_authors_confirmation_both_ways() {
    let env = Env::new();
    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let write = |content: &str| {
        let args = format!(r#"{{"path": "a.txt", "content": "{content}"}}"#);
        env.json(&["run", "write_file", "--chat", &chat, "--args", &args])
    };
    let delete = || env.json(&["run", "delete_file", "--chat", &chat, "--args", r#"{"path": "a.txt"}"#]);
    assert_eq!(write("one")["status"], "success", "write_file does not ask by default");

    let p = env.json(&["tool", "policy", "write_file", "ask"]);
    assert_eq!(
        (p["policy"].as_str(), p["asks"].as_bool()),
        (Some("ask"), Some(true)),
        "{p}"
    );
    let asked = write("two");
    assert_eq!(asked["error_kind"], "denied", "now it asks, and no one said yes");
    assert!(
        asked["error"]
            .as_str()
            .is_some_and(|e| e.contains("no one could be asked") && e.contains("--yes")),
        "no one was asked, and the way out is said: {asked}"
    );
    assert_eq!(env.ok(&["workspace", "cat", &chat, "a.txt"]), "one");

    assert_eq!(delete()["error_kind"], "denied", "delete_file asks by default");
    env.ok(&["tool", "policy", "delete_file", "allow"]);
    assert_eq!(delete()["status"], "success", "allowed: it runs unasked");

    env.ok(&["tool", "policy", "write_file", "default"]);
    env.ok(&["tool", "policy", "delete_file", "default"]);
    let shown = env.json(&["tool", "policy", "delete_file"]);
    assert_eq!(
        (shown["policy"].as_str(), shown["asks"].as_bool()),
        (Some("default"), Some(true))
    );
    assert_eq!(write("three")["status"], "success");
    assert_eq!(delete()["error_kind"], "denied");
    let bad = env.cli(&["tool", "policy", "no_such_tool", "allow"]);
    assert_eq!(bad.status.code(), Some(1));
}

/// "Allow for this chat": answered once, the tool runs unasked in that
/// chat only, until revoked or the chat is deleted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_for_this_chat_lets_a_tool_run_unasked_in_that_chat_only() {
    let env = Env::new();
    let app = env.app().await;
    let (here, there) = (
        app.chats().create(None).await.expect("chat"),
        app.chats().create(None).await.expect("chat"),
    );
    for c in [&here, &there] {
        std::fs::write(app.workspace_dir(&c.id).join("doomed.txt"), "x").expect("write");
    }
    let waiting = start_waiting_call(&app, &here.id).await;
    assert!(app.tools().answer_approval_for_chat(&waiting.id).await.expect("answer"));
    let done = waiting.call.await.expect("join").expect("run");
    assert_eq!(done.status.as_str(), "success");
    assert_eq!(
        app.tools().chat_allowances(&here.id).await.expect("list"),
        ["delete_file"]
    );

    // The CLI gives no answer (no --yes): in this chat it runs anyway.
    let run = |chat: &str, path: &str| {
        env.json(&[
            "run",
            "delete_file",
            "--chat",
            chat,
            "--args",
            &format!(r#"{{"path": "{path}"}}"#),
        ])
    };
    std::fs::write(app.workspace_dir(&here.id).join("again.txt"), "x").expect("write");
    assert_eq!(run(&here.id, "again.txt")["status"], "success");
    assert_eq!(
        run(&there.id, "doomed.txt")["error_kind"],
        "denied",
        "another chat still asks"
    );

    env.ok(&["tool", "revoke", "delete_file", "--chat", &here.id]);
    std::fs::write(app.workspace_dir(&here.id).join("third.txt"), "x").expect("write");
    assert_eq!(run(&here.id, "third.txt")["error_kind"], "denied", "revoked");
    env.ok(&["tool", "allow", "delete_file", "--chat", &there.id]);
    assert_eq!(
        run(&there.id, "doomed.txt")["status"],
        "success",
        "granted from the CLI"
    );
    app.chats().delete(&there.id).await.expect("delete");
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM chat_tool_allowances")
        .fetch_one(app.db())
        .await
        .expect("count");
    assert_eq!(left, 0, "an allowance ends with its chat");
}
