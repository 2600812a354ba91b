//! What reaches a model besides text: images a person sends (or a note to
//! a model that does not take them), and a history converted when a chat
//! switches provider.

use atelier_core::conversation::{ChatEvent, RunStatus, SendOptions};
use atelier_core::model::ModelSettings;
use atelier_llm::replay::{ReplayServer, Reply};
use serde_json::json;

use crate::Env;
use crate::conversation::{answer, chunk, opts, send, setup};

/// The chat's model takes images (whatever its name says).
async fn images_on(app: &atelier_core::Atelier, chat: &str) {
    app.chats()
        .set_model_settings(
            chat,
            &ModelSettings {
                images: Some(true),
                ..Default::default()
            },
        )
        .await
        .expect("settings");
}

#[tokio::test]
async fn an_image_goes_to_a_model_that_takes_images_and_a_note_to_one_that_does_not() {
    let env = Env::new();
    let server = ReplayServer::start(vec![answer("A red pixel."), answer("I cannot see images.")])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    // A real 1×1 PNG.
    let png: &[u8] = &[
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1,
        8, 2, 0, 0, 0, 0x90, 0x77, 0x53, 0xde, 0, 0, 0, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8, 0xcf,
        0xc0, 0, 0, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d, 0xb0, 0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42,
        0x60, 0x82,
    ];
    let file = env.data().join("pixel.png");
    std::fs::write(&file, png).expect("png");
    images_on(&app, &chat).await;
    let o = SendOptions {
        images: vec![file.clone()],
        ..opts()
    };
    let out = send(&app, &chat, "what is this?", o).await;
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    // The image is a workspace file now, and the message names it.
    assert_eq!(
        std::fs::read(app.workspace_dir(&chat).join("pixel.png")).expect("in the workspace"),
        png
    );
    let user = &out.messages[0];
    assert!(user.content.iter().any(|p| matches!(
        p,
        atelier_core::model::ContentPart::Image { path, media_type } if path == "pixel.png" && media_type == "image/png"
    )));
    use base64::Engine as _;
    let data = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(png)
    );
    let body = server.requests()[0].json();
    let messages = body["messages"].as_array().expect("messages");
    let content = &messages.last().expect("the question")["content"];
    assert_eq!(content[0], json!({"type": "text", "text": "what is this?"}));
    assert!(
        body.to_string()
            .contains("(The user added to the workspace: pixel.png.)"),
        "the upload is told by name"
    );
    assert_eq!(content[1], json!({"type": "image_url", "image_url": {"url": data}}));

    // A model that does not take images gets a note instead.
    app.chats()
        .set_model_settings(&chat, &ModelSettings::default())
        .await
        .expect("reset");
    send(&app, &chat, "and now?", opts()).await;
    let body = server.requests()[1].body.clone();
    assert!(
        !body.contains("base64,"),
        "no image data for a model that does not take images"
    );
    assert!(body.contains("was left out: this model does not take images"), "{body}");
    // Something that is not an image is refused before anything is sent.
    let text = env.data().join("notes.txt");
    std::fs::write(&text, "x").expect("txt");
    let err = app
        .conversation()
        .send(
            &chat,
            "see",
            SendOptions {
                images: vec![text],
                ..opts()
            },
            &mut |_| {},
        )
        .await
        .expect_err("refused");
    assert!(err.to_string().contains("PNG, JPEG, GIF and WebP"), "{err}");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_pasted_image_becomes_a_file_the_message_sends_and_anything_else_is_refused() {
    use base64::Engine as _;
    let env = Env::new();
    let server = ReplayServer::start(vec![answer("A pasted pixel.")])
        .await
        .expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let png: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR-not-decoded-by-anyone";
    let b64 = base64::engine::general_purpose::STANDARD.encode(png);
    let staged = app.stage_pasted_image(&b64, "image/png").await.expect("staged");
    let name = staged.file_name().expect("name").to_string_lossy().into_owned();
    assert!(name.starts_with("pasted-") && name.ends_with(".png"), "{name}");
    assert!(
        staged.starts_with(env.data()),
        "kept in the data dir: {}",
        staged.display()
    );
    // Two pastes in the same second do not overwrite each other.
    let again = app.stage_pasted_image(&b64, "image/png").await.expect("again");
    assert_ne!(again, staged);

    images_on(&app, &chat).await;
    let out = send(
        &app,
        &chat,
        "what is this?",
        SendOptions {
            images: vec![staged.clone()],
            ..opts()
        },
    )
    .await;
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    assert_eq!(
        std::fs::read(app.workspace_dir(&chat).join(&name)).expect("in the workspace"),
        png
    );
    assert!(
        server.requests()[0]
            .body
            .contains(&format!("data:image/png;base64,{b64}"))
    );

    // Text said to be a PNG, a PNG said to be a JPEG, not base64, too big.
    for (data, media_type, says) in [
        (
            base64::engine::general_purpose::STANDARD.encode("<svg/>"),
            "image/png",
            "not a PNG, JPEG, GIF or WebP",
        ),
        (b64.clone(), "image/jpeg", "the clipboard said image/jpeg"),
        ("%%%".to_owned(), "image/png", "not base64"),
        (
            base64::engine::general_purpose::STANDARD.encode(vec![0u8; 6 * 1024 * 1024]),
            "image/png",
            "images up to 3.75 MiB",
        ),
    ] {
        let err = app.stage_pasted_image(&data, media_type).await.expect_err("refused");
        assert!(err.to_string().contains(says), "{says}: {err}");
    }
}

#[tokio::test]
async fn switching_provider_mid_chat_converts_the_history() {
    use atelier_core::providers::ProviderSpec;
    let env = Env::new();
    // An OpenAI-compatible server that reasons and calls with an id
    // Anthropic would refuse.
    let local = ReplayServer::start(vec![
        Reply::sse(&[
            chunk(json!({"reasoning_content": "LOCAL-THOUGHT"}), None),
            chunk(
                json!({"tool_calls": [{"index": 0, "id": "chatcmpl-tool.7", "type": "function",
                    "function": {"name": "write_file", "arguments": "{\"path\":\"x.txt\",\"content\":\"x\"}"}}]}),
                None,
            ),
            chunk(json!({}), Some("tool_calls")),
            "data: [DONE]".to_owned(),
        ]),
        answer("Wrote x.txt."),
    ])
    .await
    .expect("local");
    let anthropic = |v: serde_json::Value| format!("event: {}\ndata: {v}", v["type"].as_str().unwrap_or_default());
    let remote = ReplayServer::start(vec![Reply::sse(
        &[
            json!({"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 9, "output_tokens": 1}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello from Claude."}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 5}}),
            json!({"type": "message_stop"}),
        ]
        .map(anthropic),
    )])
    .await
    .expect("remote");
    let (app, chat) = setup(&env, &local, 25).await;
    app.providers()
        .add(&ProviderSpec {
            id: "claude".into(),
            kind: Some("anthropic".into()),
            base_url: Some(remote.url("")),
            default_model: Some("claude-test".into()),
            ..Default::default()
        })
        .await
        .expect("provider");
    let o = SendOptions {
        provider_id: Some("local".into()),
        ..opts()
    };
    let first = send(&app, &chat, "write x", o).await;
    assert_eq!(first.status, RunStatus::Complete, "{:?}", first.error);
    let mut notes = Vec::new();
    let o = SendOptions {
        provider_id: Some("claude".into()),
        ..opts()
    };
    let out = app
        .conversation()
        .send(&chat, "now you", o, &mut |e: &ChatEvent| {
            if let ChatEvent::ContextNote { text } = e {
                notes.push(text.clone());
            }
        })
        .await
        .expect("send");
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    let body = remote.requests()[0].json();
    let text = body.to_string();
    assert!(
        !text.contains("LOCAL-THOUGHT"),
        "another provider's reasoning is not sent: {text}"
    );
    assert!(
        text.contains("\"chatcmpl-tool_7\"") && !text.contains("chatcmpl-tool.7"),
        "{text}"
    );
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("1 reasoning block"), "{notes:?}");
    // Tokens as the provider reported them; unknown (not zero) where the
    // first server said nothing.
    let meta = |m: &atelier_core::model::Message| m.meta.clone().and_then(|x| x.usage);
    assert_eq!(
        meta(out.messages.last().expect("answer")),
        Some(atelier_core::model::TokenUsage {
            input_tokens: 9,
            output_tokens: 5
        })
    );
    assert_eq!(meta(first.messages.last().expect("answer")), None);
    // The chat keeps the new provider.
    assert_eq!(
        app.chats().get(&chat).await.expect("chat").provider_id.as_deref(),
        Some("claude")
    );
}

#[tokio::test]
async fn edits_made_by_hand_reach_the_model_by_file_name() {
    let env = Env::new();
    let server = ReplayServer::start(vec![answer("Noted.")]).await.expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    let ws = app.workspace_dir(&chat);
    std::fs::write(ws.join("plan.md"), "# plan").expect("write");
    std::fs::write(ws.join("data.csv"), "a,b").expect("write");
    send(&app, &chat, "look", opts()).await;
    let body = server.requests()[0].body.clone();
    assert!(body.contains("(The user edited data.csv, plan.md.)"), "{body}");
}
