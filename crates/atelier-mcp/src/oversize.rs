//! A stdio server's stdout, read before rmcp reads it, for a message longer
//! than Atelier takes ([`MAX_MESSAGE`], rmcp's own line limit).
//!
//! rmcp drops such a line with a line in the log and nothing else: the
//! request it answered (a tool returning a huge payload) then waited for its
//! whole timeout, and a call without one for ever. Here the line is cut at
//! the limit (rmcp, whose own limit is set above ours, takes the cut line
//! for unparsable and skips it), the rest is dropped as it comes, and the
//! request the line answers is answered at once by an error of ours
//! ([`is_too_large`] tells it from a server's): its `id` is found by a scan
//! of the line's top level that holds nothing but the id. It is answered as
//! soon as the line is known to be an answer with an id (Python's SDK
//! writes the id before the result), else at the line's end (TypeScript's
//! writes it after). The stream goes on with the next line, and the
//! server's stderr tail says what was dropped.
//!
//! A server's own notification or request over the limit is dropped. A
//! line that is no answer we can tell (no id, not JSON) may still be the
//! answer a request waits for: the stream cannot be trusted any more, so it
//! ends — the requests in flight fail with the reason, which the connection
//! keeps ([`Guarded::new`]'s receiver), and the supervisor restarts the
//! server.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use serde_json::Value;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::watch;

use crate::stderr::StderrLog;

/// The longest message (one line, without its newline) Atelier reads from
/// a stdio server: rmcp's default, which matches its HTTP client's.
pub(crate) const MAX_MESSAGE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// rmcp's own line limit, above ours: the lines it reads are ours, never
/// longer than [`MAX_MESSAGE`] and a newline, so it drops none itself.
pub(crate) const RMCP_LIMIT: usize = MAX_MESSAGE + 2;

/// The key of our error answer's `data`: what marks it as ours.
const MARK: &str = "atelierTooLarge";

/// A key or an id longer than this is no key or id we look for.
const GRAB_MAX: usize = 256;

/// `data` of an error answer: when it is ours, the size of the message
/// dropped (when known) and the limit; `None` for a server's own error.
pub(crate) fn is_too_large(data: Option<&Value>) -> Option<(Option<u64>, usize)> {
    let ours = data?.get(MARK)?;
    let limit = ours.get("limit").and_then(Value::as_u64)?;
    Some((
        ours.get("bytes").and_then(Value::as_u64),
        usize::try_from(limit).unwrap_or(usize::MAX),
    ))
}

/// "20.5 MiB".
pub(crate) fn mib(bytes: u64) -> String {
    #[allow(clippy::cast_precision_loss)] // a size in words
    let m = bytes as f64 / (1024.0 * 1024.0);
    if m.fract() == 0.0 {
        format!("{m:.0} MiB")
    } else {
        format!("{m:.1} MiB")
    }
}

/// A server's stdout with its over-long lines cut, answered and noted.
pub(crate) struct Guarded<R> {
    inner: R,
    limit: usize,
    log: Arc<StderrLog>,
    broken: watch::Sender<Option<String>>,
    /// Bytes of the current line so far (handed on or dropped).
    line: u64,
    scan: Scan,
    /// The current line is over the limit: its bytes are dropped.
    over: bool,
    /// …and its request was answered already.
    answered: bool,
    /// To hand out before anything else: the end of a cut line, our answer.
    out: Vec<u8>,
    /// Bytes read but not looked at yet: they come after `out`.
    held: Vec<u8>,
    /// The stream cannot be trusted: it ends here.
    ended: bool,
}

impl<R> Guarded<R> {
    /// `inner` with lines over `limit` bytes cut; the receiver says why the
    /// stream ended early, once it has.
    pub(crate) fn new(inner: R, limit: usize, log: Arc<StderrLog>) -> (Self, watch::Receiver<Option<String>>) {
        let (broken, why) = watch::channel(None);
        let guarded = Self {
            inner,
            limit,
            log,
            broken,
            line: 0,
            scan: Scan::default(),
            over: false,
            answered: false,
            out: Vec::new(),
            held: Vec::new(),
            ended: false,
        };
        (guarded, why)
    }

    /// Our answer to request `id`: an error, marked as ours.
    fn answer(&self, id: &[u8], bytes: Option<u64>) -> Option<Vec<u8>> {
        let id: Value = serde_json::from_slice(id).ok()?;
        let size = bytes.map_or_else(|| format!("more than {}", mib(self.limit as u64)), mib);
        let message = serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {
                "code": -32603,
                "message": format!("the answer ({size}) was longer than Atelier reads and was dropped"),
                "data": { MARK: { "bytes": bytes, "limit": self.limit } },
            },
        });
        let mut line = serde_json::to_vec(&message).ok()?;
        line.push(b'\n');
        Some(line)
    }

    /// The current line went over the limit: it ends here for rmcp, and an
    /// answer with its id is answered now.
    fn went_over(&mut self) {
        self.over = true;
        self.out.push(b'\n');
        if let (Some(id), true, false) = (&self.scan.id, self.scan.reply, self.scan.method)
            && let Some(answer) = self.answer(id, None)
        {
            self.out.extend(answer);
            self.answered = true;
        }
    }

    /// The end of a line that went over the limit.
    fn ended_over(&mut self) {
        let size = mib(self.line);
        let limit = mib(self.limit as u64);
        let note =
            |what: &str| format!("[atelier] dropped {what} of {size} from stdout: over the {limit} a message may be");
        if self.answered {
            self.log.push(&note("an answer"));
            return;
        }
        if self.scan.method {
            self.log.push(&note("a notification or request"));
            return;
        }
        if let Some(answer) = self.scan.id.as_deref().and_then(|id| self.answer(id, Some(self.line))) {
            self.out.extend(answer);
            self.log.push(&note("an answer"));
            return;
        }
        let why = format!(
            "it wrote a message of {size} to stdout, over the {limit} a message may be, that answers no request \
             Atelier can tell: the requests in flight were cut off and it is restarted"
        );
        self.log.push(&note("a message that answers no request"));
        self.ended = true;
        self.broken.send_replace(Some(why));
    }

    /// Looks at `data` (just read) in place: what is handed on is moved to
    /// its front. Returns how many bytes that is, and how many were looked
    /// at (it stops once something is to go out first).
    fn sift(&mut self, data: &mut [u8]) -> (usize, usize) {
        let (mut kept, mut at) = (0, 0);
        while at < data.len() && self.out.is_empty() && !self.ended {
            let newline = data[at..].iter().position(|&b| b == b'\n');
            let len = newline.unwrap_or(data.len() - at);
            self.scan.feed(&data[at..at + len]);
            if !self.over {
                let room = usize::try_from(self.limit as u64 - self.line).unwrap_or(usize::MAX);
                let take = if len <= room {
                    len + usize::from(newline.is_some())
                } else {
                    room
                };
                data.copy_within(at..at + take, kept);
                kept += take;
                if len > room {
                    self.line += len as u64;
                    self.went_over();
                } else {
                    self.line += len as u64;
                }
            } else {
                self.line += len as u64;
            }
            at += len;
            if newline.is_some() {
                at += 1;
                if self.over {
                    self.ended_over();
                }
                self.line = 0;
                self.over = false;
                self.answered = false;
                self.scan = Scan::default();
            }
        }
        (kept, at)
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Guarded<R> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        loop {
            if buf.remaining() == 0 {
                return Poll::Ready(Ok(()));
            }
            if !this.out.is_empty() {
                let n = this.out.len().min(buf.remaining());
                buf.put_slice(&this.out[..n]);
                this.out.drain(..n);
                return Poll::Ready(Ok(()));
            }
            if this.ended {
                return Poll::Ready(Ok(()));
            }
            let start = buf.filled().len();
            if this.held.is_empty() {
                ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
                if buf.filled().len() == start {
                    return Poll::Ready(Ok(()));
                }
            } else {
                let n = this.held.len().min(buf.remaining());
                buf.put_slice(&this.held[..n]);
                this.held.drain(..n);
            }
            let (kept, seen) = this.sift(&mut buf.filled_mut()[start..]);
            let rest = buf.filled()[start + seen..].to_vec();
            this.held.splice(0..0, rest);
            buf.set_filled(start + kept);
            if kept > 0 {
                return Poll::Ready(Ok(()));
            }
        }
    }
}

/// Which top-level field a value belongs to.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Field {
    #[default]
    Other,
    Id,
}

/// What is being kept of the string or number being read.
#[derive(Debug, Default)]
enum Grab {
    #[default]
    No,
    Key(Vec<u8>),
    IdText(Vec<u8>),
    IdNumber(Vec<u8>),
}

/// The top level of one JSON-RPC message, read byte by byte as it streams:
/// its `id` (as written) and whether it has a `method`, a `result` or an
/// `error`. Whatever is nested is only counted.
#[derive(Debug, Default)]
struct Scan {
    depth: u32,
    in_text: bool,
    escaped: bool,
    /// A string at depth 1 now is a key.
    key_next: bool,
    grab: Grab,
    /// The last key read at depth 1, until its `:`.
    key: Option<Vec<u8>>,
    field: Field,
    id: Option<Vec<u8>>,
    method: bool,
    reply: bool,
}

impl Scan {
    fn keep(&mut self, b: u8) {
        if let Grab::Key(v) | Grab::IdText(v) | Grab::IdNumber(v) = &mut self.grab {
            if v.len() < GRAB_MAX {
                v.push(b);
            } else {
                self.grab = Grab::No;
            }
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            if self.in_text {
                if matches!(self.grab, Grab::No) && !self.escaped {
                    // Most of a big message is text: skip to what matters.
                    match bytes[i..].iter().position(|&b| b == b'"' || b == b'\\') {
                        Some(p) => i += p,
                        None => return,
                    }
                }
                let b = bytes[i];
                i += 1;
                if self.escaped {
                    self.escaped = false;
                    self.keep(b);
                } else if b == b'\\' {
                    self.escaped = true;
                    self.keep(b);
                } else if b == b'"' {
                    self.in_text = false;
                    match std::mem::take(&mut self.grab) {
                        Grab::Key(k) => self.key = Some(k),
                        Grab::IdText(mut v) => {
                            v.push(b'"');
                            self.id = Some(v);
                        }
                        Grab::IdNumber(_) | Grab::No => {}
                    }
                } else {
                    self.keep(b);
                }
                continue;
            }
            let b = bytes[i];
            i += 1;
            if let Grab::IdNumber(v) = &mut self.grab {
                if matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                    self.keep(b);
                    continue;
                }
                self.id = Some(std::mem::take(v));
                self.grab = Grab::No;
            }
            match b {
                b'"' => {
                    self.in_text = true;
                    if self.depth == 1 && self.key_next {
                        self.grab = Grab::Key(Vec::new());
                    } else if self.depth == 1 && self.field == Field::Id {
                        self.grab = Grab::IdText(vec![b'"']);
                    }
                }
                b'{' | b'[' => {
                    self.depth += 1;
                    self.key_next = self.depth == 1 && b == b'{';
                }
                b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                b',' if self.depth == 1 => {
                    self.key_next = true;
                    self.field = Field::Other;
                }
                b':' if self.depth == 1 => {
                    self.key_next = false;
                    self.field = Field::Other;
                    match self.key.take().as_deref() {
                        Some(b"id") => self.field = Field::Id,
                        Some(b"method") => self.method = true,
                        Some(b"result" | b"error") => self.reply = true,
                        _ => {}
                    }
                }
                b'0'..=b'9' | b'-' if self.depth == 1 && self.field == Field::Id => {
                    self.grab = Grab::IdNumber(vec![b]);
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt;

    use super::*;

    fn scan(text: &str) -> Scan {
        let mut s = Scan::default();
        // In pieces, as a pipe hands them out.
        for piece in text.as_bytes().chunks(3) {
            s.feed(piece);
        }
        s
    }

    #[test]
    fn the_scan_finds_the_top_level_id_before_or_after_the_result() {
        let first = scan(r#"{"jsonrpc":"2.0","id":17,"result":{"id":99,"content":[{"text":"a \"id\": 5"}]}}"#);
        assert_eq!(
            (first.id.as_deref(), first.reply, first.method),
            (Some(&b"17"[..]), true, false)
        );
        let last = scan(r#"{"result":{"id":"inner","x":[1,{"id":2}]},"jsonrpc":"2.0","id":"req-\"4\""}"#);
        assert_eq!(last.id.as_deref(), Some(&br#""req-\"4\"""#[..]));
        let spaced = scan("{ \"id\" : 8 , \"method\" : \"notifications/x\" }");
        assert_eq!((spaced.id.as_deref(), spaced.method), (Some(&b"8"[..]), true));
        let none = scan(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"id":3}}"#);
        assert_eq!((none.id, none.method), (None, true));
        assert!(scan("not json at all").id.is_none());
    }

    /// What rmcp would read from `input` through the guard, with `limit`.
    async fn through(input: &str, limit: usize) -> (String, Option<String>, Vec<String>) {
        let log = Arc::new(StderrLog::default());
        let (mut g, why) = Guarded::new(input.as_bytes(), limit, Arc::clone(&log));
        let mut out = Vec::new();
        // A small buffer: lines and answers cross reads.
        let mut buf = [0u8; 7];
        loop {
            let n = g.read(&mut buf).await.expect("read");
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        let why = why.borrow().clone();
        (String::from_utf8(out).expect("utf-8"), why, log.tail())
    }

    #[tokio::test]
    async fn an_answer_over_the_limit_is_cut_and_answered_by_an_error_and_the_stream_goes_on() {
        let big = "x".repeat(100);
        let id_last = format!("{{\"result\":\"{big}\",\"id\":3}}");
        let input = format!(
            "{{\"id\":1,\"result\":\"ok\"}}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":\"{big}\"}}\n\
             {id_last}\n{{\"id\":4,\"result\":\"after\"}}\n"
        );
        let (out, why, tail) = through(&input, 40).await;
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], r#"{"id":1,"result":"ok"}"#);
        // The cut line (rmcp skips it), then our answer, at once for an id
        // written first and at the line's end for one written last.
        assert_eq!(lines[1].len(), 40);
        let early: Value = serde_json::from_str(lines[2]).expect("json");
        assert_eq!(early["id"], 2);
        assert_eq!(is_too_large(early["error"].get("data")), Some((None, 40)));
        assert_eq!(lines[3].len(), 40);
        let late: Value = serde_json::from_str(lines[4]).expect("json");
        assert_eq!(late["id"], 3);
        assert_eq!(
            is_too_large(late["error"].get("data")),
            Some((Some(id_last.len() as u64), 40))
        );
        assert_eq!(lines[5], r#"{"id":4,"result":"after"}"#);
        assert_eq!(lines.len(), 6, "{out}");
        assert_eq!(why, None);
        assert_eq!(tail.len(), 2, "{tail:?}");
        assert!(
            tail[0].contains("dropped an answer") && tail[0].contains("over the"),
            "{tail:?}"
        );
    }

    #[tokio::test]
    async fn a_line_over_the_limit_that_answers_nothing_ends_the_stream() {
        let input = format!(
            "{{\"method\":\"notifications/x\",\"params\":\"{}\"}}\n{}\n{{\"id\":4,\"result\":\"never read\"}}\n",
            "y".repeat(100),
            "z".repeat(100)
        );
        let (out, why, tail) = through(&input, 40).await;
        assert!(!out.contains("never read") && !out.contains("\"error\""), "{out}");
        let why = why.expect("the stream is broken");
        assert!(why.contains("answers no request"), "{why}");
        assert!(tail[0].contains("dropped a notification or request"), "{tail:?}");
    }
}
