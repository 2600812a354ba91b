//! How much of a result a render plan copies. A plan rides with its call
//! on every record, is stored and is sent over IPC; a field that repeats a
//! 10 MB result (a plan without a renderer, MCP content's text, a render
//! config's `$return`) made a 10 MB plan, kept and sent twice. Each field
//! of a plan's config is held to [`SHOWN_MAX`] bytes: text keeps its first
//! part (cut after a line where one is near), a list its first items, a
//! record all its small fields and the first part of its big ones, and a
//! warning says how much is shown. The whole result stays in the call's
//! `result` (its record and its saved copy).

use std::io;

use serde_json::Value;

use crate::toolsets::bundle::human_bytes;

/// The most of a result one field of a plan's config holds (an editor
/// shows this much well).
pub const SHOWN_MAX: usize = 256 << 10;

/// Cuts each field of `config` (of each block's config, for `blocks`)
/// to [`SHOWN_MAX`], a warning for each one cut. An image's or audio's
/// `url` is never cut: part of one is none.
pub(super) fn cap_fields(renderer: &str, config: &mut Value, warnings: &mut Vec<String>) {
    if renderer == "blocks" {
        for block in config
            .get_mut("blocks")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            let renderer = block["renderer"].as_str().unwrap_or_default().to_owned();
            if let Some(c) = block.get_mut("config") {
                cap_fields(&renderer, c, warnings);
            }
        }
        return;
    }
    match config.as_object_mut() {
        Some(fields) => {
            for (key, value) in fields.iter_mut() {
                if !(matches!(renderer, "image" | "audio") && key == "url") {
                    cap(value, warnings);
                }
            }
        }
        None => {
            cap(config, warnings);
        }
    }
}

/// `value` held to [`SHOWN_MAX`], with a warning when it was cut; whether
/// it was.
pub(super) fn cap(value: &mut Value, warnings: &mut Vec<String>) -> bool {
    let (total, kept) = match value {
        // Text is counted as the person reads it, not as JSON.
        Value::String(s) if s.len() > SHOWN_MAX => {
            let total = s.len();
            s.truncate(text_end(s, SHOWN_MAX));
            (total, s.len())
        }
        Value::Array(_) | Value::Object(_) => {
            let total = json_len(value);
            if total <= SHOWN_MAX {
                return false;
            }
            (total, cut(value, SHOWN_MAX))
        }
        _ => return false,
    };
    warnings.push(format!(
        "the result is {}: the first {} are shown here",
        human_bytes(total as u64),
        human_bytes(kept as u64)
    ));
    true
}

/// Cuts `value` to about `budget` bytes of JSON and returns its length
/// after: a list keeps the items that fit (the first one cut when even it
/// does not), a record keeps every field, the smallest whole first, the
/// rest cut to what is left, so a summary next to 10 MB of rows survives.
fn cut(value: &mut Value, budget: usize) -> usize {
    let len = json_len(value);
    if len <= budget {
        return len;
    }
    match value {
        Value::String(s) => {
            s.truncate(text_end(s, json_room(s, budget.saturating_sub(2))));
            json_len(value)
        }
        Value::Array(items) => {
            let mut used = 2;
            let mut kept = items.len();
            for (i, item) in items.iter_mut().enumerate() {
                let comma = usize::from(i > 0);
                let n = json_len(item);
                if used + comma + n <= budget {
                    used += comma + n;
                    continue;
                }
                kept = i;
                if i == 0 {
                    used += cut(item, budget.saturating_sub(used));
                    kept = 1;
                }
                break;
            }
            items.truncate(kept);
            used
        }
        Value::Object(fields) => {
            let sizes: Vec<usize> = fields.values().map(json_len).collect();
            let mut by_size: Vec<usize> = (0..sizes.len()).collect();
            by_size.sort_by_key(|&i| sizes[i]);
            // Keys, colons and commas first: they are kept whatever the values.
            let mut used = 2 + fields.keys().map(|k| k.len() + 4).sum::<usize>();
            // What each field may keep: all of it (`None`) or what is left.
            let mut allowed = vec![None; sizes.len()];
            for i in by_size {
                if used + sizes[i] > budget {
                    allowed[i] = Some(budget.saturating_sub(used));
                }
                used += allowed[i].unwrap_or(sizes[i]);
            }
            for (v, allowed) in fields.values_mut().zip(allowed) {
                if let Some(n) = allowed {
                    cut(v, n);
                }
            }
            json_len(value)
        }
        // A number, a boolean or null is as short as it gets.
        _ => len,
    }
}

/// Where `text`'s first `max` bytes end: on a character boundary, and just
/// after a line when one ends in the second half.
fn text_end(text: &str, max: usize) -> usize {
    if text.len() <= max {
        return text.len();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    match text[..end].rfind('\n') {
        Some(line) if line >= end / 2 => line + 1,
        _ => end,
    }
}

/// How many bytes of `text` fit in `budget` bytes of JSON, where a
/// newline or a quote takes two and another control character six.
fn json_room(text: &str, budget: usize) -> usize {
    let mut used = 0;
    for (i, c) in text.char_indices() {
        used += match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if c < ' ' => 6,
            c => c.len_utf8(),
        };
        if used > budget {
            return i;
        }
    }
    text.len()
}

/// The length of `value` as compact JSON, counted without building it.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` to a writer that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_big_record_keeps_its_small_fields_and_the_first_rows() {
        let rows: Vec<Value> = (0..5_000).map(|i| json!({"row": i, "name": "x".repeat(100)})).collect();
        let mut data = json!({"title": "Sales", "rows": rows, "total": 20_000});
        let mut warnings = Vec::new();
        cap(&mut data, &mut warnings);
        assert_eq!((&data["title"], &data["total"]), (&json!("Sales"), &json!(20_000)));
        let kept = data["rows"].as_array().expect("rows").len();
        assert!(kept > 1000 && kept < 5_000, "{kept}");
        assert_eq!(data["rows"][0], json!({"row": 0, "name": "x".repeat(100)}));
        assert!(json_len(&data) <= SHOWN_MAX, "{}", json_len(&data));
        assert_eq!(warnings.len(), 1);
        assert_eq!(
            warnings,
            [format!(
                "the result is 599.5 KiB: the first {} are shown here",
                human_bytes(json_len(&data) as u64)
            )]
        );
    }

    #[test]
    fn a_list_of_one_huge_item_keeps_its_first_part() {
        let mut v = json!([{"log": "line\n".repeat(200_000)}, 2]);
        let mut warnings = Vec::new();
        cap(&mut v, &mut warnings);
        let log = v[0]["log"].as_str().expect("text");
        assert!(log.len() > SHOWN_MAX / 2 && log.ends_with('\n'), "{}", log.len());
        assert_eq!(v.as_array().map(Vec::len), Some(1));
        assert!(json_len(&v) <= SHOWN_MAX);
    }

    #[test]
    fn small_fields_and_image_urls_are_left_alone() {
        let url = format!("data:image/png;base64,{}", "A".repeat(SHOWN_MAX * 2));
        let mut config = json!({"url": url, "alt": "x"});
        let mut warnings = Vec::new();
        cap_fields("image", &mut config, &mut warnings);
        assert_eq!(config["url"].as_str().map(str::len), Some(url.len()));
        assert!(warnings.is_empty());
    }
}
