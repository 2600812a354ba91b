//! A stdio server's process: started in a process group of its own (so a
//! stop reaches whatever it started, `npx` wrappers included), its stderr
//! read line by line into the tail, its stdout read through
//! [`Guarded`] (a message over the limit), its exit status published as
//! soon as it is reaped, its group watched by a [`Watchdog`] in case we
//! die without stopping it.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process_group};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

use crate::error::McpError;
use crate::oversize::{Guarded, MAX_MESSAGE};
use crate::spec::StdioSpec;
use crate::stderr::StderrLog;
use crate::watchdog::Watchdog;

/// A started server process.
#[derive(Debug)]
pub(crate) struct ServerProcess {
    pub(crate) pid: u32,
    /// `Some("code 3")` / `Some("signal 9")` once it has exited.
    pub(crate) exit: watch::Receiver<Option<String>>,
    /// Why its stdout can no longer be trusted, once it cannot.
    pub(crate) broken: watch::Receiver<Option<String>>,
    /// Stops the group if we die first.
    watchdog: Watchdog,
}

impl Drop for ServerProcess {
    /// A process nobody stopped (its owner was dropped, the runtime shut
    /// down) must not outlive us: the whole group is killed.
    fn drop(&mut self) {
        if self.exit.borrow().is_none() {
            self.signal_group(Signal::KILL);
        }
    }
}

/// Starts `spec` with only its own environment, in its own group.
pub(crate) fn spawn(
    server: &str,
    spec: &StdioSpec,
    log: &Arc<StderrLog>,
) -> Result<(ServerProcess, Guarded<ChildStdout>, ChildStdin), McpError> {
    let mut cmd = Command::new(&spec.command);
    cmd.args(&spec.args)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&spec.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        // We reap it ourselves (the waiter below); a dropped handle must
        // not leave a zombie or kill only the leader.
        .kill_on_drop(false);
    let spawn_error = |message: String| McpError::Spawn {
        server: server.to_owned(),
        command: spec.command.clone(),
        message,
    };
    let mut child = cmd.spawn().map_err(|e| {
        spawn_error(match e.kind() {
            std::io::ErrorKind::NotFound if !spec.cwd.is_dir() => {
                format!("its working folder {} does not exist", spec.cwd.display())
            }
            std::io::ErrorKind::NotFound => "command not found (is it installed and on PATH?)".to_owned(),
            _ => e.to_string(),
        })
    })?;
    let pid = child.id().ok_or_else(|| spawn_error("it exited at once".to_owned()))?;
    let (Some(stdout), Some(stdin), Some(stderr)) = (child.stdout.take(), child.stdin.take(), child.stderr.take())
    else {
        return Err(spawn_error("its pipes could not be opened".to_owned()));
    };
    let tail = Arc::clone(log);
    tokio::spawn(async move {
        // Read bytes, not UTF-8 lines: a server may print anything.
        let mut reader = BufReader::new(stderr);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(b'\n', &mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => tail.push(&String::from_utf8_lossy(&buf)),
            }
        }
    });
    let (tx, exit) = watch::channel(None);
    tokio::spawn(async move {
        let how = match child.wait().await {
            Ok(status) => describe(status),
            Err(e) => format!("lost: {e}"),
        };
        let _ = tx.send(Some(how));
    });
    let (stdout, broken) = Guarded::new(stdout, MAX_MESSAGE, Arc::clone(log));
    let watchdog = Watchdog::start(pid);
    Ok((
        ServerProcess {
            pid,
            exit,
            broken,
            watchdog,
        },
        stdout,
        stdin,
    ))
}

/// "code 3", "signal 9".
fn describe(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("code {c}"),
        (None, Some(s)) => format!("signal {s}"),
        (None, None) => "unknown status".to_owned(),
    }
}

impl ServerProcess {
    /// How it exited, if it has.
    pub(crate) fn exited(&self) -> Option<String> {
        self.exit.borrow().clone()
    }

    /// Waits up to `d` for the leader to exit.
    pub(crate) async fn wait_exit(&self, d: Duration) -> Option<String> {
        let mut rx = self.exit.clone();
        let done = tokio::time::timeout(d, rx.wait_for(Option::is_some)).await;
        match done {
            Ok(Ok(v)) => v.clone(),
            _ => None,
        }
    }

    fn signal_group(&self, signal: Signal) {
        if let Some(pid) = i32::try_from(self.pid).ok().and_then(Pid::from_raw) {
            // ESRCH: the group is already gone.
            let _ = kill_process_group(pid, signal);
        }
    }

    /// After the protocol's close: the leader gets `grace` to exit, then
    /// the group gets SIGTERM and `grace` more, then SIGKILL. Whatever the
    /// leader started in its group is stopped too, even when the leader
    /// itself exited on its own.
    pub(crate) async fn stop(&self, grace: Duration) {
        if self.wait_exit(grace).await.is_none() {
            self.signal_group(Signal::TERM);
            if self.wait_exit(grace).await.is_none() {
                self.signal_group(Signal::KILL);
                self.wait_exit(grace).await;
            }
        }
        // Children the leader left behind in its group.
        self.signal_group(Signal::TERM);
        tokio::time::sleep(Duration::from_millis(20)).await;
        self.signal_group(Signal::KILL);
        self.watchdog.dismiss();
    }
}
