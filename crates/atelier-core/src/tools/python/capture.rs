//! Reading a worker's fd 1 and fd 2: split the byte stream at the
//! end-of-request marker, keep at most a cap of each request's output, and
//! hand complete UTF-8 text to a live listener.

use std::sync::Arc;

use atelier_protocol::Stream;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::mpsc;

/// What a capture reader reports.
#[derive(Debug)]
pub(crate) enum Chunk {
    Data(Stream, Vec<u8>),
    /// Everything before this belonged to the request that just ended.
    Mark(Stream),
    /// The pipe closed (the worker and its children are gone).
    Eof(Stream),
}

/// Live output of a running call: `(stream, text)`, in order.
pub type OutputListener = Arc<dyn Fn(Stream, &str) + Send + Sync>;

/// Reads one pipe until it closes, splitting at `marker`.
pub(crate) async fn read_pipe(
    stream: Stream,
    mut pipe: impl AsyncRead + Unpin,
    marker: Vec<u8>,
    to: mpsc::Sender<Chunk>,
) {
    let mut pending: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        pending.extend_from_slice(&buf[..n]);
        while let Some(at) = find(&pending, &marker) {
            let before: Vec<u8> = pending.drain(..at + marker.len()).take(at).collect();
            if !before.is_empty() && to.send(Chunk::Data(stream, before)).await.is_err() {
                return;
            }
            if to.send(Chunk::Mark(stream)).await.is_err() {
                return;
            }
        }
        // Keep back only what could be the start of a marker.
        let keep = partial_marker_len(&pending, &marker);
        if pending.len() > keep {
            let out: Vec<u8> = pending.drain(..pending.len() - keep).collect();
            if to.send(Chunk::Data(stream, out)).await.is_err() {
                return;
            }
        }
    }
    if !pending.is_empty() {
        let _ = to.send(Chunk::Data(stream, pending)).await;
    }
    let _ = to.send(Chunk::Eof(stream)).await;
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || haystack.len() < needle.len() {
        return None;
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The length of the longest suffix of `data` that is a proper prefix of
/// `marker`.
fn partial_marker_len(data: &[u8], marker: &[u8]) -> usize {
    (1..marker.len().min(data.len() + 1))
        .rev()
        .find(|&k| data.ends_with(&marker[..k]))
        .unwrap_or(0)
}

/// One stream of one call: the first `cap` bytes, and a count of the rest.
#[derive(Debug)]
pub(crate) struct Captured {
    kept: Vec<u8>,
    dropped: u64,
    cap: usize,
    /// Bytes not yet given to the listener (an incomplete UTF-8 sequence).
    unsent: Vec<u8>,
}

impl Captured {
    pub(crate) fn new(cap: usize) -> Self {
        Self {
            kept: Vec::new(),
            dropped: 0,
            cap,
            unsent: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, stream: Stream, data: &[u8], listener: Option<&OutputListener>) {
        let room = self.cap.saturating_sub(self.kept.len());
        let take = room.min(data.len());
        self.kept.extend_from_slice(&data[..take]);
        self.dropped += (data.len() - take) as u64;
        if let Some(listen) = listener {
            self.unsent.extend_from_slice(&data[..take]);
            let complete = match std::str::from_utf8(&self.unsent) {
                Ok(_) => self.unsent.len(),
                // An incomplete sequence at the end waits for the next chunk;
                // invalid bytes elsewhere are replaced.
                Err(e) if e.error_len().is_none() => e.valid_up_to(),
                Err(_) => self.unsent.len(),
            };
            if complete > 0 {
                let text = String::from_utf8_lossy(&self.unsent[..complete]).into_owned();
                self.unsent.drain(..complete);
                listen(stream, &text);
            }
        }
    }

    /// The kept text, with a note when some was dropped; `None` when empty.
    pub(crate) fn finish(self) -> Option<String> {
        if self.kept.is_empty() && self.dropped == 0 {
            return None;
        }
        let mut text = String::from_utf8_lossy(&self.kept).into_owned();
        if self.dropped > 0 {
            text.push_str(&format!(
                "\n[… {} more bytes not kept: output is capped at {} bytes per stream]",
                self.dropped, self.cap
            ));
        }
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn chunks(input: &[&[u8]], marker: &[u8]) -> Vec<String> {
        let (tx, mut rx) = mpsc::channel(64);
        let (mut w, r) = tokio::io::duplex(8);
        let parts: Vec<Vec<u8>> = input.iter().map(|p| p.to_vec()).collect();
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            for p in parts {
                let _ = w.write_all(&p).await;
            }
        });
        let reader = tokio::spawn(read_pipe(Stream::Stdout, r, marker.to_vec(), tx));
        let mut out = Vec::new();
        let mut data = String::new();
        while let Some(c) = rx.recv().await {
            match c {
                Chunk::Data(_, d) => data.push_str(&String::from_utf8_lossy(&d)),
                Chunk::Mark(_) => out.push(std::mem::take(&mut data)),
                Chunk::Eof(_) => break,
            }
        }
        out.push(data);
        let _ = writer.await;
        let _ = reader.await;
        out
    }

    #[tokio::test]
    async fn output_splits_at_markers_even_across_reads() {
        let got = chunks(&[b"one\n@@M", b"ARK@@two", b"@@MARK@@", b"@@MAR", b"tail"], b"@@MARK@@").await;
        assert_eq!(got, vec!["one\n", "two", "@@MARtail"]);
    }

    #[test]
    fn the_cap_keeps_the_start_and_says_how_much_was_dropped() {
        let mut c = Captured::new(4);
        c.push(Stream::Stdout, b"abcdef", None);
        c.push(Stream::Stdout, b"gh", None);
        let text = c.finish().unwrap_or_default();
        assert!(text.starts_with("abcd\n[… 4 more bytes not kept"), "{text}");
    }

    #[test]
    fn the_listener_never_sees_half_a_character() {
        let seen = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let s = seen.clone();
        let listener: OutputListener =
            Arc::new(move |_, t: &str| s.lock().map(|mut v| v.push(t.to_owned())).unwrap_or(()));
        let mut c = Captured::new(100);
        let e = "é".as_bytes();
        c.push(Stream::Stderr, &[b'a', e[0]], Some(&listener));
        c.push(Stream::Stderr, &[e[1], b'b'], Some(&listener));
        assert_eq!(*seen.lock().unwrap_or_else(|p| p.into_inner()), vec!["a", "éb"]);
        assert_eq!(c.finish().as_deref(), Some("aéb"));
    }
}
