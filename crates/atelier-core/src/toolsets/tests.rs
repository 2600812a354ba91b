//! Manifest reading: every problem at once, with positions; YAML round trips.

use std::collections::BTreeSet;

use proptest::prelude::*;

use super::manifest::{McpServerDecl, PythonSection, RendererDecl, RendererKind, ToolDecl, ToolsetManifest};
use super::validate::{self, Severity, check};

fn files(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

const GOOD: &str = r#"manifest_version: "1"
id: app-builder
name: App Builder
version: "1.0.0"
description: Build and preview web applications
tools:
  - id: write_file
    name: Write File
    description: Write content to a file in the workspace
    entrypoint: tools.files:write_file
    category: files
    input_schema:
      type: object
      properties:
        path: {type: string}
        content: {type: string}
      required: [path, content]
    renderer:
      type: code
      file: "$args.path"
      language: auto
      editable: true
mcp_servers:
  - id: my-mcp-server
    command: npx
    args: ["-y", "my-mcp-package"]
    env:
      API_KEY: "${MY_API_KEY}"
"#;

#[test]
fn the_seed_example_is_valid() {
    let c = check(GOOD, &files(&["tools/files.py", "toolset.yaml"]));
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    let m = c.manifest.expect("manifest");
    assert_eq!(m.tools[0].renderer.as_ref().map(|r| r.kind), Some(RendererKind::Code));
    assert_eq!(m.mcp_servers[0].env["API_KEY"], "${MY_API_KEY}");
}

/// Asserts every needle is in one of the problems; returns them as text.
fn assert_problems(c: &crate::toolsets::validate::Checked, needles: &[&str]) -> Vec<String> {
    let msgs: Vec<String> = c.problems.iter().map(ToString::to_string).collect();
    for needle in needles {
        assert!(
            msgs.iter().any(|m| m.contains(needle)),
            "missing {needle:?} in:\n{}",
            msgs.join("\n")
        );
    }
    msgs
}

#[test]
fn every_problem_is_reported_with_its_path_and_position() {
    let bad = r#"manifest_version: "2"
id: ../Evil
name: Broken
version: 1.0
future_field: true
python:
  requirements: ["--index-url http://evil", "ok>=1"]
tools:
  - id: a
    entrypoint: tools.a
    input_schema: {type: object, properties: {workspace: {type: string}}}
  - id: a
    entrypoint: tools.missing:run
    input_schema: {type: array}
    renderer: {type: html, artifact: artifacts/nope.html, data: "$foo"}
  - id: "bad id!"
    entrypoint: tools.a:run
    input_schema: {type: object, properties: {n: {type: 12}}}
    renderer: {type: code}
  - id: c
    entrypoint: tools.a:run
    renderer: {type: sparkle}
    colour: blue
  - id: d
    entrypoint: tools.a:run
    renderer: {type: image, file: a.png, url: "data:image/png;base64,AA=="}
  - id: e
    entrypoint: tools.a:run
    renderer: {type: image, alt: nothing to show}
mcp_servers:
  - id: s
  - id: s
    command: x
    url: http://y
"#;
    let c = check(bad, &files(&["tools/a.py"]));
    assert!(c.manifest.is_none());
    let msgs = assert_problems(
        &c,
        &[
            "toolset.yaml:1:19 manifest_version: unsupported manifest_version \"2\": this Atelier reads \"1\"",
            "toolset.yaml:2:5 id: \"../Evil\" is not a valid toolset id",
            "toolset.yaml:4:10 warning version: read as \"1.0.0\"; written as the number 1.0",
            "future_field: unknown key",
            "python.requirements[0]: \"--index-url http://evil\" is not a requirement",
            "toolset.yaml:10:17 tools[0].entrypoint: expected \"module.path:function\", got \"tools.a\"",
            "tools[0].input_schema.properties.workspace: `workspace` is reserved",
            "tools[1].id: duplicate tool id \"a\"",
            "tools[1].entrypoint: module file \"tools/missing.py\" is not in the bundle",
            "tools[1].input_schema.type: tool arguments are keyword arguments",
            "tools[1].renderer.artifact: the artifact \"artifacts/nope.html\" is not in the bundle",
            "tools[1].renderer.data: bad interpolation in \"$foo\": unknown variable `$foo`",
            "tools[2].id: \"bad id!\" is not a valid tool id",
            "tools[2].input_schema.properties.n.type: not a valid JSON Schema",
            "tools[2].renderer: a code renderer needs `file` (a workspace path) or `content`",
            "tools[3].renderer.type: unknown renderer type \"sparkle\"",
            "tools[3].colour: unknown key",
            "tools[4].renderer: an image renderer takes `file` or `url`, not both",
            "tools[5].renderer: an image renderer needs `file` (a workspace image) or `url`",
            "mcp_servers[0]: an MCP server needs a `command` or a `url`",
            "mcp_servers[1].id: duplicate MCP server id \"s\"",
            "mcp_servers[1]: give `command` (a local server) or `url` (a remote one), not both",
        ],
    );
    let warnings = c.problems.iter().filter(|p| p.severity == Severity::Warning).count();
    assert_eq!(
        warnings, 3,
        "unknown keys and a numeric version are warnings only: {msgs:#?}"
    );
}

#[test]
fn user_config_and_server_references_are_checked_with_their_positions() {
    let bad = r#"manifest_version: "1"
id: cfg
name: Settings
version: 1.0.0
user_config:
  api_key: {type: string, title: Key, sensitive: true, default: "sk-x"}
  count: {type: number, title: Count, min: 5, max: 1, default: "many"}
  flag: {type: boolean, title: Flag, multiple: true}
  "bad key": {type: string, title: B}
  kind: {type: colour, title: K}
  notitle: {type: string}
  folder: {type: directory, title: Folder, multiple: true}
tools:
  - id: t
    entrypoint: tools.a:run
    input_schema: {type: object, properties: {atelier_config: {type: object}}}
mcp_servers:
  - id: s
    command: npx
    args: ["--dirs=${user_config.folder}", "${user_config.nope}", "${oops"]
    env: {A: "${a.b}"}
    headers: {Authorization: "Bearer ${user_config.api_key}"}
"#;
    let c = check(bad, &files(&["tools/a.py"]));
    assert!(c.manifest.is_none());
    assert_problems(
        &c,
        &[
            "toolset.yaml:6:65 user_config.api_key.default: a sensitive setting cannot have a default",
            "user_config.count.min: min 5 is above max 1",
            "user_config.count.default: the default must be a number",
            "user_config.flag.multiple: only directory and file settings take several values",
            "toolset.yaml:9:3 user_config.bad key: \"bad key\" is not a setting key",
            "user_config.kind.type: \"colour\" is not a setting type",
            "user_config.notitle.title: `title` is required",
            "tools[0].input_schema.properties.atelier_config: `atelier_config` is reserved",
            "mcp_servers[0].args[0]: `folder` takes several values: use it alone as one whole `args` item",
            "mcp_servers[0].args[1]: `${user_config.nope}` names no setting in `user_config`",
            "mcp_servers[0].args[2]: `${` at byte 0 is not closed",
            "mcp_servers[0].env.A: `${a.b}` is not a reference",
            "mcp_servers[0].headers: `headers` are sent to a `url` server",
        ],
    );
}

#[test]
fn yaml_syntax_errors_have_a_position() {
    let c = check("id: [unclosed\nname: x\n", &BTreeSet::new());
    assert_eq!(c.problems.len(), 1);
    let p = &c.problems[0];
    assert!(p.line.is_some() && p.message.starts_with("not valid YAML"), "{p}");
}

fn ident() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,10}"
}

fn text() -> impl Strategy<Value = String> {
    // Includes YAML-hostile content: quotes, colons, `#`, leading spaces,
    // unicode, things that look like numbers or booleans.
    prop_oneof![
        "[ -~]{0,30}",
        Just("true".to_owned()),
        Just("1.5".to_owned()),
        Just("null".to_owned()),
        Just("- dash: colon # hash".to_owned()),
        Just("ünïcødé ✓\nsecond line".to_owned()),
    ]
}

fn tool() -> impl Strategy<Value = ToolDecl> {
    (
        ident(),
        text(),
        text(),
        ident(),
        proptest::collection::vec(ident(), 0..3),
        any::<bool>(),
        0u8..3,
    )
        .prop_map(|(id, name, description, func, tags, confirm, r)| ToolDecl {
            id: id.clone(),
            name,
            description,
            entrypoint: format!("tools.mod:{func}"),
            category: None,
            tags,
            input_schema: serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            requires_confirmation: confirm,
            timeout_s: if r == 1 { Some(2.5) } else { None },
            renderer: match r {
                0 => None,
                1 => Some(RendererDecl {
                    kind: RendererKind::Code,
                    config: [("file".to_owned(), serde_json::json!("$args.path"))]
                        .into_iter()
                        .collect(),
                }),
                _ => Some(RendererDecl {
                    kind: RendererKind::Frame,
                    config: [("url".to_owned(), serde_json::json!("http://localhost:${return.port}/x"))]
                        .into_iter()
                        .collect(),
                }),
            },
            extra: Default::default(),
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn manifests_round_trip_through_yaml(
        id in "[a-z0-9][a-z0-9-]{0,20}",
        name in text(),
        description in text(),
        tools in proptest::collection::vec(tool(), 0..4),
        reqs in proptest::collection::vec("[a-z]{1,8}(>=[0-9]\\.[0-9])?", 0..3),
        // `${` starts a reference (see config::refs): a literal has none.
        secret in "[ -#%-~]{0,12}",
    ) {
        let mut seen = std::collections::HashSet::new();
        let tools: Vec<_> = tools.into_iter().filter(|t| seen.insert(t.id.clone())).collect();
        let m = ToolsetManifest {
            manifest_version: "1".into(),
            id: id.clone(),
            name,
            version: "1.2.3-beta.1".into(),
            description,
            author: Some("A. Author".into()),
            homepage: None,
            icon: None,
            prefix: Some("px".into()),
            scope: super::manifest::Scope::Shared,
            python: PythonSection { requirements: reqs },
            tools,
            tools_from: vec!["tools.mod".into()],
            mcp_servers: vec![McpServerDecl {
                id: format!("{id}-srv"),
                command: Some("npx".into()),
                args: vec!["-y".into(), "pkg".into()],
                env: [("KEY".to_owned(), secret)].into_iter().collect(),
                url: None,
                headers: Default::default(),
                auto_enabled: false,
                timeout_s: Some(300.0),
                extra: Default::default(),
            }],
            user_config: serde_norway::from_str(
                "api_key: {type: string, title: API key, sensitive: true, required: true}\n\
                 limit: {type: number, title: Limit, min: 1.0, max: 50.0, default: 10}\n\
                 roots: {type: directory, title: Folders, multiple: true, default: [\"/tmp\"]}\n",
            )
            .expect("user_config"),
            extra: [("x-future".to_owned(), serde_json::json!({"a": [1, "b"]}))].into_iter().collect(),
        };
        let yaml = m.to_yaml();
        let c = check(&yaml, &files(&["tools/mod.py"]));
        let errors: Vec<String> = c.errors().map(ToString::to_string).collect();
        prop_assert!(errors.is_empty(), "{errors:?}\n{yaml}");
        prop_assert_eq!(c.manifest.as_ref(), Some(&m), "{}", yaml);
        // Deterministic: the same manifest always gives the same text.
        prop_assert_eq!(c.manifest.map(|x| x.to_yaml()), Some(yaml));
    }
}

#[test]
fn tools_from_names_modules_that_are_in_the_bundle() {
    let yaml = "manifest_version: \"1\"\nid: t\nname: T\nversion: 1.0.0\n\
                tools_from: [tools.text, tools.gone, \"not a module\", tools.text]\n";
    let c = check(yaml, &files(&["tools/text.py"]));
    let errors: Vec<String> = c.errors().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(errors[0].contains("tools_from[1]") && errors[0].contains("\"tools/gone.py\" is not in the bundle"));
    assert!(errors[1].contains("tools_from[2]") && errors[1].contains("expected a module path"));
    assert!(errors[2].contains("tools_from[3]") && errors[2].contains("listed twice"));
}

#[test]
fn a_deeply_nested_or_huge_manifest_is_refused_before_it_is_parsed() {
    let deep = format!("manifest_version: \"1\"\nid: x\ntools: {}", "[".repeat(200_000));
    let checked = validate::check(&deep, &BTreeSet::new());
    assert!(checked.manifest.is_none());
    let msg = checked.problems[0].to_string();
    assert!(msg.contains("nested more than 64 levels"), "{msg}");
    assert_eq!(checked.problems[0].line, Some(3), "{msg}");

    let huge = format!("id: x\ndescription: \"{}\"\n", "a".repeat(validate::MAX_MANIFEST_BYTES));
    let msg = validate::check(&huge, &BTreeSet::new()).problems[0].to_string();
    assert!(msg.contains("1.0 MiB; a manifest may have at most 1 MiB"), "{msg}");

    // Ordinary nesting (a JSON schema inside a tool) is fine.
    let ok = "manifest_version: \"1\"\nid: x\nname: X\nversion: \"1.0.0\"\ntools: []\nextra: [[[[[[[[1]]]]]]]]\n";
    assert!(
        validate::check(ok, &BTreeSet::new())
            .problems
            .iter()
            .all(|p| !p.message.contains("nested"))
    );
}

#[test]
fn source_types_and_import_actions_are_stored_and_sent_as_the_same_words() {
    use super::records::{ImportAction, SourceType};
    for &t in SourceType::ALL {
        assert_eq!(serde_json::to_value(t).expect("json"), t.as_str());
        assert_eq!(SourceType::parse(t.as_str()), Some(t));
    }
    for &a in ImportAction::ALL {
        assert_eq!(serde_json::to_value(a).expect("json"), a.as_str());
    }
    // The migration's CHECK lists these words.
    for &s in super::manifest::Scope::ALL {
        assert_eq!(serde_json::to_value(s).expect("json"), s.as_str());
        assert_eq!(super::manifest::Scope::parse(s.as_str()), Some(s));
    }
}

#[test]
fn merge_keys_and_a_byte_order_mark_read_as_yaml_tools_read_them() {
    let text = "\u{feff}manifest_version: \"1\"\nid: merge
name: Merge
version: \"1.0.0\"
x-common: &common
  requires_confirmation: true
  category: files
schema: &schema
  type: object
  properties:
    who: {type: string}
tools:
  - <<: *common
    id: hello
    name: Hello
    description: Says hello
    entrypoint: tools.hello:run
    input_schema:
      <<: *schema
      required: [who]
";
    let c = check(text, &files(&["tools/hello.py", "toolset.yaml"]));
    let m = c.manifest.expect("a valid manifest");
    let t = &m.tools[0];
    assert!(t.requires_confirmation, "the merged field is not dropped");
    assert_eq!(t.category.as_deref(), Some("files"));
    assert_eq!(t.input_schema["properties"]["who"]["type"], "string");
    assert_eq!(t.input_schema["required"][0], "who");
    assert!(
        !c.problems.iter().any(|p| p.message.contains("<<")),
        "no warning about `<<`: {:?}",
        c.problems
    );
}

#[test]
fn a_renderer_of_a_tool_that_derives_its_arguments_is_not_checked_against_none() {
    // No input_schema: the arguments are the function's, known at install;
    // `$args.name` must not be "not an argument" here.
    let yaml = r#"manifest_version: "1"
id: greet
name: Greet
version: 1.0.0
tools:
  - id: hello
    name: Hello
    entrypoint: tools.greet:run
    renderer: {type: code, content: "$args.name"}
"#;
    let c = check(yaml, &files(&["tools/greet.py", "toolset.yaml"]));
    assert!(c.problems.is_empty(), "{:?}", c.problems);
}
