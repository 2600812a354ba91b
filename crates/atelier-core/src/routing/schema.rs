//! Input schemas as providers take them: what they refuse is taken out,
//! and said. `$ref` is inlined from local `$defs`/`definitions` where
//! possible (a remote or recursive one is removed); a top-level `oneOf`/
//! `anyOf`/`allOf` has its branches' parameters merged into the one object
//! the arguments must be, so the model is still told of every one; a
//! `format` is said in the parameter's description instead, as the call
//! still checks it; an array without `items` (bare, or only
//! `prefixItems`), which OpenAI refuses, is given one at any depth, for
//! every provider. Only what holds schemas is walked: data (`default`,
//! `enum`…) and the names of properties are never taken for keywords.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

/// A schema a provider takes, and what was lost on the way.
pub(super) fn adapt(schema: &Value, lost: &mut Vec<String>) -> Value {
    let defs: Map<String, Value> = ["$defs", "definitions"]
        .iter()
        .filter_map(|k| schema.get(*k).and_then(Value::as_object))
        .flat_map(|m| m.clone())
        .collect();
    let mut out = schema.clone();
    if let Some(obj) = out.as_object_mut() {
        for key in ["oneOf", "anyOf", "allOf"] {
            if let Some(branches) = obj.remove(key) {
                merge_branches(obj, key, &branches, &defs);
                lost.push(format!(
                    "top-level {key} merged into one object (the arguments must be one object): every parameter of its branches is offered{}",
                    if key == "allOf" {
                        ", with what each requires"
                    } else {
                        ", none required (the tool checks which combination it takes)"
                    }
                ));
            }
        }
        for key in ["$defs", "definitions", "$schema", "$id"] {
            obj.remove(key);
        }
        if obj.get("type") != Some(&json!("object")) {
            if obj.contains_key("type") {
                lost.push("top-level type made `object`".to_owned());
            }
            obj.insert("type".into(), json!("object"));
        }
        if !obj.contains_key("properties") {
            obj.insert("properties".into(), json!({}));
        }
    } else {
        lost.push("input schema was not an object; replaced by an empty object schema".to_owned());
        out = json!({"type": "object", "properties": {}});
    }
    let mut seen = BTreeSet::new();
    walk(&mut out, &defs, lost, &mut seen, 0);
    out
}

/// A top-level combinator's branches folded into `obj`: their properties
/// added (a property `obj` has wins), and for `allOf` their `required`
/// (every branch holds, so each one's requirements do; for `oneOf`/`anyOf`
/// no single branch's do). A branch may be a local `$ref`.
fn merge_branches(obj: &mut Map<String, Value>, key: &str, branches: &Value, defs: &Map<String, Value>) {
    let resolve = |b: &Value| -> Option<Value> {
        match b.get("$ref").and_then(Value::as_str) {
            Some(r) => defs.get(r.rsplit('/').next().unwrap_or_default()).cloned(),
            None => Some(b.clone()),
        }
    };
    let mut props = match obj.remove("properties") {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let mut required: Vec<Value> = obj
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for branch in branches.as_array().into_iter().flatten().filter_map(resolve) {
        if let Some(p) = branch.get("properties").and_then(Value::as_object) {
            for (name, schema) in p {
                props.entry(name.clone()).or_insert_with(|| schema.clone());
            }
        }
        if key == "allOf" {
            for r in branch.get("required").and_then(Value::as_array).into_iter().flatten() {
                if !required.contains(r) {
                    required.push(r.clone());
                }
            }
        }
    }
    obj.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        obj.insert("required".into(), Value::Array(required));
    }
}

fn walk(v: &mut Value, defs: &Map<String, Value>, lost: &mut Vec<String>, seen: &mut BTreeSet<String>, depth: usize) {
    match v {
        Value::Object(obj) => {
            if let Some(Value::String(r)) = obj.get("$ref").cloned() {
                let name = r.rsplit('/').next().unwrap_or_default().to_owned();
                let local = r.starts_with("#/$defs/") || r.starts_with("#/definitions/");
                match defs.get(&name) {
                    Some(def) if local && depth < 16 && !seen.contains(&name) => {
                        *v = def.clone();
                        seen.insert(name.clone());
                        walk(v, defs, lost, seen, depth + 1);
                        seen.remove(&name);
                        return;
                    }
                    _ => {
                        obj.remove("$ref");
                        lost.push(format!("$ref {r:?} removed (not a local definition, or recursive)"));
                    }
                }
            }
            // `format` the keyword (a string); a parameter named "format"
            // lives under `properties` and is a schema.
            if let Some(Value::String(f)) = obj.get("format").cloned() {
                obj.remove("format");
                // The call still checks it: the model is told in words.
                let said = match obj.get("description").and_then(Value::as_str) {
                    Some(d) if !d.is_empty() => format!("{d} (format: {f})"),
                    _ => format!("Format: {f}."),
                };
                obj.insert("description".into(), Value::String(said));
                lost.push(format!("format {f:?} removed (said in the description)"));
            }
            // Only what holds schemas is walked: a value (`default`,
            // `const`, `enum`, `examples`) is data, and a map of
            // properties has names, not keywords.
            for (key, child) in obj.iter_mut() {
                match key.as_str() {
                    "properties" | "patternProperties" | "dependentSchemas" | "$defs" | "definitions" => {
                        if let Value::Object(named) = child {
                            for (_, schema) in named.iter_mut() {
                                walk(schema, defs, lost, seen, depth + 1);
                            }
                        }
                    }
                    "items"
                    | "prefixItems"
                    | "additionalItems"
                    | "additionalProperties"
                    | "unevaluatedItems"
                    | "unevaluatedProperties"
                    | "contains"
                    | "propertyNames"
                    | "not"
                    | "if"
                    | "then"
                    | "else"
                    | "allOf"
                    | "anyOf"
                    | "oneOf" => walk(child, defs, lost, seen, depth + 1),
                    _ => {}
                }
            }
            // An array without `items` (bare, or only `prefixItems`):
            // OpenAI refuses the whole request ("array schema missing
            // items"), so every array gets one — any item, or one of its
            // positions' schemas (already adapted). Harmless for the
            // others.
            let is_array = match obj.get("type") {
                Some(Value::String(t)) => t == "array",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
                _ => false,
            } || obj.contains_key("prefixItems");
            if is_array && !obj.contains_key("items") {
                let prefix: Vec<Value> = obj
                    .get("prefixItems")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                let items = match prefix.len() {
                    0 => json!({}),
                    1 => prefix[0].clone(),
                    _ => json!({ "anyOf": prefix }),
                };
                lost.push(if prefix.is_empty() {
                    "an array without `items` given `items: {}` (any item; OpenAI refuses an array schema without items)"
                        .to_owned()
                } else {
                    "an array with only `prefixItems` given `items`: any of its positions' schemas (OpenAI refuses an array schema without items)"
                        .to_owned()
                });
                obj.insert("items".into(), items);
            }
        }
        Value::Array(items) => {
            for child in items {
                walk(child, defs, lost, seen, depth + 1);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn schemas_lose_what_providers_refuse_and_say_so() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "when": {"type": "string", "format": "date-time"},
                "where": {"$ref": "#/$defs/place"},
                "other": {"$ref": "https://example.com/remote.json"}
            },
            "oneOf": [{"required": ["when"]}, {"required": ["where"]}],
            "$defs": {"place": {"type": "object", "properties": {"city": {"type": "string"}}}}
        });
        let mut lost = Vec::new();
        let out = adapt(&schema, &mut lost);
        assert_eq!(
            out["properties"]["where"]["properties"]["city"]["type"], "string",
            "inlined"
        );
        assert!(out["properties"]["when"].get("format").is_none());
        assert!(out.get("oneOf").is_none() && out.get("$defs").is_none());
        assert!(out["properties"]["other"].get("$ref").is_none());
        let said = lost.join("; ");
        for what in ["oneOf", "format \"date-time\"", "remote.json"] {
            assert!(said.contains(what), "{said}");
        }
        assert_eq!(out["properties"]["when"]["description"], "Format: date-time.");

        // A schema that is all combinator: its parameters are still offered.
        let split = json!({
            "allOf": [
                {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                {"$ref": "#/$defs/more"}
            ],
            "$defs": {"more": {"properties": {"b": {"type": "string", "format": "uri", "description": "Where"}},
                               "required": ["b"]}}
        });
        let mut lost = Vec::new();
        let out = adapt(&split, &mut lost);
        assert_eq!(out["properties"]["a"]["type"], "integer");
        assert_eq!(out["properties"]["b"]["description"], "Where (format: uri)");
        assert_eq!(out["required"], json!(["a", "b"]));
        let either = json!({"anyOf": [{"properties": {"x": {"type": "string"}}, "required": ["x"]},
                                      {"properties": {"y": {"type": "string"}}, "required": ["y"]}]});
        let out = adapt(&either, &mut lost);
        assert_eq!(out["properties"].as_object().map(|m| m.len()), Some(2));
        assert!(out.get("required").is_none(), "{out}");

        // A parameter named "format", and values that look like keywords,
        // are kept as they are.
        let named = json!({"type": "object",
            "properties": {"format": {"enum": ["csv", "json"], "default": {"format": "png"}},
                           "list": {"type": "array", "items": {"type": "string", "format": "email"}}},
            "required": ["format"]});
        let mut lost = Vec::new();
        let out = adapt(&named, &mut lost);
        assert_eq!(out["properties"]["format"], named["properties"]["format"]);
        assert_eq!(out["properties"]["list"]["items"]["description"], "Format: email.");
        assert_eq!(lost.len(), 1, "{lost:?}");

        let mut none = Vec::new();
        let plain = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(adapt(&plain, &mut none), plain);
        assert!(none.is_empty(), "{none:?}");
    }
}
