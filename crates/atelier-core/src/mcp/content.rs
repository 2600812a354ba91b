//! MCP content as a model reads it: a tool result of several content blocks
//! is sent as words, not as the JSON of the blocks (which a model reads as
//! noise, base64 and all). Text blocks are their text, joined in order; an
//! embedded text resource is its text under its URI; an image, audio, a
//! binary resource or a resource link is a short line naming it (URI, MIME
//! type, size when known) — an image itself still reaches a model that
//! takes images, as an image, from the call's render plan
//! (`conversation::images`). What the UI shows (the render plan) is made
//! elsewhere, from the same blocks ([`super::call::default_plan`]).

use serde_json::Value;

use crate::toolsets::bundle::human_bytes;

/// SQL over a row with a `tool_id` column: whether its `tool_id` is an MCP server's
/// tool (`<server>:<tool>`, the server still known). Toolset and MCP server
/// ids share one namespace, and a toolset named like the server it wraps
/// has no tools of its own, so the prefix says it.
macro_rules! is_mcp_tool_sql {
    () => {
        "EXISTS (SELECT 1 FROM mcp_servers s \
         WHERE instr(tool_id, ':') > 0 AND s.id = substr(tool_id, 1, instr(tool_id, ':') - 1))"
    };
}
pub(crate) use is_mcp_tool_sql;

impl super::Mcp<'_> {
    /// Whether `tool_id` is an MCP server's tool (see [`is_mcp_tool_sql`]).
    pub(crate) async fn is_server_tool(&self, tool_id: &str) -> crate::Result<bool> {
        Ok(
            sqlx::query_scalar(concat!("SELECT ", is_mcp_tool_sql!(), " FROM (SELECT ? AS tool_id)"))
                .bind(tool_id)
                .fetch_one(self.app.db())
                .await?,
        )
    }
}

/// The content block types of the MCP spec.
const BLOCK_TYPES: [&str; 5] = ["text", "image", "audio", "resource", "resource_link"];

/// Whether `v` is a list of MCP content blocks (what an MCP call's result
/// is when it is neither structured nor text alone).
pub fn is_blocks(v: &Value) -> bool {
    let Value::Array(items) = v else { return false };
    !items.is_empty()
        && items.iter().all(|b| {
            b.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| BLOCK_TYPES.contains(&t))
        })
}

/// The text a model reads for MCP content `blocks`: each block in order,
/// separated by a blank line.
pub fn model_text(blocks: &[Value]) -> String {
    blocks.iter().filter_map(block_text).collect::<Vec<_>>().join("\n\n")
}

/// What a model reads of a failed call (`isError: true`): its content's
/// text, else its structured content as JSON, else that it failed.
pub fn error_text(result: &atelier_mcp::CallResult) -> String {
    let text = model_text(&result.content);
    if !text.trim().is_empty() {
        return text;
    }
    match &result.structured {
        Some(s) => s.to_string(),
        None => "the tool reported an error".to_owned(),
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// How many bytes base64 `data` decodes to (its padding and line breaks
/// are no bytes).
pub(crate) fn decoded_len(data: &str) -> u64 {
    let digits = data
        .bytes()
        .filter(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/'))
        .count();
    digits as u64 * 3 / 4
}

/// The size base64 `data` decodes to, in words.
pub(super) fn base64_size(data: &str) -> String {
    human_bytes(decoded_len(data))
}

/// `(a, b, c)` of the parts there are, or nothing.
fn details(parts: &[Option<String>]) -> String {
    let parts: Vec<&str> = parts.iter().flatten().map(String::as_str).collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

fn block_text(b: &Value) -> Option<String> {
    let mime = || str_of(b, "mimeType").map(str::to_owned);
    match b.get("type").and_then(Value::as_str).unwrap_or_default() {
        "text" => str_of(b, "text").map(str::to_owned),
        kind @ ("image" | "audio") => {
            let size = str_of(b, "data").map(base64_size);
            Some(format!("[{kind}{}]", details(&[mime(), size])))
        }
        "resource" => {
            let r = b.get("resource")?;
            let uri = str_of(r, "uri").unwrap_or("(no URI)");
            let mime = str_of(r, "mimeType").map(str::to_owned);
            if let Some(text) = r.get("text").and_then(Value::as_str) {
                return Some(format!("[resource {uri}{}]\n{text}", details(&[mime])));
            }
            let size = str_of(r, "blob").map(base64_size);
            Some(format!("[binary resource {uri}{}, not shown]", details(&[mime, size])))
        }
        "resource_link" => {
            let uri = str_of(b, "uri").unwrap_or("(no URI)");
            let name = str_of(b, "name").filter(|n| *n != uri).map(|n| format!("{n:?}"));
            let size = b.get("size").and_then(Value::as_u64).map(human_bytes);
            let description = str_of(b, "description").map(str::to_owned);
            Some(format!(
                "[resource link {uri}{}]",
                details(&[name, mime(), size, description])
            ))
        }
        other => Some(format!("[{other} content, not shown]")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn mixed_content_reads_as_words_in_order_with_no_base64() {
        let png = "iVBORw0KGgoAAAANSUhEUg".repeat(300);
        let blocks = json!([
            {"type": "text", "text": "Two files:"},
            {"type": "image", "data": png, "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///notes.md", "mimeType": "text/markdown", "text": "# Notes\nhi"}},
            {"type": "resource", "resource": {"uri": "demo://b.zip", "mimeType": "application/zip", "blob": "UEsDBA=="}},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///big.csv", "name": "big.csv", "mimeType": "text/csv", "size": 2048},
            {"type": "text", "text": "Done."},
        ]);
        assert!(is_blocks(&blocks));
        let text = model_text(blocks.as_array().expect("blocks"));
        assert_eq!(
            text,
            "Two files:\n\n\
             [image (image/png, 4.8 KiB)]\n\n\
             [resource file:///notes.md (text/markdown)]\n# Notes\nhi\n\n\
             [binary resource demo://b.zip (application/zip, 4 bytes), not shown]\n\n\
             [audio (audio/wav, 4 bytes)]\n\n\
             [resource link file:///big.csv (\"big.csv\", text/csv, 2 KiB)]\n\n\
             Done."
        );
        assert!(!text.contains("iVBOR") && !text.contains("UEsDBA"), "{text}");
    }

    #[test]
    fn only_a_list_of_mcp_blocks_is_read_as_content() {
        assert!(!is_blocks(&json!([])));
        assert!(!is_blocks(&json!([{"type": "text", "text": "a"}, {"name": "x"}])));
        assert!(!is_blocks(&json!({"type": "text", "text": "a"})));
        assert!(!is_blocks(&json!([1, 2])));
    }

    #[test]
    fn a_failed_call_says_its_text_else_its_structured_content() {
        let mut r = super::super::call::test_result(json!([{"type": "text", "text": "no such city"}]), None);
        r.is_error = true;
        assert_eq!(error_text(&r), "no such city");
        let r = super::super::call::test_result(json!([]), Some(json!({"code": 404})));
        assert_eq!(error_text(&r), "{\"code\":404}");
        let r = super::super::call::test_result(json!([]), None);
        assert_eq!(error_text(&r), "the tool reported an error");
    }
}
