//! A call's result as a model reads it: the result's text (MCP content of
//! several kinds as words, see [`crate::mcp::content`]), bytes left out as
//! a note of what they were, cut to [`MAX_RESULT_CHARS`]; a failure as an
//! error result saying why.

use serde_json::Value;

use super::context::CallRow;

/// The most characters of one tool result sent back.
pub const MAX_RESULT_CHARS: usize = 16_000;

/// A call's result as the model reads it; whether it is an error.
pub(crate) fn result_text(row: &CallRow) -> (String, bool) {
    if row.status == "success" {
        // A text result (an MCP tool's content) is sent as the text, not
        // as a quoted JSON string; MCP content of several kinds as words
        // (its images follow as images, see `images`).
        let text = match row.result.as_ref() {
            // An MCP tool that answered with no content blocks: it ran and
            // had nothing to say (`[]` read as data the model should parse).
            Some(Value::Array(blocks)) if row.mcp && blocks.is_empty() => {
                "(no output: the tool succeeded and returned no content)".to_owned()
            }
            Some(v @ Value::Array(blocks)) if row.mcp && crate::mcp::content::is_blocks(v) => {
                crate::mcp::content::model_text(blocks)
            }
            Some(v) => match without_bytes(v) {
                Value::String(s) => s,
                v => v.to_string(),
            },
            None => "{}".to_owned(),
        };
        return (cut_result(text), false);
    }
    let text = match row.error_kind.as_deref() {
        Some("denied") if row.error.as_deref() == Some(crate::tools::run::NO_ONE_ASKED) => {
            return (
                "not run: this tool asks the user first, and no one was there to approve it".to_owned(),
                true,
            );
        }
        Some("denied") => return ("the user denied this call".to_owned(), true),
        Some("cancelled") => "cancelled by the user".to_owned(),
        kind => cut_result(format!(
            "Error ({}): {}",
            kind.unwrap_or("error"),
            row.error.as_deref().unwrap_or("the call failed")
        )),
    };
    // An interrupted call's own words already list what it changed.
    match changed_before(row).filter(|_| row.error_kind.as_deref() != Some("interrupted")) {
        Some(changed) => (format!("{text}\n({changed})"), true),
        None => (text, true),
    }
}

/// The most changed paths named to a model; the rest are counted.
const CHANGED_NAMED: usize = 10;

/// What a call that failed or was cancelled changed in the workspace
/// before it ended (kept: the workspace moved on), from its error plan —
/// "before failing it changed: one.txt, sub/two.txt and 3 more" — or None
/// when it changed nothing. Without it a model may take the failure to
/// mean nothing was written, and write it all again or over.
fn changed_before(row: &CallRow) -> Option<String> {
    let config = row.render_plan.as_ref()?.get("config")?;
    let listed: Vec<&str> = config
        .get("changed")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let count = config
        .get("changed_count")
        .and_then(Value::as_u64)
        .map_or(listed.len(), |n| usize::try_from(n).unwrap_or(usize::MAX))
        .max(listed.len());
    if count == 0 {
        return None;
    }
    let named = listed[..listed.len().min(CHANGED_NAMED)].join(", ");
    let rest = count - listed.len().min(CHANGED_NAMED);
    let when = if row.error_kind.as_deref() == Some("cancelled") {
        "before it was cancelled"
    } else {
        "before failing"
    };
    Some(match rest {
        0 => format!("{when} it changed: {named}"),
        n => format!("{when} it changed: {named} and {n} more"),
    })
}

/// `text` cut to [`MAX_RESULT_CHARS`], saying so.
fn cut_result(text: String) -> String {
    let n = text.chars().count();
    if n <= MAX_RESULT_CHARS {
        return text;
    }
    let cut: String = text.chars().take(MAX_RESULT_CHARS).collect();
    format!("{cut}\n[cut: the result is {n} characters; the first {MAX_RESULT_CHARS} are above]")
}

/// The shortest string read as bytes in a result rather than words.
const BYTES_FROM: usize = 1024;

/// A result with its bytes left out: an MCP image, audio or blob block's
/// base64, a `data:` URL or any long run of base64 becomes a note of what
/// it was and how big. Sent as text they cost a model thousands of tokens
/// of noise and crowd out the 16,000 characters kept; an image still
/// reaches a model that takes images, as an image (see `images`).
pub(crate) fn without_bytes(v: &Value) -> Value {
    match v {
        // An MCP block's bytes, whatever their size.
        Value::Object(m)
            if matches!(m.get("type").and_then(Value::as_str), Some("image" | "audio"))
                && m.get("data").is_some_and(Value::is_string) =>
        {
            let mut m = m.clone();
            if let Some(Value::String(data)) = m.get("data") {
                let note = format!(
                    "[{} of base64 data, not sent as text]",
                    crate::toolsets::bundle::human_bytes(crate::mcp::content::decoded_len(data))
                );
                m.insert("data".into(), Value::String(note));
            }
            Value::Object(m)
        }
        Value::String(s) if s.len() >= BYTES_FROM && looks_like_bytes(s) => {
            let (media, data) = s
                .strip_prefix("data:")
                .and_then(|r| r.split_once(";base64,"))
                .map_or((String::new(), s.as_str()), |(m, d)| (format!("{m}, "), d));
            Value::String(format!(
                "[{media}{} of base64 data, not sent as text]",
                crate::toolsets::bundle::human_bytes(crate::mcp::content::decoded_len(data))
            ))
        }
        Value::Array(a) => Value::Array(a.iter().map(without_bytes).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), without_bytes(x))).collect()),
        other => other.clone(),
    }
}

/// A `data:` URL, or one unbroken run of the base64 alphabet mixing upper
/// and lower case and digits — not words, hex hashes, DNA or a column of
/// ids one a line, which are data a model should read.
fn looks_like_bytes(s: &str) -> bool {
    if let Some((_, body)) = s.strip_prefix("data:").and_then(|r| r.split_once(";base64,")) {
        return body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    }
    let alphabet = s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_'));
    alphabet
        && s.bytes().any(|b| b.is_ascii_uppercase())
        && s.bytes().any(|b| b.is_ascii_lowercase())
        && s.bytes().any(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::result_text;
    use crate::conversation::context::CallRow;

    fn row(result: Value) -> CallRow {
        CallRow {
            id: "c1".into(),
            tool_id: "srv:chart".into(),
            args: json!({}),
            result: Some(result),
            status: "success".into(),
            error_kind: None,
            error: None,
            model_call_id: Some("call_1".into()),
            render_plan: None,
            post_manifest_id: None,
            mcp: true,
        }
    }

    #[test]
    fn an_mcp_image_or_a_data_url_reaches_the_model_as_a_note_not_base64() {
        let png = "iVBORw0KGgoAAAANSUhEUg".repeat(300);
        let blocks =
            json!([{"type": "text", "text": "A chart"}, {"type": "image", "data": png, "mimeType": "image/png"}]);
        let (text, error) = result_text(&row(blocks));
        assert!(!error);
        assert!(!text.contains("iVBORw0KGgo"), "{text}");
        assert_eq!(text, "A chart\n\n[image (image/png, 4.8 KiB)]");
        let (text, _) = result_text(&row(
            json!({"chart": format!("data:image/png;base64,{png}"), "rows": 3}),
        ));
        assert!(text.contains("[image/png, ") && text.contains("\"rows\":3"), "{text}");
        // Data a model should read stays, however long: a hex hash list,
        // ids one a line, DNA.
        for kept in [
            "0123456789abcdef".repeat(100),
            "1f3a8d1\n".repeat(200),
            "ACGT".repeat(400),
        ] {
            assert_eq!(result_text(&row(json!({"x": kept}))).0, json!({"x": kept}).to_string());
        }
        // A small MCP image is still bytes, counted as it decodes (the
        // padding is none: a PNG's 8-byte signature).
        let (text, _) = result_text(&row(
            json!([{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]),
        ));
        assert_eq!(text, "[image (image/png, 8 bytes)]");
        // Bytes anywhere else in a result are a note.
        let (text, _) = result_text(&row(json!({"blocks": [{"type": "image", "data": "iVBORw0KGgo="}]})));
        assert!(text.contains("of base64 data, not sent as text"), "{text}");
        // Words stay words, however long.
        let prose = "word ".repeat(400);
        assert_eq!(
            result_text(&row(json!({"text": prose}))).0,
            json!({"text": prose}).to_string()
        );
    }

    #[test]
    fn mcp_content_of_several_kinds_reaches_the_model_as_words_not_the_json_of_its_blocks() {
        let blocks = json!([
            {"type": "text", "text": "Found it:"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "alpha"}},
            {"type": "resource_link", "uri": "file:///b.txt", "name": "b.txt"},
        ]);
        let (text, error) = result_text(&row(blocks));
        assert!(!error);
        assert_eq!(
            text,
            "Found it:\n\n[resource file:///a.txt (text/plain)]\nalpha\n\n[resource link file:///b.txt (\"b.txt\")]"
        );
    }

    #[test]
    fn an_empty_mcp_result_is_said_as_no_output_not_an_empty_list() {
        let (text, error) = result_text(&row(json!([])));
        assert!(!error);
        assert_eq!(text, "(no output: the tool succeeded and returned no content)");
        // Another tool's empty list is its data.
        let mut data = row(json!([]));
        data.mcp = false;
        assert_eq!(result_text(&data).0, "[]");
    }

    #[test]
    fn a_call_no_one_could_approve_is_not_said_to_be_denied_by_the_user() {
        let refused = |error: &str| {
            let mut r = row(Value::Null);
            r.result = None;
            r.status = "error".into();
            r.error_kind = Some("denied".into());
            r.error = Some(error.into());
            result_text(&r).0
        };
        assert_eq!(
            refused(crate::tools::run::NO_ONE_ASKED),
            "not run: this tool asks the user first, and no one was there to approve it"
        );
        assert_eq!(refused("denied"), "the user denied this call");
    }

    #[test]
    fn a_failed_call_says_what_it_changed_before_failing() {
        let failed = |changed: Vec<String>| {
            let mut r = row(Value::Null);
            r.result = None;
            r.status = "error".into();
            r.error_kind = Some("exception".into());
            r.error = Some("RuntimeError: disk on fire".into());
            let details = crate::tools::plan::ErrorDetails {
                changed,
                ..Default::default()
            };
            let plan =
                crate::tools::plan::error_plan_with("exception", "RuntimeError: disk on fire", &details, Some("m"));
            r.render_plan = Some(serde_json::to_value(plan).expect("plan"));
            r
        };
        let (text, error) = result_text(&failed(vec!["one.txt".into(), "sub/two.txt".into()]));
        assert!(error);
        assert_eq!(
            text,
            "Error (exception): RuntimeError: disk on fire\n(before failing it changed: one.txt, sub/two.txt)"
        );
        // Many: the first ten named, the rest counted (also past what the plan lists).
        let many: Vec<String> = (0..80).map(|i| format!("out/{i:02}.csv")).collect();
        let (text, _) = result_text(&failed(many));
        assert!(
            text.ends_with("it changed: out/00.csv, out/01.csv, out/02.csv, out/03.csv, out/04.csv, out/05.csv, out/06.csv, out/07.csv, out/08.csv, out/09.csv and 70 more)"),
            "{text}"
        );
        // Nothing changed: the error alone.
        assert_eq!(
            result_text(&failed(Vec::new())).0,
            "Error (exception): RuntimeError: disk on fire"
        );
        // Cancelled after writing: said so too.
        let mut stopped = failed(vec!["half.txt".into()]);
        stopped.error_kind = Some("cancelled".into());
        assert_eq!(
            result_text(&stopped).0,
            "cancelled by the user\n(before it was cancelled it changed: half.txt)"
        );
        // Interrupted: its own words list the files; not said twice.
        let mut cut = failed(vec!["half.txt".into()]);
        cut.error_kind = Some("interrupted".into());
        cut.error = Some("the call was interrupted; the workspace files it changed are kept: half.txt".into());
        let (text, _) = result_text(&cut);
        assert_eq!(text.matches("half.txt").count(), 1, "{text}");
    }

    #[test]
    fn a_long_error_is_cut_like_a_long_result() {
        let mut r = row(Value::Null);
        r.result = None;
        r.status = "error".into();
        r.error_kind = Some("exception".into());
        r.error = Some("x".repeat(super::MAX_RESULT_CHARS * 2));
        let (text, error) = result_text(&r);
        assert!(error);
        assert!(
            text.starts_with("Error (exception): xxx") && text.contains("[cut: the result is"),
            "{}",
            &text[..40]
        );
        assert!(text.chars().count() < super::MAX_RESULT_CHARS + 200);
    }
}
