//! Agent files: one agent per YAML file, the fields of [`AgentSpec`].
//!
//! An agent file can travel before its toolsets: importing one that names
//! toolsets or tools this data dir does not have keeps them (they start
//! working once installed) and says so in warnings. A key an agent does not
//! have is refused, with the one it was likely meant to be: skipped, a
//! misspelled `toolset:` or `policy:` would quietly allow or deny nothing.
//! Filters and policies are written as JSON has them, one-key maps
//! (`- deny: ["*.run_command"]`); YAML tags (`- !deny [...]`, what older
//! exports wrote) are read too.

use serde::Serialize;
use serde_norway::Value;

use super::{Agent, AgentSpec, Agents};
use crate::toolsets::validate::did_you_mean;
use crate::{Error, Result};

/// The keys of an agent file: the fields of [`AgentSpec`].
pub const KEYS: [&str; 12] = [
    "id",
    "name",
    "description",
    "model",
    "model_settings",
    "system_prompt",
    "toolsets",
    "tools",
    "filters",
    "policies",
    "max_depth",
    "max_steps",
];

/// Filters and policies a person may write at the top level by mistake.
const FILTERS: [&str; 6] = ["namespace", "tags_any", "tags_all", "category", "allow_ids", "deny_ids"];
const POLICIES: [&str; 2] = ["deny", "no_confirmation_in_sub_agents"];

/// An imported agent and what it names that is not here (yet).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ImportedAgent {
    pub agent: Agent,
    /// Whether an agent with this id was replaced.
    pub replaced: bool,
    pub warnings: Vec<String>,
}

/// The YAML of an agent file.
pub fn to_yaml(spec: &AgentSpec) -> Result<String> {
    let mut out = Vec::new();
    serde_norway::with::singleton_map_recursive::serialize(spec, &mut serde_norway::Serializer::new(&mut out))
        .map_err(|e| Error::Internal(format!("agent {} as YAML: {e}", spec.id)))?;
    String::from_utf8(out).map_err(|e| Error::Internal(format!("agent {} as YAML: {e}", spec.id)))
}

/// Reads an agent file; `origin` names it in errors. Every key it does not
/// know is named in one error, with what it was likely meant to be.
pub fn from_yaml(text: &str, origin: &str) -> Result<AgentSpec> {
    let bad = |reason: String| Error::InvalidData {
        what: "agent file",
        reason: format!("{origin}: {reason}"),
    };
    let value: Value = serde_norway::from_str(text).map_err(|e| bad(e.to_string()))?;
    let unknown: Vec<String> = match &value {
        Value::Mapping(m) => m.keys().filter_map(unknown_key).collect(),
        _ => Vec::new(),
    };
    if !unknown.is_empty() {
        return Err(bad(unknown.join("; ")));
    }
    serde_norway::from_str(text).map_err(|e| bad(e.to_string()))
}

/// What to say of a top-level key an agent does not have; `None` for one
/// it has.
fn unknown_key(key: &Value) -> Option<String> {
    let Value::String(k) = key else {
        return Some(format!("a key must be a word, not {key:?}"));
    };
    if KEYS.contains(&k.as_str()) {
        return None;
    }
    let plural = [format!("{k}s"), format!("{}ies", k.strip_suffix('y').unwrap_or(k))];
    let hint = if let Some(p) = plural.iter().find(|p| KEYS.contains(&p.as_str())) {
        format!(": did you mean `{p}`?")
    } else if POLICIES.contains(&k.as_str()) {
        format!(": `{k}` is a policy, written under `policies:` (`policies: [{k}: …]`)")
    } else if FILTERS.contains(&k.as_str()) {
        format!(": `{k}` is a filter, written under `filters:` (`filters: [{k}: …]`)")
    } else if let Some(m) = did_you_mean(k, KEYS) {
        format!(": did you mean `{m}`?")
    } else {
        format!(" (an agent has: {})", KEYS.join(", "))
    };
    Some(format!("unknown key `{k}`{hint}"))
}

impl Agents<'_> {
    /// An agent as a YAML file's text.
    pub async fn export(&self, id: &str) -> Result<String> {
        to_yaml(&self.get(id).await?.spec())
    }

    /// Imports an agent file's text: creates the agent, or replaces the one
    /// with its id when `replace` is set. Unknown toolsets and tools are
    /// kept and reported.
    pub async fn import(&self, text: &str, origin: &str, replace: bool) -> Result<ImportedAgent> {
        let spec = from_yaml(text, origin)?;
        let exists = self.get(&spec.id).await.is_ok();
        let agent = match (exists, replace) {
            (true, true) => self.update(&spec).await?,
            (true, false) => {
                return Err(Error::Conflict(format!(
                    "{origin}: an agent {} exists already (import with --replace to overwrite it)",
                    spec.id
                )));
            }
            (false, _) => self.create(&spec).await?,
        };
        let warnings = self.warnings(&agent).await?;
        Ok(ImportedAgent {
            agent,
            replaced: exists,
            warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::{Filter, Policy};

    fn full() -> AgentSpec {
        let mut spec = AgentSpec::new("full", "Full");
        spec.model_settings.temperature = Some(0.5);
        spec.filters = vec![Filter::Namespace(vec!["builtin".into()])];
        spec.policies = vec![
            Policy::Deny(vec!["*.run_command".into()]),
            Policy::NoConfirmationInSubAgents,
        ];
        spec
    }

    #[test]
    fn the_keys_are_the_fields_of_a_spec() {
        let json = serde_json::to_value(full()).expect("json");
        let fields: Vec<&str> = json.as_object().expect("object").keys().map(String::as_str).collect();
        assert_eq!(fields, KEYS);
    }

    #[test]
    fn filters_and_policies_read_as_maps_or_tags_and_export_as_maps() {
        let spec = full();
        let yaml = to_yaml(&spec).expect("yaml");
        assert!(yaml.contains("- deny:") && !yaml.contains('!'), "{yaml}");
        assert_eq!(from_yaml(&yaml, "a.yaml").expect("round trip"), spec);
        let tagged = "id: full\nname: Full\nmodel_settings: {temperature: 0.5}\nfilters: [!namespace [builtin]]\n\
                      policies: [!deny ['*.run_command'], no_confirmation_in_sub_agents]\n";
        assert_eq!(from_yaml(tagged, "old.yaml").expect("tags"), spec);
        let bad = from_yaml("id: x\nname: X\npolicies: [{allow: ['*']}]\n", "b.yaml").expect_err("no such policy");
        assert!(
            bad.to_string().contains("policies[0]: unknown variant `allow`"),
            "{bad}"
        );
    }

    #[test]
    fn unknown_keys_are_refused_each_with_a_hint() {
        let err = from_yaml(
            "id: t\nname: T\ntoolset: [raw]\npolicy: []\ndeny: ['*']\nnamespace: [x]\ncolour: red\n",
            "t.yaml",
        )
        .expect_err("unknown keys")
        .to_string();
        for said in [
            "t.yaml",
            "unknown key `toolset`: did you mean `toolsets`?",
            "unknown key `policy`: did you mean `policies`?",
            "`deny` is a policy, written under `policies:`",
            "`namespace` is a filter, written under `filters:`",
            "unknown key `colour` (an agent has: id, name,",
        ] {
            assert!(err.contains(said), "{said:?} in {err}");
        }
        let typo = from_yaml("id: t\nname: T\nsystem_promt: hi\n", "t.yaml").expect_err("typo");
        assert!(typo.to_string().contains("did you mean `system_prompt`?"), "{typo}");
        let model = from_yaml("id: t\nname: T\nmodel: {provider: p, modle: m}\n", "t.yaml").expect_err("model");
        assert!(model.to_string().contains("modle"), "{model}");
    }
}
