//! `toolset.yaml` as typed structs (`manifest_version: "1"`)
//! and their YAML form. Parsing with validation is in [`super::validate`];
//! this module also regenerates the YAML on export, so field order here is
//! the order of exported files. Unknown keys are kept in `extra` and
//! written back (forward compatibility).

use std::collections::BTreeMap;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The reserved parameter name through which a Python tool receives its
/// toolset's `user_config` values: never in a schema the model sees.
pub const ATELIER_CONFIG: &str = "atelier_config";

/// The only manifest version this build reads.
pub const MANIFEST_VERSION: &str = "1";

/// A whole manifest.
///
/// The doc comments of these types are the descriptions of the published
/// JSON Schema ([`super::schema`]): an editor shows them on hover.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields, title = "toolset.yaml")]
pub struct ToolsetManifest {
    /// The manifest format: "1".
    #[schemars(schema_with = "super::schema::manifest_version")]
    pub manifest_version: String,
    /// The toolset's id: lowercase letters, digits, `-` and `_` (`word-tools`), at most 64.
    #[schemars(regex(pattern = r"^[a-z0-9][a-z0-9_-]{0,63}$"))]
    pub id: String,
    /// The name people see.
    pub name: String,
    /// A semantic version (`1.2.0`); an import of a lower one is a downgrade.
    pub version: String,
    /// What the toolset is for, in a sentence or two.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// A web page about the toolset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    /// A path inside the bundle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    /// The namespace of its tools in model-facing names (`<prefix>.<tool>`);
    /// none: its id. The rule of ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[a-z0-9][a-z0-9_-]{0,63}$"))]
    pub prefix: Option<String>,
    /// One Python worker per chat (`chat`, the default) or one for all.
    #[serde(default, skip_serializing_if = "Scope::is_default")]
    pub scope: Scope,
    #[serde(default, skip_serializing_if = "PythonSection::is_empty")]
    pub python: PythonSection,
    #[serde(default)]
    pub tools: Vec<ToolDecl>,
    /// Modules whose explicitly exported functions (`TOOLS`, else
    /// `__all__`) become tools at import, each named after its export.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools_from: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<McpServerDecl>,
    /// Settings the person gives at install (MCPB's `user_config`), in
    /// declaration order: the order of the form.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub user_config: IndexMap<String, UserConfigDecl>,
    /// Keys this version does not know, kept as they were.
    #[serde(flatten)]
    #[schemars(skip)]
    pub extra: BTreeMap<String, Value>,
}

/// Whose a toolset's running instance (its Python worker) is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// One instance per chat, stopped with the chat: module state never
    /// crosses chats.
    #[default]
    Chat,
    /// One instance for every chat, never stopped by a chat (a cache, a
    /// model loaded once). Each call still gets its chat's workspace.
    Shared,
}

text_enum!(Scope {
    Chat = "chat",
    Shared = "shared",
});

impl Scope {
    pub fn is_default(&self) -> bool {
        *self == Self::Chat
    }
}

/// `python:` — what the Python runtime installs for this toolset.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PythonSection {
    /// pip requirement strings (`requests>=2`), installed into a venv.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requirements: Vec<String>,
}

impl PythonSection {
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }
}

/// One tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ToolDecl {
    /// The tool's id in the toolset: letters, digits, `_` and `-` (`word_count`), at most 64.
    #[schemars(regex(pattern = r"^[A-Za-z0-9_-]{1,64}$"))]
    pub id: String,
    /// The name people see (default: the id).
    #[serde(default)]
    pub name: String,
    /// What the tool does: the model reads this to decide when to call it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// `module.path:function`, relative to the toolset root. Left out, the
    /// entry names a tool a `tools_from:` module exports and adds to it (a
    /// name, a renderer, `requires_confirmation`…); its arguments come from
    /// the function's signature.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$"))]
    pub entrypoint: String,
    /// A group in the tool picker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// A JSON Schema of the arguments (`type: object`, `properties`,
    /// `required`); none (read as [`no_arguments_written`]): the arguments
    /// are derived from the function's signature at install. Null in an entry that adds to an exported
    /// tool (never given there).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[schemars(schema_with = "super::schema::input_schema")]
    pub input_schema: Value,
    /// Ask the person before each call.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub requires_confirmation: bool,
    /// Per-call time limit in seconds, above 0 and at most 86400 (a day);
    /// the runtime's default otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 86400))]
    pub timeout_s: Option<f64>,
    /// How a call's result is shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renderer: Option<RendererDecl>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub extra: BTreeMap<String, Value>,
}

impl ToolDecl {
    /// `enabled: false` in the manifest (kept in `extra`, written back as
    /// given): the tool is installed turned off.
    pub fn enabled(&self) -> bool {
        self.extra.get("enabled") != Some(&Value::Bool(false))
    }

    /// An entry without `entrypoint`: it adds to a tool a `tools_from:`
    /// module exports.
    pub fn is_overlay(&self) -> bool {
        self.entrypoint.is_empty()
    }

    /// The exported tool `exported` with what this overlay adds to it: its
    /// name and description when given, category, tags, confirmation, time
    /// limit and renderer.
    pub fn overlaid(&self, mut exported: ToolDecl) -> ToolDecl {
        if !self.name.is_empty() && self.name != self.id {
            exported.name = self.name.clone();
        }
        if !self.description.is_empty() {
            exported.description = self.description.clone();
        }
        exported.category = self.category.clone().or(exported.category);
        if !self.tags.is_empty() {
            exported.tags = self.tags.clone();
        }
        exported.requires_confirmation |= self.requires_confirmation;
        exported.timeout_s = self.timeout_s.or(exported.timeout_s);
        exported.renderer = self.renderer.clone().or(exported.renderer);
        if !self.enabled() {
            exported.extra.insert("enabled".to_owned(), Value::Bool(false));
        }
        exported
    }
}

/// The renderer types: code, document (markdown), html, frame and image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RendererKind {
    Code,
    Document,
    Html,
    Frame,
    /// Beyond the four text and page renderers: a workspace image (`file`) or
    /// a data / loopback `url`, with `alt` text.
    Image,
}

impl RendererKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RendererKind::Code => "code",
            RendererKind::Document => "document",
            RendererKind::Html => "html",
            RendererKind::Frame => "frame",
            RendererKind::Image => "image",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "code" => RendererKind::Code,
            "document" => RendererKind::Document,
            "html" => RendererKind::Html,
            "frame" => RendererKind::Frame,
            "image" => RendererKind::Image,
            _ => return None,
        })
    }

    pub const ALL: [RendererKind; 5] = [
        RendererKind::Code,
        RendererKind::Document,
        RendererKind::Html,
        RendererKind::Frame,
        RendererKind::Image,
    ];

    /// The keys a renderer of this type takes (`type` included): what the
    /// validator knows and what the JSON Schema allows.
    pub fn keys(self) -> &'static [&'static str] {
        match self {
            RendererKind::Code => &["type", "file", "content", "language", "editable"],
            RendererKind::Document => &["type", "file", "content", "editable"],
            RendererKind::Html => &["type", "artifact", "data"],
            RendererKind::Frame => &["type", "url"],
            RendererKind::Image => &["type", "file", "url", "alt"],
        }
    }
}

/// `renderer:` — a type and its config (every other key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(schema_with = "super::schema::renderer")]
pub struct RendererDecl {
    #[serde(rename = "type")]
    pub kind: RendererKind,
    #[serde(flatten)]
    pub config: BTreeMap<String, Value>,
}

/// An MCP server the toolset declares: a command (stdio) or a URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct McpServerDecl {
    /// The server's id in the toolset (the rule of toolset ids, with which
    /// it shares a namespace); its tools are named after it.
    #[schemars(regex(pattern = r"^[a-z0-9][a-z0-9_-]{0,63}$"))]
    pub id: String,
    /// The program of a stdio server (`npx`, `uvx`, a path in the bundle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Values may be `${VAR}` references, resolved when the server starts.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// The address of a streamable HTTP server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// HTTP headers of a `url` server; values like `env`'s.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Start using the server's tools without asking (default true).
    #[serde(default = "yes", skip_serializing_if = "Clone::clone")]
    pub auto_enabled: bool,
    /// How long, in seconds, a call of one of its tools may go without
    /// news (its result or a progress notification) before it is stopped;
    /// above 0 and at most 86400 (a day). The app's default otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 86400))]
    pub timeout_s: Option<f64>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub extra: BTreeMap<String, Value>,
}

fn yes() -> bool {
    true
}

/// One `user_config` setting (the shape of MCPB's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[schemars(deny_unknown_fields)]
pub struct UserConfigDecl {
    #[serde(rename = "type")]
    pub kind: ConfigType,
    /// The label of the setting's field.
    pub title: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "unknown")]
    pub default: Option<Value>,
    /// Kept in the secret store, never in the database; strings only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sensitive: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// Several values (a list): `directory` and `file` only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub multiple: bool,
}

/// The type of a `user_config` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ConfigType {
    String,
    Number,
    Boolean,
    Directory,
    File,
}

text_enum!(ConfigType {
    String = "string",
    Number = "number",
    Boolean = "boolean",
    Directory = "directory",
    File = "file",
});

impl ToolsetManifest {
    /// The manifest as YAML, in a stable order (this is what export writes).
    pub fn to_yaml(&self) -> String {
        // Serializing plain data structs to YAML cannot fail.
        serde_norway::to_string(self).unwrap_or_default()
    }
}

impl McpServerDecl {
    /// The declaration with every `env` value that is not already a `${VAR}`
    /// reference replaced by `${<KEY>}`: what leaves the machine on export.
    pub fn without_secrets(&self) -> Self {
        let mut out = self.clone();
        for (k, v) in out.env.iter_mut().chain(out.headers.iter_mut()) {
            if is_literal(v) {
                *v = format!("${{{}}}", reference_name(k));
            }
        }
        out
    }

    /// The JSON config stored in `toolset_mcp_servers.config` / `mcp_servers.config`.
    pub fn config_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A value with no `${…}` reference in it: in `env` or `headers`, a secret
/// written in plain text (it goes to the secret store at import).
pub fn is_literal(v: &str) -> bool {
    !v.contains("${")
}

/// The `${NAME}` a literal under `key` becomes: the key with anything but
/// letters, digits and `_` as `_` (header names have `-`).
pub fn reference_name(key: &str) -> String {
    key.chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
        .collect()
}

/// `${NAME}` exactly (a reference resolved from the environment).
pub fn is_env_reference(v: &str) -> bool {
    v.strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .is_some_and(|name| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// Whether `schema` is what a tool entry that writes no `input_schema`
/// holds once read (`{"type": "object", "properties": {}}`): its arguments
/// are then its function's, derived from the signature as a `tools_from:`
/// module's tools' are.
pub fn no_arguments_written(schema: &Value) -> bool {
    *schema == serde_json::json!({"type": "object", "properties": {}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_replaced_by_references() {
        let s = McpServerDecl {
            id: "s".into(),
            command: Some("npx".into()),
            args: vec![],
            env: [
                ("API_KEY".to_owned(), "sk-live-123".to_owned()),
                ("HOME_DIR".to_owned(), "${HOME}".to_owned()),
            ]
            .into_iter()
            .collect(),
            url: None,
            headers: BTreeMap::new(),
            auto_enabled: true,
            timeout_s: None,
            extra: BTreeMap::new(),
        };
        let clean = s.without_secrets();
        assert_eq!(clean.env["API_KEY"], "${API_KEY}");
        assert_eq!(clean.env["HOME_DIR"], "${HOME}");
        assert!(is_env_reference("${A_1}") && !is_env_reference("${}") && !is_env_reference("x${A}"));
    }
}
