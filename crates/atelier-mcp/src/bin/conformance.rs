//! The client side of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, client mode): the suite starts a
//! test server per scenario and runs this with the server's URL as the last
//! argument, the scenario's name in `MCP_CONFORMANCE_SCENARIO` and, for some
//! scenarios, JSON in `MCP_CONFORMANCE_CONTEXT`.
//!
//! Every scenario goes through what the app uses: a [`Supervisor`] of a
//! `ServerSpec::Http`, its first listing, calls through it, its stop. An
//! `auth/*` scenario signs in as the app does when the server needs it (a
//! 401, or a 403 `insufficient_scope` for more scopes), with the headless
//! authorizer in place of a browser (the suite's authorization server
//! redirects at once), and connects again; at most three sign-ins.
//!
//! Exit status 0 when the scenario ran as we expect, 1 (the error on
//! stderr) otherwise.

use std::sync::Arc;
use std::time::Duration;

use atelier_mcp::oauth::{Headless, MemoryTokenStore, OAuth, SignInOptions, TokenStore, sign_in};
use atelier_mcp::{
    CallOptions, ConnectOptions, HttpSpec, McpError, ServerSpec, Supervisor, SupervisorOptions, ToolInfo,
};
use serde_json::{Map, Value, json};

/// Under the suite's 30 s per scenario, so that it never has to kill us.
const SCENARIO_TIMEOUT: Duration = Duration::from_secs(25);

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_else(|_| "initialize".to_owned());
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: atelier-mcp-conformance <server URL> (MCP_CONFORMANCE_SCENARIO names the scenario)");
        return std::process::ExitCode::from(2);
    };
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(Value::Null);
    match tokio::time::timeout(SCENARIO_TIMEOUT, run(&scenario, &url, &context)).await {
        Ok(Ok(())) => std::process::ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("{scenario}: {e}");
            std::process::ExitCode::FAILURE
        }
        Err(_) => {
            eprintln!("{scenario}: did not end within {} s", SCENARIO_TIMEOUT.as_secs());
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(scenario: &str, url: &str, context: &Value) -> Result<(), String> {
    if scenario.starts_with("auth/") {
        return signed_in(url, context).await;
    }
    let supervisor = supervise(url, None);
    let result = scenario_steps(&supervisor, scenario, context).await;
    supervisor.stop().await;
    result
}

fn supervise(url: &str, oauth: Option<OAuth>) -> Supervisor {
    Supervisor::start(
        "conformance",
        ServerSpec::Http(HttpSpec {
            url: url.to_owned(),
            headers: Vec::new(),
        }),
        SupervisorOptions {
            connect: ConnectOptions {
                handshake_timeout: Duration::from_secs(20),
                stop_grace: Duration::from_secs(1),
                client_name: "atelier-mcp-conformance".to_owned(),
                oauth,
                ..ConnectOptions::default()
            },
            ..SupervisorOptions::default()
        },
        None,
    )
}

/// The client metadata document URL the suite's `auth/basic-cimd` expects
/// as the client id (SEP-991).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// How many times an `auth/*` scenario may sign in (the suite's
/// `auth/scope-retry-limit` wants at most 3 authorizations).
const MAX_SIGN_INS: usize = 3;

/// Connect, list, call every tool; sign in (again) whenever the server
/// says it needs it, then start over.
async fn signed_in(url: &str, context: &Value) -> Result<(), String> {
    let store: Arc<dyn TokenStore> = Arc::new(MemoryTokenStore::default());
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_owned);
    let options = SignInOptions {
        client_name: "atelier-mcp-conformance".to_owned(),
        client_id: text("client_id"),
        client_secret: text("client_secret"),
        client_metadata_url: Some(CLIENT_METADATA_URL.to_owned()),
        scopes: Vec::new(),
    };
    let spec = HttpSpec {
        url: url.to_owned(),
        headers: Vec::new(),
    };
    let mut sign_ins = 0;
    loop {
        let supervisor = supervise(
            url,
            Some(OAuth {
                store: Arc::clone(&store),
            }),
        );
        let outcome = every_tool(&supervisor).await;
        supervisor.stop().await;
        let challenge = match outcome {
            Ok(()) => return Ok(()),
            Err(e) if e.needs_sign_in() && sign_ins < MAX_SIGN_INS => {
                eprintln!("{e}");
                e.challenge().map(str::to_owned)
            }
            Err(e) => return Err(e.to_string()),
        };
        sign_ins += 1;
        sign_in(
            "conformance",
            &spec,
            Arc::clone(&store),
            &Headless::default(),
            &options,
            challenge.as_deref(),
        )
        .await
        .map_err(|e| e.to_string())?;
        eprintln!("signed in ({sign_ins})");
    }
}

async fn every_tool(supervisor: &Supervisor) -> Result<(), McpError> {
    let tools = supervisor.ready().await?;
    let options = CallOptions {
        timeout: Some(Duration::from_secs(20)),
        ..CallOptions::default()
    };
    for tool in &tools {
        let result = supervisor.call(&tool.name, &arguments_for(tool), &options).await?;
        eprintln!("{}: is_error {}", tool.name, result.is_error);
    }
    Ok(())
}

async fn scenario_steps(supervisor: &Supervisor, scenario: &str, context: &Value) -> Result<(), String> {
    // Connect and list: every scenario starts so, and `initialize` is only
    // that.
    let tools = supervisor.ready().await.map_err(|e| e.to_string())?;
    eprintln!("{scenario}: connected, {} tool(s)", tools.len());
    match scenario {
        "initialize" => Ok(()),
        // Each call the context asks for, else each listed tool with
        // arguments made from its schema (`add_numbers` with `{a, b}`).
        "tools_call" => {
            let asked = context.get("toolCalls").and_then(Value::as_array);
            let calls: Vec<(String, Value)> = match asked {
                Some(calls) => calls
                    .iter()
                    .map(|c| {
                        let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
                        (name.to_owned(), c.get("arguments").cloned().unwrap_or(json!({})))
                    })
                    .collect(),
                None => tools.iter().map(|t| (t.name.clone(), arguments_for(t))).collect(),
            };
            for (name, args) in calls {
                call(supervisor, &name, &args).await?;
            }
            Ok(())
        }
        // The server closes the call's SSE stream after a priming event
        // (`retry: 500`); the answer comes on the GET stream the client
        // reopens after that wait, with `Last-Event-ID`.
        "sse-retry" => call(supervisor, "test_reconnection", &json!({})).await,
        // The server asks for an elicitation during the call; our client
        // does not declare the capability, so the server's request is
        // refused and the tool reports it.
        "elicitation-sep1034-client-defaults" => call(supervisor, "test_client_elicitation_defaults", &json!({})).await,
        other => Err(format!("unknown scenario {other:?}")),
    }
}

async fn call(supervisor: &Supervisor, tool: &str, args: &Value) -> Result<(), String> {
    let options = CallOptions {
        timeout: Some(Duration::from_secs(20)),
        ..CallOptions::default()
    };
    let result = supervisor
        .call(tool, args, &options)
        .await
        .map_err(|e: McpError| e.to_string())?;
    let text: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect();
    eprintln!("{tool}: {}", text.join(" "));
    if result.is_error {
        return Err(format!("{tool} reported an error: {}", text.join(" ")));
    }
    Ok(())
}

/// Arguments for a tool from its input schema: each property a plain value
/// of its type.
fn arguments_for(tool: &ToolInfo) -> Value {
    let mut args = Map::new();
    if let Some(props) = tool.input_schema.get("properties").and_then(Value::as_object) {
        for (i, (name, schema)) in props.iter().enumerate() {
            let value = match schema.get("type").and_then(Value::as_str) {
                Some("number" | "integer") => json!(i + 2),
                Some("boolean") => json!(true),
                Some("array") => json!([]),
                Some("object") => json!({}),
                _ => json!("test"),
            };
            args.insert(name.clone(), value);
        }
    }
    Value::Object(args)
}
