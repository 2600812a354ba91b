//! Render plans (a tool's render config with `$args`/`$return` resolved,
//! pinned to the call's post-manifest) and the HTML document of an `html` plan.
//!
//! A plan is `{renderer, config, manifest_id, warnings}`: the tool's render
//! config (highest priority) interpolated with the call's arguments and
//! return value. `manifest_id` is the call's post-manifest, so a plan that
//! names a workspace `file` shows it as it was right after the call. An
//! `html` plan also records the artifact's hash (artifacts are kept by hash
//! in `artifacts/`, so old calls render the artifact they used).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::toolsets::interp::{self, Context};
use crate::toolsets::records::RenderConfigRecord;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RenderPlan {
    /// `code`, `document`, `html`, `frame`, `image`, `error`, or `blocks`
    /// (MCP content of several parts: `{"blocks": [{renderer, config}, …]}`,
    /// each one of the others but `html`, `frame` and `blocks`).
    pub renderer: String,
    pub config: Value,
    /// The workspace state a `file` refers to.
    pub manifest_id: Option<String>,
    /// Expressions that did not resolve, and similar.
    pub warnings: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_sha256: Option<String>,
}

/// The plan of a successful call.
pub fn plan(
    render: Option<&RenderConfigRecord>,
    ctx: &Context<'_>,
    manifest_id: &str,
    artifact_sha256: Option<String>,
) -> RenderPlan {
    let mut warnings = Vec::new();
    let (renderer, config) = match render {
        Some(r) => (r.renderer.clone(), interp::render(&r.config, ctx, &mut warnings)),
        // No renderer: words (a reused function's `-> str`) as a document,
        // as an MCP tool's text is shown; any other value as JSON. Either
        // is the result again, so only its first SHOWN_MAX bytes.
        None => match ctx.ret {
            Value::String(s) => ("document".to_owned(), json!({"content": shown_part(s, &mut warnings)})),
            ret => {
                let text = serde_json::to_string_pretty(ret).unwrap_or_default();
                (
                    "code".to_owned(),
                    json!({"content": shown_part(&text, &mut warnings), "language": "json"}),
                )
            }
        },
    };
    finish(renderer, config, warnings, manifest_id, artifact_sha256)
}

/// The most of a result a plan without a renderer copies: the plan rides
/// with the call on every record, over IPC and into the code view, and a
/// 10 MB result was stored and sent twice; an editor shows this much well.
pub const SHOWN_MAX: usize = 256 << 10;

/// `text`'s first [`SHOWN_MAX`] bytes, cut after a line where one is
/// near, with a warning saying how much is shown; all of a shorter text.
fn shown_part<'a>(text: &'a str, warnings: &mut Vec<String>) -> &'a str {
    if text.len() <= SHOWN_MAX {
        return text;
    }
    let mut end = SHOWN_MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if let Some(line) = text[..end].rfind('\n').filter(|&n| n >= end / 2) {
        end = line + 1;
    }
    warnings.push(format!(
        "the result is {}: the first {} are shown here",
        crate::toolsets::bundle::human_bytes(text.len() as u64),
        crate::toolsets::bundle::human_bytes(end as u64)
    ));
    &text[..end]
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
    }
}

/// JSON that is safe inside a `<script>` element: `<`, `>`, `&`, U+2028 and
/// U+2029 are escaped, so `</script>` in the data can never end the script.
pub fn script_json(data: &Value) -> String {
    let raw = serde_json::to_string(data).unwrap_or_else(|_| "null".to_owned());
    let mut out = String::with_capacity(raw.len() + 16);
    for c in raw.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The document an `html` renderer shows: the artifact with
/// `<script>window.__TOOL_DATA__ = …;</script>` where it runs before any of
/// the artifact's own scripts: right after the `<head …>` tag (and the
/// `<meta>` tags that open it, so a `charset` stays first), else at the start
/// of `<body>` (or before a script that comes ahead of it), else after a
/// doctype, else prepended — always before `</head>`. Comments, attribute
/// values and the text of `<script>`, `<style>`, `<title>` and `<textarea>`
/// are skipped: a `<head>` written there is not the document's.
///
/// The same script makes the frame as tall as the document: it posts the
/// `atelier:resize` message the app's frame accepts (clamped there) when the
/// root element's height changes, so a three-line report is not a 320 px
/// box and a long one needs no inner scrollbar. It measures the root
/// element's own box, which follows the content and not the frame (a page
/// styled `height: 100%` keeps the frame's height instead of growing it
/// without end). A page may still post its own `atelier:resize`.
pub fn html_document(artifact: &str, data: &Value) -> String {
    let script = format!(
        "<script>window.__TOOL_DATA__ = {};{FIT_FRAME}</script>",
        script_json(data)
    );
    let at = injection_point(artifact);
    format!("{}{script}{}", &artifact[..at], &artifact[at..])
}

/// Posts the root element's height to the app whenever it changes (see
/// [`html_document`]); nothing in a top-level window.
const FIT_FRAME: &str = "(function(){if(window.parent===window||typeof ResizeObserver!=='function')return;\
var last=-1;new ResizeObserver(function(){var h=Math.ceil(document.documentElement.getBoundingClientRect().height);\
if(h!==last){last=h;window.parent.postMessage({type:'atelier:resize',height:h},'*');}}).observe(document.documentElement);})();";

/// The byte offset [`html_document`] puts the data script at (always at an
/// ASCII byte, so a char boundary).
fn injection_point(html: &str) -> usize {
    let b = html.as_bytes();
    let find = |needle: &[u8], from: usize| {
        b.get(from..)
            .and_then(|rest| rest.windows(needle.len()).position(|w| w.eq_ignore_ascii_case(needle)))
            .map(|n| from + n)
    };
    let (mut doctype, mut first_script) = (None, None);
    let mut i = 0;
    while let Some(lt) = find(b"<", i) {
        let rest = &b[lt..];
        if rest.starts_with(b"<!--") {
            i = find(b"-->", lt + 4).map_or(b.len(), |e| e + 3);
            continue;
        }
        if rest.starts_with(b"<!") || rest.starts_with(b"<?") {
            let end = find(b">", lt).map_or(b.len(), |e| e + 1);
            if rest.len() > 9 && rest[2..9].eq_ignore_ascii_case(b"doctype") {
                doctype.get_or_insert(end);
            }
            i = end;
            continue;
        }
        if !rest.get(1).is_some_and(u8::is_ascii_alphabetic) {
            i = lt + 1;
            continue;
        }
        let name_end = b[lt + 1..]
            .iter()
            .position(|c| c.is_ascii_whitespace() || matches!(c, b'/' | b'>'))
            .map_or(b.len(), |n| lt + 1 + n);
        let name = html[lt + 1..name_end].to_ascii_lowercase();
        let end = tag_end(b, name_end);
        match name.as_str() {
            "head" => return after_metas(html, end),
            "body" => return first_script.unwrap_or(end),
            "script" => {
                first_script.get_or_insert(lt);
            }
            _ => {}
        }
        i = end;
        if matches!(name.as_str(), "script" | "style" | "title" | "textarea") {
            // Raw text: nothing in it is a tag until its closing one.
            i = find(format!("</{name}").as_bytes(), end).unwrap_or(b.len());
        }
    }
    doctype.unwrap_or(0)
}

/// Just past the `>` of a tag whose name ends at `from`: a `>` inside a
/// quoted attribute value does not end it.
fn tag_end(b: &[u8], from: usize) -> usize {
    let mut i = from;
    let mut after_eq = false;
    while let Some(&c) = b.get(i) {
        match c {
            b'>' => return i + 1,
            b'=' => after_eq = true,
            b'"' | b'\'' if after_eq => {
                i = b[i + 1..].iter().position(|&q| q == c).map_or(b.len(), |n| i + 1 + n);
                after_eq = false;
            }
            c if c.is_ascii_whitespace() => {}
            _ => after_eq = false,
        }
        i += 1;
    }
    b.len()
}

/// `at`, or past the `<meta …>` tags that follow it (whitespace between).
fn after_metas(html: &str, mut at: usize) -> usize {
    let b = html.as_bytes();
    loop {
        let tag = at + b[at..].iter().take_while(|c| c.is_ascii_whitespace()).count();
        let is_meta = b.len() > tag + 5
            && b[tag..tag + 5].eq_ignore_ascii_case(b"<meta")
            && (b[tag + 5].is_ascii_whitespace() || matches!(b[tag + 5], b'/' | b'>'));
        if !is_meta {
            return at;
        }
        at = tag_end(b, tag + 5);
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
    fn the_frame_is_fitted_to_the_page_before_the_pages_own_scripts() {
        let doc = html_document("<head><script src=app.js></script></head><p>3 lines</p>", &json!({}));
        let fit = doc.find("atelier:resize").expect("the page reports its height");
        assert!(fit < doc.find("app.js").unwrap_or(0), "{doc}");
        assert!(doc.contains("ResizeObserver") && doc.contains("document.documentElement.getBoundingClientRect()"));
        assert_eq!(doc.matches("<script>").count(), 1, "one injected script: {doc}");
    }

    #[test]
    fn hostile_data_cannot_close_the_script() {
        let data = json!({"x": "</script><script>alert(1)</script>", "ls": "\u{2028}\u{2029}", "amp": "a&b"});
        let doc = html_document("<html><head><title>t</title></head><body>hi</body></html>", &data);
        assert_eq!(doc.matches("</script>").count(), 1, "{doc}");
        assert!(doc.contains("\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"));
        assert!(doc.contains("\\u2028\\u2029") && doc.contains("a\\u0026b"));
        assert!(doc.find("__TOOL_DATA__") < doc.find("</head>"));
        // The escaped JSON is still the same data.
        let start = doc.find("= ").map(|i| i + 2).unwrap_or(0);
        let read = serde_json::Deserializer::from_str(&doc[start..])
            .into_iter::<Value>()
            .next();
        assert_eq!(read.and_then(Result::ok), Some(data));
    }

    /// Where the script landed relative to `marker` (a later text).
    fn data_before(doc: &str, marker: &str) -> bool {
        let data = doc.find("window.__TOOL_DATA__").expect("injected");
        doc.find(marker).is_some_and(|m| data < m)
    }

    #[test]
    fn the_data_is_set_before_the_artifacts_own_head_scripts_run() {
        let d = json!({"n": 1});
        let page = "<!doctype html><html><head><meta charset=\"utf-8\"><title>t</title>\
                    <script src=\"app.js\"></script></head><body></body></html>";
        let doc = html_document(page, &d);
        assert!(data_before(&doc, "app.js"), "{doc}");
        assert!(
            doc.starts_with("<!doctype html><html><head><meta charset=\"utf-8\"><script>"),
            "{doc}"
        );
        // A `<head>`/`</head>` in a comment, an attribute or a script's text
        // is not the document's.
        let page = "<!-- was: <head></head> --><html data-x=\"a>b\"><head lang='x>y'>\
                    <script>var s = \"</head>\";</script><script src=app.js></script></head>";
        let doc = html_document(page, &d);
        assert!(doc.contains("<head lang='x>y'><script>window.__TOOL_DATA__"), "{doc}");
        assert!(data_before(&doc, "var s") && data_before(&doc, "app.js"), "{doc}");
        assert_eq!(doc.matches("__TOOL_DATA__").count(), 1);
    }

    #[test]
    fn without_a_head_the_data_comes_before_the_first_script_or_after_the_doctype() {
        let d = json!(1);
        let doc = html_document("<html><header>h</header><script src=a.js></script><body><p>", &d);
        assert!(
            data_before(&doc, "a.js") && data_before(&doc, "<body>") && !data_before(&doc, "<header>"),
            "{doc}"
        );
        let doc = html_document("<!DOCTYPE html>\n<div id=app></div>", &d);
        assert!(doc.starts_with("<!DOCTYPE html><script>"), "{doc}");
        let doc = html_document("<body><script>document.write('<head>')</script>", &d);
        assert!(doc.starts_with("<body><script>window.__TOOL_DATA__"), "{doc}");
    }

    #[test]
    fn injection_falls_back_to_body_then_to_the_start() {
        let d = json!(1);
        assert!(html_document("<BODY class=x><p>", &d).starts_with("<BODY class=x><script>"));
        let bare = html_document("<p>bare</p>", &d);
        assert!(bare.starts_with("<script>window.__TOOL_DATA__ = 1;"), "{bare}");
        assert!(bare.ends_with("</script><p>bare</p>"), "{bare}");
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
