//! An HTTP address of a server that speaks only the old HTTP+SSE transport
//! (protocol 2024-11-05), from `tests/mcp/fixture_server.py --sse PATH`
//! (the PyPI `mcp` package's own SSE server): the error says what the
//! server answered and what to use instead, in words, never rmcp's types.
//!
//! - [`an_old_sse_address_is_named_with_what_to_use_instead`]: its `/sse`
//!   address (405 to a POST), and one whose name does not say so but
//!   answers GET with an event stream.
//! - [`an_address_not_found_or_not_listening_says_so`]: 404 and no event
//!   stream; nothing listening.

use std::sync::Arc;
use std::time::Duration;

use atelier_mcp::{Connection, HttpSpec, McpError, ServerSpec};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::common::{quick, repo};

/// The fixture serving the old transport at `path`, and its address. The
/// child is killed when dropped, so a failing test leaves no server.
async fn old_sse_server(path: &str) -> (Child, String) {
    let python = repo().join(".tools/mcp-venv/bin/python");
    assert!(
        python.is_file(),
        "{} is missing: run scripts/install.sh",
        python.display()
    );
    let mut child = Command::new(python)
        .arg(repo().join("tests/mcp/fixture_server.py"))
        .args(["--sse", path])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the fixture starts");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let url = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(line) = lines.next_line().await.expect("stderr") {
            if let Some(url) = line.strip_prefix("fixture: old SSE transport at ") {
                return url.to_owned();
            }
        }
        panic!("the fixture ended before it served");
    })
    .await
    .expect("the fixture serves within 20 s");
    // Keep reading its stderr so that it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

async fn refused(url: &str) -> String {
    let spec = ServerSpec::Http(HttpSpec {
        url: url.to_owned(),
        headers: vec![],
    });
    let err = Connection::connect("old", &spec, &quick(), Arc::default(), None)
        .await
        .expect_err("the old transport is not spoken");
    assert!(
        matches!(&err, McpError::Handshake { server, .. } if server == "old"),
        "{err:?}"
    );
    let text = err.to_string();
    for internal in ["rmcp::", "Transport [", "discover and legacy"] {
        assert!(!text.contains(internal), "{internal:?} in {text}");
    }
    text
}

#[tokio::test]
async fn an_old_sse_address_is_named_with_what_to_use_instead() {
    // Its usual address; and one not named /sse, which the GET's event
    // stream gives away.
    for path in ["/sse", "/events"] {
        let (mut child, url) = old_sse_server(path).await;
        let origin = url.strip_suffix(path).expect("the address ends with the path");
        assert_eq!(
            refused(&url).await,
            format!(
                "MCP server old failed to start: {url} answered a POST with HTTP 405 Method Not Allowed: \
                 the old SSE transport is not supported: use the server's streamable HTTP address (often {origin}/mcp)"
            )
        );
        child.kill().await.expect("kill");
    }
}

#[tokio::test]
async fn an_address_not_found_or_not_listening_says_so() {
    let (mut child, url) = old_sse_server("/sse").await;
    let wrong = url.replace("/sse", "/nothing");
    assert_eq!(
        refused(&wrong).await,
        format!(
            "MCP server old failed to start: {wrong} answered a POST with HTTP 404 Not Found: is it the server's MCP address?"
        )
    );
    child.kill().await.expect("kill");
}
