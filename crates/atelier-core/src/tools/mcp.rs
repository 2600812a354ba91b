//! The MCP backend of the run flow: a call on the server's instance for
//! the chat, its progress as [`RunEvent::Progress`], its end as an
//! [`Outcome`] like any tool's — a timeout or a Stop tells the server
//! (`notifications/cancelled`) and ends the call `timeout` or `cancelled`;
//! a server that died mid-call ends it `crash` with how it exited.

use std::sync::Arc;

use serde_json::Value;

use super::call::{CallControl, Failure, Outcome, RunEvent};
use super::status::ErrorKind;
use crate::Atelier;
use crate::mcp::call::result_value;
use crate::mcp::content::error_text;
use crate::toolsets::records::ToolRecord;

pub(super) async fn call(
    app: &Atelier,
    tool: &ToolRecord,
    chat_id: &str,
    args: &Value,
    control: &CallControl,
) -> Outcome {
    let timeout = control.timeout_for(tool, app.python().settings.default_timeout);
    let progress = control.events.clone().map(|sink| {
        Arc::new(move |p: atelier_mcp::Progress| {
            sink(RunEvent::Progress {
                progress: p.progress,
                total: p.total,
                message: p.message,
            });
        }) as Arc<dyn Fn(atelier_mcp::Progress) + Send + Sync>
    });
    let options = atelier_mcp::CallOptions {
        timeout: Some(timeout),
        cancel: control.cancel.clone(),
        progress,
        ..Default::default()
    };
    // The schema is read while the server works.
    let mcp = app.mcp();
    let (ended, schema) = tokio::join!(
        mcp.call(&tool.tool_id, chat_id, args, &options),
        mcp.output_schema(&tool.tool_id)
    );
    let fail = |kind, message: String| Failure {
        kind,
        message,
        traceback: None,
    };
    match ended {
        Ok(r) => {
            let stderr = (!r.stderr.is_empty()).then(|| r.stderr.join("\n"));
            let result = if r.is_error {
                Err(fail(ErrorKind::Exception, error_text(&r)))
            } else if let Some(Err(why)) = schema.as_ref().map(|s| check_structured(s, &r)) {
                let server = tool.tool_id.split_once(':').map_or(tool.tool_id.as_str(), |(s, _)| s);
                Err(fail(ErrorKind::BadReturn, format!("MCP server {server}: {why}")))
            } else {
                Ok(result_value(&r))
            };
            Outcome {
                result,
                stdout: None,
                stderr,
                content: Some(r.content),
            }
        }
        Err(atelier_mcp::McpError::Timeout { after }) => Outcome::timed_out(after),
        Err(atelier_mcp::McpError::Cancelled) => Outcome::cancelled(),
        Err(e) => {
            let kind = match &e {
                atelier_mcp::McpError::Exited { .. } => ErrorKind::Crash,
                atelier_mcp::McpError::Protocol { .. } => ErrorKind::Exception,
                _ => ErrorKind::Unavailable,
            };
            Outcome {
                result: Err(fail(kind, e.to_string())),
                stdout: None,
                stderr: None,
                content: None,
            }
        }
    }
}

/// Why a result breaks the tool's `outputSchema`: its structured content
/// does not match it, or there is none though the schema promises one
/// (servers MUST give structured results that conform, MCP 2025-06-18,
/// "Output Schema"; clients SHOULD check).
fn check_structured(schema: &Value, result: &atelier_mcp::CallResult) -> std::result::Result<(), String> {
    let Some(structured) = &result.structured else {
        return Err("it gave no structuredContent, though the tool's outputSchema says it returns one".to_owned());
    };
    let validator = super::arg_problems::validator(schema)
        .map_err(|e| format!("the tool's outputSchema is unusable, so its result cannot be checked: {e}"))?;
    let errors = super::arg_problems::violations(&validator, structured);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "its structuredContent does not match the tool's outputSchema: {}",
            errors.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::check_structured;
    use crate::mcp::call::test_result as result;

    #[test]
    fn a_structured_result_must_match_the_output_schema() {
        let schema = json!({"type": "object", "properties": {"temp": {"type": "number"}}, "required": ["temp"]});
        let text = json!([{"type": "text", "text": "hot"}]);
        assert_eq!(
            check_structured(&schema, &result(text.clone(), Some(json!({"temp": 21.5})))),
            Ok(())
        );
        let wrong =
            check_structured(&schema, &result(text.clone(), Some(json!({"temp": "hot"})))).expect_err("a string");
        assert!(wrong.contains("/temp") && wrong.contains("outputSchema"), "{wrong}");
        let none = check_structured(&schema, &result(text, None)).expect_err("nothing structured");
        assert!(none.contains("no structuredContent"), "{none}");
    }
}
