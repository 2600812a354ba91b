//! MCP content of several blocks (the fixture's `mixed`): the person sees
//! every block in order (a sound among them, to play), and a model every
//! text and every image it takes —
//! an image it would refuse (SVG, too big) becomes a note saying why, so
//! one image never fails the request and every later turn of the chat.

use atelier_core::conversation::{RunStatus, SendOptions};
use atelier_core::model::ModelSettings;
use atelier_core::tools::Approval;
use serde_json::Value;

use crate::Env;
use crate::mcp::{app, calling_model, fixture, python, stdio};

/// The 1×1 PNG `mixed` returns.
const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQAY3Y2wAAAAAElFTkSuQmCC";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_block_is_shown_and_every_image_a_model_takes_is_sent() {
    let env = Env::new();
    let app = app(&env).await;
    let (py, fx) = (python(), fixture());
    app.mcp().add(stdio("fx", &py, &[&fx])).await.expect("add");
    app.mcp().refresh("fx").await.expect("lists");
    // The model calls `mixed` (with a 4 MiB PNG last), then answers twice.
    let model = calling_model(
        &app,
        ("fx__mixed", "{\"big_kib\": 4096}"),
        &["Two pixels.", "Still fine."],
        ("mixer", "fx"),
    )
    .await;
    let chat = app.chats().create(Some("Test")).await.expect("chat").id;
    app.chats()
        .set_model_settings(
            &chat,
            &ModelSettings {
                images: Some(true),
                ..Default::default()
            },
        )
        .await
        .expect("settings");
    let opts = || SendOptions {
        agent_id: Some("mixer".into()),
        approval: Approval::Approved,
        ..Default::default()
    };
    let out = app
        .conversation()
        .send(&chat, "show me", opts(), &mut |_| {})
        .await
        .expect("send");
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);

    // The person: every block, in order, the repeated image twice.
    let calls = app.tools().calls(&chat).await.expect("calls");
    let plan = calls[0].render_plan.as_ref().expect("plan");
    assert_eq!(plan.renderer, "blocks", "{plan:?}");
    let blocks = plan.config["blocks"].as_array().expect("blocks");
    let shown: Vec<String> = blocks
        .iter()
        .map(|b| {
            let c = &b["config"];
            let what = c["content"].as_str().or(c["url"].as_str()).unwrap_or_default();
            format!(
                "{} {}",
                b["renderer"].as_str().unwrap_or_default(),
                &what[..what.len().min(30)]
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            "document two charts",
            "image data:image/png;base64,iVBORw0K",
            "image data:image/png;base64,iVBORw0K",
            "image data:image/svg+xml;base64,PHN2",
            "document after the charts",
            "code {\"n\": 1}",
            "image data:image/png;base64,iVBORw0K",
            "document [more](demo://more)",
            "audio data:audio/wav;base64,UklGRnQA",
            "image data:image/png;base64,iVBORw0K",
        ]
    );

    // The model: the texts in the result, the three small PNGs as images
    // labelled by their call, the SVG and the big PNG as notes saying why.
    let second = model.requests()[1].json();
    let messages = second["messages"].as_array().expect("messages");
    let result = messages.iter().find(|m| m["role"] == "tool").expect("a tool result");
    let text = result["content"].as_str().expect("text");
    for said in [
        "two charts",
        "after the charts",
        "demo://more",
        "[audio (audio/wav, 124 bytes)]",
        "is image/svg+xml, not a PNG, JPEG, GIF or WebP image",
        "is 4 MiB; images up to 3.75 MiB are sent to models",
    ] {
        assert!(text.contains(said), "{said:?} in {text}");
    }
    let user = messages.last().expect("the images");
    let parts = user["content"].as_array().expect("parts");
    let images: Vec<&Value> = parts.iter().filter(|p| p["type"] == "image_url").collect();
    assert_eq!(images.len(), 3, "{user}");
    for i in images {
        assert_eq!(i["image_url"]["url"], format!("data:image/png;base64,{PIXEL}"));
    }
    assert_eq!(parts[0]["type"], "text");
    assert!(
        parts[0]["text"].as_str().is_some_and(|t| t.contains("call_m")),
        "labelled by the call: {user}"
    );

    // The next turn carries the same: nothing a provider refuses.
    let again = app
        .conversation()
        .send(&chat, "and now?", opts(), &mut |_| {})
        .await
        .expect("send");
    assert_eq!(again.status, RunStatus::Complete, "{:?}", again.error);
    let third = model.requests()[2].body.clone();
    assert!(!third.contains("data:image/svg+xml"), "no SVG is sent");
    assert_eq!(third.matches("data:image/png;base64,").count(), 3);
    app.mcp().stop_everything().await;
}
