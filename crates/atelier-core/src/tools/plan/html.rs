//! The HTML document of an `html` plan: the artifact with the call's data
//! in a script that runs before the artifact's own, escaped for a script
//! context, and the frame fitted to the page's height.

use serde_json::Value;

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
    use serde_json::json;

    use super::*;

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

    /// Where the script landed relative to `marker` (a later text).
    fn data_before(doc: &str, marker: &str) -> bool {
        let data = doc.find("window.__TOOL_DATA__").expect("injected");
        doc.find(marker).is_some_and(|m| data < m)
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
}
