//! Render plans (a tool's render config with `$args`/`$return` resolved,
//! pinned to the call's post-manifest) and the HTML document of an `html`
//! plan (`html`).
//!
//! A plan is `{renderer, config, manifest_id, warnings}`: the tool's render
//! config (highest priority) interpolated with the call's arguments and
//! return value. `manifest_id` is the call's post-manifest, so a plan that
//! names a workspace `file` shows it as it was right after the call. An
//! `html` plan also records the artifact's hash (artifacts are kept by hash
//! in `artifacts/`, so old calls render the artifact they used). No field
//! of a plan holds more than the first part of a big result (`shown`).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::toolsets::interp::{self, Context};
use crate::toolsets::records::RenderConfigRecord;

mod html;
mod shown;
pub use html::{html_document, script_json};
pub use shown::SHOWN_MAX;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RenderPlan {
    /// `code`, `document`, `html`, `frame`, `image`, `audio` (MCP audio
    /// content: `{"url": "data:audio/…"}`), `error`, or `blocks` (MCP
    /// content of several parts: `{"blocks": [{renderer, config}, …]}`,
    /// each one of the others but `html`, `frame` and `blocks`).
    pub renderer: String,
    pub config: Value,
    /// The workspace state a `file` refers to.
    pub manifest_id: Option<String>,
    /// Expressions that did not resolve, and similar.
    pub warnings: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_sha256: Option<String>,
    /// An `html` plan whose `data` had to be cut: the render config's
    /// `data` as the tool wrote it (`"$return"`, `{"rows": "$return.rows"}`).
    /// The page's document resolves it again against the call's whole
    /// result, so the page gets all of its data; the plan, which rides on
    /// every record, keeps only the first part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_expr: Option<Value>,
}

/// The plan of a successful call.
pub fn plan(
    render: Option<&RenderConfigRecord>,
    ctx: &Context<'_>,
    manifest_id: &str,
    artifact_sha256: Option<String>,
) -> RenderPlan {
    let mut warnings = Vec::new();
    let mut data_expr = None;
    let (renderer, config) = match render {
        Some(r) => {
            let mut config = interp::render(&r.config, ctx, &mut warnings);
            if r.renderer == "html"
                && let Some(data) = config.get_mut("data")
            {
                // The page is served whole on demand (`html_document`): its
                // data is cut here, for the plan, without a warning, and the
                // expression kept to resolve it again there.
                if shown::cap(data, &mut Vec::new()) {
                    data_expr = r.config.get("data").cloned();
                }
            }
            (r.renderer.clone(), config)
        }
        // No renderer: words (a reused function's `-> str`) as a document,
        // as an MCP tool's text is shown; any other value as JSON (held to
        // its first part, like every plan, by `finish`).
        None => match ctx.ret {
            Value::String(s) => ("document".to_owned(), json!({"content": s})),
            ret => {
                let text = serde_json::to_string_pretty(ret).unwrap_or_default();
                ("code".to_owned(), json!({"content": text, "language": "json"}))
            }
        },
    };
    RenderPlan {
        data_expr,
        ..finish(renderer, config, warnings, manifest_id, artifact_sha256)
    }
}

/// The plan of MCP content when its tool declares no renderer (see
/// [`crate::mcp::call::default_plan`]).
pub fn mcp_plan(content: &[Value], manifest_id: &str) -> RenderPlan {
    let (renderer, config) = crate::mcp::call::default_plan(content);
    finish(renderer, config, Vec::new(), manifest_id, None)
}

fn finish(
    renderer: String,
    mut config: Value,
    mut warnings: Vec<String>,
    manifest_id: &str,
    artifact_sha256: Option<String>,
) -> RenderPlan {
    // Every plan is made here, so every one is held to SHOWN_MAX a field:
    // no renderer, MCP content, and a render config's `$return` alike.
    shown::cap_fields(&renderer, &mut config, &mut warnings);
    if renderer == "image" {
        keep_only_safe_image_url(&mut config, &mut warnings);
    }
    // Each image of a `blocks` plan (MCP content) is held to the same rule.
    if renderer == "blocks"
        && let Some(blocks) = config.get_mut("blocks").and_then(Value::as_array_mut)
    {
        for b in blocks.iter_mut().filter(|b| b["renderer"] == "image") {
            if let Some(c) = b.get_mut("config") {
                keep_only_safe_image_url(c, &mut warnings);
            }
        }
    }
    RenderPlan {
        renderer,
        config,
        manifest_id: Some(manifest_id.to_owned()),
        warnings,
        artifact_sha256,
        data_expr: None,
    }
}

/// An image renderer shows a workspace file, a `data:` image or a page of
/// this computer, never another web address (it would tell that host the
/// person looked, and what). Decided here, where the plan is made, so every
/// view gets the same answer.
fn keep_only_safe_image_url(config: &mut Value, warnings: &mut Vec<String>) {
    let Some(url) = config.get("url").and_then(Value::as_str) else {
        return;
    };
    let is_data_image = url.get(..11).is_some_and(|p| p.eq_ignore_ascii_case("data:image/"));
    if is_data_image || crate::settings::is_loopback_page(url) {
        return;
    }
    let shown: String = url.chars().take(80).collect();
    warnings.push(format!(
        "image url {shown:?} dropped: only data:image/… and pages on this computer (localhost) are shown"
    ));
    if let Some(obj) = config.as_object_mut() {
        obj.remove("url");
    }
}

/// The plan of a failed call: what went wrong, and any captured output.
pub fn error_plan(kind: &str, message: &str, manifest_id: Option<&str>) -> RenderPlan {
    error_plan_with(kind, message, &ErrorDetails::default(), manifest_id)
}

/// What an error view shows besides the message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ErrorDetails {
    pub traceback: Option<String>,
    pub stdout: Option<String>,
    pub stderr: Option<String>,
    /// The workspace paths the call changed before it failed (they are
    /// kept): the model is told, or it may think nothing was written.
    pub changed: Vec<String>,
}

/// The most changed paths an error plan lists (`changed_count` says all).
pub const CHANGED_LISTED: usize = 50;

/// An error plan with the traceback and captured output, and the paths
/// changed before the failure (`changed`, at most [`CHANGED_LISTED`], and
/// `changed_count`; neither when nothing changed).
pub fn error_plan_with(kind: &str, message: &str, details: &ErrorDetails, manifest_id: Option<&str>) -> RenderPlan {
    let mut config = json!({
        "kind": kind,
        "message": message,
        "traceback": details.traceback,
        "stdout": details.stdout,
        "stderr": details.stderr,
    });
    if !details.changed.is_empty() {
        config["changed"] = json!(&details.changed[..details.changed.len().min(CHANGED_LISTED)]);
        config["changed_count"] = json!(details.changed.len());
    }
    RenderPlan {
        renderer: "error".to_owned(),
        config,
        manifest_id: manifest_id.map(str::to_owned),
        warnings: Vec::new(),
        artifact_sha256: None,
        data_expr: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_renderer_words_are_a_document_and_values_are_json() {
        fn ctx(ret: &Value) -> Context<'_> {
            Context {
                args: &Value::Null,
                ret,
                chat_id: "c",
                workspace: "/w",
                toolset: "t",
            }
        }
        let words = plan(None, &ctx(&json!("HI **there**")), "m", None);
        assert_eq!(words.renderer, "document");
        assert_eq!(words.config["content"], "HI **there**");
        let list = plan(None, &ctx(&json!([1, 2])), "m", None);
        assert_eq!(
            (list.renderer.as_str(), &list.config["language"]),
            ("code", &json!("json"))
        );
        assert!(list.warnings.is_empty());
        // A big result is not copied whole into its plan: its first part,
        // cut after a line, and a warning saying how much.
        let rows: Vec<Value> = (0..40_000)
            .map(|i| json!({"row": i, "name": "x".repeat(200)}))
            .collect();
        let big = plan(None, &ctx(&Value::Array(rows)), "m", None);
        let shown = big.config["content"].as_str().expect("text");
        assert!(
            shown.len() <= SHOWN_MAX && shown.len() > SHOWN_MAX / 2,
            "{}",
            shown.len()
        );
        assert!(
            shown.starts_with("[\n  {\n") && shown.ends_with('\n'),
            "cut after a line"
        );
        assert_eq!(
            big.warnings,
            [format!(
                "the result is 9.2 MiB: the first {} are shown here",
                crate::toolsets::bundle::human_bytes(shown.len() as u64)
            )]
        );
        let words = plan(None, &ctx(&json!("é".repeat(SHOWN_MAX))), "m", None);
        let shown = words.config["content"].as_str().expect("text");
        assert_eq!(shown.len(), SHOWN_MAX, "whole characters, no line to cut after");
        assert_eq!(
            words.warnings,
            ["the result is 512 KiB: the first 256 KiB are shown here"]
        );
    }

    #[test]
    fn a_10_mb_mcp_text_result_gives_a_plan_of_its_first_part() {
        let text = "a line of the server's output\n".repeat(350_000);
        let p = mcp_plan(&[json!({"type": "text", "text": text})], "m");
        assert_eq!(p.renderer, "document");
        let shown = p.config["content"].as_str().expect("text");
        assert!(shown.len() <= SHOWN_MAX && text.starts_with(shown) && shown.ends_with('\n'));
        assert_eq!(
            p.warnings,
            [format!(
                "the result is 10.0 MiB: the first {} are shown here",
                crate::toolsets::bundle::human_bytes(shown.len() as u64)
            )]
        );
        // Next to an image (a `blocks` plan), the same.
        let png = json!({"type": "image", "data": "iVBO", "mimeType": "image/png"});
        let p = mcp_plan(&[json!({"type": "text", "text": text}), png], "m");
        assert!(p.config["blocks"][0]["config"]["content"].as_str().map(str::len) <= Some(SHOWN_MAX));
        assert_eq!(p.config["blocks"][1]["config"]["url"], "data:image/png;base64,iVBO");
        assert_eq!(p.warnings.len(), 1);
    }

    #[test]
    fn a_render_configs_return_is_held_to_its_first_part() {
        let text = "é".repeat(SHOWN_MAX);
        let rows: Vec<Value> = (0..4_000).map(|i| json!({"row": i, "name": "x".repeat(200)})).collect();
        let ret = json!({"text": text, "rows": rows, "title": "Rows"});
        let ctx = Context {
            args: &Value::Null,
            ret: &ret,
            chat_id: "c",
            workspace: "/w",
            toolset: "t",
        };
        let code = RenderConfigRecord {
            renderer: "code".into(),
            config: json!({"content": "$return.text", "language": "text"}),
            priority: 0,
        };
        let p = plan(Some(&code), &ctx, "m", None);
        assert_eq!(p.config["content"].as_str().map(str::len), Some(SHOWN_MAX));
        assert_eq!(p.config["language"], "text");
        assert_eq!(p.warnings, ["the result is 512 KiB: the first 256 KiB are shown here"]);
        // An html page's data: the plan keeps the title whole and the first
        // rows, and the expression its page resolves again against the whole
        // result; no warning, as the page gets all of it.
        let html = RenderConfigRecord {
            renderer: "html".into(),
            config: json!({"artifact": "./a.html", "data": {"title": "$return.title", "rows": "$return.rows"}}),
            priority: 0,
        };
        let p = plan(Some(&html), &ctx, "m", Some("sha".into()));
        assert_eq!(p.config["data"]["title"], "Rows");
        let rows = p.config["data"]["rows"].as_array().expect("rows");
        assert!(rows.len() > 100 && rows.len() < 4_000, "{}", rows.len());
        assert_eq!(rows[0], ret["rows"][0]);
        assert!(serde_json::to_string(&p.config).map(|s| s.len()).unwrap_or(0) <= SHOWN_MAX + 100);
        assert_eq!(p.warnings, Vec::<String>::new());
        assert_eq!(p.data_expr, Some(html.config["data"].clone()));
        // Data that fits needs no second resolving.
        let small = json!({"title": "Rows", "rows": [], "text": ""});
        let p = plan(Some(&html), &Context { ret: &small, ..ctx }, "m", Some("sha".into()));
        assert_eq!((p.data_expr, p.config["data"]["title"].as_str()), (None, Some("Rows")));
    }

    #[test]
    fn an_image_plan_keeps_only_data_and_loopback_urls() {
        for (url, kept) in [
            ("data:image/png;base64,iVBORw0KGgo=", true),
            ("DATA:IMAGE/svg+xml,<svg/>", true),
            ("http://localhost:8000/chart.png", true),
            ("http://127.0.0.1/x.png", true),
            ("https://tracker.example.com/pixel.gif?chat=42", false),
            ("http://localhost.evil.com/x.png", false),
            ("data:text/html,<script>", false),
            ("javascript:alert(1)", false),
        ] {
            let mut config = json!({"url": url, "alt": "a chart"});
            let mut warnings = Vec::new();
            keep_only_safe_image_url(&mut config, &mut warnings);
            assert_eq!(config.get("url").is_some(), kept, "{url}");
            assert_eq!(warnings.is_empty(), kept, "{url}: {warnings:?}");
            assert_eq!(config["alt"], "a chart");
        }
        // An image among MCP content's blocks too.
        let content = [
            json!({"type": "text", "text": "see"}),
            json!({"type": "resource", "resource": {"uri": "https://x.example/p.png", "mimeType": "image/png", "blob": "iVBO"}}),
        ];
        let mut p = mcp_plan(&content, "m1");
        assert_eq!(p.renderer, "blocks");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        p.config["blocks"][1]["config"]["url"] = json!("https://tracker.example.com/p.gif");
        let p = finish(p.renderer, p.config, Vec::new(), "m1", None);
        assert!(p.config["blocks"][1]["config"].get("url").is_none(), "{:?}", p.config);
        assert_eq!(p.warnings.len(), 1);
    }
}
