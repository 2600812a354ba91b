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
/// Linear in practice: the classic two-pointer matcher with one backtrack
/// point, no recursion.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(&c) if c == '?' || c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
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
        ] {
            assert_eq!(glob_match(p, t), yes, "{p} ~ {t}");
        }
        assert!(is_glob("a*") && is_glob("a?") && !is_glob("a.b"));
    }
}
