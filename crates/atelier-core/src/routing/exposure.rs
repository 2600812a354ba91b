//! Exposure adapters: a run's resolved tools as a provider accepts them.
//!
//! OpenAI and Anthropic take tool names matching `^[a-zA-Z0-9_-]{1,64}$`,
//! MCP 1–128 characters of `[A-Za-z0-9_.-]`. Model-facing names
//! (`csv-report.summarize`) are encoded into such wire names
//! deterministically: `.` becomes `__`, any other character outside the
//! alphabet `_xHH` (its UTF-8 bytes in hex), and a name still too long keeps
//! its start and ends with `_` and a stable hash. Two names that would
//! encode alike both get distinct names (the later, in sorted order, takes
//! the hash form); none is dropped. The [`Exposed::wire_to_model`] map kept
//! with the run turns a wire name back into the model-facing name.
//!
//! Input schemas lose what a provider does not take ([`super::schema`]),
//! and descriptions are cut to the provider's length; every change is a
//! feature-loss warning naming the tool and what changed.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::resolve::ResolvedTools;

/// Which protocol the tools are exposed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Exposure {
    Openai,
    Anthropic,
    Mcp,
}

impl Exposure {
    /// The longest wire name.
    pub fn max_len(self) -> usize {
        match self {
            Exposure::Openai | Exposure::Anthropic => 64,
            Exposure::Mcp => 128,
        }
    }

    fn allowed(self, c: char) -> bool {
        c.is_ascii_alphanumeric() || c == '_' || c == '-' || (self == Exposure::Mcp && c == '.')
    }

    /// The longest tool description the provider takes.
    fn max_description(self) -> usize {
        match self {
            Exposure::Openai => 1024,
            Exposure::Anthropic | Exposure::Mcp => 10_000,
        }
    }
}

/// One tool as the provider sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ExposedTool {
    pub wire_name: String,
    pub model_name: String,
    pub canonical_id: String,
    pub description: String,
    pub input_schema: Value,
}

/// A run's tools for one provider, with the way back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Exposed {
    pub exposure: Exposure,
    pub tools: Vec<ExposedTool>,
    /// Feature loss: what had to change, per tool.
    pub warnings: Vec<String>,
    /// Wire name → model-facing name.
    pub wire_to_model: BTreeMap<String, String>,
}

impl Exposed {
    /// The model-facing name a wire name stands for.
    pub fn model_name(&self, wire: &str) -> Option<&str> {
        self.wire_to_model.get(wire).map(String::as_str)
    }

    /// The warning that these are more tools than the provider's own API
    /// takes in one request, if they are (one of [`Self::warnings`]).
    pub fn too_many_tools(&self) -> Option<String> {
        // OpenAI's API refuses the whole request past this; other servers
        // of its protocol may take more, so it is a warning, not a cut.
        (self.exposure == Exposure::Openai && self.tools.len() > OPENAI_MAX_TOOLS).then(|| {
            format!(
                "{} tools: OpenAI's own API takes at most {OPENAI_MAX_TOOLS} in one request (other servers may take more); narrow the agent's toolsets or tool patterns",
                self.tools.len()
            )
        })
    }
}

/// The most tools OpenAI's chat completions take in one request.
pub const OPENAI_MAX_TOOLS: usize = 128;

/// Exposes a run's tools to one provider.
pub fn expose(resolved: &ResolvedTools, exposure: Exposure) -> Exposed {
    let mut tools: Vec<&super::resolve::ResolvedTool> = resolved.tools.iter().collect();
    tools.sort_by(|a, b| a.model_name.cmp(&b.model_name));
    let names = wire_names(tools.iter().map(|t| t.model_name.as_str()), exposure);
    let mut warnings = Vec::new();
    let mut out = Vec::with_capacity(tools.len());
    let mut wire_to_model = BTreeMap::new();
    for (t, wire) in tools.into_iter().zip(names) {
        let mut lost = Vec::new();
        let input_schema = super::schema::adapt(&t.input_schema, &mut lost);
        let mut description = t.description.clone();
        if description.chars().count() > exposure.max_description() {
            description = description.chars().take(exposure.max_description()).collect();
            lost.push(format!("description cut to {} characters", exposure.max_description()));
        }
        if wire != t.model_name {
            lost.push(format!("named {wire} (the provider does not take {:?})", t.model_name));
        }
        for what in lost {
            warnings.push(format!("{}: {what}", t.model_name));
        }
        wire_to_model.insert(wire.clone(), t.model_name.clone());
        out.push(ExposedTool {
            wire_name: wire,
            model_name: t.model_name.clone(),
            canonical_id: t.canonical_id.clone(),
            description,
            input_schema,
        });
    }
    out.sort_by(|a, b| a.canonical_id.cmp(&b.canonical_id));
    let mut exposed = Exposed {
        exposure,
        tools: out,
        warnings,
        wire_to_model,
    };
    exposed.warnings.extend(exposed.too_many_tools());
    exposed
}

/// Wire names for `names` (in the given order, which should be sorted for
/// determinism): valid for `exposure`, distinct, each decodable through the
/// map the caller keeps.
pub fn wire_names<'a>(names: impl IntoIterator<Item = &'a str>, exposure: Exposure) -> Vec<String> {
    let mut taken: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::new();
    for name in names {
        let plain = encode(name, exposure);
        let mut wire = if plain.len() <= exposure.max_len() && !taken.contains(&plain) {
            plain
        } else {
            hashed(&plain, name, 0, exposure)
        };
        let mut salt = 1;
        while taken.contains(&wire) {
            wire = hashed(&encode(name, exposure), name, salt, exposure);
            salt += 1;
        }
        taken.insert(wire.clone());
        out.push(wire);
    }
    out
}

/// The readable encoding: `.` → `__`, other characters outside the
/// alphabet → `_xHH` per UTF-8 byte. An empty name is `_`.
fn encode(name: &str, exposure: Exposure) -> String {
    let mut s = String::with_capacity(name.len());
    for c in name.chars() {
        if exposure.allowed(c) {
            s.push(c);
        } else if c == '.' {
            s.push_str("__");
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                s.push_str(&format!("_x{b:02x}"));
            }
        }
    }
    if s.is_empty() {
        s.push('_');
    }
    s
}

/// The start of `encoded` and `_` + 8 hex digits of a hash of the original
/// name (and a salt, for the rare collision of hashed names).
fn hashed(encoded: &str, name: &str, salt: u32, exposure: Exposure) -> String {
    let digest = crate::store::Hash::of(format!("{salt}:{name}").as_bytes()).to_hex();
    let keep = exposure.max_len() - 9;
    let start: String = encoded.chars().take(keep).collect();
    format!("{start}_{}", &digest[..8])
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn valid(wire: &str, exposure: Exposure) -> bool {
        (1..=exposure.max_len()).contains(&wire.len()) && wire.chars().all(|c| exposure.allowed(c))
    }

    #[test]
    fn names_that_would_encode_alike_both_get_distinct_names() {
        let names = ["a.b_c", "a_b.c", "a__b_c", "csv-report.summarize", "write_file"];
        let wires = wire_names(names, Exposure::Openai);
        assert_eq!(wires[0], "a__b_c");
        assert_eq!(wires[1], "a_b__c");
        assert_ne!(wires[2], "a__b_c", "taken: the later one gets a hashed name");
        assert!(wires[2].starts_with("a__b_c_"), "{}", wires[2]);
        assert_eq!(wires[3], "csv-report__summarize");
        assert_eq!(wires[4], "write_file");
        let unique: BTreeSet<&String> = wires.iter().collect();
        assert_eq!(unique.len(), names.len());
        // MCP keeps dots.
        assert_eq!(
            wire_names(["csv-report.summarize"], Exposure::Mcp),
            ["csv-report.summarize"]
        );
    }

    #[test]
    fn long_and_unusual_names_fit_with_a_stable_hash() {
        let long = format!("server.{}", "x".repeat(100));
        let a = wire_names([long.as_str(), "dé.jà vu"], Exposure::Anthropic);
        assert_eq!(a[0].len(), 64);
        assert!(valid(&a[0], Exposure::Anthropic));
        assert_eq!(a[1], "d_xc3_xa9__j_xc3_xa0_x20vu");
        assert_eq!(
            wire_names([long.as_str()], Exposure::Anthropic)[0],
            a[0],
            "deterministic"
        );
    }

    #[test]
    fn more_tools_than_openai_takes_are_said_once() {
        let tools: Vec<serde_json::Value> = (0..130)
            .map(|i| {
                json!({"model_name": format!("t{i:03}"), "canonical_id": format!("t{i:03}"), "source_kind": "builtin",
                    "source_id": null, "description": "", "input_schema": {"type": "object"},
                    "requires_confirmation": false, "read_only": true})
            })
            .collect();
        let resolved: ResolvedTools =
            serde_json::from_value(json!({"generation": 0, "tools": tools, "warnings": []})).expect("tools");
        let openai = expose(&resolved, Exposure::Openai);
        assert_eq!(openai.tools.len(), 130, "nothing is cut");
        assert_eq!(
            openai.warnings,
            [
                "130 tools: OpenAI's own API takes at most 128 in one request (other servers may take more); narrow the agent's toolsets or tool patterns"
            ]
        );
        assert!(expose(&resolved, Exposure::Anthropic).warnings.is_empty());
    }

    /// OpenAI refuses a whole request with an array schema that has no
    /// `items` ("array schema missing items"): every exposure gives one.
    #[test]
    fn arrays_without_items_are_exposed_with_items_and_said() {
        let schema = json!({"type": "object", "properties": {
            "any": {"type": "array"},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer", "format": "int32"}]},
            "one": {"type": ["array", "null"], "prefixItems": [{"type": "number"}]},
            "nested": {"type": "object", "properties": {
                "deep": {"type": "array", "items": {"type": "object", "properties": {"tags": {"type": "array"}}}},
                "tuple": {"prefixItems": [{"type": "boolean"}]}
            }},
            "kept": {"type": "array", "items": {"type": "string"}}
        }});
        let resolved: ResolvedTools = serde_json::from_value(json!({"generation": 0, "warnings": [], "tools": [
            {"model_name": "t", "canonical_id": "t", "source_kind": "builtin", "source_id": null, "description": "",
             "input_schema": schema, "requires_confirmation": false, "read_only": true}]}))
        .expect("tools");
        for exposure in [Exposure::Openai, Exposure::Anthropic, Exposure::Mcp] {
            let exposed = expose(&resolved, exposure);
            let p = &exposed.tools[0].input_schema["properties"];
            assert_eq!(p["any"]["items"], json!({}), "{exposure:?}");
            assert_eq!(
                p["pair"]["items"],
                json!({"anyOf": [{"type": "string"}, {"type": "integer", "description": "Format: int32."}]})
            );
            assert_eq!(p["one"]["items"], json!({"type": "number"}));
            assert_eq!(
                p["nested"]["properties"]["deep"]["items"]["properties"]["tags"]["items"],
                json!({})
            );
            assert_eq!(p["nested"]["properties"]["tuple"]["items"], json!({"type": "boolean"}));
            assert_eq!(p["kept"], schema["properties"]["kept"]);
            let said: Vec<&String> = exposed.warnings.iter().filter(|w| w.contains("`items`")).collect();
            assert_eq!(said.len(), 5, "{:?}", exposed.warnings);
            assert!(said.iter().all(|w| w.starts_with("t: an array")), "{said:?}");
        }
    }

    /// 10,000 random names per seed (a small xorshift generator: the same
    /// names every run), many near-duplicates, long ones and odd characters.
    #[test]
    fn ten_thousand_random_names_round_trip_fit_and_never_collide() {
        const ALPHABET: &[char] = &['a', 'b', '_', '.', '-', 'Z', '9', ' ', 'é', '✓', '/'];
        for seed in [1u64, 2, 3] {
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut next = move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            let mut names = BTreeSet::new();
            while names.len() < 10_000 {
                let len = 1 + (next() % if next() % 10 == 0 { 120 } else { 12 }) as usize;
                names.insert(
                    (0..len)
                        .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
                        .collect::<String>(),
                );
            }
            for exposure in [Exposure::Openai, Exposure::Anthropic, Exposure::Mcp] {
                let wires = wire_names(names.iter().map(String::as_str), exposure);
                let back: BTreeMap<&String, &String> = wires.iter().zip(names.iter()).collect();
                assert_eq!(back.len(), names.len(), "two names got one wire name (seed {seed})");
                for (wire, name) in back {
                    assert!(valid(wire, exposure), "{wire:?} for {name:?}");
                }
                assert_eq!(
                    wire_names(names.iter().map(String::as_str), exposure),
                    wires,
                    "deterministic"
                );
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]
        #[test]
        fn random_name_sets_fit_and_never_collide(
            names in prop::collection::btree_set("[a-z_.\\-]{1,20}(\\.[a-zA-Z0-9 _é.-]{1,90})?", 1..300),
        ) {
            for exposure in [Exposure::Openai, Exposure::Mcp] {
                let wires = wire_names(names.iter().map(String::as_str), exposure);
                let map: BTreeMap<&String, &String> = wires.iter().zip(names.iter()).collect();
                prop_assert_eq!(map.len(), names.len(), "two names got one wire name");
                for (wire, name) in &map {
                    prop_assert!(valid(wire, exposure), "{} for {}", wire, name);
                }
            }
        }
    }
}
