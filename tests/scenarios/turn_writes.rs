//! A model's turn is written without the chat lock (one transaction that
//! moves the chat only while it is still at the turn's workspace state):
//! what a person does to the chat while the model streams is neither lost
//! nor left half-applied, and the model's next call builds on a person's
//! edit instead of putting the folder back under them; a turn that ends
//! while another process holds the chat waits for it.

use std::time::Duration;

use atelier_core::conversation::{ChatEvent, RunStatus};
use atelier_core::model::Role;
use atelier_llm::replay::{ReplayServer, Reply};
use serde_json::json;

use crate::Env;
use crate::conversation::{answer, chunk, opts, send_streaming, setup};

/// Text that streams slowly, then one `write_file` call.
fn slow_text_then_call(path: &str, content: &str) -> Reply {
    let mut events: Vec<String> = (0..8)
        .map(|i| chunk(json!({"content": format!("w{i} ")}), None))
        .collect();
    events.push(chunk(
        json!({"tool_calls": [{"index": 0, "id": "call_w", "type": "function", "function": {
            "name": "write_file", "arguments": json!({"path": path, "content": content}).to_string()}}]}),
        None,
    ));
    events.push(chunk(json!({}), Some("tool_calls")));
    events.push("data: [DONE]".into());
    Reply::sse(&events).delayed(Duration::from_millis(60))
}

/// An answer of `words` words that streams slowly.
fn slow_answer(words: usize) -> Reply {
    let events: Vec<String> = (0..words)
        .map(|i| chunk(json!({"content": format!("w{i} ")}), None))
        .chain([chunk(json!({}), Some("stop")), "data: [DONE]".to_owned()])
        .collect();
    Reply::sse(&events).delayed(Duration::from_millis(60))
}

#[tokio::test]
async fn a_file_edited_while_the_model_answers_is_an_edit_after_its_turn_that_the_next_call_builds_on() {
    let env = Env::new();
    let server = ReplayServer::start(vec![slow_text_then_call("out.txt", "by the model"), answer("Done.")])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let running = send_streaming(&app, &chat, "write out.txt", opts()).await;
    // The person saves a file while the first turn streams.
    std::fs::write(app.workspace_dir(&chat).join("notes.txt"), "typed by hand").expect("write");
    let out = running.await.expect("run").expect("send");
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);

    let turn = &out.messages[1];
    assert_eq!(turn.role, Role::Assistant);
    assert!(turn.text().starts_with("w0 w1"), "{}", turn.text());
    // The turn was answered from the state before the edit: the edit is a
    // node of its own under it, and the call the turn made goes on from it
    // (the folder is not put back under the person).
    let tree = app.chats().tree(&chat).await.expect("tree");
    let edit = tree
        .iter()
        .find(|n| n.message.role == Role::Edit)
        .expect("the hand edit is recorded");
    assert_eq!(
        edit.message.parent_id.as_ref(),
        Some(&turn.id),
        "the edit hangs under the turn"
    );
    let call = out.messages.iter().find(|m| m.role == Role::Tool).expect("the call");
    assert_eq!(
        call.parent_id.as_ref(),
        Some(&edit.message.id),
        "the call follows the edit"
    );
    // The model is told of the edit in its next request.
    let next = &server.requests()[1].body;
    assert!(next.contains("edited notes.txt"), "{next}");
    // The chat (pointers and folder) is at the final answer, with both files.
    let last = out.messages.last().expect("answer");
    let c = app.chats().get(&chat).await.expect("chat");
    assert_eq!(c.active_leaf_message_id, last.id);
    assert_eq!(c.active_manifest_id, last.manifest_id);
    let ws = app.workspace_dir(&chat);
    assert_eq!(
        std::fs::read_to_string(ws.join("out.txt")).expect("out.txt"),
        "by the model"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).expect("notes.txt"),
        "typed by hand"
    );
    let kept = app
        .workspace()
        .read_file(&chat, "notes.txt", Some(&last.id))
        .await
        .expect("the edited file is in the answer's state");
    assert_eq!(kept, b"typed by hand");
    // Turns that ended within a second left no journal row behind, and
    // their writers wrote none after the end.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let journaled: i64 = sqlx::query_scalar("SELECT count(*) FROM streaming_turns")
        .fetch_one(app.db())
        .await
        .expect("count");
    assert_eq!(journaled, 0);
}

/// A first exchange that writes other.txt, then `text` asked on a sibling
/// branch from the root (answered by `second`), and the person checking out
/// the first branch while that answer streams. The chat, the first
/// branch's leaf and the second run's outcome.
async fn answered_while_switched(
    env: &Env,
    second: Vec<Reply>,
    text: &str,
) -> (
    ReplayServer,
    atelier_core::Atelier,
    String,
    String,
    atelier_core::conversation::RunOutcome,
) {
    let mut replies = vec![
        crate::conversation::calls(&[("call_o", "other.txt", "other branch")]),
        answer("Wrote other.txt."),
    ];
    replies.extend(second);
    let server = ReplayServer::start(replies).await.expect("server");
    let (app, chat) = setup(env, &server, 25).await;
    let mut ignore = |_: &ChatEvent| {};
    let first = app
        .conversation()
        .send(&chat, "write other.txt", opts(), &mut ignore)
        .await
        .expect("first");
    let other_leaf = first.messages.last().expect("answer").id.clone();
    let mut o = opts();
    o.parent_id = Some(first.messages[0].parent_id.clone().expect("the question's parent"));
    let running = send_streaming(&app, &chat, text, o).await;
    app.workspace().checkout(&chat, &other_leaf).await.expect("checkout");
    let out = running.await.expect("run").expect("send");
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    (server, app, chat, other_leaf, out)
}

#[tokio::test]
async fn a_branch_checked_out_while_the_model_answers_does_not_strand_the_chat() {
    let env = Env::new();
    let (_server, app, chat, other_leaf, out) = answered_while_switched(
        &env,
        vec![slow_text_then_call("out.txt", "by the model"), answer("Done.")],
        "write out.txt",
    )
    .await;
    let turn = &out.messages[1];
    assert_eq!(
        turn.parent_id.as_ref(),
        Some(&out.messages[0].id),
        "the turn answers its question"
    );
    // The run's call brought the folder back to its branch, and the chat's
    // pointers and folder agree: other.txt is not there, out.txt is.
    let last = out.messages.last().expect("answer");
    let c = app.chats().get(&chat).await.expect("chat");
    assert_eq!(c.active_leaf_message_id, last.id);
    assert_eq!(c.active_manifest_id, last.manifest_id);
    let ws = app.workspace_dir(&chat);
    assert!(!ws.join("other.txt").exists(), "the other branch's file left with it");
    assert_eq!(
        std::fs::read_to_string(ws.join("out.txt")).expect("out.txt"),
        "by the model"
    );
    // And the other branch still has its file.
    let theirs = app
        .workspace()
        .read_file(&chat, "other.txt", Some(&other_leaf))
        .await
        .expect("other.txt");
    assert_eq!(theirs, b"other branch");
}

#[tokio::test]
async fn a_final_answer_after_a_switch_leaves_the_chat_in_one_consistent_state() {
    let env = Env::new();
    let (_server, app, chat, _, out) = answered_while_switched(&env, vec![slow_answer(8)], "just talk").await;
    // The answer is written under its question, wherever the chat is; the
    // chat and its folder are one consistent state with other.txt in it.
    let answer = out.messages.last().expect("answer");
    assert_eq!(answer.parent_id.as_ref(), Some(&out.messages[0].id));
    let c = app.chats().get(&chat).await.expect("chat");
    let at = app
        .chats()
        .message(&chat, &c.active_leaf_message_id)
        .await
        .expect("leaf");
    assert_eq!(c.active_manifest_id, at.manifest_id, "the chat's pointers agree");
    let has_other = app.workspace_dir(&chat).join("other.txt").exists();
    let state_has_other = app
        .workspace()
        .read_file(&chat, "other.txt", Some(&c.active_manifest_id))
        .await
        .is_ok();
    assert_eq!(has_other, state_has_other, "the folder is at the chat's state");
}

#[tokio::test]
async fn a_turn_ending_while_someone_holds_the_chat_waits_for_them() {
    let env = Env::new();
    let server = ReplayServer::start(vec![slow_answer(4)]).await.expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let running = send_streaming(&app, &chat, "just talk", opts()).await;
    // Another process takes the chat (as a checkout or a hand run does,
    // between moving the folder and recording it) while the answer streams.
    let lock_path = env.data().join("chats").join(&chat).join("lock");
    let held = tokio::task::spawn_blocking(move || atelier_core::lock::FileLock::acquire(&lock_path))
        .await
        .expect("task")
        .expect("lock");
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(!running.is_finished(), "the answer waits for the chat's holder");
    drop(held);
    let out = running.await.expect("run").expect("send");
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let answer = out.messages.last().expect("answer");
    let c = app.chats().get(&chat).await.expect("chat");
    assert_eq!(c.active_leaf_message_id, answer.id, "then lands as the chat's place");
}
