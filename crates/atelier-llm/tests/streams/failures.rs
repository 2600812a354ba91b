//! The failures a person meets: HTTP errors typed (and transient ones
//! retried), a broken stream that keeps what streamed and says what broke,
//! errors a server sends inside a 200 stream, Stop mid-stream, and listing
//! a provider's models.

use std::time::Duration;

use anyhow::{Context, Result, ensure};
use atelier_llm::replay::{ReplayServer, Reply};
use atelier_llm::{Client, ErrorKind, Event, Kind, Provider, Retry};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::{chunk, provider, request, run};

/// The error an OpenAI-compatible request to `server` ends in.
async fn error_of(server: &ReplayServer, what: &'static str) -> Result<atelier_llm::Error> {
    let failed = run(&provider(server, Kind::Openai), &request()).await.0.err();
    Ok(failed.context(what)?.error)
}

#[tokio::test]
async fn http_errors_are_typed_and_transient_ones_retried() -> Result<()> {
    let ok = Reply::sse(&[
        chunk(json!({"content": "fine"}), Some("stop")),
        "data: [DONE]".to_owned(),
    ]);
    let refused = ReplayServer::start(vec![Reply::json(
        401,
        &json!({"error": {"message": "Invalid API key"}}),
    )])
    .await?;
    let e = error_of(&refused, "401").await?;
    ensure!(
        e.kind == ErrorKind::Auth && e.message.contains("check the API key of provider local"),
        "{e}"
    );
    ensure!(
        e.message.contains("Invalid API key") && refused.requests().len() == 1,
        "{e}"
    );

    let missing = ReplayServer::start(vec![Reply::json(
        404,
        &json!({"error": {"message": "model 'tiny' not found"}}),
    )])
    .await?;
    let e = error_of(&missing, "404").await?;
    ensure!(
        e.kind == ErrorKind::ModelNotFound && e.message.contains("\"tiny\""),
        "{e}"
    );

    let limited = ReplayServer::start(vec![
        Reply::json(429, &json!({"error": {"message": "slow down"}})).header("retry-after", "0.01"),
        ok.clone(),
    ])
    .await?;
    let turn = run(&provider(&limited, Kind::Openai), &request()).await.0?;
    ensure!(turn.text == "fine" && limited.requests().len() == 2, "retried once");

    let down = ReplayServer::start(vec![Reply::json(503, &json!({"error": {"message": "busy"}}))]).await?;
    let e = error_of(&down, "503").await?;
    ensure!(
        e.kind == ErrorKind::Server && down.requests().len() == 4,
        "{e}: four tries in all"
    );

    let long = ReplayServer::start(vec![Reply::json(
        400,
        &json!({"error": {"message": "This model's maximum context length is 8192 tokens"}}),
    )])
    .await?;
    let e = error_of(&long, "400").await?;
    ensure!(e.kind == ErrorKind::ContextLength && e.message.contains("8192"), "{e}");
    Ok(())
}

#[tokio::test]
async fn a_broken_stream_keeps_what_streamed_and_says_what_broke() -> Result<()> {
    let events = [
        chunk(json!({"content": "Part one, "}), None),
        chunk(json!({"content": "part two"}), None),
        chunk(json!({}), Some("stop")),
        "data: [DONE]".to_owned(),
    ];
    let cut = ReplayServer::start(vec![Reply::sse(&events).cut_after(2)]).await?;
    let f = run(&provider(&cut, Kind::Openai), &request())
        .await
        .0
        .err()
        .context("cut")?;
    ensure!(
        f.error.kind == ErrorKind::Network && f.partial.text == "Part one, part two",
        "{f:?}"
    );
    ensure!(cut.requests().len() == 1, "no retry after text streamed");

    let garbled = ReplayServer::start(vec![Reply::sse(&[
        chunk(json!({"content": "ok"}), None),
        "data: {not json".to_owned(),
    ])])
    .await?;
    let f = run(&provider(&garbled, Kind::Openai), &request())
        .await
        .0
        .err()
        .context("bad")?;
    ensure!(
        f.error.kind == ErrorKind::BadResponse && f.error.message.contains("{not json"),
        "{}",
        f.error
    );

    // Nobody listening: the error names the URL and asks whether it runs.
    let gone = {
        let s = ReplayServer::start(vec![]).await?;
        s.url("/v1")
    };
    let client = Client::new(Provider {
        id: "ollama".into(),
        kind: Kind::Openai,
        base_url: gone.clone(),
        api_key: None,
        headers: vec![],
    })?
    .with_retry(Retry {
        first: Duration::from_millis(1),
        max: Duration::from_millis(5),
    });
    let f = run(&client, &request()).await.0.err().context("refused")?;
    ensure!(
        f.error.kind == ErrorKind::Network && f.error.message.contains(&format!("could not connect to {gone}")),
        "{}",
        f.error
    );
    Ok(())
}

#[tokio::test]
async fn stop_mid_stream_keeps_the_text_so_far() -> Result<()> {
    let events: Vec<String> = (0..50)
        .map(|i| chunk(json!({"content": format!("w{i} ")}), None))
        .collect();
    let server = ReplayServer::start(vec![Reply::sse(&events).delayed(Duration::from_millis(20))]).await?;
    let client = provider(&server, Kind::Openai);
    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    let mut n = 0;
    let mut on = |e: &Event| {
        if matches!(e, Event::TextDelta(_)) {
            n += 1;
            if n == 3 {
                stop.cancel();
            }
        }
    };
    let f = client
        .stream(&request(), &cancel, &mut on)
        .await
        .err()
        .context("stopped")?;
    ensure!(
        f.error.kind == ErrorKind::Cancelled && f.partial.text == "w0 w1 w2 ",
        "{f:?}"
    );
    Ok(())
}

#[tokio::test]
async fn models_are_listed() -> Result<()> {
    let server = ReplayServer::start(vec![Reply::json(
        200,
        &json!({"object": "list", "data": [{"id": "nomic-embed-text:latest"}, {"id": "qwen2.5:0.5b"}, {"id": "llama3.2"}]}),
    )])
    .await?;
    // An embedding model cannot chat: it is not offered.
    let models = provider(&server, Kind::Openai).models().await?;
    ensure!(models == ["qwen2.5:0.5b", "llama3.2"], "{models:?}");
    ensure!(server.requests()[0].path == "/v1/models");
    Ok(())
}

#[tokio::test]
async fn an_error_inside_a_200_stream_is_typed_and_a_refusal_is_not_retried() -> Result<()> {
    // llama.cpp builds of 2025: the error as an `error:` field, then [DONE].
    let old_llama = ReplayServer::start(vec![Reply::sse(&[
        r#"error: {"code":400,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"invalid_request_error"}"#,
        "data: [DONE]",
    ])])
    .await?;
    let e = error_of(&old_llama, "an error, not an empty answer").await?;
    ensure!(
        e.kind == ErrorKind::ContextLength && e.message.contains("available context size"),
        "{e}"
    );
    ensure!(old_llama.requests().len() == 1, "not retried");

    let refused = ReplayServer::start(vec![Reply::sse(&[format!(
        "data: {}",
        json!({"error": {"message": "Invalid 'messages[1].role'", "type": "invalid_request_error", "code": null}})
    )])])
    .await?;
    let e = error_of(&refused, "refused").await?;
    ensure!(e.kind == ErrorKind::InvalidRequest, "{e}");
    ensure!(refused.requests().len() == 1, "a refusal is not retried");
    Ok(())
}

#[tokio::test]
async fn anthropic_models_are_read_page_after_page_up_to_a_bound() -> Result<()> {
    let server = ReplayServer::start(vec![
        Reply::json(
            200,
            &json!({"data": [{"id": "claude-a"}, {"id": "claude-b"}], "has_more": true, "first_id": "claude-a", "last_id": "claude-b"}),
        ),
        Reply::json(
            200,
            &json!({"data": [{"id": "claude-c"}], "has_more": false, "first_id": "claude-c", "last_id": "claude-c"}),
        ),
    ])
    .await?;
    let models = provider(&server, Kind::Anthropic).models().await?;
    ensure!(models == ["claude-a", "claude-b", "claude-c"], "{models:?}");
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    ensure!(
        paths == ["/v1/models?limit=1000", "/v1/models?limit=1000&after_id=claude-b"],
        "{paths:?}"
    );

    // A server that always says there is more is read ten pages, no more.
    let endless = ReplayServer::start(vec![Reply::json(
        200,
        &json!({"data": [{"id": "m"}], "has_more": true, "last_id": "m"}),
    )])
    .await?;
    let models = provider(&endless, Kind::Anthropic).models().await?;
    ensure!(models.len() == 10 && endless.requests().len() == 10, "{models:?}");
    Ok(())
}

/// What an error body says decides its kind before its status does: a
/// context overflow under 500 (llama.cpp) is not worth another try, nor is
/// an account out of credit under 429 (OpenAI's `insufficient_quota`).
#[tokio::test]
async fn an_error_is_typed_by_what_it_says_not_only_by_its_status() -> Result<()> {
    let ctx500 = ReplayServer::start(vec![Reply::json(
        500,
        &json!({"error": {"code": 500, "message": "the request exceeds the available context size, try increasing it", "type": "server_error"}}),
    )])
    .await?;
    let e = error_of(&ctx500, "500").await?;
    ensure!(
        e.kind == ErrorKind::ContextLength && ctx500.requests().len() == 1,
        "{e}"
    );

    // OpenAI names it by its code, in words that say nothing of context.
    let coded = ReplayServer::start(vec![Reply::json(
        400,
        &json!({"error": {"message": "Input is too long for this model.", "type": "invalid_request_error", "code": "context_length_exceeded"}}),
    )])
    .await?;
    ensure!(error_of(&coded, "coded").await?.kind == ErrorKind::ContextLength);

    let quota = ReplayServer::start(vec![Reply::json(
        429,
        &json!({"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
            "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}),
    )])
    .await?;
    let e = error_of(&quota, "429").await?;
    ensure!(
        !e.kind.is_transient() && quota.requests().len() == 1,
        "{e}: a billing error is not retried"
    );
    ensure!(
        e.message.contains("no quota or credit left") && !e.message.contains("rate limiting"),
        "{e}"
    );

    // OpenAI's own header, in milliseconds.
    let limited = ReplayServer::start(vec![
        Reply::json(
            429,
            &json!({"error": {"message": "Rate limit reached for gpt-4o", "type": "requests", "code": "rate_limit_exceeded"}}),
        )
        .header("retry-after-ms", "1500"),
    ])
    .await?;
    let e = error_of(&limited, "limited").await?;
    ensure!(
        e.kind == ErrorKind::RateLimited && e.retry_after == Some(Duration::from_millis(1500)),
        "{e:?}"
    );

    // Gemini's OpenAI endpoint: a list of one error.
    let listed = ReplayServer::start(vec![Reply::json(
        400,
        &json!([{"error": {"code": 400, "message": "Request contains an invalid argument.", "status": "INVALID_ARGUMENT"}}]),
    )])
    .await?;
    let e = error_of(&listed, "list").await?;
    ensure!(
        e.message.ends_with(": Request contains an invalid argument.") && !e.message.contains('['),
        "{e}"
    );
    Ok(())
}
