//! Problems found in a file a person wrote (today: a `toolset.yaml`), each
//! with its severity, field path and, where known, line and column.
//!
//! A foundation type: the validator produces them, [`crate::Error`] carries
//! them, the CLI prints them and the app shows them beside the field.

use std::fmt;

use serde::Serialize;

/// The manifest's file name inside a bundle.
pub const MANIFEST_FILE: &str = "toolset.yaml";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One thing wrong (or suspicious) in a manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Problem {
    pub severity: Severity,
    /// The file `line` and `column` are in, when it is not the manifest (a
    /// Python module with a syntax error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub file: Option<String>,
    /// Field path, e.g. `tools[1].entrypoint` (empty: the whole file).
    pub path: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl Problem {
    /// A problem of the manifest at field path `path`, where no line is known.
    pub fn at(severity: Severity, path: impl Into<String>, message: impl Into<String>) -> Self {
        Problem {
            severity,
            file: None,
            path: path.into(),
            line: None,
            column: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    /// `toolset.yaml:14:7 tools[1].entrypoint: expected …`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.file.as_deref().unwrap_or(MANIFEST_FILE))?;
        if let (Some(l), Some(c)) = (self.line, self.column) {
            write!(f, ":{l}:{c}")?;
        }
        if self.severity == Severity::Warning {
            f.write_str(" warning")?;
        }
        if self.path.is_empty() {
            write!(f, ": {}", self.message)
        } else {
            write!(f, " {}: {}", self.path, self.message)
        }
    }
}
