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

    /// The environment variable that may stand for `key` of this owner:
    /// `ATELIER_SECRET_<KIND>_<ID>__<KEY>`, upper-cased, anything but
    /// letters and digits as `_` (`toolset:csv-report` and `API_KEY` →
    /// `ATELIER_SECRET_TOOLSET_CSV_REPORT__API_KEY`; `provider:openai` and
    /// `api_key` → `ATELIER_SECRET_PROVIDER_OPENAI__API_KEY`).
    ///
    /// No two owners share a name: the kind is in it, `__` ends the id,
    /// and only an id the name gives back exactly has one — lower-case
    /// letters and digits in words joined by single `-`s (every provider's
    /// id; a toolset's unless it has `_`; an MCP server's unless it has
    /// capitals or `_`).
    /// Any other id has none (`None`): `my_srv` would read `my-srv`'s
    /// variable, `Files` `files`'s. Keys of one owner that differ only in
    /// case or punctuation share a name: they are that owner's own.
    pub fn env_var(&self, key: &str) -> Option<String> {
        let (kind, id) = self.parts();
        let name = format!("ATELIER_SECRET_{}_{}__{}", shout(kind), shout(id), shout(key));
        (Self::from_env_var(&name).as_ref() == Some(self)).then_some(name)
    }

    /// The name versions before the kind was added read for `key`
    /// (`ATELIER_SECRET_<ID>_<KEY>`): no longer read, since it did not say
    /// whose key it was, but named when it is set so the person can rename
    /// it.
    pub fn former_env_var(&self, key: &str) -> String {
        format!("ATELIER_SECRET_{}_{}", shout(self.parts().1), shout(key))
    }

    /// The owner an environment variable of [`Self::env_var`]'s form names
    /// (its kind, and the id up to the first `__`, lower-cased, `_` as `-`).
    fn from_env_var(name: &str) -> Option<Self> {
        let rest = name.strip_prefix("ATELIER_SECRET_")?;
        let (kind, rest) = rest.split_once('_')?;
        let (id, _key) = rest.split_once("__")?;
        let id = id.to_ascii_lowercase().replace('_', "-");
        Self::parse(&format!("{}:{id}", kind.to_ascii_lowercase())).ok()
    }
}

/// Upper-cased, anything but letters and digits as `_`.
fn shout(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
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

/// Where a stored value came from (`secret_names.origin`): whether
/// removing it loses something the person cannot type back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum SecretOrigin {
    /// Typed by the person (a toolset's details, `atelier secrets set`, a
    /// provider's key, a sign-in): every write but a bundle import's.
    Person,
    /// Written in plain text in a toolset ZIP and moved to the secret store
    /// when it was imported: only installing the toolset again brings it
    /// back once removed.
    Bundle,
}

text_enum!(SecretOrigin {
    Person = "person",
    Bundle = "bundle",
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_parse_print_and_name_their_environment_variables() {
        let o = Owner::parse("toolset:csv-report").expect("owner");
        assert_eq!(o, Owner::Toolset("csv-report".into()));
        assert_eq!(o.to_string(), "toolset:csv-report");
        assert_eq!(
            o.env_var("API_KEY").as_deref(),
            Some("ATELIER_SECRET_TOOLSET_CSV_REPORT__API_KEY")
        );
        assert_eq!(
            Owner::parse("provider:openai")
                .expect("p")
                .env_var("api_key")
                .as_deref(),
            Some("ATELIER_SECRET_PROVIDER_OPENAI__API_KEY")
        );
        for bad in ["csv", "toolset:", "robot:x", "toolset:a b", "mcp:x/y"] {
            assert!(Owner::parse(bad).is_err(), "{bad}");
        }
        assert!(check_key("API_KEY").is_ok() && check_key("").is_err() && check_key("a=b").is_err());
    }

    #[test]
    fn no_two_owners_share_an_environment_variable() {
        let owners = [
            "provider:openai",
            "toolset:openai",
            "mcp:openai",
            "mcp:my-srv",
            "mcp:my_srv",
            "mcp:Files",
            "mcp:files",
            "toolset:csv",
            "toolset:csv-report",
            "toolset:csv_report",
            "toolset:csv--report",
            "toolset:csv-",
            "toolset:my__x",
            "toolset:my",
            "mcp:a.b",
            "mcp:a-b",
        ];
        let keys = ["api_key", "API_KEY", "REPORT_API_KEY", "_X", "x", "user_config.token"];
        let mut seen: std::collections::BTreeMap<String, Owner> = std::collections::BTreeMap::new();
        for o in owners {
            let owner = Owner::parse(o).expect(o);
            for k in keys {
                if let Some(var) = owner.env_var(k)
                    && let Some(other) = seen.insert(var.clone(), owner.clone())
                {
                    assert_eq!(other, owner, "{var} names both {other} and {owner}");
                }
            }
        }
        // The ids a name would not give back exactly have none.
        for o in [
            "mcp:my_srv",
            "toolset:my_tools",
            "toolset:my__x",
            "mcp:Files",
            "toolset:csv--report",
            "toolset:csv-",
            "mcp:a.b",
        ] {
            assert_eq!(Owner::parse(o).expect(o).env_var("API_KEY"), None, "{o}");
        }
        assert_eq!(
            Owner::parse("mcp:my-srv").expect("mcp").env_var("API_KEY").as_deref(),
            Some("ATELIER_SECRET_MCP_MY_SRV__API_KEY")
        );
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
        for &o in SecretOrigin::ALL {
            assert_eq!(serde_json::to_value(o).expect("json"), o.as_str());
        }
    }
}
