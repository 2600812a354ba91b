//! Agents' allowlists as a person writes them: a toolset allowed to an
//! agent brings the MCP servers it declares; names that match nothing are
//! said on create and edit and logged by each run; an agent file's unknown
//! keys are refused with a hint; the sub-agent policy follows the person's
//! confirmation choices; ids made from names keep accented letters.

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

/// `atelier agent import` of an agent file with this text.
fn import_agent(env: &Env, dir: &std::path::Path, yaml: &str) -> std::process::Output {
    let file = dir.join("agent.yaml");
    std::fs::write(&file, yaml).expect("write");
    env.cli(&["agent", "import", file.to_str().expect("path")])
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
    let out = import_agent(
        &env,
        t.path(),
        "id: raw\nname: Raw\ntools: ['*']\ntoolset: [raw]\npolicy: [no_confirmation_in_sub_agents]\ndeny: ['*.run_command']\n",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("agent.yaml")
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

    let out = import_agent(
        &env,
        t.path(),
        "id: raw\nname: Raw\ntools: ['*']\nfilters:\n  - namespace: [builtin]\npolicies:\n  - deny: ['*_file']\n",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
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

/// "No confirmation tools in sub-agents" follows the person's per-tool
/// choice over the author's: a tool set to `ask` leaves sub-agents, one set
/// to `allow` stays, and `default` gives the author's choice back.
#[test]
fn the_sub_agent_policy_follows_the_persons_confirmation_choices() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let out = import_agent(
        &env,
        t.path(),
        "id: helper\nname: Helper\ntools: [write_file, delete_file]\npolicies: [no_confirmation_in_sub_agents]\n",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let at_depth_1 = || model_names(&env.json(&["agent", "resolve", "helper", "--depth", "1"]));
    assert_eq!(at_depth_1(), ["write_file"], "delete_file asks (its author's choice)");

    env.ok(&["tool", "policy", "write_file", "ask"]);
    env.ok(&["tool", "policy", "delete_file", "allow"]);
    assert_eq!(at_depth_1(), ["delete_file"]);
    assert_eq!(
        model_names(&env.json(&["agent", "resolve", "helper"])),
        ["delete_file", "write_file"],
        "a chat's own run keeps both: a person answers there"
    );
    env.ok(&["tool", "policy", "write_file", "default"]);
    env.ok(&["tool", "policy", "delete_file", "default"]);
    assert_eq!(at_depth_1(), ["write_file"]);
}

/// The app's pool notices a policy changed by itself or by the CLI.
#[tokio::test]
async fn a_confirmation_policy_change_reaches_the_next_resolution_of_a_running_app() {
    let env = Env::new();
    let app = env.app().await;
    let mut spec = atelier_core::agents::AgentSpec::new("helper", "Helper");
    spec.tools = vec!["write_file".into()];
    spec.policies = vec![atelier_core::routing::Policy::NoConfirmationInSubAgents];
    app.agents().create(&spec).await.expect("create");
    let kept = |r: atelier_core::routing::ResolvedTools| r.tools.len();
    assert_eq!(kept(app.agents().resolve("helper", 1).await.expect("resolve")), 1);
    app.tools()
        .set_policy("write_file", atelier_core::tools::Policy::Ask)
        .await
        .expect("ask");
    assert_eq!(kept(app.agents().resolve("helper", 1).await.expect("resolve")), 0);
    env.ok(&["tool", "policy", "write_file", "default"]);
    assert_eq!(kept(app.agents().resolve("helper", 1).await.expect("resolve")), 1);
}

/// An agent's id made from its name keeps its accented letters as plain
/// ones; a name with none an id can take asks for `--id`.
#[test]
fn an_id_made_from_a_name_keeps_accented_letters_and_asks_for_one_when_none_is_left() {
    let env = Env::new();
    env.ok(&["agent", "create", "Données Analyst"]);
    assert_eq!(
        env.json(&["agent", "show", "donnees-analyst"])["name"],
        "Données Analyst"
    );

    let out = env.cli(&["agent", "create", "数据"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("\"数据\"") && err.contains("--id"), "{err}");
    env.ok(&["agent", "create", "数据", "--id", "data"]);
    assert_eq!(env.json(&["agent", "show", "data"])["name"], "数据");
}
