//! Who a secret belongs to, and the values that stand for one.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// The owner of a secret: it is resolved only for that owner (a toolset's
/// key never reaches another toolset's tools or servers).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Owner {
    /// An LLM provider's API key.
    Provider(String),
    /// A toolset's settings (its sensitive `user_config`, its servers' env).
    Toolset(String),
    /// An MCP server the person declared.
    Mcp(String),
}

impl Owner {
    /// Parses `provider:<id>`, `toolset:<id>` or `mcp:<id>`.
    pub fn parse(s: &str) -> Result<Self> {
        let bad = |reason: &str| Error::InvalidData {
            what: "secret owner",
            reason: format!("{s:?}: {reason} (use provider:ID, toolset:ID or mcp:ID)"),
        };
        let (kind, id) = s.split_once(':').ok_or_else(|| bad("no kind"))?;
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)) {
            return Err(bad("the id must be letters, digits, `-`, `_` or `.`"));
        }
        match kind {
            "provider" => Ok(Self::Provider(id.to_owned())),
            "toolset" => Ok(Self::Toolset(id.to_owned())),
            "mcp" => Ok(Self::Mcp(id.to_owned())),
            _ => Err(bad("unknown kind")),
        }
    }

    fn parts(&self) -> (&'static str, &str) {
        match self {
            Self::Provider(id) => ("provider", id),
            Self::Toolset(id) => ("toolset", id),
            Self::Mcp(id) => ("mcp", id),
        }
    }

    /// `ATELIER_SECRET_<OWNER>_<KEY>`: the owner's id and the key upper-cased,
    /// anything but letters and digits as `_` (`toolset:csv-report` and
    /// `api_key` → `ATELIER_SECRET_CSV_REPORT_API_KEY`).
    pub fn env_var(&self, key: &str) -> String {
        let shout = |s: &str| -> String {
            s.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        c.to_ascii_uppercase()
                    } else {
                        '_'
                    }
                })
                .collect()
        };
        format!("ATELIER_SECRET_{}_{}", shout(self.parts().1), shout(key))
    }
}

impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kind, id) = self.parts();
        write!(f, "{kind}:{id}")
    }
}

/// Checks a secret's key: a name, not a value (it is shown and stored).
pub fn check_key(key: &str) -> Result<()> {
    if key.is_empty() || key.len() > 128 || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)) {
        return Err(Error::InvalidData {
            what: "secret key",
            reason: format!("{key:?}: use 1-128 letters, digits, `-`, `_` or `.`"),
        });
    }
    Ok(())
}

/// A secret's value. It has no `Display` and no `Serialize`, and its
/// `Debug` shows nothing of it: it reaches a log, an error or a `--json`
/// output only by someone calling [`Secret::expose`].
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value, for the one place that needs it (a server's start, a
    /// provider request, a tool's `atelier_config`).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// Where secrets are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum StoreKind {
    /// The OS keychain (Secret Service, Keychain, Credential Manager).
    Keychain,
    /// `secrets.json` in the data dir, mode 0600: only with the person's
    /// consent, where no keychain is reachable.
    File,
}

text_enum!(StoreKind {
    Keychain = "keychain",
    File = "file",
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_parse_print_and_name_their_environment_variables() {
        let o = Owner::parse("toolset:csv-report").expect("owner");
        assert_eq!(o, Owner::Toolset("csv-report".into()));
        assert_eq!(o.to_string(), "toolset:csv-report");
        assert_eq!(o.env_var("api_key"), "ATELIER_SECRET_CSV_REPORT_API_KEY");
        assert_eq!(
            Owner::parse("provider:openai").expect("p").env_var("key"),
            "ATELIER_SECRET_OPENAI_KEY"
        );
        for bad in ["csv", "toolset:", "robot:x", "toolset:a b", "mcp:x/y"] {
            assert!(Owner::parse(bad).is_err(), "{bad}");
        }
        assert!(check_key("API_KEY").is_ok() && check_key("").is_err() && check_key("a=b").is_err());
    }

    #[test]
    fn a_secret_never_shows_in_debug_output() {
        let s = Secret::new("sk-live-123");
        assert_eq!(format!("{s:?}"), "Secret(<redacted>)");
        assert_eq!(format!("{:?}", Some(s.clone())), "Some(Secret(<redacted>))");
        assert_eq!(s.expose(), "sk-live-123");
        for &k in StoreKind::ALL {
            assert_eq!(serde_json::to_value(k).expect("json"), k.as_str());
        }
    }
}
