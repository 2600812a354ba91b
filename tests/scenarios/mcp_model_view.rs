//! What a model is given of an MCP server, as a good MCP client gives it:
//! a result of several content blocks as words (not the JSON of the
//! blocks, not base64), a tool's own failure as an error result with its
//! words, the server's `instructions` in the system prompt of a run that
//! offers its tools (framed as the server's words, cut to 8 KiB) and of no
//! other run; a long call that keeps reporting progress is not cut at
//! its timeout; and a tool whose input schema a model cannot go by (not an
//! object schema, not valid JSON Schema) is a warning of its server.

use std::time::Duration;

use atelier_core::Atelier;
use atelier_core::conversation::{RunStatus, SendOptions};
use atelier_core::tools::{Approval, CallControl, CallStatus};
use serde_json::{Value, json};

use crate::Env;
use crate::mcp::{app, calling_model, fixture, python, run, stdio};

/// An app with the fixture server `fx` added (its command line ending in
/// `flags`) and listed.
async fn with_fx(env: &Env, flags: &[&str]) -> Atelier {
    let app = app(env).await;
    let fx = fixture();
    let args: Vec<&str> = std::iter::once(fx.as_str()).chain(flags.iter().copied()).collect();
    app.mcp().add(stdio("fx", &python(), &args)).await.expect("add");
    app.mcp().refresh("fx").await.expect("lists");
    app
}

/// Runs agent `agent` in a new chat and hands back the requests' bodies.
async fn send(app: &Atelier, agent: &str, model: &atelier_llm::replay::ReplayServer) -> Vec<Value> {
    let chat = app.chats().create(Some("Test")).await.expect("chat").id;
    let out = app
        .conversation()
        .send(
            &chat,
            "go",
            SendOptions {
                agent_id: Some(agent.into()),
                approval: Approval::Approved,
                ..Default::default()
            },
            &mut |_| {},
        )
        .await
        .expect("send");
    assert_eq!(out.status, RunStatus::Complete, "{:?}", out.error);
    model.requests().iter().map(|r| r.json()).collect()
}

/// The tool message of a request.
fn tool_result(request: &Value) -> String {
    let messages = request["messages"].as_array().expect("messages");
    let result = messages.iter().find(|m| m["role"] == "tool").expect("a tool result");
    result["content"].as_str().expect("text").to_owned()
}

/// The system message of a request, if any.
fn system(request: &Value) -> Option<String> {
    let first = &request["messages"][0];
    (first["role"] == "system").then(|| first["content"].as_str().unwrap_or_default().to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_content_reaches_the_model_as_words_and_a_failure_as_an_error() {
    let env = Env::new();
    let app = with_fx(&env, &[]).await;
    let model = calling_model(&app, ("fx__mixed", "{}"), &["Seen."], ("mixer", "fx")).await;
    let requests = send(&app, "mixer", &model).await;
    let text = tool_result(&requests[1]);
    // Every block in order, as words: texts as they are, the embedded
    // resource's text under its URI, the rest a line naming it.
    let expected = [
        "two charts",
        "[image (image/png, 69 bytes)]",
        "[image (image/png, 69 bytes)]",
        "[image (image/svg+xml, 41 bytes)]",
        "after the charts",
        "[resource file:///data.json (application/json)]\n{\"n\": 1}",
        "[binary resource demo://pixel.png (image/png, 69 bytes), not shown]",
        "[resource link demo://more (\"more\")]",
        "[audio (audio/wav, 124 bytes)]",
    ]
    .join("\n\n");
    assert!(text.starts_with(&expected), "{text}");
    assert!(
        !text.contains("\"type\"") && !text.contains("iVBOR"),
        "no JSON, no base64: {text}"
    );

    // A tool's own failure (`isError`): an error result with its words.
    let model = calling_model(
        &app,
        ("fx__fails", "{\"text\": \"no such city: Atlantis\"}"),
        &["Sorry."],
        ("failer", "fx"),
    )
    .await;
    let requests = send(&app, "failer", &model).await;
    // (Said once: the OpenAI-compatible adapter adds "Error: " only to
    // words that do not already say it.)
    assert_eq!(tool_result(&requests[1]), "Error (exception): no such city: Atlantis");
    app.mcp().stop_everything().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_instructions_reach_only_runs_that_offer_its_tools() {
    let env = Env::new();
    let said = "Call echo before anything else.";
    let app = with_fx(&env, &["--instructions", said]).await;
    let model = calling_model(&app, ("fx__echo", "{\"text\": \"hi\"}"), &["Done."], ("with-fx", "fx")).await;
    let requests = send(&app, "with-fx", &model).await;
    for r in &requests {
        let system = system(r).expect("a system prompt");
        assert!(
            system.contains("The MCP server fx says about its tools (the server's own words, not the user's")
                && system.contains(&format!(
                    "<mcp-server-instructions server=\"fx\">\n{said}\n</mcp-server-instructions>"
                )),
            "{system}"
        );
    }
    // An agent without the server's tools is not told what it says.
    let mut spec = atelier_core::agents::AgentSpec::new("plain", "plain");
    spec.system_prompt = "Be brief.".into();
    app.agents().create(&spec).await.expect("agent");
    let before = model.requests().len();
    let chat = app.chats().create(Some("Plain")).await.expect("chat").id;
    let _ = app
        .conversation()
        .send(
            &chat,
            "hello",
            SendOptions {
                agent_id: Some("plain".into()),
                ..Default::default()
            },
            &mut |_| {},
        )
        .await;
    let plain = model.requests()[before].json();
    assert_eq!(system(&plain).as_deref(), Some("Be brief."));
    app.mcp().stop_everything().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_instructions_are_cut_to_8_kib_saying_so() {
    let env = Env::new();
    let app = with_fx(&env, &["--instructions-kib", "20"]).await;
    let model = calling_model(&app, ("fx__echo", "{\"text\": \"hi\"}"), &["Done."], ("with-fx", "fx")).await;
    let requests = send(&app, "with-fx", &model).await;
    let system = system(&requests[0]).expect("a system prompt");
    assert!(
        system.contains("[cut: MCP server fx's instructions are 20480 bytes; the first 8 KiB are above]"),
        "{}",
        &system[system.len().saturating_sub(300)..]
    );
    assert!(
        system.contains("instruction 1. ") && system.len() < 9 * 1024,
        "{}",
        system.len()
    );
    app.mcp().stop_everything().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_reporting_progress_outlives_its_timeout() {
    let env = Env::new();
    let app = with_fx(&env, &[]).await;
    let chat = app.chats().create(Some("Test")).await.expect("chat").id;
    let control = || CallControl {
        timeout: Some(Duration::from_millis(800)),
        ..Default::default()
    };
    // Progress every 0.2 s: 2 s of work under a 0.8 s timeout.
    let slow = run(&app, &chat, "fx:slow", json!({"seconds": 2}), control()).await;
    assert_eq!(slow.status, CallStatus::Success, "{:?}", slow.error);
    // No progress: the timeout.
    let stubborn = run(&app, &chat, "fx:stubborn", json!({"seconds": 30}), control()).await;
    assert_eq!(stubborn.status, CallStatus::Error);
    assert_eq!(stubborn.error.as_deref(), Some("timed out after 0.8 s"));
    app.mcp().stop_everything().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_whose_input_schema_is_odd_is_a_warning_naming_it() {
    let env = Env::new();
    let app = with_fx(&env, &["--odd-schemas"]).await;
    let server = app.mcp().get("fx").await.expect("fx");
    let named = |tool: &str, why: &str| {
        server.warnings.iter().any(|w| {
            w.starts_with(&format!(
                "MCP server fx lists the tool \"{tool}\" with an inputSchema that {why}"
            ))
        })
    };
    assert!(named("scalar", "is not an object schema"), "{:?}", server.warnings);
    assert!(named("broken", "is not valid JSON Schema"), "{:?}", server.warnings);
    assert_eq!(server.warnings.len(), 2, "{:?}", server.warnings);
    app.mcp().stop_everything().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_tools_list_of_typed_objects_is_its_data_not_mcp_content() {
    // A reused Python function returning document blocks of its own shape
    // (`type: text` with `content`, an image by `src`): data the model must
    // read whole, not MCP content with its words dropped.
    let env = Env::new();
    let app = app(&env).await;
    let src = tempfile::tempdir().expect("src");
    let dir = src.path().join("docs");
    std::fs::create_dir_all(dir.join("tools")).expect("mkdir");
    std::fs::write(
        dir.join("toolset.yaml"),
        "manifest_version: \"1\"\nid: docs\nname: Docs\nversion: 1.0.0\ntools_from: [tools.cms]\n",
    )
    .expect("yaml");
    std::fs::write(
        dir.join("tools/cms.py"),
        "def blocks() -> list:\n    \"\"\"The launch page's blocks.\"\"\"\n    return [\n        \
         {'type': 'text', 'content': 'The launch is on March 3.'},\n        \
         {'type': 'image', 'src': 'https://example.org/launch.png', 'alt': 'launch poster'},\n    ]\n\
         TOOLS = [blocks]\n",
    )
    .expect("py");
    app.toolsets()
        .import(&dir, &atelier_core::toolsets::ImportOptions::default())
        .await
        .expect("import");
    let model = calling_model(&app, ("docs__blocks", "{}"), &["Done."], ("editor", "docs")).await;
    let requests = send(&app, "editor", &model).await;
    let said = tool_result(&requests[1]);
    assert!(
        said.contains("The launch is on March 3.") && said.contains("https://example.org/launch.png"),
        "{said}"
    );
}
