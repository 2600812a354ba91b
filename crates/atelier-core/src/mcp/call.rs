//! A call of an MCP tool, as the run flow needs it: the tool's record
//! (from the cached listing), the call on the right instance, and how MCP
//! content is shown when no renderer is declared.

use serde_json::{Value, json};

use super::Mcp;
use crate::toolsets::records::ToolRecord;
use crate::{Error, Result};

/// `<server>:<tool>` split in two.
fn split(tool_id: &str) -> Option<(&str, &str)> {
    tool_id.split_once(':')
}

impl Mcp<'_> {
    /// The record of MCP tool `tool_id` (`<server>:<tool>`), or `None` when
    /// its prefix names no MCP server (another kind of tool). A server's
    /// tool the last listing did not have is not found; a disabled server's
    /// tool is refused.
    pub async fn tool_record(&self, tool_id: &str) -> Result<Option<ToolRecord>> {
        let Some((server_id, name)) = split(tool_id) else {
            return Ok(None);
        };
        let server = match self.get(server_id).await {
            Ok(s) => s,
            Err(Error::McpServerNotFound(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        let tool = server
            .tools
            .iter()
            .flatten()
            .find(|t| t.name == name)
            .ok_or_else(|| Error::ToolNotFound(tool_id.to_owned()))?;
        Ok(Some(ToolRecord {
            tool_id: tool_id.to_owned(),
            toolset_id: None,
            name: tool.name.clone(),
            description: tool.description.clone(),
            category: None,
            input_schema: tool.input_schema.clone(),
            // A server's tool asks first unless the server says it changes
            // nothing (the routing policy can still say otherwise).
            requires_confirmation: !tool.read_only,
            enabled: server.active,
            entrypoint: None,
            tags: Vec::new(),
            // The server's own limit, when it has one, is its tools'.
            timeout_s: server.timeout_s,
            render_config: None,
            exported_from: None,
        }))
    }

    /// The tools of every active, listed server, as records (the tool
    /// picker's MCP group).
    pub async fn tool_records(&self) -> Result<Vec<ToolRecord>> {
        let mut out = Vec::new();
        for server in self.list().await?.into_iter().filter(|s| s.active) {
            for t in server.tools.iter().flatten() {
                if let Some(r) = self.tool_record(&format!("{}:{}", server.id, t.name)).await? {
                    out.push(r);
                }
            }
        }
        Ok(out)
    }

    /// Calls MCP tool `tool_id` for `chat`, starting the server's instance
    /// if needed.
    pub async fn call(
        &self,
        tool_id: &str,
        chat: &str,
        args: &Value,
        options: &atelier_mcp::CallOptions,
    ) -> std::result::Result<atelier_mcp::CallResult, atelier_mcp::McpError> {
        let unavailable = |message: String| atelier_mcp::McpError::Protocol {
            server: split(tool_id).map_or(tool_id, |(s, _)| s).to_owned(),
            message,
        };
        let Some((server_id, name)) = split(tool_id) else {
            return Err(unavailable(format!("{tool_id:?} is not an MCP tool id")));
        };
        // Held for the whole call: an instance in use is never idle.
        let lease = match self.running_instance(server_id, chat) {
            Some(lease) => lease,
            None => {
                let server = self.get(server_id).await.map_err(|e| unavailable(e.to_string()))?;
                self.instance(&server, chat)
                    .await
                    .map_err(|e| unavailable(format!("cannot start: {e}")))?
            }
        };
        lease.sup.call(name, args, options).await
    }
}

impl Mcp<'_> {
    /// The `outputSchema` MCP tool `tool_id` was listed with, if any.
    pub async fn output_schema(&self, tool_id: &str) -> Option<Value> {
        let (server_id, name) = split(tool_id)?;
        let server = self.get(server_id).await.ok()?;
        server
            .tools
            .into_iter()
            .flatten()
            .find(|t| t.name == name)
            .and_then(|t| t.output_schema)
    }
}

/// What a successful call returns as its result (`$return`): the
/// structured content when the server gives one, else the text (one text
/// block: the string; several: joined), else the content blocks.
pub fn result_value(result: &atelier_mcp::CallResult) -> Value {
    if let Some(s) = &result.structured {
        return s.clone();
    }
    let texts: Option<Vec<&str>> = result
        .content
        .iter()
        .map(|c| {
            (c.get("type").and_then(Value::as_str) == Some("text"))
                .then(|| c.get("text").and_then(Value::as_str))
                .flatten()
        })
        .collect();
    match texts {
        Some(t) if !t.is_empty() => Value::String(t.join("\n\n")),
        _ => Value::Array(result.content.clone()),
    }
}

/// The text of content blocks as the default plan shows it among the
/// document's words (a model reads [`super::content::model_text`]).
fn content_text(content: &[Value]) -> String {
    content
        .iter()
        .filter_map(|c| match c.get("type").and_then(Value::as_str) {
            Some("text") => c.get("text").and_then(Value::as_str).map(str::to_owned),
            Some("resource") => c
                .pointer("/resource/text")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| {
                    c.pointer("/resource/uri")
                        .and_then(Value::as_str)
                        .map(|u| format!("[resource {u}]"))
                }),
            Some("resource_link") => c.get("uri").and_then(Value::as_str).map(|u| format!("[link {u}]")),
            Some("image") => Some("[image]".to_owned()),
            Some("audio") => Some("[audio]".to_owned()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The renderer and config of MCP content with no declared renderer:
/// every block in order — text and links as a document (neighbours
/// joined), an image as an image, audio as audio to play, an embedded
/// resource as code (language by MIME type) or, a binary one, as the image,
/// the audio or a note among the text.
/// One such part is its own plan; several are a `blocks` plan
/// (`{"blocks": [{renderer, config}, …]}`), so nothing a server said is
/// hidden in an image's `alt`.
pub fn default_plan(content: &[Value]) -> (String, Value) {
    let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    let mut parts: Vec<(String, Value)> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let flush = |words: &mut Vec<String>, parts: &mut Vec<(String, Value)>| {
        if !words.is_empty() {
            parts.push(("document".to_owned(), json!({"content": words.join("\n\n")})));
            words.clear();
        }
    };
    for c in content {
        match c.get("type").and_then(Value::as_str).unwrap_or_default() {
            "image" => {
                flush(&mut words, &mut parts);
                let url = format!("data:{};base64,{}", str_of(c, "mimeType"), str_of(c, "data"));
                parts.push(("image".to_owned(), json!({"url": url})));
            }
            // Played where it is, as an image is shown: "[audio]" among the
            // words left a person nothing to listen to.
            "audio" => {
                flush(&mut words, &mut parts);
                let url = format!("data:{};base64,{}", str_of(c, "mimeType"), str_of(c, "data"));
                parts.push(("audio".to_owned(), json!({"url": url})));
            }
            "resource" => match resource_plan(&c.get("resource").cloned().unwrap_or_default()) {
                // A binary's note reads with the text around it.
                (renderer, config) if renderer == "document" => {
                    words.push(config["content"].as_str().unwrap_or_default().to_owned());
                }
                plan => {
                    flush(&mut words, &mut parts);
                    parts.push(plan);
                }
            },
            "resource_link" => {
                let uri = str_of(c, "uri");
                let name = c.get("name").and_then(Value::as_str).unwrap_or(&uri).to_owned();
                words.push(format!("[{name}]({uri})"));
            }
            _ => {
                let t = content_text(std::slice::from_ref(c));
                if !t.is_empty() {
                    words.push(t);
                }
            }
        }
    }
    flush(&mut words, &mut parts);
    match parts.len() {
        0 => ("document".to_owned(), json!({"content": "(no content)"})),
        1 => parts.remove(0),
        _ => {
            let blocks: Vec<Value> = parts
                .into_iter()
                .map(|(renderer, config)| json!({"renderer": renderer, "config": config}))
                .collect();
            ("blocks".to_owned(), json!({"blocks": blocks}))
        }
    }
}

/// An embedded resource's plan: its text as code, a binary image as the
/// image, binary audio as the audio, another binary as a note of what it
/// is.
fn resource_plan(r: &Value) -> (String, Value) {
    let str_of = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    let (uri, mime) = (str_of("uri"), str_of("mimeType"));
    if let Some(text) = r.get("text").and_then(Value::as_str) {
        return (
            "code".to_owned(),
            json!({"content": text, "language": language_of(&mime), "path": uri}),
        );
    }
    let blob = str_of("blob");
    if mime.starts_with("image/") && !blob.is_empty() {
        return (
            "image".to_owned(),
            json!({"url": format!("data:{mime};base64,{blob}"), "alt": uri}),
        );
    }
    if mime.starts_with("audio/") && !blob.is_empty() {
        return (
            "audio".to_owned(),
            json!({"url": format!("data:{mime};base64,{blob}"), "label": uri}),
        );
    }
    let size = super::content::base64_size(&blob);
    let kind = if mime.is_empty() {
        String::new()
    } else {
        format!(", {mime}")
    };
    (
        "document".to_owned(),
        json!({"content": format!("(binary resource `{uri}`{kind}, {size}, not shown)")}),
    )
}

/// A code renderer language for a MIME type.
fn language_of(mime: &str) -> &'static str {
    match mime.split(';').next().unwrap_or_default().trim() {
        "application/json" => "json",
        "text/markdown" => "markdown",
        "text/html" => "html",
        "text/css" => "css",
        "text/csv" => "csv",
        "application/javascript" | "text/javascript" => "javascript",
        "application/x-python" | "text/x-python" => "python",
        "application/xml" | "text/xml" => "xml",
        "application/yaml" | "text/yaml" => "yaml",
        _ => "text",
    }
}

/// A successful call's result of `content` blocks, for tests.
#[cfg(test)]
pub(crate) fn test_result(content: Value, structured: Option<Value>) -> atelier_mcp::CallResult {
    atelier_mcp::CallResult {
        content: content.as_array().cloned().unwrap_or_default(),
        structured,
        is_error: false,
        stderr: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::test_result as result;
    use super::*;

    #[test]
    fn the_result_is_the_structured_content_else_the_text_else_the_blocks() {
        let text = json!([{"type": "text", "text": "Echo: hi"}]);
        assert_eq!(result_value(&result(text.clone(), None)), json!("Echo: hi"));
        assert_eq!(result_value(&result(text, Some(json!({"n": 1})))), json!({"n": 1}));
        let image = json!([{"type": "image", "data": "iVBO", "mimeType": "image/png"}]);
        assert_eq!(result_value(&result(image.clone(), None)), image);
    }

    #[test]
    fn one_kind_of_content_keeps_its_own_plan() {
        let (r, c) = default_plan(&[json!({"type": "image", "data": "iVBO", "mimeType": "image/png"})]);
        assert_eq!(
            (r.as_str(), c["url"].as_str()),
            ("image", Some("data:image/png;base64,iVBO"))
        );
        let (r, c) = default_plan(&[
            json!({"type": "resource", "resource": {"uri": "file:///a.json", "mimeType": "application/json", "text": "{}"}}),
        ]);
        assert_eq!(
            (r.as_str(), c["language"].as_str(), c["content"].as_str()),
            ("code", Some("json"), Some("{}"))
        );
        let (r, c) = default_plan(&[json!({"type": "resource_link", "uri": "demo://x", "name": "x"})]);
        assert_eq!((r.as_str(), c["content"].as_str()), ("document", Some("[x](demo://x)")));
        let (r, c) = default_plan(&[
            json!({"type": "text", "text": "a"}),
            json!({"type": "text", "text": "b"}),
        ]);
        assert_eq!((r.as_str(), c["content"].as_str()), ("document", Some("a\n\nb")));
        assert_eq!(default_plan(&[]).1["content"], "(no content)");
        // Audio is played, not "[audio]" among words; an audio resource too.
        let (r, c) = default_plan(&[json!({"type": "audio", "data": "UklG", "mimeType": "audio/wav"})]);
        assert_eq!(
            (r.as_str(), c["url"].as_str()),
            ("audio", Some("data:audio/wav;base64,UklG"))
        );
        let (r, c) = default_plan(&[
            json!({"type": "resource", "resource": {"uri": "demo://a.ogg", "mimeType": "audio/ogg", "blob": "T2dn"}}),
        ]);
        assert_eq!(
            (r.as_str(), c["url"].as_str(), c["label"].as_str()),
            ("audio", Some("data:audio/ogg;base64,T2dn"), Some("demo://a.ogg"))
        );
    }

    #[test]
    fn several_kinds_of_content_are_every_block_in_order() {
        let png = json!({"type": "image", "data": "iVBO", "mimeType": "image/png"});
        let (r, c) = default_plan(&[
            json!({"type": "text", "text": "two charts"}),
            png.clone(),
            png,
            json!({"type": "text", "text": "after"}),
            json!({"type": "resource_link", "uri": "demo://more", "name": "more"}),
            json!({"type": "resource", "resource": {"uri": "demo://p.png", "mimeType": "image/png", "blob": "iVBO"}}),
            json!({"type": "resource", "resource": {"uri": "file:///x.py", "mimeType": "text/x-python", "text": "1"}}),
        ]);
        assert_eq!(r, "blocks");
        let blocks = c["blocks"].as_array().expect("blocks");
        let renderers: Vec<&str> = blocks.iter().filter_map(|b| b["renderer"].as_str()).collect();
        assert_eq!(renderers, ["document", "image", "image", "document", "image", "code"]);
        assert_eq!(blocks[0]["config"]["content"], "two charts");
        // The same image twice is shown twice.
        assert_eq!(blocks[1], blocks[2]);
        assert_eq!(blocks[3]["config"]["content"], "after\n\n[more](demo://more)");
        assert_eq!(blocks[4]["config"]["url"], "data:image/png;base64,iVBO");
        // A binary that is not an image: a note among the text around it.
        let (r, c) = default_plan(&[
            json!({"type": "text", "text": "Here it is:"}),
            json!({"type": "resource", "resource": {"uri": "demo://b", "mimeType": "application/zip", "blob": "UEsDBA=="}}),
            json!({"type": "text", "text": "Read it with unzip."}),
        ]);
        assert_eq!(
            (r.as_str(), c["content"].as_str()),
            (
                "document",
                Some(
                    "Here it is:\n\n(binary resource `demo://b`, application/zip, 4 bytes, not shown)\n\nRead it with unzip."
                )
            )
        );
        assert_eq!(blocks[5]["config"]["language"], "python");
    }
}
