//! Python tools: a pool of `atelier-worker` processes, one per
//! (toolset, chat), and the call through one of them.
//!
//! CPython never runs in this process: the worker binary embeds it (see the
//! `atelier-worker` crate and the `atelier-protocol` crate for the wire
//! format). A worker stays warm between calls of its chat, so a call costs a
//! request on a socket, not an interpreter start; module globals never carry
//! one chat's data into another, and two toolsets never share `sys.modules`.
//! A call that times out, is cancelled or crashes kills the worker's process
//! group; the next call gets a fresh worker. Idle workers stop after
//! [`PythonSettings::idle_timeout`], and at most
//! [`PythonSettings::max_workers`] run at once (a call beyond that stops the
//! least recently used idle worker, or waits for a busy one).

mod calls;
pub mod capture;
mod check;
mod inspect;
mod scratch;
pub mod venv;
mod worker;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use atelier_protocol::{Outcome, Request, WorkerConfig};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub use capture::OutputListener;
use worker::{End, Limits, Worker};

use crate::tools::call::{CallControl, Failure, Outcome as CallOutcome};
use crate::tools::status::ErrorKind;
use crate::{Error, Result};

/// How Python tools run; [`PythonSettings::from_env`] is the default.
#[derive(Debug, Clone)]
pub struct PythonSettings {
    /// The `atelier-worker` binary; found next to this executable (or on
    /// PATH) when `None`.
    pub worker: Option<PathBuf>,
    pub max_workers: usize,
    pub idle_timeout: Duration,
    /// Per call, when neither the call nor the tool's `timeout_s` says.
    pub default_timeout: Duration,
    /// Captured bytes kept per stream and call.
    pub output_cap: usize,
    /// Largest return value, in bytes of JSON.
    pub return_cap: usize,
    pub installer: venv::InstallerSettings,
}

impl PythonSettings {
    /// Defaults, with `ATELIER_WORKER` naming the worker binary and the
    /// installer settings of [`venv::InstallerSettings::from_env`].
    pub fn from_env() -> Self {
        Self {
            worker: std::env::var_os("ATELIER_WORKER").map(PathBuf::from),
            max_workers: 8,
            idle_timeout: Duration::from_secs(300),
            default_timeout: Duration::from_secs(60),
            output_cap: 1 << 20,
            return_cap: atelier_protocol::DEFAULT_RETURN_CAP,
            installer: venv::InstallerSettings::from_env(),
        }
    }

    /// The worker binary: the setting, else `atelier-worker` beside the
    /// running executable (or one folder up, for test binaries in
    /// `target/*/deps`), else on PATH.
    pub fn worker_exe(&self) -> Result<PathBuf> {
        if let Some(w) = &self.worker {
            return Ok(w.clone());
        }
        let name = "atelier-worker";
        if let Ok(exe) = std::env::current_exe() {
            for dir in exe.ancestors().skip(1).take(2) {
                let candidate = dir.join(name);
                if candidate.is_file() {
                    return Ok(candidate);
                }
            }
        }
        std::env::var_os("PATH")
            .into_iter()
            .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .map(|d| d.join(name))
            .find(|c| c.is_file())
            .ok_or_else(|| {
                Error::Python(
                    "atelier-worker was not found next to this program or on PATH (build it with `cargo build -p \
                     atelier-worker`, or set ATELIER_WORKER to its path)"
                        .into(),
                )
            })
    }
}

/// Which worker: one per toolset *version* and chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Key {
    pub(crate) toolset_id: String,
    pub(crate) chat_id: String,
    /// Changes when the toolset is reinstalled, so a worker never runs code
    /// another process replaced.
    pub(crate) fingerprint: String,
}

struct Idle {
    key: Key,
    worker: Worker,
    permit: OwnedSemaphorePermit,
}

/// The warm workers of one [`crate::Atelier`].
pub(crate) struct Pool {
    pub(crate) settings: PythonSettings,
    idle: Mutex<Vec<Idle>>,
    slots: Arc<Semaphore>,
    probe: tokio::sync::OnceCell<Probe>,
    /// A worker started ahead of an author's next reload (see `scratch`);
    /// locked while one is being started, so a reload waits for that start
    /// rather than making another.
    spare: Arc<tokio::sync::Mutex<Option<Worker>>>,
}

/// The Python the worker embeds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct Probe {
    pub python_version: String,
    pub base_prefix: String,
}

impl Probe {
    /// That Python's interpreter, to make venvs from.
    pub fn interpreter(&self) -> PathBuf {
        let minor: Vec<&str> = self.python_version.split('.').take(2).collect();
        Path::new(&self.base_prefix)
            .join("bin")
            .join(format!("python{}", minor.join(".")))
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("idle", &self.idle.lock().map(|v| v.len()).unwrap_or(0))
            .finish_non_exhaustive()
    }
}

/// What a worker needs to start.
pub(crate) struct Spawn<'a> {
    pub(crate) toolset_dir: &'a Path,
    pub(crate) venv: Option<&'a Path>,
    pub(crate) workspace: &'a Path,
    pub(crate) pycache: &'a Path,
    /// The instance's own temporary folder (its `TMPDIR`).
    pub(crate) tmp: &'a Path,
}

impl Pool {
    pub(crate) fn new(settings: PythonSettings) -> Self {
        let slots = Arc::new(Semaphore::new(settings.max_workers.max(1)));
        Self {
            settings,
            idle: Mutex::new(Vec::new()),
            slots,
            probe: tokio::sync::OnceCell::new(),
            spare: Arc::new(tokio::sync::Mutex::new(None)),
        }
    }

    /// Asks the worker binary which Python it embeds (once per process).
    pub(crate) async fn probe(&self) -> Result<&Probe> {
        self.probe
            .get_or_try_init(|| async {
                let exe = self.settings.worker_exe()?;
                let out = tokio::process::Command::new(&exe)
                    .arg("--probe")
                    .stdin(std::process::Stdio::null())
                    .output()
                    .await
                    .map_err(Error::io("run", &exe))?;
                if !out.status.success() {
                    return Err(Error::Python(format!(
                        "{} --probe failed ({}): {}",
                        exe.display(),
                        out.status,
                        String::from_utf8_lossy(&out.stderr).trim()
                    )));
                }
                serde_json::from_slice(&out.stdout)
                    .map_err(|e| Error::Python(format!("{} --probe printed something unexpected: {e}", exe.display())))
            })
            .await
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<Idle>> {
        // A panic while holding this lock leaves a valid list.
        self.idle.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs one request in the (toolset, chat) worker, starting it if needed.
    pub(crate) async fn request(
        &self,
        key: Key,
        spawn: Spawn<'_>,
        req: &Request,
        timeout: Duration,
        control: &CallControl,
    ) -> Result<worker::Ended> {
        self.reap_idle();
        let warm = {
            let mut idle = self.idle();
            idle.iter().position(|i| i.key == key).map(|at| idle.swap_remove(at))
        };
        let (mut worker, permit) = match warm {
            Some(i) => (i.worker, i.permit),
            None => {
                let permit = self.slot().await?;
                let worker = self.start(&spawn).await?;
                (worker, permit)
            }
        };
        let limits = Limits {
            timeout,
            cancel: control.cancel.clone(),
            output_cap: self.settings.output_cap,
            listener: control.output_listener(),
        };
        let ended = worker.request(req, &limits).await;
        if matches!(ended.how, End::Answered(_)) {
            self.idle().push(Idle { key, worker, permit });
        }
        Ok(ended)
    }

    /// Starts a worker outside the pool (the caller owns it).
    pub(crate) async fn start(&self, spawn: &Spawn<'_>) -> Result<Worker> {
        let exe = self.settings.worker_exe()?;
        let site_packages = match spawn.venv {
            Some(v) => venv::site_packages(v),
            None => Vec::new(),
        };
        let config = WorkerConfig {
            toolset_dir: spawn.toolset_dir.display().to_string(),
            site_packages: site_packages.iter().map(|p| p.display().to_string()).collect(),
            venv: spawn.venv.map(|v| v.display().to_string()),
            marker: format!("\u{1}atelier-end-{}\u{1}", crate::ids::new_id()),
            return_cap: self.settings.return_cap,
        };
        Worker::start(&exe, &config, spawn.workspace, spawn.pycache, spawn.tmp).await
    }

    /// A slot for a new worker: free, or freed by stopping the least
    /// recently used idle worker, or (all busy) the next one released.
    async fn slot(&self) -> Result<OwnedSemaphorePermit> {
        if let Ok(p) = self.slots.clone().try_acquire_owned() {
            return Ok(p);
        }
        let lru = {
            let mut idle = self.idle();
            let at = idle
                .iter()
                .enumerate()
                .min_by_key(|(_, i)| i.worker.last_used)
                .map(|(at, _)| at);
            at.map(|at| idle.swap_remove(at))
        };
        drop(lru);
        self.slots
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| Error::Internal("the worker pool is closed".into()))
    }

    /// Stops idle workers that waited longer than the idle timeout.
    pub(crate) fn reap_idle(&self) {
        let limit = self.settings.idle_timeout;
        let now = Instant::now();
        self.stop_where(|i| now.duration_since(i.worker.last_used) >= limit);
    }

    /// Stops the idle workers of a toolset (it changed or went away).
    pub(crate) fn stop_toolset(&self, toolset_id: &str) {
        self.stop_where(|i| i.key.toolset_id == toolset_id);
    }

    /// Stops the idle workers of a chat.
    pub(crate) fn stop_chat(&self, chat_id: &str) {
        self.stop_where(|i| i.key.chat_id == chat_id);
    }

    /// How many workers are idle (for tests and status).
    pub(crate) fn idle_count(&self) -> usize {
        self.idle().len()
    }

    fn stop_where(&self, pred: impl Fn(&Idle) -> bool) {
        let stopped: Vec<Idle> = {
            let mut idle = self.idle();
            let (stop, keep): (Vec<Idle>, Vec<Idle>) = idle.drain(..).partition(|i| pred(i));
            *idle = keep;
            stop
        };
        // Dropping kills each worker's process group (outside the lock).
        drop(stopped);
    }
}

/// Turns a worker's end into what the run flow records.
pub(crate) fn to_outcome(ended: worker::Ended) -> CallOutcome {
    let fail = |kind, message: String| Failure {
        kind,
        message,
        traceback: None,
    };
    let result = match ended.how {
        End::Answered(Outcome::Ok { value }) => Ok(value),
        End::Answered(Outcome::Error(e)) => Err(Failure {
            kind: e.kind.into(),
            message: e.message,
            traceback: e.traceback,
        }),
        End::TimedOut(t) => CallOutcome::timed_out(t).result,
        End::Cancelled => CallOutcome::cancelled().result,
        End::Crashed(how) => Err(fail(ErrorKind::Crash, format!("tool process crashed ({how})"))),
    };
    CallOutcome {
        result,
        stdout: ended.stdout,
        stderr: ended.stderr,
        content: None,
    }
}
