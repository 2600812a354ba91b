//! One `atelier-worker` process: start it, send a request, collect its
//! output and outcome, and stop it — with every process its tools started —
//! when a call times out, is cancelled, or the worker is dropped.
//!
//! Stopping is closing our end of the protocol socket: the worker sees it
//! (on a thread of its own, even mid-call), kills every descendant — those
//! that left its process group with `setsid()` too, as it is their
//! subreaper — then its group and itself. Should it not be gone after
//! [`STOP_GRACE`], the core kills the process group itself.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use atelier_protocol::{Event, Outcome, Request, Stream, WorkerConfig};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::capture::{Captured, Chunk, OutputListener, read_pipe};
use crate::{Error, Result};

/// How long a new worker may take to import nothing and say it is ready.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// After a request's end (or the worker's death), how long to wait for the
/// rest of its output: the pipes may be held open by a tool's own children.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a worker asked to stop may take to kill what its tools started
/// before the core kills its process group.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// A running worker.
#[derive(Debug)]
pub(crate) struct Worker {
    child: tokio::process::Child,
    pid: Option<u32>,
    events: tokio::io::Lines<BufReader<OwnedReadHalf>>,
    requests: OwnedWriteHalf,
    output: mpsc::Receiver<Chunk>,
    pub(crate) last_used: Instant,
    pub(crate) python_version: String,
    pub(crate) base_prefix: String,
}

/// How a request ended, with the output it printed.
#[derive(Debug)]
pub(crate) struct Ended {
    pub(crate) how: End,
    pub(crate) stdout: Option<String>,
    pub(crate) stderr: Option<String>,
}

#[derive(Debug)]
pub(crate) enum End {
    /// The worker answered; it is still usable.
    Answered(Outcome),
    TimedOut(Duration),
    Cancelled,
    /// The worker died: `exit code N` or `signal N (SIGSEGV)`.
    Crashed(String),
}

/// What one request may use.
#[derive(Clone)]
pub(crate) struct Limits {
    pub(crate) timeout: Duration,
    pub(crate) cancel: CancellationToken,
    pub(crate) output_cap: usize,
    pub(crate) listener: Option<OutputListener>,
}

impl Worker {
    /// Starts a worker and waits until Python is up.
    pub(crate) async fn start(
        exe: &Path,
        config: &WorkerConfig,
        cwd: &Path,
        pycache: &Path,
        tmp: &Path,
    ) -> Result<Self> {
        tokio::fs::create_dir_all(tmp).await.map_err(Error::io("create", tmp))?;
        let (ours, theirs) = std::os::unix::net::UnixStream::pair().map_err(Error::io("create a socket for", exe))?;
        ours.set_nonblocking(true)
            .map_err(Error::io("configure a socket for", exe))?;
        let mut config_line = serde_json::to_string(config).map_err(|e| Error::Internal(e.to_string()))?;
        config_line.push('\n');
        let mut child = tokio::process::Command::new(exe)
            // Nothing of the app's environment but what tools need.
            .env_clear()
            .envs(crate::environment::minimal(tmp))
            .env("PYTHONPYCACHEPREFIX", pycache)
            .current_dir(cwd)
            .stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group: the fallback kill takes the tool's
            // children too. (No kill_on_drop: a worker killed outright
            // could not take the children that left the group; see Drop.)
            .process_group(0)
            .spawn()
            .map_err(Error::io("start the Python worker", exe))?;
        let pid = child.id();
        let (tx, output) = mpsc::channel(64);
        let marker = config.marker.as_bytes().to_vec();
        if let Some(out) = child.stdout.take() {
            tokio::spawn(read_pipe(Stream::Stdout, out, marker.clone(), tx.clone()));
        }
        if let Some(err) = child.stderr.take() {
            tokio::spawn(read_pipe(Stream::Stderr, err, marker, tx));
        }
        let (read, mut requests) = UnixStream::from_std(ours)
            .map_err(Error::io("use the socket of", exe))?
            .into_split();
        // The settings go first on the channel (not in the environment,
        // where tool code could read the end-of-output marker).
        requests
            .write_all(config_line.as_bytes())
            .await
            .map_err(Error::io("configure the Python worker", exe))?;
        let mut worker = Worker {
            child,
            pid,
            events: BufReader::new(read).lines(),
            requests,
            output,
            last_used: Instant::now(),
            python_version: String::new(),
            base_prefix: String::new(),
        };
        let ready = tokio::time::timeout(START_TIMEOUT, worker.events.next_line()).await;
        match ready {
            Ok(Ok(Some(line))) => match serde_json::from_str::<Event>(&line) {
                Ok(Event::Ready {
                    protocol,
                    python_version,
                    base_prefix,
                }) if protocol == atelier_protocol::VERSION => {
                    worker.python_version = python_version;
                    worker.base_prefix = base_prefix;
                    Ok(worker)
                }
                _ => Err(Error::Python(format!(
                    "{} speaks another protocol (it said {line}); rebuild it with this version of Atelier",
                    exe.display()
                ))),
            },
            Ok(_) => {
                let status = worker.death().await;
                let mut stderr = Captured::new(64 * 1024);
                while let Ok(Some(chunk)) = tokio::time::timeout(DRAIN_TIMEOUT, worker.output.recv()).await {
                    match chunk {
                        Chunk::Data(Stream::Stderr, d) => stderr.push(Stream::Stderr, &d, None),
                        Chunk::Eof(Stream::Stderr) => break,
                        _ => {}
                    }
                }
                let stderr = stderr.finish();
                Err(Error::Python(format!(
                    "the Python worker {} stopped before it was ready ({status}){}",
                    exe.display(),
                    stderr.map(|s| format!(":\n{s}")).unwrap_or_default()
                )))
            }
            Err(_) => Err(Error::Python(format!(
                "the Python worker {} did not start within {} s",
                exe.display(),
                START_TIMEOUT.as_secs()
            ))),
        }
    }

    /// Sends one request and waits for its end (see [`End`]). After anything
    /// but `Answered` the worker is dead and must be dropped.
    pub(crate) async fn request(&mut self, req: &Request, limits: &Limits) -> Ended {
        // Output printed between requests (by a tool's lingering children)
        // belongs to no call.
        while self.output.try_recv().is_ok() {}
        let mut got = Collected::new(limits.output_cap);
        let want = match req {
            Request::Call { id, .. }
            | Request::Describe { id, .. }
            | Request::Check { id, .. }
            | Request::Inspect { id, .. }
            | Request::Root { id, .. } => id.as_str(),
        };
        let line = atelier_protocol::to_line(req);
        if self.requests.write_all(line.as_bytes()).await.is_err() {
            let status = self.death().await;
            return self.ended(End::Crashed(status), got, limits).await;
        }
        let deadline = tokio::time::sleep(limits.timeout);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                biased;
                _ = limits.cancel.cancelled() => {
                    self.kill().await;
                    return self.ended(End::Cancelled, got, limits).await;
                }
                _ = &mut deadline => {
                    self.kill().await;
                    return self.ended(End::TimedOut(limits.timeout), got, limits).await;
                }
                Some(chunk) = self.output.recv() => got.take(chunk, limits),
                line = self.events.next_line() => {
                    match line.ok().flatten().map(|l| serde_json::from_str::<Event>(&l)) {
                        Some(Ok(Event::Done { id, outcome })) if id == want => {
                            self.last_used = Instant::now();
                            return self.ended(End::Answered(outcome), got, limits).await;
                        }
                        Some(Ok(Event::Done { id, .. })) => {
                            // Tool code can reach the channel (it runs in the
                            // worker's process) but does not know the call's
                            // id: an answer for another id is a forgery.
                            tracing::warn!(forged = %id, call = %want, "ignored an answer that is not for this call");
                        }
                        Some(_) => {
                            // A worker that says something else is broken.
                            self.kill().await;
                            return self.ended(End::Crashed("it broke the protocol".into()), got, limits).await;
                        }
                        None => {
                            let status = self.death().await;
                            return self.ended(End::Crashed(status), got, limits).await;
                        }
                    }
                }
            }
        }
    }

    /// Collects the rest of the request's output: up to both markers after
    /// an answer, up to both pipes' end after a death.
    async fn ended(&mut self, how: End, mut got: Collected, limits: &Limits) -> Ended {
        let answered = matches!(how, End::Answered(_));
        let until = tokio::time::Instant::now() + DRAIN_TIMEOUT;
        while !got.complete(answered) {
            let Ok(Some(chunk)) = tokio::time::timeout_at(until, self.output.recv()).await else {
                break;
            };
            got.take(chunk, limits);
        }
        Ended {
            how,
            stdout: got.out.finish(),
            stderr: got.err.finish(),
        }
    }

    /// Stops the worker and everything its tools started, and reaps it.
    pub(crate) async fn kill(&mut self) {
        let _ = self.requests.shutdown().await;
        if tokio::time::timeout(STOP_GRACE, self.child.wait()).await.is_err() {
            self.kill_group();
            let _ = self.child.wait().await;
        }
        // Whatever is left of the group (the worker may have gone first).
        self.kill_group();
    }

    fn kill_group(&mut self) {
        if let Some(pid) = self.pid.and_then(|p| rustix::process::Pid::from_raw(p as i32)) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }

    /// Waits for a dying worker and describes how it ended.
    async fn death(&mut self) -> String {
        let status = match tokio::time::timeout(DRAIN_TIMEOUT, self.child.wait()).await {
            Ok(Ok(s)) => s,
            _ => {
                self.kill().await;
                return "it stopped answering".into();
            }
        };
        // The process is gone; make sure its children are too.
        self.kill_group();
        describe_exit(status)
    }
}

/// One request's output so far, and which ends of it were seen.
struct Collected {
    out: Captured,
    err: Captured,
    /// Per stream (stdout, stderr): its end-of-request marker was read.
    marked: [bool; 2],
    /// Per stream: the pipe closed.
    closed: [bool; 2],
}

impl Collected {
    fn new(cap: usize) -> Self {
        Self {
            out: Captured::new(cap),
            err: Captured::new(cap),
            marked: [false; 2],
            closed: [false; 2],
        }
    }

    fn take(&mut self, chunk: Chunk, limits: &Limits) {
        let idx = |s: Stream| usize::from(s == Stream::Stderr);
        match chunk {
            Chunk::Data(stream, data) => {
                let to = if stream == Stream::Stdout {
                    &mut self.out
                } else {
                    &mut self.err
                };
                to.push(stream, &data, limits.listener.as_ref());
            }
            Chunk::Mark(stream) => self.marked[idx(stream)] = true,
            Chunk::Eof(stream) => self.closed[idx(stream)] = true,
        }
    }

    /// After an answer both markers end it; after a death (whose output
    /// has no marker) only the pipes' end does.
    fn complete(&self, answered: bool) -> bool {
        (0..2).all(|i| self.closed[i] || (answered && self.marked[i]))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Dropping `requests` (right after this) shuts our end of the
        // socket: the worker stops itself and all it started (module docs),
        // and tokio reaps it. The fallback, should it hang, runs apart:
        // a drop must not block.
        if let Some(pid) = self.pid.and_then(|p| rustix::process::Pid::from_raw(p as i32))
            && matches!(self.child.try_wait(), Ok(None))
        {
            std::thread::spawn(move || {
                std::thread::sleep(STOP_GRACE);
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            });
        }
    }
}

/// `exit code 3`, `signal 11 (SIGSEGV)`.
fn describe_exit(status: std::process::ExitStatus) -> String {
    if let Some(sig) = status.signal() {
        let name = match sig {
            4 => " (SIGILL)",
            6 => " (SIGABRT)",
            7 => " (SIGBUS)",
            8 => " (SIGFPE)",
            9 => " (SIGKILL)",
            11 => " (SIGSEGV)",
            15 => " (SIGTERM)",
            _ => "",
        };
        format!("signal {sig}{name}")
    } else {
        format!("exit code {}", status.code().unwrap_or(-1))
    }
}
