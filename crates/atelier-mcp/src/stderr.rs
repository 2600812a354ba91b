//! A server's stderr: the last lines kept, and the lines written during
//! one call. A server that floods stderr costs a bounded amount of memory.

use std::collections::VecDeque;
use std::sync::Mutex;

/// Lines kept per server.
pub(crate) const KEPT_LINES: usize = 200;
/// Longer lines are cut (a server printing one 10 MB line).
pub(crate) const MAX_LINE: usize = 2000;

/// The tail of a server's stderr.
#[derive(Debug, Default)]
pub struct StderrLog {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    lines: VecDeque<String>,
    /// Lines ever written (the index of the next one).
    total: u64,
}

impl StderrLog {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Adds a line (without its newline), cut to [`MAX_LINE`] bytes.
    pub fn push(&self, line: &str) {
        let mut line = line.trim_end_matches(['\r', '\n']).to_owned();
        if line.len() > MAX_LINE {
            let mut cut = MAX_LINE;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            line.truncate(cut);
            line.push_str(" …");
        }
        let mut s = self.state();
        if s.lines.len() == KEPT_LINES {
            s.lines.pop_front();
        }
        s.lines.push_back(line);
        s.total += 1;
    }

    /// A mark for [`StderrLog::since`].
    pub fn mark(&self) -> u64 {
        self.state().total
    }

    /// The lines written after `mark` that are still kept, and how many
    /// were written in all since then.
    pub fn since(&self, mark: u64) -> (Vec<String>, u64) {
        let s = self.state();
        let written = s.total.saturating_sub(mark);
        let kept = usize::try_from(written).unwrap_or(usize::MAX).min(s.lines.len());
        (s.lines.iter().skip(s.lines.len() - kept).cloned().collect(), written)
    }

    /// The last lines kept, oldest first.
    pub fn tail(&self) -> Vec<String> {
        self.state().lines.iter().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_lines_cut_to_size_and_answers_what_came_since_a_mark() {
        let log = StderrLog::default();
        for i in 0..250 {
            log.push(&format!("line {i}\n"));
        }
        let tail = log.tail();
        assert_eq!(tail.len(), KEPT_LINES);
        assert_eq!(tail[0], "line 50");
        let mark = log.mark();
        log.push(&"é".repeat(5000));
        log.push("after");
        let (lines, written) = log.since(mark);
        assert_eq!(written, 2);
        assert!(lines[0].len() <= MAX_LINE + 4 && lines[0].ends_with(" …"));
        assert_eq!(lines[1], "after");
    }
}
