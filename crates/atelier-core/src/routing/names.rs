//! Names: the model-facing name of a tool (`<prefix>.<tool>`, or bare for
//! builtins), how a router splits one, and the glob patterns agents use to
//! pick tools (`csv-report.*`, `*_file`, `*`).

/// The name a model sees: `<prefix>.<tool>`, or the bare name without a
/// prefix (builtins).
pub fn model_name(prefix: Option<&str>, tool: &str) -> String {
    match prefix {
        Some(p) => format!("{p}.{tool}"),
        None => tool.to_owned(),
    }
}

/// Splits a model-facing name on its first `.`: `(Some(prefix), tool)`, or
/// `(None, name)` for a bare name.
pub fn split(name: &str) -> (Option<&str>, &str) {
    match name.split_once('.') {
        Some((prefix, tool)) => (Some(prefix), tool),
        None => (None, name),
    }
}

/// Whether `pattern` has glob characters (`*`, `?`).
pub fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?'])
}

/// Shell-style matching of the whole `text`: `*` any run of characters
/// (`.` and `:` included, so `*` matches every tool), `?` one character.
/// The classic two-pointer matcher with one backtrack point, on bytes and
/// without allocating (resolution matches every pattern against every
/// tool), stepping over whole UTF-8 characters.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some(b'*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(b'?') => {
                pi += 1;
                ti += char_len(t[ti]);
            }
            Some(&c) if c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    let next = st + char_len(t[st]);
                    pi = sp + 1;
                    ti = next;
                    star = Some((sp, next));
                }
                None => return false,
            },
        }
    }
    p[pi.min(p.len())..].iter().all(|&c| c == b'*')
}

/// The length of the UTF-8 character that starts with `lead`.
fn char_len(lead: u8) -> usize {
    match lead {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_on_the_first_dot() {
        assert_eq!(model_name(Some("csv"), "summarize"), "csv.summarize");
        assert_eq!(model_name(None, "write_file"), "write_file");
        assert_eq!(split("csv.summarize"), (Some("csv"), "summarize"));
        assert_eq!(split("a.b.c"), (Some("a"), "b.c"));
        assert_eq!(split("write_file"), (None, "write_file"));
    }

    #[test]
    fn globs_match_whole_names() {
        for (p, t, yes) in [
            ("*", "csv-report.summarize", true),
            ("csv-report.*", "csv-report.summarize", true),
            ("csv-report.*", "csv-reporter.x", false),
            ("*_file", "write_file", true),
            ("*_file", "write_file_now", false),
            ("entities_*", "entities_get", true),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("*a*b*", "xxaxxbxx", true),
            ("*a*b", "xxaxxbxxc", false),
            ("", "", true),
            ("", "x", false),
            ("d?jà", "déjà", true),
            ("*à", "déjà", true),
            ("?", "é", true),
            ("??", "é", false),
        ] {
            assert_eq!(glob_match(p, t), yes, "{p} ~ {t}");
        }
        assert!(is_glob("a*") && is_glob("a?") && !is_glob("a.b"));
    }
}
