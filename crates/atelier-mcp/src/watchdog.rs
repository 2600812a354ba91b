//! A stdio server must not outlive us even when we die without stopping it
//! (SIGKILL, a crash, a parent that kills the whole app: nothing of ours
//! runs then). Each server's group has a watchdog: a tiny `/bin/sh` in a
//! group of its own whose stdin is a pipe only we hold. When we die, the
//! kernel closes that pipe, its `read` ends, and it sends the server's
//! group SIGTERM, then, 2 s later, SIGKILL — the same steps as a stop.
//!
//! Not `PR_SET_PDEATHSIG`: setting it needs `pre_exec`, which is unsafe
//! code (forbidden in this workspace); it reaches only the group's leader,
//! not what an `npx` or `uvx` wrapper started; and it fires when the
//! *thread* that forked ends, not the process.
//!
//! A stop kills the watchdog first (SIGKILL: it sends nothing), so it never
//! signals a group number the system has handed to someone else since.

use std::process::Stdio;
use std::sync::Mutex;

use tokio::process::{Child, Command};

/// `$1` is the group. `read` returns once the pipe is closed, whatever is
/// (not) written to it; `kill` is the shell's own (dash's takes no `--`:
/// `-PGID` right after the signal is the group).
const SCRIPT: &str = r#"read _; kill -TERM "-$1" 2>/dev/null; sleep 2; kill -KILL "-$1" 2>/dev/null"#;

/// A server group's watchdog, killed when stopped or dropped.
#[derive(Debug)]
pub(crate) struct Watchdog(Mutex<Option<Child>>);

impl Watchdog {
    /// Watches the group `pgid`. Without `/bin/sh` (not a Unix we know)
    /// there is no watchdog, only the stops we run ourselves.
    pub(crate) fn start(pgid: u32) -> Self {
        let child = Command::new("/bin/sh")
            .args(["-c", SCRIPT, "atelier-mcp-watchdog", &pgid.to_string()])
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .current_dir("/")
            // Our end stays open in the `Child` for as long as we live.
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Not in the server's group: a stop of that group must not end
            // it, nor its own SIGTERM to the group.
            .process_group(0)
            .kill_on_drop(true)
            .spawn();
        if let Err(e) = &child {
            tracing::warn!("no watchdog for MCP server group {pgid}: {e}");
        }
        Self(Mutex::new(child.ok()))
    }

    /// Kills it without a word to the group (the group was stopped).
    pub(crate) fn dismiss(&self) {
        let child = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        // Dropped: `kill_on_drop` kills it and tokio reaps it.
        drop(child);
    }
}
