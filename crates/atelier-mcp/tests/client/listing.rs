//! Listing a server's tools against servers whose `tools/list` misbehaves,
//! from `tests/mcp/legacy_server.py --tools-list MODE`.
//!
//! - [`a_tool_list_that_never_ends_is_cut_off`]: a cursor that comes back,
//!   endless pages, endless tools: each ends in an error naming the server.
//! - [`a_server_that_never_lists_its_tools_runs_out_of_time`]
//! - [`a_tool_listed_twice_is_kept_once_the_first_time`], which the
//!   listing's warnings say.

use std::sync::Arc;
use std::time::{Duration, Instant};

use atelier_mcp::{ConnectOptions, Connection, Listing, McpError};

use crate::common::{legacy_spec, quick};

/// Connects to the legacy server in `mode` and lists its tools; a listing
/// that has not ended after 30 s fails the test rather than hanging it.
async fn list(mode: &str, options: &ConnectOptions) -> Result<Listing, McpError> {
    let dir = tempfile::tempdir().expect("temp dir");
    let spec = legacy_spec(dir.path(), &["--tools-list", mode]);
    let conn = Connection::connect("pager", &spec, options, Arc::default(), None)
        .await
        .expect("the server starts");
    let listed = tokio::time::timeout(Duration::from_secs(30), conn.list_tools()).await;
    conn.stop().await;
    listed.unwrap_or_else(|_| panic!("listing in mode {mode} never ended"))
}

#[tokio::test]
async fn a_tool_list_that_never_ends_is_cut_off() {
    let err = list("repeat", &quick()).await.expect_err("the cursor comes back");
    assert_eq!(
        err.to_string(),
        "MCP server pager repeats the page cursor \"again\" of tools/list: its tool list never ends"
    );

    let err = list("endless", &quick()).await.expect_err("a new cursor each page");
    assert_eq!(
        err.to_string(),
        "MCP server pager listed more than 100 pages of tools: its tool list never ends"
    );

    let err = list("huge", &quick()).await.expect_err("500 tools a page");
    assert_eq!(
        err.to_string(),
        "MCP server pager listed more than 10000 tools, more than Atelier takes from one server"
    );
}

#[tokio::test]
async fn a_server_that_never_lists_its_tools_runs_out_of_time() {
    let options = ConnectOptions {
        list_timeout: Duration::from_secs(1),
        ..quick()
    };
    let t0 = Instant::now();
    let err = list("silent", &options).await.expect_err("no answer");
    assert_eq!(err.to_string(), "MCP server pager did not list its tools within 1 s");
    assert!(t0.elapsed() < Duration::from_secs(10), "took {:?}", t0.elapsed());
}

#[tokio::test]
async fn a_tool_listed_twice_is_kept_once_the_first_time() {
    let listed = list("duplicate", &quick()).await.expect("listed");
    let names: Vec<&str> = listed.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["shout", "whisper"]);
    assert_eq!(
        listed.tools[0].description, "Upper-cases its text.",
        "the first one is kept"
    );
    assert_eq!(
        listed.warnings,
        ["MCP server pager lists the tool \"shout\" more than once: the first one is kept, the others are left out"]
    );
}
