//! Server-sent events from raw bytes. Lines are cut on bytes and decoded
//! only when whole, so a UTF-8 character split across network reads (or
//! a `\r\n` split in two) never breaks a line. Fields other than `event`
//! and `data` are ignored, as the SSE spec says, but for `error`: see
//! [`SseEvent`].

/// One event: its `event:` name (empty: none) and its `data:` lines joined.
/// A line `error: {json}` (llama.cpp builds of 2025 sent stream errors so,
/// not as `data:`) is an event named `error` with that JSON as its data,
/// so the adapter sees the error instead of nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
}

/// Feeds bytes, yields whole events.
#[derive(Debug, Default)]
pub struct SseParser {
    buf: Vec<u8>,
    event: String,
    data: Vec<String>,
    /// A `\r` ended the last line: a `\n` right after it is the same break.
    after_cr: bool,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds bytes; every event they complete, in order.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        for &b in bytes {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.buf);
                    if let Some(e) = self.line(&String::from_utf8_lossy(&line)) {
                        out.push(e);
                    }
                }
                _ => self.buf.push(b),
            }
        }
        out
    }

    /// The event a stream that ends without a blank line still completes.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let line = std::mem::take(&mut self.buf);
        if !line.is_empty() {
            let _ = self.line(&String::from_utf8_lossy(&line));
        }
        self.line("")
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            if self.data.is_empty() && self.event.is_empty() {
                return None;
            }
            return Some(SseEvent {
                event: std::mem::take(&mut self.event),
                data: std::mem::take(&mut self.data).join("\n"),
            });
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => self.data.push(value.to_owned()),
            "event" => value.clone_into(&mut self.event),
            "error" => {
                "error".clone_into(&mut self.event);
                self.data.push(value.to_owned());
            }
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_survive_any_split_of_their_bytes() {
        let text = "event: a\r\ndata: {\"t\": \"é✓\"}\r\n\r\n: comment\n\ndata: x\ndata: y\n\ndata:z";
        let whole = {
            let mut p = SseParser::new();
            let mut v = p.feed(text.as_bytes());
            v.extend(p.finish());
            v
        };
        assert_eq!(
            whole,
            vec![
                SseEvent {
                    event: "a".into(),
                    data: "{\"t\": \"é✓\"}".into()
                },
                SseEvent {
                    event: String::new(),
                    data: "x\ny".into()
                },
                SseEvent {
                    event: String::new(),
                    data: "z".into()
                },
            ]
        );
        let bytes = text.as_bytes();
        for cut in 0..bytes.len() {
            let mut p = SseParser::new();
            let mut v = p.feed(&bytes[..cut]);
            v.extend(p.feed(&bytes[cut..]));
            v.extend(p.finish());
            assert_eq!(v, whole, "cut at byte {cut}");
        }
    }

    #[test]
    fn an_error_field_is_an_error_event() {
        let mut p = SseParser::new();
        let v = p.feed(b"error: {\"code\":400}\n\ndata: [DONE]\n\n");
        assert_eq!(
            v,
            vec![
                SseEvent {
                    event: "error".into(),
                    data: "{\"code\":400}".into()
                },
                SseEvent {
                    event: String::new(),
                    data: "[DONE]".into()
                },
            ]
        );
    }
}
