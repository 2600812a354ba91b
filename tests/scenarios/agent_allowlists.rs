//! Agents' allowlists as a person writes them: a toolset allowed to an
//! agent brings the MCP servers it declares; names that match nothing are
//! said on create and edit and logged by each run; an agent file's unknown
//! keys are refused with a hint.

use atelier_llm::replay::ReplayServer;

use crate::Env;
use crate::bundles::toolset_zip;
use crate::conversation::{answer, setup};
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

/// Names and toolsets that match nothing are said when an agent is made or
/// edited, and logged by every run of it, never silently skipped.
// Two threads: the model server answers while the CLI runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_that_match_nothing_are_warned_on_create_edit_and_each_run() {
    let env = Env::new();
    let server = ReplayServer::start(vec![answer("Done.")]).await.expect("server");
    let (app, chat) = setup(&env, &server, 25).await;
    drop(app);
    let stderr = |out: &std::process::Output| {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };

    let created = stderr(&env.cli(&["agent", "create", "T2", "--toolset", "nosuch", "--tool", "csv-reprot.*"]));
    assert!(
        created.contains("warning:") && created.contains("\"nosuch\"") && created.contains("\"csv-reprot.*\""),
        "{created}"
    );
    let edited = stderr(&env.cli(&["agent", "edit", "writer", "--add-tool", "zzz*"]));
    assert!(edited.contains("warning:") && edited.contains("\"zzz*\""), "{edited}");
    assert!(!edited.contains("write_file"), "only what matches nothing: {edited}");

    // A run of the agent logs it (once), at the default level.
    let sent = stderr(&env.cli(&["chat", "send", &chat, "hi", "--agent", "writer"]));
    assert_eq!(sent.matches("\"zzz*\"").count(), 1, "{sent}");
    assert!(sent.contains("WARN"), "{sent}");
}

/// An agent file's misspelled keys are refused, each named with what it
/// was likely meant to be, and nothing is imported; filters and policies
/// written as the README has them (`- deny: [...]`) take effect.
#[test]
fn an_agent_file_with_unknown_keys_is_refused_and_the_readme_form_of_policies_works() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let file = t.path().join("raw.yaml");
    std::fs::write(
        &file,
        "id: raw\nname: Raw\ntools: ['*']\ntoolset: [raw]\npolicy: [no_confirmation_in_sub_agents]\ndeny: ['*.run_command']\n",
    )
    .expect("write");
    let out = env.cli(&["agent", "import", file.to_str().expect("path")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("raw.yaml")
            && err.contains("`toolset`: did you mean `toolsets`?")
            && err.contains("`policy`: did you mean `policies`?")
            && err.contains("`deny` is a policy, written under `policies:`"),
        "{err}"
    );
    assert_eq!(
        env.cli(&["agent", "show", "raw"]).status.code(),
        Some(1),
        "nothing imported"
    );

    std::fs::write(
        &file,
        "id: raw\nname: Raw\ntools: ['*']\nfilters:\n  - namespace: [builtin]\npolicies:\n  - deny: ['*_file']\n",
    )
    .expect("write");
    env.ok(&["agent", "import", file.to_str().expect("path")]);
    let names = model_names(&env.json(&["agent", "resolve", "raw"]));
    assert_eq!(
        names,
        ["list_available_agents", "list_files", "spawn_agents"],
        "builtins only, none of the denied *_file tools"
    );
    // Exported as it was written, and read back the same.
    let out = t.path().join("out.yaml");
    env.ok(&["agent", "export", "raw", "-o", out.to_str().expect("path")]);
    let yaml = std::fs::read_to_string(&out).expect("read");
    assert!(yaml.contains("- deny:") && yaml.contains("- namespace:"), "{yaml}");
    let other = Env::new();
    other.ok(&["agent", "import", out.to_str().expect("path")]);
    assert_eq!(model_names(&other.json(&["agent", "resolve", "raw"])), names);
}
