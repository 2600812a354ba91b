//! Agents and tool routing: which tools a run of an agent gets, under which
//! names, with the pool following installs made by any process.

use atelier_core::agents::AgentSpec;
use atelier_core::routing::{Exposure, Source, SourceKind, ToolDef, expose};
use atelier_core::tools::Policy;
use atelier_core::toolsets::ImportOptions;
use serde_json::json;

use crate::Env;
use crate::bundles::toolset_zip;

fn names(r: &atelier_core::routing::ResolvedTools) -> Vec<String> {
    r.tools.iter().map(|t| t.model_name.clone()).collect()
}

fn mcp_source(id: &str, prefix: &str, tools: &[&str]) -> Source {
    Source {
        kind: SourceKind::Mcp,
        id: Some(id.to_owned()),
        version: None,
        prefix: Some(prefix.to_owned()),
        tools: tools
            .iter()
            .map(|t| ToolDef {
                name: (*t).to_owned(),
                description: format!("{t} over MCP"),
                input_schema: json!({"type": "object", "properties": {"path": {"type": "string", "format": "uri"}}}),
                tags: Vec::new(),
                category: None,
                requires_confirmation: false,
                read_only: true,
            })
            .collect(),
        declared_by: Vec::new(),
    }
}

#[tokio::test]
async fn a_fresh_data_dir_has_an_assistant_with_the_workspace_tools_and_a_new_agent_has_none() {
    let env = Env::new();
    let app = env.app().await;
    let agents = app.agents().list().await.expect("list");
    assert_eq!(agents.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), ["assistant"]);
    let assistant = app.agents().resolve("assistant", 0).await.expect("resolve");
    assert_eq!(
        names(&assistant),
        ["delete_file", "list_files", "read_file", "write_file"]
    );
    assert!(assistant.warnings.is_empty(), "{:?}", assistant.warnings);

    app.agents()
        .create(&AgentSpec::new("researcher", "Researcher"))
        .await
        .expect("create");
    let none = app.agents().resolve("researcher", 0).await.expect("resolve");
    assert!(none.tools.is_empty(), "a new agent sees nothing: {:?}", names(&none));
    let dup = app
        .agents()
        .create(&AgentSpec::new("researcher", "Again"))
        .await
        .expect_err("duplicate id");
    assert_eq!(dup.kind(), "conflict");
    let bad = app
        .agents()
        .create(&AgentSpec::new("Bad Id", "x"))
        .await
        .expect_err("bad id");
    assert!(bad.to_string().contains("lower-case"), "{bad}");
}

#[tokio::test]
async fn allowlists_by_toolset_exact_name_glob_and_star_with_warnings_for_unknown_names() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let app = env.app().await;
    for id in ["alpha", "beta"] {
        let zip = toolset_zip(t.path(), &format!("{id}.zip"), id, "1.0.0", "");
        app.toolsets()
            .import(&zip, &ImportOptions::default())
            .await
            .expect("import");
    }
    let mut spec = AgentSpec::new("mixed", "Mixed");
    spec.toolsets = vec!["alpha".into(), "gamma".into()];
    spec.tools = vec!["beta.hello".into(), "*_file".into(), "nothing.*".into()];
    app.agents().create(&spec).await.expect("create");
    let r = app.agents().resolve("mixed", 0).await.expect("resolve");
    assert_eq!(
        names(&r),
        ["alpha.hello", "beta.hello", "delete_file", "read_file", "write_file"],
        "sorted by canonical id"
    );
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    assert!(r.warnings.iter().any(|w| w.contains("\"gamma\"")));
    assert!(r.warnings.iter().any(|w| w.contains("\"nothing.*\"")));
    // The router: unknown prefix, unknown tool, a tool outside this run.
    assert_eq!(r.route("alpha.hello").expect("routed").canonical_id, "alpha:hello");
    assert_eq!(
        r.route("zeta.x").expect_err("unknown").to_string(),
        "Toolset not found: zeta"
    );
    assert_eq!(
        r.route("alpha.nope").expect_err("unknown").to_string(),
        "Tool not found: alpha.nope"
    );
    assert_eq!(
        r.route("list_files").expect_err("outside").to_string(),
        "Tool not found: list_files"
    );

    let mut all = AgentSpec::new("everything", "Everything");
    all.tools = vec!["*".into()];
    app.agents().create(&all).await.expect("create");
    let every = app.agents().resolve("everything", 0).await.expect("resolve");
    assert!(every.tools.len() >= 6, "{:?}", names(&every));
    assert!(
        names(&every).contains(&"spawn_agents".to_owned()),
        "coordination tools are in the pool"
    );
    assert!(
        !names(&app.agents().resolve("everything", 1).await.expect("depth 1")).contains(&"spawn_agents".to_owned())
    );
}

#[tokio::test]
async fn the_pool_follows_installs_by_another_process_and_sources_added_in_process() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let app = env.app().await;
    let mut spec = AgentSpec::new("wide", "Wide");
    spec.tools = vec!["*".into()];
    app.agents().create(&spec).await.expect("create");
    let before = app.agents().resolve("wide", 0).await.expect("resolve");
    let again = app.agents().resolve("wide", 0).await.expect("resolve");
    assert_eq!(
        before.generation, again.generation,
        "nothing changed: the same snapshot"
    );

    // The CLI installs a toolset while this process holds its snapshot.
    let zip = toolset_zip(t.path(), "late.zip", "late", "1.0.0", "");
    env.ok(&["toolset", "import", zip.to_str().expect("path")]);
    let after = app.agents().resolve("wide", 0).await.expect("resolve");
    assert!(after.generation > before.generation);
    assert!(names(&after).contains(&"late.hello".to_owned()), "{:?}", names(&after));
    env.ok(&["toolset", "disable", "late"]);
    let disabled = app.agents().resolve("wide", 0).await.expect("resolve");
    assert!(!names(&disabled).contains(&"late.hello".to_owned()));

    // An MCP server enters the pool through the same interface.
    app.routing().set_source(mcp_source("files", "fs", &["read_text_file"]));
    let with_mcp = app.agents().resolve("wide", 0).await.expect("resolve");
    let tool = with_mcp.route("fs.read_text_file").expect("routed");
    assert_eq!(
        (tool.canonical_id.as_str(), tool.read_only),
        ("files:read_text_file", true)
    );
    // A prefix another source has is refused, naming both.
    app.routing().set_source(mcp_source("other", "late", &["x"]));
    env.ok(&["toolset", "enable", "late"]);
    let clash = app
        .agents()
        .resolve("wide", 0)
        .await
        .expect_err("prefix clash")
        .to_string();
    assert!(
        clash.contains("\"late\"") && clash.contains("toolset late 1.0.0") && clash.contains("MCP server other"),
        "{clash}"
    );
    app.routing().remove_source("other");
    assert!(app.agents().resolve("wide", 0).await.is_ok());
}

#[test]
fn the_cli_creates_exports_imports_and_resolves_agents_and_imports_toolsets_for_one() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let zip = toolset_zip(t.path(), "csv.zip", "csv-report", "1.0.0", "");
    env.ok(&["toolset", "import", zip.to_str().expect("path"), "--agent", "assistant"]);
    let r = env.json(&["agent", "resolve", "assistant", "--exposure", "openai"]);
    let wires: Vec<&str> = r["exposed"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["wire_name"].as_str().expect("wire"))
        .collect();
    assert!(wires.contains(&"csv-report__hello"), "{wires:?}");
    assert_eq!(r["exposed"]["wire_to_model"]["csv-report__hello"], "csv-report.hello");

    env.ok(&[
        "agent",
        "create",
        "Data Analyst",
        "--toolset",
        "csv-report",
        "--toolset",
        "not-yet",
        "--tool",
        "read_file",
    ]);
    let shown = env.json(&["agent", "show", "data-analyst"]);
    assert_eq!(shown["toolsets"], json!(["csv-report", "not-yet"]));
    let file = t.path().join("analyst.yaml");
    env.ok(&["agent", "export", "data-analyst", "-o", file.to_str().expect("path")]);
    let yaml = std::fs::read_to_string(&file).expect("read");
    assert!(yaml.contains("id: data-analyst") && yaml.contains("not-yet"), "{yaml}");

    // Into another data dir, before its toolsets: kept, with warnings.
    let other = Env::new();
    let out = other.cli(&["agent", "import", file.to_str().expect("path")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("\"csv-report\"") && err.contains("\"not-yet\""), "{err}");
    assert_eq!(
        other.json(&["agent", "show", "data-analyst"])["toolsets"],
        json!(["csv-report", "not-yet"])
    );
    let again = other.cli(&["agent", "import", file.to_str().expect("path")]);
    assert_eq!(again.status.code(), Some(1), "an existing id needs --replace");
    other.ok(&["agent", "import", file.to_str().expect("path"), "--replace"]);
    other.ok(&["agent", "delete", "data-analyst"]);
    assert_eq!(other.cli(&["agent", "show", "data-analyst"]).status.code(), Some(1));
}

#[tokio::test]
async fn exposure_names_and_schemas_follow_the_provider_and_say_what_changed() {
    let env = Env::new();
    let app = env.app().await;
    app.routing().set_source(mcp_source("files", "fs", &["read.text"]));
    let mut spec = AgentSpec::new("reader", "Reader");
    spec.toolsets = vec!["files".into()];
    app.agents().create(&spec).await.expect("create");
    let r = app.agents().resolve("reader", 0).await.expect("resolve");
    let openai = expose(&r, Exposure::Openai);
    assert_eq!(openai.tools[0].wire_name, "fs__read__text");
    assert_eq!(openai.model_name("fs__read__text"), Some("fs.read.text"));
    assert!(
        openai.tools[0].input_schema["properties"]["path"]
            .get("format")
            .is_none()
    );
    assert!(
        openai.warnings.iter().any(|w| w.starts_with("fs.read.text: format")),
        "{:?}",
        openai.warnings
    );
    let mcp = expose(&r, Exposure::Mcp);
    assert_eq!(mcp.tools[0].wire_name, "fs.read.text");
}

/// A model's call by name goes through its run's router: a name the run
/// does not have never runs, and is recorded as a call (`error`,
/// `not_found`) with the words the model is told, under the chat's leaf.
#[test]
fn the_router_refuses_names_outside_the_run_and_records_each_refusal() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let zip = toolset_zip(t.path(), "csv.zip", "csv-report", "1.0.0", "");
    env.ok(&["toolset", "import", zip.to_str().expect("path")]);
    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let call = |name: &str, args: &str| {
        env.json(&[
            "run",
            name,
            "--agent",
            "assistant",
            "--chat",
            &chat,
            "--args",
            args,
            "--quiet",
        ])
    };

    let refusals = [
        ("nope.anything", "Toolset not found: nope"),
        ("csv-report.missing", "Tool not found: csv-report.missing"),
        // In the pool, but not on the Assistant's allowlist.
        ("csv-report.hello", "Tool not found: csv-report.hello"),
        // Canonical ids are not model-facing names.
        ("csv-report:hello", "Tool not found: csv-report:hello"),
    ];
    let mut ids = Vec::new();
    for (name, said) in refusals {
        let c = call(name, "{}");
        assert_eq!(
            (c["status"].as_str(), c["error_kind"].as_str(), c["error"].as_str()),
            (Some("error"), Some("not_found"), Some(said)),
            "{c}"
        );
        assert_eq!(c["tool_id"], name, "the name the model used is kept");
        assert!(c["node_id"].is_string(), "a tool message in the tree: {c}");
        ids.push(c["id"].as_str().expect("id").to_owned());
    }
    let listed = env.json(&["call", "show", &ids[2]]);
    assert_eq!(listed["error_kind"], "not_found");

    let wrote = call("write_file", r#"{"path": "a.txt", "content": "routed"}"#);
    assert_eq!(wrote["status"], "success", "{wrote}");
    assert_eq!(wrote["tool_id"], "write_file");
    assert_eq!(env.ok(&["workspace", "cat", &chat, "a.txt"]), "routed");

    // Once the toolset is on the allowlist, its model-facing name runs it
    // under its canonical id.
    env.ok(&["agent", "edit", "assistant", "--add-toolset", "csv-report"]);
    let hello = call("csv-report.hello", r#"{"name": "there"}"#);
    assert_eq!(hello["status"], "success", "{hello}");
    assert_eq!(hello["tool_id"], "csv-report:hello");
    assert_eq!(hello["result"]["text"], "1.0.0 there");
}

/// A toolset's `prefix` names its tools for models; prefixes are unique
/// across toolsets (and MCP servers), and an import that would take one
/// already held fails naming both.
#[test]
fn a_prefix_names_the_tools_for_models_and_a_taken_prefix_fails_the_import() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let path = |p: &std::path::Path| p.to_str().expect("utf-8").to_owned();
    let short = toolset_zip(t.path(), "csv.zip", "csv-report", "1.0.0", "prefix: csv\n");
    env.ok(&["toolset", "import", &path(&short), "--agent", "assistant"]);
    let shown = env.json(&["toolset", "show", "csv-report"]);
    assert_eq!(shown["prefix"], "csv", "{shown}");
    let resolved = env.json(&["agent", "resolve", "assistant"]);
    let names: Vec<&str> = resolved["resolved"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["model_name"].as_str().expect("name"))
        .collect();
    assert!(
        names.contains(&"csv.hello") && !names.contains(&"csv-report.hello"),
        "{names:?}"
    );

    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let run = |name: &str| env.json(&["run", name, "--agent", "assistant", "--chat", &chat, "--quiet"]);
    assert_eq!(run("csv.hello")["tool_id"], "csv-report:hello", "routed by prefix");
    assert_eq!(
        run("csv-report.hello")["error"],
        "Toolset not found: csv-report. Did you mean csv.hello?"
    );

    // A toolset whose id is that prefix, and one declaring it: refused.
    for (file, id, extra) in [("a.zip", "csv", ""), ("b.zip", "other", "prefix: csv\n")] {
        let zip = toolset_zip(t.path(), file, id, "1.0.0", extra);
        let out = env.cli(&["toolset", "import", &path(&zip)]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains("prefix \"csv\"") && err.contains("\"csv-report\"") && err.contains(&format!("\"{id}\"")),
            "names the prefix and both toolsets: {err}"
        );
    }
    assert_eq!(env.json(&["toolset", "list"]).as_array().map(Vec::len), Some(1));

    // The rule of ids applies to prefixes.
    let bad = toolset_zip(t.path(), "bad.zip", "fine", "1.0.0", "prefix: Not Good\n");
    let out = env.cli(&["toolset", "import", &path(&bad)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("prefix") && err.contains("not a valid prefix"), "{err}");
}

/// Settings' live preview: an unsaved definition's tools under the names
/// the model calls them by, what matches nothing, and what the agent's
/// provider's protocol takes away; nothing is saved. The Assistant, which
/// answers in every chat without an agent, cannot be deleted.
#[tokio::test]
async fn an_unsaved_agent_previews_its_tools_and_warnings_and_the_assistant_stays() {
    let env = Env::new();
    let app = env.app().await;
    app.routing().set_source(mcp_source("files", "fs", &["read.text"]));
    app.tools()
        .set_policy("read_file", Policy::Ask)
        .await
        .expect("always ask");
    let mut spec = AgentSpec::new("not saved yet", "Draft");
    spec.toolsets = vec!["files".into(), "gone".into()];
    spec.tools = vec!["read_*".into(), "ghost.*".into(), "spawn_agents".into()];
    let preview = app.agents().preview(&spec).await.expect("preview");
    let names: Vec<&str> = preview.tools.iter().map(|t| t.model_name.as_str()).collect();
    assert_eq!(
        names,
        ["fs.read.text", "read_file", "spawn_agents"],
        "sorted by canonical id"
    );
    assert_eq!(preview.tools[0].source_id.as_deref(), Some("files"));
    // Each tool with the person's confirmation policy; the coordination
    // tools, which never ask, have none.
    let policies: Vec<Option<Policy>> = preview.tools.iter().map(|t| t.policy).collect();
    assert_eq!(policies, [Some(Policy::Default), Some(Policy::Ask), None]);
    assert_eq!(preview.warnings.len(), 2, "{:?}", preview.warnings);
    assert!(preview.warnings[0].contains("\"gone\"") && preview.warnings[1].contains("\"ghost.*\""));
    assert_eq!(preview.exposure, Exposure::Openai, "no model: the strictest protocol");
    assert!(
        preview
            .feature_loss
            .iter()
            .any(|w| w.starts_with("fs.read.text: format"))
            && preview.feature_loss.iter().any(|w| w.contains("named fs__read__text")),
        "{:?}",
        preview.feature_loss
    );
    assert!(
        app.agents().get("not saved yet").await.is_err(),
        "a preview saves nothing"
    );

    // A model of a provider that is not set up is said; an Anthropic one
    // exposes to Anthropic.
    spec.model = Some(atelier_core::agents::AgentModel {
        provider: "nowhere".into(),
        model: "m".into(),
    });
    let missing = app.agents().preview(&spec).await.expect("preview");
    assert!(
        missing.warnings.iter().any(|w| w.contains("\"nowhere\" is not set up")),
        "{:?}",
        missing.warnings
    );
    app.providers()
        .add(&atelier_core::providers::ProviderSpec {
            id: "claude".into(),
            preset: Some("anthropic".into()),
            ..Default::default()
        })
        .await
        .expect("add provider");
    spec.model = Some(atelier_core::agents::AgentModel {
        provider: "claude".into(),
        model: "m".into(),
    });
    assert_eq!(
        app.agents().preview(&spec).await.expect("preview").exposure,
        Exposure::Anthropic
    );

    let refused = app.agents().delete("assistant").await.expect_err("the Assistant stays");
    assert_eq!(refused.kind(), "conflict");
    assert!(refused.to_string().contains("cannot be deleted"), "{refused}");
    assert!(app.agents().get("assistant").await.is_ok());
}
