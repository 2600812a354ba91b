//! What is wrong with the input schemas a server lists, as the server's
//! warnings (kept with its listing, where a person looks, like a tool
//! listed twice): MCP asks for an object schema (`"type": "object"`), and a
//! schema that is not valid JSON Schema cannot check a call's arguments —
//! a model offered such a tool is likely to call it wrongly, or a provider
//! to refuse it.

use serde_json::Value;

/// One warning per tool of `server` whose input schema is not an object
/// schema or not valid JSON Schema, naming the tool.
pub(crate) fn warnings(server: &str, tools: &[atelier_mcp::ToolInfo]) -> Vec<String> {
    tools
        .iter()
        .filter_map(|t| {
            let why = problem(&t.input_schema)?;
            Some(format!(
                "MCP server {server} lists the tool {:?} with an inputSchema that {why}: a model may not call it correctly",
                t.name
            ))
        })
        .collect()
}

fn problem(schema: &Value) -> Option<String> {
    match schema.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => return Some(format!("is not an object schema (its type is {other}, not \"object\")")),
        None => return Some("is not an object schema (it has no \"type\": \"object\")".to_owned()),
    }
    // Checked against its meta-schema (a cached validator per draft, one
    // walk of the schema), not built into a validator of its own: building
    // one per listed tool (up to 10,000) was heavy on the runtime's thread,
    // and failed on a remote `$ref` it does not fetch, which is valid.
    match jsonschema::meta::options().validate(schema) {
        Ok(()) => None,
        // A `$schema` naming a meta-schema not known here: not checked.
        Err(e) if matches!(e.kind(), jsonschema::error::ValidationErrorKind::Referencing(_)) => None,
        Err(e) => Some(format!("is not valid JSON Schema ({e})")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(name: &str, schema: Value) -> atelier_mcp::ToolInfo {
        atelier_mcp::ToolInfo {
            name: name.into(),
            title: None,
            description: String::new(),
            input_schema: schema,
            output_schema: None,
            read_only: false,
            destructive: false,
        }
    }

    #[test]
    fn a_schema_that_is_not_an_object_or_not_json_schema_is_named() {
        let w = warnings(
            "fx",
            &[
                tool("ok", json!({"type": "object", "properties": {"a": {"type": "string"}}})),
                tool("scalar", json!({"type": "string"})),
                tool("bare", json!({})),
                tool("broken", json!({"type": "object", "properties": {"a": {"type": 5}}})),
            ],
        );
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w[0].starts_with("MCP server fx lists the tool \"scalar\" with an inputSchema that is not an object schema (its type is \"string\""), "{}", w[0]);
        assert!(
            w[1].contains("\"bare\"") && w[1].contains("no \"type\": \"object\""),
            "{}",
            w[1]
        );
        assert!(
            w[2].contains("\"broken\"") && w[2].contains("is not valid JSON Schema"),
            "{}",
            w[2]
        );
    }

    /// A remote `$ref` is valid JSON Schema: it was warned as not being one
    /// (building a validator fails, as nothing is fetched).
    #[test]
    fn a_remote_ref_is_not_warned_and_an_invalid_type_still_is() {
        let w = warnings(
            "fx",
            &[
                tool(
                    "remote",
                    json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/schemas/a.json"}}}),
                ),
                tool(
                    "unknown_meta",
                    json!({"$schema": "https://example.com/meta", "type": "object"}),
                ),
                tool("bad", json!({"type": "object", "properties": {"n": {"type": 5}}})),
            ],
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("MCP server fx lists the tool \"bad\" with an inputSchema that is not valid JSON Schema"),
            "{}",
            w[0]
        );
    }
}
