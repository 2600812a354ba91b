//! A call's arguments as a model streamed them: a JSON object, or a
//! refusal that shows the text (or the stretch of it before the error), so
//! a model or a person can see what "line 1 column 19" points at.

use serde_json::Value;

/// Empty means `{}`; anything else must be a JSON object. A refusal
/// shows what came (the start of it, or the stretch before the place a
/// parse error names): "line 1 column 19" means nothing to a model or a
/// person who cannot see the text.
pub(super) fn parse_arguments(raw: &str) -> Result<Value, String> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err(format!("arguments must be a JSON object, got {}", snippet(raw, None))),
        Err(e) => {
            let at = raw
                .lines()
                .take(e.line().saturating_sub(1))
                .map(|l| l.len() + 1)
                .sum::<usize>()
                + e.column();
            Err(format!(
                "arguments were not valid JSON: {e}; they were: {}",
                snippet(raw, Some(at))
            ))
        }
    }
}

/// `raw` whole when short, else the stretch of it that ends at byte `at`
/// (or its start), marked where it was cut.
fn snippet(raw: &str, at: Option<usize>) -> String {
    const MAX: usize = 160;
    if raw.chars().count() <= MAX {
        return raw.to_owned();
    }
    let end = at.map_or(0, |a| a.min(raw.len()));
    let end = (end..=raw.len())
        .find(|i| raw.is_char_boundary(*i))
        .unwrap_or(raw.len());
    let before: Vec<char> = raw[..end].chars().collect();
    if before.len() <= MAX {
        let start: String = raw.chars().take(MAX).collect();
        return format!("{start}…");
    }
    let tail: String = before[before.len() - MAX..].iter().collect();
    let rest = if end < raw.len() { "…" } else { "" };
    format!("…{tail}{rest}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_of_arguments_shows_them_or_the_stretch_before_the_error() {
        let said = |raw: &str| parse_arguments(raw).expect_err("refused");
        let short = r#"{"path": "a.txt", "content": "x"#;
        let e = said(short);
        assert!(e.contains("line 1 column") && e.ends_with(short), "{e}");
        assert!(said("[1, 2]").ends_with("got [1, 2]"), "{}", said("[1, 2]"));
        // A long one: the part that leads to the error, not its start.
        let long = format!(r#"{{"content": "{}", "path": nope}}"#, "a".repeat(500));
        let e = said(&long);
        assert!(e.contains(r#"", "path": n"#) && e.contains("…") && e.len() < 400, "{e}");
    }
}
