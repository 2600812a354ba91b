//! Confirmations as the desktop app asks for them: a `requires_confirmation`
//! call waits as `awaiting_approval` until someone answers — through a
//! channel of requests (`Approval::Ask`) or by call id (`Approval::Wait`,
//! the app's Approve and Deny buttons); a denial or a cancel is recorded
//! and runs nothing.

use crate::Env;

/// The desktop app's way: a confirmation tool waits as `awaiting_approval`
/// until the person answers; yes runs it, no records `denied by user`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmation_tool_waits_for_the_answer_and_obeys_it() {
    use atelier_core::tools::{Approval, RunRequest};
    let env = Env::new();
    let app = env.app().await;
    let chat = app.create_chat(None).await.expect("chat");
    std::fs::write(app.workspace_dir(&chat.id).join("doomed.txt"), "x").expect("write");
    for answer in [false, true] {
        let (asker, mut requests) = tokio::sync::mpsc::channel(1);
        let a = app.clone();
        let chat_id = chat.id.clone();
        let call = tokio::spawn(async move {
            a.run_tool(RunRequest {
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
        let waiting = app.get_tool_call(&request.call_id).await.expect("record");
        assert_eq!(waiting.status, "awaiting_approval");
        assert!(
            app.workspace_dir(&chat.id).join("doomed.txt").exists(),
            "nothing ran yet"
        );
        request.respond.send(answer).expect("answer");
        let done = call.await.expect("join").expect("recorded");
        if answer {
            assert_eq!(done.status, "success", "{done:?}");
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
/// with its id (told through `on_awaiting`); a cancel while waiting is a
/// denial, and answering a call that no longer waits says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_call_is_answered_by_id_and_a_cancel_denies_it() {
    use std::sync::Arc;

    use atelier_core::tools::python::CallControl;
    use atelier_core::tools::{Approval, RunRequest};
    let env = Env::new();
    let app = env.app().await;
    let chat = app.create_chat(None).await.expect("chat");
    std::fs::write(app.workspace_dir(&chat.id).join("doomed.txt"), "x").expect("write");
    for how in ["deny", "cancel", "approve"] {
        let (tell, mut told) = tokio::sync::mpsc::unbounded_channel::<String>();
        let control = CallControl {
            on_awaiting: Some(Arc::new(move |id: &str| {
                let _ = tell.send(id.to_owned());
            })),
            ..Default::default()
        };
        let cancel = control.cancel.clone();
        let (a, chat_id) = (app.clone(), chat.id.clone());
        let call = tokio::spawn(async move {
            a.run_tool(RunRequest {
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
        assert_eq!(
            app.get_tool_call(&id).await.expect("record").status,
            "awaiting_approval"
        );
        assert!(
            app.workspace_dir(&chat.id).join("doomed.txt").exists(),
            "nothing ran yet"
        );
        match how {
            "deny" => assert!(app.answer_approval(&id, false), "{how}: the call was waiting"),
            "cancel" => assert!(app.cancel_tool_call(&id) && cancel.is_cancelled()),
            _ => assert!(app.answer_approval(&id, true), "{how}: the call was waiting"),
        }
        let done = call.await.expect("join").expect("recorded");
        assert!(!app.answer_approval(&id, true), "{how}: nothing waits any more");
        if how == "approve" {
            assert_eq!(done.status, "success", "{done:?}");
            assert!(!app.workspace_dir(&chat.id).join("doomed.txt").exists());
        } else {
            assert_eq!(
                (done.status.as_str(), done.error_kind.as_deref()),
                ("error", Some("denied")),
                "{how}"
            );
            assert!(app.workspace_dir(&chat.id).join("doomed.txt").exists(), "{how}");
        }
    }
}
