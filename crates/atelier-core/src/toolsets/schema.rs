//! The JSON Schema of `toolset.yaml`, derived from the manifest types
//! ([`super::manifest`], their doc comments are its descriptions), so an
//! editor completes and checks a manifest as the author types.
//!
//! The repository publishes it as `schemas/toolset.schema.json` (a test
//! keeps that file equal to this function's output); `toolset init` writes
//! it beside the manifest as [`SCHEMA_FILE`] and points the manifest's
//! first line at it ([`MODELINE`]), and `atelier toolset schema` prints it.
//! The schema is stricter than the validator in one way only: an unknown
//! key is an error there (the editor's squiggle), a warning here — the
//! same as `validate --strict`, which `pack` uses.

use schemars::{Schema, SchemaGenerator, generate::SchemaSettings, json_schema};
use serde_json::{Map, Value, json};

use super::manifest::{RendererKind, ToolsetManifest};

/// The schema's file beside a scaffolded manifest. A dot-file: never packed,
/// copied or watched ([`super::ignore::always_ignored`]).
pub const SCHEMA_FILE: &str = ".toolset.schema.json";

/// The first line of a scaffolded `toolset.yaml`: yaml-language-server (VS
/// Code's YAML extension, Helix, Neovim, Zed…) resolves the path relative to
/// the manifest.
pub const MODELINE: &str = "# yaml-language-server: $schema=.toolset.schema.json";

/// The schema (JSON Schema draft-07, which every YAML editor reads).
pub fn manifest_schema() -> Value {
    let mut generator = SchemaSettings::draft07().for_deserialize().into_generator();
    let schema = generator.root_schema_for::<ToolsetManifest>();
    let mut value = schema.to_value();
    // `enabled: false` is kept in a tool's `extra` (so every decl made in
    // code need not name it), and described here.
    if let Some(props) = value
        .pointer_mut("/definitions/McpServerDecl/properties")
        .and_then(Value::as_object_mut)
    {
        props.insert(
            "type".to_owned(),
            json!({ "enum": ["stdio", "http", "streamable-http", "streamable_http", "streamableHttp"],
                    "description": "How it is reached: `stdio` (a `command`) or streamable HTTP (a `url`); read from those when left out. The old SSE transport is not supported." }),
        );
    }
    if let Some(props) = value
        .pointer_mut("/definitions/ToolDecl/properties")
        .and_then(Value::as_object_mut)
    {
        props.insert(
            "enabled".to_owned(),
            json!({ "type": "boolean", "description": "false: installed but turned off (not offered to models or in the tool picker, and a call is refused)." }),
        );
    }
    value
}

/// The schema as the published file holds it: pretty, with a final newline.
pub fn manifest_schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&manifest_schema()).unwrap_or_default();
    text.push('\n');
    text
}

/// `manifest_version:` — "1", or what the validator takes for it too (1,
/// 1.0, "1.0").
pub(super) fn manifest_version(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "The manifest format: \"1\".",
        "enum": [super::manifest::MANIFEST_VERSION, 1, "1.0"]
    })
}

/// `input_schema:` is itself a JSON Schema of the arguments: an object
/// (null, as no arguments or in an entry that adds to an exported tool).
pub(super) fn input_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": ["object", "null"],
        "description": "A JSON Schema of the arguments: `type: object`, `properties`, `required`.",
        "properties": {
            "type": { "const": "object" },
            "properties": { "type": "object", "additionalProperties": { "type": "object" } },
            "required": { "type": "array", "items": { "type": "string" } }
        },
        "required": ["type"]
    })
}

/// `renderer:` — one shape per type, each allowing exactly the keys the
/// validator knows ([`RendererKind::keys`]).
pub(super) fn renderer(_: &mut SchemaGenerator) -> Schema {
    let shapes: Vec<Value> = RendererKind::ALL
        .iter()
        .map(|kind| {
            let mut properties = Map::new();
            for key in kind.keys() {
                let shape = match *key {
                    "type" => json!({ "const": kind.as_str() }),
                    "editable" => json!({ "type": "boolean", "description": "The person may edit and save the file." }),
                    "data" => json!({ "description": "What the page receives as window.__TOOL_DATA__ (`$return`, `$args.x`…)." }),
                    "file" => json!({ "type": "string", "description": "A workspace path (may use `$return.x`, `$args.x`)." }),
                    "content" => json!({ "type": "string", "description": "The text itself (may use `$return.x`)." }),
                    "artifact" => json!({ "type": "string", "description": "An HTML file in the bundle." }),
                    "url" => json!({ "type": "string", "description": "An address (a loopback or data URL)." }),
                    "language" => json!({ "type": "string", "description": "The code's language (`python`, `json`…)." }),
                    "alt" => json!({ "type": "string", "description": "The image's text for people who cannot see it." }),
                    _ => json!({}),
                };
                properties.insert((*key).to_owned(), shape);
            }
            json!({
                "type": "object",
                "title": format!("{} renderer", kind.as_str()),
                "properties": properties,
                "required": ["type"],
                "additionalProperties": false,
            })
        })
        .collect();
    json_schema!({
        "description": "How a call's result is shown: code, document, html, frame or image.",
        "oneOf": shapes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn validator() -> jsonschema::Validator {
        jsonschema::validator_for(&manifest_schema()).expect("the schema compiles")
    }

    fn yaml(text: &str) -> Value {
        serde_norway::from_str(text).expect("yaml")
    }

    /// The published file is what this build derives: a change to the
    /// manifest types shows up in review as a change of the file.
    /// `UPDATE_SCHEMA=1` rewrites it.
    #[test]
    fn the_published_schema_is_the_derived_one() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/toolset.schema.json");
        let derived = manifest_schema_text();
        if std::env::var_os("UPDATE_SCHEMA").is_some() {
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, &derived).expect("write");
        }
        let published = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            published == derived,
            "schemas/toolset.schema.json is stale: run `UPDATE_SCHEMA=1 cargo test -p atelier-core schema`"
        );
    }

    /// The schema allows exactly the keys the validator knows, mapping by
    /// mapping: neither can learn a key the other does not.
    #[test]
    fn the_schema_and_the_validator_know_the_same_keys() {
        use crate::toolsets::validate::{CONFIG_KEYS, PYTHON_KEYS, SERVER_KEYS, TOOL_KEYS, TOP_KEYS};
        let schema = manifest_schema();
        let keys = |v: &Value| -> Vec<String> {
            let mut k: Vec<String> = v["properties"]
                .as_object()
                .expect("properties")
                .keys()
                .cloned()
                .collect();
            k.sort();
            k
        };
        let sorted = |k: &[&str]| -> Vec<String> {
            let mut k: Vec<String> = k.iter().map(|s| (*s).to_owned()).collect();
            k.sort();
            k
        };
        let defs = &schema["definitions"];
        assert_eq!(keys(&schema), sorted(TOP_KEYS));
        assert_eq!(keys(&defs["ToolDecl"]), sorted(TOOL_KEYS));
        assert_eq!(keys(&defs["McpServerDecl"]), sorted(SERVER_KEYS));
        assert_eq!(keys(&defs["PythonSection"]), sorted(PYTHON_KEYS));
        assert_eq!(keys(&defs["UserConfigDecl"]), sorted(CONFIG_KEYS));
        for def in ["ToolDecl", "McpServerDecl", "PythonSection", "UserConfigDecl"] {
            assert_eq!(defs[def]["additionalProperties"], json!(false), "{def}");
        }
        assert_eq!(schema["additionalProperties"], json!(false));
    }

    /// Every bundled example and the scaffold pass the schema, and what an
    /// editor should flag is flagged: a typo of a key, a wrong type, a
    /// renderer key of another type, a bad id.
    #[test]
    fn examples_pass_and_typos_fail() {
        let v = validator();
        for (name, files) in super::super::examples::EXAMPLES {
            let (_, text) = files.iter().find(|(f, _)| *f == "toolset.yaml").expect("manifest");
            let doc = yaml(std::str::from_utf8(text).expect("utf-8"));
            let errors: Vec<String> = v
                .iter_errors(&doc)
                .map(|e| format!("{e} at {}", e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "example {name}: {errors:?}");
        }
        let dir = tempfile::tempdir().expect("tmp");
        super::super::examples::init(&dir.path().join("t"), "my-tools").expect("init");
        let text = std::fs::read_to_string(dir.path().join("t/toolset.yaml")).expect("read");
        assert!(text.starts_with(MODELINE), "{text}");
        let written = std::fs::read_to_string(dir.path().join("t").join(SCHEMA_FILE)).expect("schema written");
        assert_eq!(written, manifest_schema_text());
        assert!(v.is_valid(&yaml(&text)), "the scaffold passes its own schema");

        let base = "manifest_version: \"1\"\nid: t\nname: T\nversion: \"1.0.0\"\n";
        let tool = |extra: &str| {
            format!(
                "{base}tools:\n  - id: a\n    name: A\n    entrypoint: tools.a:run\n    input_schema: {{type: object}}\n{extra}"
            )
        };
        assert!(v.is_valid(&yaml(&tool(""))));
        // What the validator takes, the schema takes: the number 1, and an
        // entry that adds to an exported tool with `input_schema: ~`.
        assert!(v.is_valid(&yaml(&base.replace("\"1\"\nid", "1\nid"))));
        assert!(v.is_valid(&yaml(&format!(
            "{base}tools_from: [tools.more]\ntools:\n  - id: shout\n    input_schema: ~\n    requires_confirmation: true\n"
        ))));
        for bad in [
            tool("    rendrer: {type: code, content: x}\n"),
            tool("    renderer: {type: html, file: x.txt}\n"),
            tool("    renderer: {type: chart}\n"),
            tool("    timeout_s: soon\n"),
            format!("{base}tools: []\nscope: everyone\n"),
            base.replace("id: t", "id: My Tools"),
            base.replace("\"1\"", "\"2\""),
            format!("{base}python: {{requirements: [x], extras: [y]}}\n"),
        ] {
            assert!(!v.is_valid(&yaml(&bad)), "accepted:\n{bad}");
        }
    }
}
