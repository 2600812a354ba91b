//! Agents' allowlists as a person writes them: a toolset allowed to an
//! agent brings the MCP servers it declares.

use crate::Env;
use crate::bundles::toolset_zip;
use crate::mcp_cli::{assert_none_left, fixture};

fn model_names(resolved: &serde_json::Value) -> Vec<String> {
    resolved["resolved"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["model_name"].as_str().expect("name").to_owned())
        .collect()
}

/// `toolset import --agent` allows the toolset in one step, and with it the
/// tools of the MCP servers the toolset declares, once they are listed.
#[test]
fn a_toolset_allowed_to_an_agent_brings_the_mcp_servers_it_declares() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let server = fixture();
    let extra = format!(
        "mcp_servers:\n  - id: withmcp-srv\n    command: {:?}\n    args: [{:?}]\n",
        server[0], server[1]
    );
    let zip = toolset_zip(t.path(), "ts-mcp.zip", "withmcp", "1.0.0", &extra);
    env.ok(&["toolset", "import", zip.to_str().expect("path"), "--agent", "assistant"]);
    env.ok(&["mcp", "restart", "withmcp-srv"]);
    assert_none_left(&env, "mcp restart");

    let names = model_names(&env.json(&["agent", "resolve", "assistant"]));
    assert!(
        names.contains(&"withmcp.hello".to_owned()) && names.contains(&"withmcp-srv.echo".to_owned()),
        "the toolset's tool and its server's: {names:?}"
    );
    // The allowlist names the toolset only; its servers come with it.
    assert_eq!(
        env.json(&["agent", "show", "assistant"])["toolsets"],
        serde_json::json!(["withmcp"])
    );

    // Disabled, the toolset takes its server's tools along.
    env.ok(&["toolset", "disable", "withmcp"]);
    let names = model_names(&env.json(&["agent", "resolve", "assistant"]));
    assert!(!names.iter().any(|n| n.starts_with("withmcp")), "{names:?}");
}
