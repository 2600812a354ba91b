//! `<think>…</think>` in a model's text kept apart from the answer, with
//! tags split anywhere across deltas.
//!
//! A model that thinks this way opens with it: one block, before any
//! answer. After the block closes, or once answer text came first,
//! `<think>` is text (a model explaining the tag must not have the rest of
//! its answer hidden).
//!
//! Some templates open the block in the prompt (DeepSeek-R1 distills
//! served by llama.cpp or vLLM without a reasoning parser): the output is
//! `reasoning…\n</think>\n\nanswer`, a closing tag with no opening one. A
//! `</think>` that closes no block, at the start of a line and before any
//! block was seen, says so ([`Piece::Closed`]): everything the turn's text
//! held until then was reasoning. That text was already shown as answer
//! text while it streamed (holding it back would delay every answer of
//! every model that never thinks), so only the turn as kept is corrected:
//! see `Builder::text`. A `</think>` inside a line (`` `</think>` ``, "the
//! tag </think> ends…") stays text.

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

/// What a piece of the text is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    Text(String),
    Reasoning(String),
    /// A `</think>` that closed no block: the text so far was reasoning.
    Closed,
}

/// Splits text into answer and reasoning, holding back a tail that could
/// be the start of a tag split across deltas.
#[derive(Debug)]
pub(crate) struct Think {
    inside: bool,
    held: String,
    /// No block can open any more.
    done: bool,
    /// A block was opened or closed: a later `</think>` is text.
    seen: bool,
    /// The text given out so far ends a line (or there is none).
    line_start: bool,
    /// The text given out so far is inside a ``` code block.
    fenced: bool,
    /// Its last two characters: a fence split across deltas still counts.
    tail: String,
    /// A `<think>` went out as answer text: the answer talks about the
    /// tags, so a later `</think>` is quoted, not a template's close.
    quoted: bool,
}

impl Default for Think {
    fn default() -> Self {
        Self {
            inside: false,
            held: String::new(),
            done: false,
            seen: false,
            line_start: true,
            fenced: false,
            tail: String::new(),
            quoted: false,
        }
    }
}

impl Think {
    pub(crate) fn split(&mut self, delta: &str) -> Vec<Piece> {
        let mut s = std::mem::take(&mut self.held);
        s.push_str(delta);
        let mut out = Vec::new();
        loop {
            if self.inside {
                if let Some(at) = s.find(CLOSE) {
                    out.push(Piece::Reasoning(s[..at].to_owned()));
                    s = s[at + CLOSE.len()..].to_owned();
                    self.inside = false;
                    self.done = true;
                    continue;
                }
                let cut = s.len() - held_tail(&s, &[CLOSE]);
                out.push(Piece::Reasoning(s[..cut].to_owned()));
                self.held = s[cut..].to_owned();
                return out;
            }
            let mut open = if self.done { None } else { s.find(OPEN) };
            if open.is_some_and(|at| !s[..at].trim().is_empty()) {
                self.done = true; // the answer came first
                open = None;
            }
            let close = if self.seen { None } else { self.orphan_close(&s) };
            match (open, close) {
                (Some(at), c) if c.is_none_or(|c| at < c) => {
                    self.text(&mut out, &s[..at]);
                    s = s[at + OPEN.len()..].to_owned();
                    self.inside = true;
                    self.seen = true;
                }
                (_, Some(at)) => {
                    self.text(&mut out, &s[..at]);
                    out.push(Piece::Closed);
                    s = s[at + CLOSE.len()..].to_owned();
                    self.seen = true;
                    self.done = true;
                }
                _ => {
                    let tags: &[&str] = match (self.done, self.seen) {
                        (false, false) => &[OPEN, CLOSE],
                        (false, true) => &[OPEN],
                        (true, false) => &[CLOSE],
                        (true, true) => &[],
                    };
                    let cut = s.len() - held_tail(&s, tags);
                    if !s[..cut].trim().is_empty() {
                        self.done = true;
                    }
                    self.text(&mut out, &s[..cut]);
                    self.held = s[cut..].to_owned();
                    return out;
                }
            }
        }
    }

    /// Where a `</think>` at the start of a line is in `s`, if one is: not
    /// inside a code block, nor after a `<think>` the answer quoted (an
    /// answer showing what such output looks like).
    fn orphan_close(&self, s: &str) -> Option<usize> {
        if self.quoted {
            return None;
        }
        s.match_indices(CLOSE).map(|(at, _)| at).find(|&at| {
            let before = &s[..at];
            let line = if at == 0 {
                self.line_start
            } else {
                before.ends_with('\n')
            };
            let fences = format!("{}{before}", self.tail).matches("```").count();
            line && !(self.fenced ^ (fences % 2 == 1)) && !before.contains(OPEN)
        })
    }

    fn text(&mut self, out: &mut Vec<Piece>, text: &str) {
        if !text.is_empty() {
            self.line_start = text.ends_with('\n');
            let joined = format!("{}{text}", self.tail);
            if joined.matches("```").count() % 2 == 1 {
                self.fenced = !self.fenced;
            }
            let keep = joined.char_indices().rev().nth(1).map_or(0, |(i, _)| i);
            self.tail = joined[keep..].to_owned();
            self.quoted |= text.contains(OPEN);
            out.push(Piece::Text(text.to_owned()));
        }
    }

    /// What was held back, once the text ended.
    pub(crate) fn flush(&mut self) -> Vec<Piece> {
        let rest = std::mem::take(&mut self.held);
        vec![if self.inside {
            Piece::Reasoning(rest)
        } else {
            Piece::Text(rest)
        }]
    }
}

/// The length of the longest tail of `s` that starts one of `tags`.
fn held_tail(s: &str, tags: &[&str]) -> usize {
    tags.iter()
        .filter_map(|tag| {
            (1..tag.len())
                .rev()
                .find(|&n| s.len() >= n && s.is_char_boundary(s.len() - n) && tag.starts_with(&s[s.len() - n..]))
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::{Piece, Think};

    /// The text and reasoning `parts` come to, cut at every byte.
    fn each_cut(text: &str, check: impl Fn(usize, &[Piece])) {
        for cut in 0..=text.len() {
            if !text.is_char_boundary(cut) {
                continue;
            }
            let mut t = Think::default();
            let mut pieces = t.split(&text[..cut]);
            pieces.extend(t.split(&text[cut..]));
            pieces.extend(t.flush());
            pieces.retain(|p| !matches!(p, Piece::Text(s) | Piece::Reasoning(s) if s.is_empty()));
            check(cut, &pieces);
        }
    }

    fn joined(pieces: &[Piece]) -> String {
        pieces
            .iter()
            .map(|p| match p {
                Piece::Text(s) => format!("T:{s}|"),
                Piece::Reasoning(s) => format!("R:{s}|"),
                Piece::Closed => "CLOSED|".to_owned(),
            })
            .collect()
    }

    #[test]
    fn a_close_with_no_open_at_a_line_start_ends_the_leading_reasoning() {
        each_cut("Plan é.\n</think>\n\nHello", |cut, pieces| {
            let got: String = joined(pieces);
            let closed = got.find("CLOSED").unwrap_or_else(|| panic!("cut {cut}: {got}"));
            assert_eq!(
                got[..closed].replace("T:", "").replace('|', ""),
                "Plan é.\n",
                "cut {cut}"
            );
            assert_eq!(
                got[closed..].replace("CLOSED", "").replace("T:", "").replace('|', ""),
                "\n\nHello"
            );
        });
        // At the very start too (an empty reasoning).
        each_cut("</think>Hi", |cut, pieces| {
            assert!(joined(pieces).starts_with("CLOSED"), "cut {cut}")
        });
    }

    #[test]
    fn a_close_inside_a_line_or_after_a_block_is_text() {
        for text in [
            "Write </think> to close.",
            "<think>a</think>b\n</think>c",
            "`</think>`",
            // An answer showing what such output looks like: quoted.
            "R1 writes:\n```\n<think>\nplan\n</think>\n```\nthen answers.",
            "Its output ends the block with\n```\n</think>\n```\nas here.",
            "First <think> is text here,\n</think>\nand so is this.",
        ] {
            each_cut(text, |cut, pieces| {
                assert!(!pieces.contains(&Piece::Closed), "{text:?} cut {cut}: {pieces:?}");
            });
        }
    }
}
