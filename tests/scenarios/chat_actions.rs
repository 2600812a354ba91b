//! What a person does around an answer: `atelier chat send` streaming it
//! with its tool activity, Retry and Edit answering again on a sibling
//! branch, a missing model named with the ones the provider offers, and a
//! new chat named after its first exchange.

use atelier_core::conversation::{ChatEvent, RunStatus};
use atelier_llm::replay::{ReplayServer, Reply};
use serde_json::{Value, json};

use crate::Env;
use crate::conversation::{answer, calls, opts, send, setup};

#[tokio::test]
async fn chat_send_streams_the_answer_and_its_tool_activity() {
    let env = Env::new();
    let server = ReplayServer::start(vec![calls(&[("call_a", "a.txt", "from the CLI")]), answer("Done.")])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    drop(app);
    let run = |args: Vec<String>| {
        let data = env.data().to_path_buf();
        async move {
            tokio::process::Command::new(env!("CARGO_BIN_EXE_atelier"))
                .arg("--data-dir")
                .arg(data)
                .args(args)
                .env_remove("ATELIER_DATA_DIR")
                .stdin(std::process::Stdio::null())
                .output()
                .await
                .expect("run")
        }
    };
    let args = |extra: &[&str]| -> Vec<String> {
        ["chat", "send", &chat, "write a.txt", "--agent", "writer"]
            .iter()
            .chain(extra)
            .map(|s| (*s).to_owned())
            .collect()
    };
    let out = run(args(&["--yes"])).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert_eq!(stdout, "Done.\n", "only the answer on stdout");
    assert!(
        stderr.contains("[writer · local · tiny]") && stderr.contains("write_file"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(env.data().join("chats").join(&chat).join("workspace/a.txt")).expect("file"),
        "from the CLI"
    );
    // With --json, stdout is one JSON record; the answer went to stderr.
    let out = run(args(&["--yes", "--json"])).await;
    let record: Value = serde_json::from_slice(&out.stdout).expect("json on stdout");
    assert_eq!(record["status"], "complete");
    assert!(String::from_utf8_lossy(&out.stderr).contains("Done."));
}

#[tokio::test]
async fn retry_and_edit_answer_again_on_a_sibling_branch() {
    let env = Env::new();
    let server = ReplayServer::start(vec![
        answer("first answer"),
        answer("second answer"),
        answer("edited answer"),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let first = send(&app, &chat, "original question", opts()).await;
    let (user, reply) = (&first.messages[0], &first.messages[1]);

    let mut ignore = |_: &ChatEvent| {};
    let again = app
        .conversation()
        .retry(&chat, &reply.id, opts(), &mut ignore)
        .await
        .expect("retry");
    let new_reply = again.messages.last().expect("reply");
    assert_eq!(new_reply.text(), "second answer");
    assert_eq!(
        new_reply.parent_id.as_deref(),
        Some(user.id.as_str()),
        "a sibling of the first answer"
    );
    let reqs = server.requests();
    assert_eq!(
        reqs[1].json()["messages"],
        reqs[0].json()["messages"],
        "the same context, nothing of the first answer"
    );

    let edited = app
        .conversation()
        .edit(&chat, &user.id, "better question", opts(), &mut ignore)
        .await
        .expect("edit");
    assert_eq!(
        edited.messages[0].parent_id, user.parent_id,
        "the edit is a sibling of the original"
    );
    let body = server.requests()[2].body.clone();
    assert!(
        body.contains("better question") && !body.contains("original question"),
        "{body}"
    );
    assert_eq!(
        app.chats().get(&chat).await.expect("chat").active_leaf_message_id,
        edited.messages[1].id
    );
    let wrong = app.conversation().retry(&chat, &user.id, opts(), &mut ignore).await;
    assert!(wrong.is_err_and(|e| e.to_string().contains("only a model's answers are retried")));
}

#[tokio::test]
async fn a_missing_model_is_named_with_the_ones_the_provider_offers() {
    let env = Env::new();
    let server = ReplayServer::start(vec![
        Reply::json(
            404,
            &json!({"error": {"message": "model \"tiny\" not found, try pulling it first"}}),
        ),
        Reply::json(200, &json!({"data": [{"id": "qwen2.5:0.5b"}, {"id": "llama3.2:1b"}]})),
    ])
    .await
    .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let out = send(&app, &chat, "hello", opts()).await;
    assert_eq!(
        (out.status, out.error_kind.as_deref()),
        (RunStatus::Failed, Some("model_not_found"))
    );
    let said = out.error.unwrap_or_default();
    assert!(
        said.contains("has no model \"tiny\"") && said.contains("provider local offers: qwen2.5:0.5b, llama3.2:1b"),
        "{said}"
    );
}

#[tokio::test]
async fn a_new_chat_is_named_after_its_first_exchange() {
    let env = Env::new();
    let server = ReplayServer::start(vec![answer("Leaves fall, quiet gold."), answer("\"Autumn Haiku.\"")])
        .await
        .expect("server");
    let (app, _) = setup(&env, &server, 25).await;
    let chat = app.chats().create(None).await.expect("chat").id;
    send(&app, &chat, "write a haiku about autumn", opts()).await;
    assert_eq!(app.chats().get(&chat).await.expect("chat").title, "Autumn Haiku");
    let asked = server.requests()[1].json();
    assert!(
        asked["messages"][1]["content"]
            .as_str()
            .unwrap_or("")
            .contains("write a haiku about autumn")
    );
    assert!(asked.get("tools").is_none(), "no tools for a title");
    // Named once: a second run leaves the title alone.
    send(&app, &chat, "another", opts()).await;
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_numbered_new_chat_of_the_app_is_named_too_and_a_chosen_title_is_kept() {
    let env = Env::new();
    let server = ReplayServer::start(vec![
        answer("Pack light."),
        answer("Lisbon Spring Trip"),
        answer("Sure."),
    ])
    .await
    .expect("server");
    let (app, _) = setup(&env, &server, 25).await;
    // The app numbers its new chats so they can be told apart.
    let chat = app.chats().create(Some("New chat 3")).await.expect("chat").id;
    send(&app, &chat, "plan a trip to Lisbon in spring", opts()).await;
    assert_eq!(app.chats().get(&chat).await.expect("chat").title, "Lisbon Spring Trip");
    // A title the person gave is theirs: no title request.
    let mine = app.chats().create(Some("New chat about cats")).await.expect("chat").id;
    send(&app, &mine, "hello", opts()).await;
    assert_eq!(app.chats().get(&mine).await.expect("chat").title, "New chat about cats");
    assert_eq!(server.requests().len(), 3);
}
