//! The toolset records handed out (CLI `--json`, IPC): field names are the
//! columns of the toolset tables in `migrations/`; JSON columns nested.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::Row;
use sqlx::sqlite::SqliteRow;

use super::validate::Problem;
use crate::{Error, Result};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolsetRecord {
    pub id: String,
    pub name: String,
    pub version: String,
    pub description: String,
    pub enabled: bool,
    pub installed_at: String,
    pub updated_at: Option<String>,
    pub source_type: SourceType,
    pub source_ref: Option<String>,
    pub manifest_version: String,
    pub author: Option<String>,
    pub homepage: Option<String>,
    pub icon: Option<String>,
    pub python_requirements: Vec<String>,
    pub extra: Value,
    /// Its tools' namespace in model-facing names: the manifest's `prefix`,
    /// else its id.
    pub prefix: String,
    pub scope: super::manifest::Scope,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RenderConfigRecord {
    pub renderer: String,
    pub config: Value,
    pub priority: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolRecord {
    /// Canonical id: bare for builtins, `<toolset_id>:<tool>` for toolset tools.
    pub tool_id: String,
    pub toolset_id: Option<String>,
    pub name: String,
    pub description: String,
    pub category: Option<String>,
    pub input_schema: Value,
    pub requires_confirmation: bool,
    pub enabled: bool,
    pub entrypoint: Option<String>,
    pub tags: Vec<String>,
    pub timeout_s: Option<f64>,
    pub render_config: Option<RenderConfigRecord>,
    /// The module that exported this tool (`tools_from:`), if it was not
    /// declared in `tools:`.
    pub exported_from: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolsetFileRecord {
    pub toolset_id: String,
    pub path: String,
    pub kind: String,
    pub sha256: String,
    pub size: u64,
    /// Relative to the data dir for installed bundles; absolute for local
    /// folders (they run in place).
    pub stored_path: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolsetMcpServerRecord {
    pub toolset_id: String,
    pub server_id: String,
    pub config: Value,
    pub auto_enabled: bool,
}

/// A toolset with everything it brings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolsetDetails {
    #[serde(flatten)]
    pub toolset: ToolsetRecord,
    pub tools: Vec<ToolRecord>,
    pub files: Vec<ToolsetFileRecord>,
    pub mcp_servers: Vec<ToolsetMcpServerRecord>,
}

/// What a bundle will run on this machine, shown before it installs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct WillRun {
    /// `(tool id, module.path:function)`.
    pub python_entrypoints: Vec<EntryPoint>,
    pub requirements: Vec<String>,
    /// The file `requirements` were read from when the manifest lists
    /// none (`requirements.txt` at the bundle's root); none: the manifest's
    /// `python.requirements`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub requirements_file: Option<String>,
    pub mcp_servers: Vec<ServerLaunch>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct EntryPoint {
    pub tool_id: String,
    pub entrypoint: String,
    /// The tool asks the person before each call.
    #[serde(default)]
    pub requires_confirmation: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ServerLaunch {
    pub id: String,
    pub command: Option<String>,
    pub args: Vec<String>,
    pub url: Option<String>,
    /// Its environment variables: that each has a value, and the value
    /// only when it is made of `${…}` references (a plain value may be a
    /// secret: never shown).
    #[serde(default)]
    pub env: Vec<LaunchValue>,
    /// Its HTTP headers, shown the same way.
    #[serde(default)]
    pub headers: Vec<LaunchValue>,
}

/// One `env` or `headers` entry of a server, as a consent step shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct LaunchValue {
    pub name: String,
    /// `${HOME}/data`; none: a plain value, kept out of sight (it goes to
    /// the secret store at import).
    pub shown: Option<String>,
}

impl LaunchValue {
    fn of(map: &std::collections::BTreeMap<String, String>) -> Vec<Self> {
        map.iter()
            .map(|(name, value)| LaunchValue {
                name: name.clone(),
                shown: (!super::manifest::is_literal(value) && !has_token(value)).then(|| value.clone()),
            })
            .collect()
    }

    /// The `env` and `headers` of a declaration.
    pub(crate) fn of_server(s: &super::manifest::McpServerDecl) -> (Vec<Self>, Vec<Self>) {
        (Self::of(&s.env), Self::of(&s.headers))
    }
}

/// Whether the plain text around a value's `${…}` references looks like a
/// token (a run of 12 or more letters, digits, `-` or `_`: `Bearer
/// sk-live-…`): such a value is not shown, references or not.
fn has_token(value: &str) -> bool {
    let mut plain = String::new();
    let mut rest = value;
    while let Some(i) = rest.find("${") {
        plain.push_str(&rest[..i]);
        plain.push(' ');
        rest = rest[i..].find('}').map_or("", |j| &rest[i + j + 1..]);
    }
    plain.push_str(rest);
    plain
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .any(|word| word.len() >= 12)
}

/// How a bundle's version stands to the installed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum VersionChange {
    /// Not installed.
    New,
    /// The installed version is the same: a reinstall.
    Same,
    Upgrade,
    /// Older than the installed version: a downgrade (said, and warned).
    Downgrade,
}

/// The result of checking a bundle without installing it.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct BundleReport {
    pub id: Option<String>,
    pub name: Option<String>,
    pub version: Option<String>,
    /// The manifest's `description` (empty: none).
    pub description: String,
    /// The version installed now, if any, and how this one stands to it.
    pub installed_version: Option<String>,
    pub version_change: Option<VersionChange>,
    pub valid: bool,
    pub problems: Vec<Problem>,
    pub will_run: WillRun,
    pub file_count: usize,
    pub total_size: u64,
    /// Settings to fill in, secrets it brings, variables it reads.
    pub consent: super::config::Consent,
    /// The tools its `tools_from:` modules export, with the input schemas
    /// derived from their signatures (read from the source, nothing run).
    pub exported: Vec<ExportedTool>,
    /// The `tools:` entries that give no `input_schema`, whose arguments
    /// come from their function's signature as an exported tool's do (read
    /// from the source; the import takes them from the imported function).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<ExportedTool>>", optional)]
    pub derived: Vec<ExportedTool>,
}

/// A tool a `tools_from:` module exports (or a `tools:` entry without an
/// `input_schema`, its arguments derived the same way).
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ExportedTool {
    pub module: String,
    pub name: String,
    pub entrypoint: String,
    pub description: String,
    #[ts(type = "unknown")]
    pub input_schema: serde_json::Value,
    /// A `tools:` entry without `entrypoint` adds to it (a name, a
    /// renderer…).
    pub adds: bool,
    /// That entry makes it ask the person before each call.
    pub requires_confirmation: bool,
}

/// Where an installed toolset's files come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum SourceType {
    /// Unpacked from a ZIP into the data dir.
    Zip,
    /// A folder on this computer, run in place (and watched).
    Local,
    /// Downloaded (reserved by the schema; nothing installs from URLs yet).
    Url,
}

text_enum!(SourceType {
    Zip = "zip",
    Local = "local",
    Url = "url",
});

/// What an import did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ImportAction {
    Installed,
    Upgraded,
    /// An older version replaced the installed one.
    Downgraded,
    Reinstalled,
}

text_enum!(ImportAction {
    Installed = "installed",
    Upgraded = "upgraded",
    Downgraded = "downgraded",
    Reinstalled = "reinstalled",
});

/// What an import did.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ImportReport {
    pub action: ImportAction,
    pub previous_version: Option<String>,
    pub toolset: ToolsetRecord,
    pub tools: Vec<String>,
    pub warnings: Vec<Problem>,
    pub will_run: WillRun,
    /// How many plain-text values of its `env`/`headers` went to the
    /// secret store (references took their place).
    pub secrets_moved: usize,
}

/// A JSON TEXT column, parsed.
pub(crate) fn json_col<T: serde::de::DeserializeOwned>(row: &SqliteRow, col: &str) -> Result<T> {
    let s: String = row.try_get(col)?;
    serde_json::from_str(&s).map_err(|e| Error::InvalidData {
        what: "JSON column",
        reason: format!("{col}: {e}"),
    })
}

pub(crate) fn toolset_from_row(row: &SqliteRow) -> Result<ToolsetRecord> {
    Ok(ToolsetRecord {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        version: row.try_get("version")?,
        description: row.try_get("description")?,
        enabled: row.try_get("enabled")?,
        installed_at: row.try_get("installed_at")?,
        updated_at: row.try_get("updated_at")?,
        source_type: {
            let s: String = row.try_get("source_type")?;
            SourceType::parse(&s).ok_or(Error::InvalidData {
                what: "toolset source type",
                reason: s,
            })?
        },
        source_ref: row.try_get("source_ref")?,
        manifest_version: row.try_get("manifest_version")?,
        author: row.try_get("author")?,
        homepage: row.try_get("homepage")?,
        icon: row.try_get("icon")?,
        python_requirements: json_col(row, "python_requirements")?,
        extra: json_col(row, "extra")?,
        prefix: row
            .try_get::<Option<String>, _>("prefix")?
            .map_or_else(|| row.try_get("id"), Ok)?,
        scope: {
            let s: String = row.try_get("scope")?;
            super::manifest::Scope::parse(&s).ok_or(Error::InvalidData {
                what: "toolset scope",
                reason: s,
            })?
        },
    })
}

pub(crate) fn tool_from_row(row: &SqliteRow) -> Result<ToolRecord> {
    let renderer: Option<String> = row.try_get("renderer")?;
    let render_config = match renderer {
        Some(renderer) => Some(RenderConfigRecord {
            renderer,
            config: json_col(row, "config")?,
            priority: row.try_get("priority")?,
        }),
        None => None,
    };
    Ok(ToolRecord {
        tool_id: row.try_get("tool_id")?,
        toolset_id: row.try_get("toolset_id")?,
        name: row.try_get("name")?,
        description: row.try_get("description")?,
        category: row.try_get("category")?,
        input_schema: json_col(row, "input_schema")?,
        requires_confirmation: row.try_get("requires_confirmation")?,
        enabled: row.try_get("enabled")?,
        entrypoint: row.try_get("entrypoint")?,
        tags: json_col(row, "tags")?,
        timeout_s: row.try_get("timeout_s")?,
        render_config,
        exported_from: row.try_get("exported_from")?,
    })
}
