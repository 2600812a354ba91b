//! A streamable-HTTP server restarted mid-session
//! (`@modelcontextprotocol/server-everything streamableHttp`): it has
//! forgotten the session and answers a request carrying it with a 400 and a
//! JSON-RPC error without an id, which rmcp could route to no request — the
//! call hung for its whole timeout, and every later one too.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use atelier_mcp::{CallOptions, Connection, HttpSpec, ServerSpec};
use serde_json::json;

use crate::common::{quick, repo, text};

/// server-everything over streamable HTTP on `port`, once it listens.
fn everything_http(port: u16) -> Child {
    let script = repo().join("tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        script.is_file(),
        "{} is missing: run scripts/install.sh",
        script.display()
    );
    let mut child = Command::new("node")
        .arg(&script)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node");
    let mut err = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    while !line.contains("listening") {
        line.clear();
        assert!(err.read_line(&mut line).expect("read") > 0, "server-everything exited");
    }
    // Keep draining its stderr so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in err.lines() {});
    child
}

fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

async fn echo(conn: &Connection, message: &str) -> String {
    let (args, options) = (json!({"message": message}), CallOptions::default());
    let out = tokio::time::timeout(Duration::from_secs(10), conn.call("echo", &args, &options))
        .await
        .unwrap_or_else(|_| panic!("echo {message:?} hung"))
        .unwrap_or_else(|e| panic!("echo {message:?}: {e}"));
    text(&out)
}

#[tokio::test]
async fn a_call_after_the_server_restarted_opens_a_new_session_and_goes_through() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let server = everything_http(port);
    let spec = ServerSpec::Http(HttpSpec {
        url: format!("http://127.0.0.1:{port}/mcp"),
        headers: Vec::new(),
    });
    let conn = Connection::connect("everything-http", &spec, &quick(), Arc::default(), None)
        .await
        .expect("the server starts");
    assert!(echo(&conn, "before").await.contains("before"));
    stop(server);
    let server = everything_http(port);
    // A request the lost session never accepted: safe to send again.
    assert!(echo(&conn, "after").await.contains("after"));
    assert!(echo(&conn, "again").await.contains("again"));
    conn.stop().await;
    stop(server);
}
