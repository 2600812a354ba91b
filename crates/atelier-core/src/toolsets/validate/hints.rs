//! Words that help a person fix a manifest: the known name a typo was
//! meant to be, and where a YAML reader says a problem is.

use super::{Problem, Severity};

/// The problem of a document that is not YAML. Where the problem starts:
/// the reader names the construct it was inside ("while parsing a flow
/// sequence at line 3 column 8"), often lines before where it gave up;
/// every line it mentions is shown.
pub(super) fn yaml_problem(text: &str, e: &serde_norway::Error) -> Problem {
    let said = e.to_string();
    let mentioned = yaml_positions(&said);
    let (line, column) = match mentioned.iter().min() {
        Some(&(l, c)) => (Some(l), Some(c)),
        None => e
            .location()
            .map(|l| (Some(l.line()), Some(l.column())))
            .unwrap_or((None, None)),
    };
    let mut lines: Vec<usize> = mentioned.iter().map(|(l, _)| *l).chain(line).collect();
    lines.sort_unstable();
    lines.dedup();
    let shown: String = lines
        .iter()
        .filter_map(|l| {
            text.lines()
                .nth(l.saturating_sub(1))
                .map(|src| format!("\n  {l} | {src}"))
        })
        .collect();
    Problem {
        severity: Severity::Error,
        file: None,
        path: String::new(),
        line,
        column,
        message: format!("not valid YAML: {said}{shown}"),
    }
}

/// The `(line, column)` pairs a YAML reader's message mentions ("at line
/// 4 column 6").
fn yaml_positions(message: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut rest = message;
    while let Some(i) = rest.find("line ") {
        rest = &rest[i + 5..];
        let line: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let after = &rest[line.len()..];
        let column: String = after
            .strip_prefix(" column ")
            .map(|c| c.chars().take_while(char::is_ascii_digit).collect())
            .unwrap_or_default();
        if let (Ok(l), Ok(c)) = (line.parse(), column.parse()) {
            out.push((l, c));
        }
    }
    out
}

/// The candidate closest to `word` by edit distance, if it is close
/// enough to be a typo of it (`rendrer` → `renderer`).
pub(crate) fn did_you_mean<'k>(word: &str, candidates: impl IntoIterator<Item = &'k str>) -> Option<&'k str> {
    let limit = (word.chars().count() / 3).clamp(1, 3);
    candidates
        .into_iter()
        .map(|c| (edit_distance(&word.to_ascii_lowercase(), c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(row[j + 1] + 1);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_suggests_the_known_word_and_a_stranger_nothing() {
        let keys = ["renderer", "entrypoint", "input_schema"];
        assert_eq!(did_you_mean("rendrer", keys), Some("renderer"));
        assert_eq!(did_you_mean("entry_point", keys), Some("entrypoint"));
        assert_eq!(did_you_mean("Renderer", keys), Some("renderer"));
        assert_eq!(did_you_mean("colour", keys), None);
    }

    #[test]
    fn every_position_a_reader_mentions_is_found() {
        let said =
            "did not find expected ',' or ']' at line 4 column 6, while parsing a flow sequence at line 3 column 8";
        assert_eq!(yaml_positions(said), [(4, 6), (3, 8)]);
        assert!(yaml_positions("end of stream").is_empty());
    }
}
