//! Where each field of a YAML document is: field path → line and column.
//!
//! serde gives us values without positions; this second, event-level pass
//! (saphyr-parser) records the position of every node so validation
//! messages can say `toolset.yaml:14:7 tools[1].entrypoint: …`.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span, SpannedEventReceiver};

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

/// Positions by field path (`tools[1].entrypoint`).
#[derive(Debug, Default, Clone)]
pub struct Locations {
    values: HashMap<String, Pos>,
    keys: HashMap<String, Pos>,
    /// Keys given twice in one mapping, where the second one is (a YAML
    /// reader keeps only one of them, silently).
    pub duplicates: Vec<(String, Pos)>,
    /// Values written `.inf` or `.nan` (any case, any sign), as written:
    /// read into JSON, which holds neither, they become null.
    non_finite: HashMap<String, String>,
}

impl Locations {
    /// Indexes `text`; on a syntax error returns what was indexed so far.
    pub fn of(text: &str) -> Self {
        let mut b = Builder {
            out: Locations::default(),
            stack: Vec::new(),
        };
        let mut parser = Parser::new_from_str(text);
        let _ = parser.load(&mut b, false);
        b.out
    }

    /// Where the value at `path` starts; else where its key is; else the
    /// nearest ancestor's position.
    pub fn find(&self, path: &str) -> Option<Pos> {
        let mut p = path;
        loop {
            if let Some(pos) = self.values.get(p).or_else(|| self.keys.get(p)) {
                return Some(*pos);
            }
            let cut = p.rfind(['.', '['])?;
            p = &p[..cut];
        }
    }

    /// How the value at `path` was written, if it was an infinity or NaN.
    pub fn non_finite(&self, path: &str) -> Option<&str> {
        self.non_finite.get(path).map(String::as_str)
    }

    /// Where the key of `path` is (for "unknown key" messages).
    pub fn key(&self, path: &str) -> Option<Pos> {
        self.keys.get(path).copied().or_else(|| self.find(path))
    }
}

enum Frame {
    Map { path: String, key: Option<String> },
    Seq { path: String, index: usize },
}

struct Builder {
    out: Locations,
    stack: Vec<Frame>,
}

fn pos(span: &Span) -> Pos {
    Pos {
        line: span.start.line(),
        column: span.start.col() + 1,
    }
}

impl Builder {
    /// The path of a node starting now, if it is in value position; also
    /// consumes a mapping key if this node is one.
    fn value_path(&mut self, scalar: Option<&str>, at: Pos) -> Option<String> {
        match self.stack.last_mut() {
            None => Some(String::new()),
            Some(Frame::Seq { path, index }) => {
                let p = format!("{path}[{index}]");
                *index += 1;
                Some(p)
            }
            Some(Frame::Map { path, key }) => match key.take() {
                Some(k) => Some(if path.is_empty() { k } else { format!("{path}.{k}") }),
                None => {
                    let k = scalar.unwrap_or("?").to_owned();
                    let full = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    if self.out.keys.contains_key(&full) && k != "<<" {
                        self.out.duplicates.push((full, at));
                    } else {
                        self.out.keys.insert(full, at);
                    }
                    *key = Some(k);
                    None
                }
            },
        }
    }
}

impl<'input> SpannedEventReceiver<'input> for Builder {
    fn on_event(&mut self, ev: Event<'input>, span: Span) {
        let at = pos(&span);
        match ev {
            Event::Scalar(value, style, ..) => {
                if let Some(p) = self.value_path(Some(&value), at) {
                    let bare = value.trim_start_matches(['+', '-']).to_ascii_lowercase();
                    if style == ScalarStyle::Plain && matches!(bare.as_str(), ".inf" | ".nan") {
                        self.out.non_finite.insert(p.clone(), value.to_string());
                    }
                    self.out.values.entry(p).or_insert(at);
                }
            }
            Event::MappingStart(..) => {
                let p = self.value_path(None, at).unwrap_or_default();
                self.out.values.entry(p.clone()).or_insert(at);
                self.stack.push(Frame::Map { path: p, key: None });
            }
            Event::SequenceStart(..) => {
                let p = self.value_path(None, at).unwrap_or_default();
                self.out.values.entry(p.clone()).or_insert(at);
                self.stack.push(Frame::Seq { path: p, index: 0 });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.stack.pop();
            }
            Event::Alias(..) => {
                let _ = self.value_path(None, at);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_fields() {
        let text = "id: x\ntools:\n  - id: a\n    entrypoint: tools.a\n  - id: b\n    renderer:\n      type: code\n";
        let l = Locations::of(text);
        assert_eq!(l.find("id"), Some(Pos { line: 1, column: 5 }));
        assert_eq!(l.find("tools[0].entrypoint"), Some(Pos { line: 4, column: 17 }));
        assert_eq!(l.find("tools[1].renderer.type"), Some(Pos { line: 7, column: 13 }));
        assert_eq!(l.key("tools[1].renderer"), Some(Pos { line: 6, column: 5 }));
        // A missing field points at its nearest ancestor.
        assert_eq!(l.find("tools[1].entrypoint"), Some(Pos { line: 5, column: 5 }));
    }
}
