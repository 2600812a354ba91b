//! Bundles as someone else writes them from seed 004 alone: ids with `_`,
//! a number where the spec shows a quoted version, an MCP-only toolset
//! named after its one server, entry points relative to `tools/`, tools
//! turned off in the manifest, numbers a person sets kept as integers.

use crate::Env;
use crate::bundles::toolset_zip;

fn path(p: &std::path::Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A real bundle's ids have `_` (`my_tools`); they share the namespace of
/// toolsets and servers with `-` ids, and are never confused with them.
#[test]
fn ids_with_underscores_install_and_route_and_capitals_are_refused_with_the_lower_case_id() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let server =
        "mcp_servers:\n  - id: my_srv\n    command: npx\n    args: [\"-y\", \"srv\"]\n    auto_enabled: false\n";
    for (file, id, extra) in [
        ("a.zip", "my_tools", server),
        ("b.zip", "my-tools", "prefix: my_tools2\n"),
    ] {
        let zip = toolset_zip(t.path(), file, id, "1.0.0", extra);
        env.ok(&["toolset", "import", path(&zip), "--agent", "assistant"]);
    }
    let ids: Vec<String> = env
        .json(&["toolset", "list"])
        .as_array()
        .expect("list")
        .iter()
        .map(|t| t["id"].as_str().expect("id").to_owned())
        .collect();
    assert_eq!(ids, ["my-tools", "my_tools"]);
    assert!(env.data().join("toolsets/my_tools").is_dir() && env.data().join("toolsets/my-tools").is_dir());
    let servers = env.json(&["mcp", "list"]);
    assert!(servers.to_string().contains("\"my_srv\""), "{servers}");

    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let run = |name: &str| env.json(&["run", name, "--agent", "assistant", "--chat", &chat, "--quiet"]);
    for (name, canonical) in [
        ("my_tools.hello", "my_tools:hello"),
        ("my_tools2.hello", "my-tools:hello"),
    ] {
        let c = run(name);
        assert_eq!(
            (c["tool_id"].as_str(), c["status"].as_str()),
            (Some(canonical), Some("success")),
            "{c}"
        );
    }

    for (file, extra, field, lower) in [
        ("c.zip", "", "id", "my_tools3"),
        ("d.zip", "prefix: Short_P\n", "prefix", "short_p"),
        (
            "e.zip",
            "mcp_servers:\n  - id: Srv_X\n    command: npx\n",
            "mcp_servers[0].id",
            "srv_x",
        ),
    ] {
        let id = if field == "id" { "My_Tools3" } else { "fine" };
        let zip = toolset_zip(t.path(), file, id, "1.0.0", extra);
        let out = env.cli(&["toolset", "validate", path(&zip)]);
        let said = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{said}");
        assert!(
            said.contains(&format!("{field}: ")) && said.contains(&format!("ids are lower-case: use \"{lower}\"")),
            "{said}"
        );
    }
}
