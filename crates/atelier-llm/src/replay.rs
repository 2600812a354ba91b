//! A loopback HTTP server that replays recorded replies chunk by chunk
//! (with delays, so timing bugs show) and records every request: what the
//! provider tests, the conversation engine's tests and the benchmark talk
//! to instead of a hosted API. Plain HTTP/1.1 over a real socket; each
//! connection gets the next reply (the last one repeats, or, from
//! [`ReplayServer::cycling`], the list starts over).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// One reply: status, headers, and the body in the chunks it is sent in.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub chunks: Vec<Vec<u8>>,
    /// Pause before each chunk.
    pub delay: Duration,
    /// Close the connection after this many chunks (a drop mid-stream).
    pub cut_after: Option<usize>,
}

impl Reply {
    /// A `text/event-stream` of `events` (each `data: …` or `event: …\ndata: …`), one chunk each.
    pub fn sse<S: AsRef<str>>(events: &[S]) -> Self {
        Self {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            chunks: events
                .iter()
                .map(|e| format!("{}\n\n", e.as_ref()).into_bytes())
                .collect(),
            delay: Duration::ZERO,
            cut_after: None,
        }
    }

    /// A JSON reply.
    pub fn json(status: u16, body: &serde_json::Value) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            chunks: vec![body.to_string().into_bytes()],
            delay: Duration::ZERO,
            cut_after: None,
        }
    }

    pub fn header(mut self, k: &str, v: &str) -> Self {
        self.headers.push((k.into(), v.into()));
        self
    }

    /// The same bytes in chunks of `n` (splits lines, UTF-8 characters, escapes).
    pub fn rechunk(mut self, n: usize) -> Self {
        let all: Vec<u8> = self.chunks.concat();
        self.chunks = all.chunks(n.max(1)).map(<[u8]>::to_vec).collect();
        self
    }

    pub fn delayed(mut self, d: Duration) -> Self {
        self.delay = d;
        self
    }

    pub fn cut_after(mut self, n: usize) -> Self {
        self.cut_after = Some(n);
        self
    }
}

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// The running server; it stops when dropped.
#[derive(Debug)]
pub struct ReplayServer {
    pub addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    task: tokio::task::JoinHandle<()>,
}

impl ReplayServer {
    pub async fn start(replies: Vec<Reply>) -> std::io::Result<Self> {
        Self::serve_replies(replies, false).await
    }

    /// A server that starts the list over after its last reply: a
    /// benchmark repeats a whole conversation many times.
    pub async fn cycling(replies: Vec<Reply>) -> std::io::Result<Self> {
        Self::serve_replies(replies, true).await
    }

    async fn serve_replies(replies: Vec<Reply>, cycle: bool) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let requests: Arc<Mutex<Vec<Recorded>>> = Arc::default();
        let rec = requests.clone();
        let task = tokio::spawn(async move {
            let mut n = 0usize;
            while let Ok((sock, _)) = listener.accept().await {
                let last = replies.len().saturating_sub(1);
                let i = if cycle { n % replies.len().max(1) } else { n.min(last) };
                let reply = replies.get(i).cloned();
                n += 1;
                let rec = rec.clone();
                tokio::spawn(async move {
                    let _ = serve(sock, reply, rec).await;
                });
            }
        });
        Ok(Self { addr, requests, task })
    }

    /// `http://127.0.0.1:PORT` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for ReplayServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(
    mut sock: tokio::net::TcpStream,
    reply: Option<Reply>,
    rec: Arc<Mutex<Vec<Recorded>>>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    let head_end = loop {
        let n = sock.read(&mut tmp).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let first = lines.next().unwrap_or_default();
    let mut parts = first.split(' ');
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = sock.read(&mut tmp).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&tmp[..n]);
    }
    let body = String::from_utf8_lossy(&buf[head_end..(head_end + len).min(buf.len())]).into_owned();
    if let Ok(mut r) = rec.lock() {
        r.push(Recorded {
            method,
            path,
            headers,
            body,
        });
    }
    let Some(reply) = reply else {
        return Ok(());
    };
    let mut head = format!(
        "HTTP/1.1 {} X\r\ntransfer-encoding: chunked\r\nconnection: close\r\n",
        reply.status
    );
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    sock.write_all(head.as_bytes()).await?;
    for (i, c) in reply.chunks.iter().enumerate() {
        if reply.cut_after == Some(i) {
            return sock.shutdown().await;
        }
        if !reply.delay.is_zero() {
            tokio::time::sleep(reply.delay).await;
        }
        sock.write_all(format!("{:x}\r\n", c.len()).as_bytes()).await?;
        sock.write_all(c).await?;
        sock.write_all(b"\r\n").await?;
        sock.flush().await?;
    }
    sock.write_all(b"0\r\n\r\n").await?;
    sock.shutdown().await
}
