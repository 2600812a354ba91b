//! How big and how deep a `toolset.yaml` may be, checked before any YAML
//! parser reads it.

use super::{Problem, Severity};
use crate::toolsets::bundle::human_bytes;

/// The largest `toolset.yaml` read.
pub const MAX_MANIFEST_BYTES: usize = 1 << 20;
/// The deepest nesting of mappings and sequences in a `toolset.yaml`
/// (real manifests nest a handful of levels; JSON schemas a few more).
pub const MAX_DEPTH: usize = 64;
/// The longest `timeout_s` a tool may ask for: a day. A call is a step of a
/// chat; longer work belongs in a process the tool starts and reports on.
/// (Any more and a typo — `1e12` — would hold a worker for ever, and
/// `.inf` is no duration at all.)
pub const MAX_TIMEOUT_S: f64 = 86_400.0;

/// Size and nesting limits, checked by a linear scan of the text before
/// any YAML parser sees it (the parsers' own cost grows with depth squared:
/// 200,000 `[` took minutes). The scan over-counts rather than under-counts:
/// brackets are counted even inside quotes, so only a manifest with dozens
/// of unbalanced brackets in its strings could be refused wrongly, and no
/// deep document gets through. Block nesting needs indentation, or a run of
/// `- ` on one line, so those are bounded too.
pub(super) fn within_limits(text: &str) -> std::result::Result<(), Problem> {
    let problem = |line: usize, column: usize, message: String| Problem {
        severity: Severity::Error,
        file: None,
        path: String::new(),
        line: (line > 0).then_some(line),
        column: (column > 0).then_some(column),
        message,
    };
    if text.len() > MAX_MANIFEST_BYTES {
        return Err(problem(
            0,
            0,
            format!(
                "{}; a manifest may have at most {}",
                human_bytes(text.len() as u64),
                human_bytes(MAX_MANIFEST_BYTES as u64)
            ),
        ));
    }
    let too_deep = |line, column| {
        problem(
            line,
            column,
            format!("nested more than {MAX_DEPTH} levels deep; a manifest may nest at most {MAX_DEPTH}"),
        )
    };
    let mut flow = 0usize;
    for (n, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let mut rest = &line[indent..];
        let mut dashes = 0;
        while let Some(r) = rest.strip_prefix("- ").or_else(|| rest.strip_prefix("? ")) {
            dashes += 1;
            rest = r.trim_start_matches(' ');
        }
        if indent > MAX_DEPTH * 8 || dashes > MAX_DEPTH {
            return Err(too_deep(n + 1, indent + 1));
        }
        for (col, ch) in line.char_indices() {
            match ch {
                '[' | '{' => {
                    flow += 1;
                    if flow > MAX_DEPTH {
                        return Err(too_deep(n + 1, col + 1));
                    }
                }
                ']' | '}' => flow = flow.saturating_sub(1),
                _ => {}
            }
        }
    }
    Ok(())
}
