//! The one call seam: what a caller may set for a call ([`CallControl`]),
//! what a running call reports ([`RunEvent`]), what every backend gives
//! back ([`Outcome`]), and the backends themselves ([`Backend`]).
//!
//! The run flow ([`super::run`]) is the same for every tool: it records,
//! locks, snapshots and renders around [`Backend::call`] and does not know
//! which kind of code ran. A builtin is a Rust function, a toolset tool runs
//! in a Python worker; an MCP tool or a sub-agent spawn is one more variant
//! here, never a second flow.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::builtin::{self, Builtin};
use super::python::OutputListener;
use super::status::ErrorKind;
use crate::store::{Observer, throttled};
use crate::toolsets::records::{ToolRecord, ToolsetRecord};
use crate::toolsets::validate::MAX_TIMEOUT_S;
use crate::{Atelier, Error, Result, blocking};

/// Which captured stream output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum OutputStream {
    Stdout,
    Stderr,
}

/// What a running call reports, in order: the CLI prints them, the app
/// forwards them to the UI over a channel, the chat engine will add its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunEvent {
    /// The call is recorded and running: its id, for Cancel.
    Started { call_id: String },
    /// The call waits for the person's answer ([`crate::tools::Tools::answer_approval`]).
    AwaitingApproval { call_id: String },
    /// The walk before or after the call (files looked at, bytes hashed),
    /// at most about ten a second, and always the last step.
    Workspace {
        files_done: u64,
        files_total: u64,
        bytes_done: u64,
        bytes_total: u64,
    },
    /// Text the tool wrote to `stream`, as it arrives.
    Output { stream: OutputStream, text: String },
    /// How far the tool says it is (MCP progress notifications).
    Progress {
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
}

/// Receives a call's [`RunEvent`]s (from any thread).
pub type EventSink = Arc<dyn Fn(RunEvent) + Send + Sync>;

/// What a caller may set for one call, whatever runs it.
#[derive(Clone, Default)]
pub struct CallControl {
    /// Overrides the tool's `timeout_s`.
    pub timeout: Option<Duration>,
    /// Cancels the call: its code is stopped, the call ends `cancelled`.
    pub cancel: CancellationToken,
    /// Told what the call does while it runs.
    pub events: Option<EventSink>,
}

impl std::fmt::Debug for CallControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallControl")
            .field("timeout", &self.timeout)
            .field("cancelled", &self.cancel.is_cancelled())
            .field("events", &self.events.is_some())
            .finish()
    }
}

impl CallControl {
    /// A control that tells `sink` everything.
    pub fn with_events(sink: impl Fn(RunEvent) + Send + Sync + 'static) -> Self {
        Self {
            events: Some(Arc::new(sink)),
            ..Default::default()
        }
    }

    /// How long the call may run: the caller's override, else the tool's
    /// `timeout_s`, else `default`. A `timeout_s` recorded before
    /// validation bounded it counts as at most a day, and one that is no
    /// duration at all (NaN, negative) as none.
    pub(crate) fn timeout_for(&self, tool: &ToolRecord, default: Duration) -> Duration {
        self.timeout
            .or_else(|| {
                tool.timeout_s
                    .filter(|t| *t > 0.0)
                    .and_then(|t| Duration::try_from_secs_f64(t.min(MAX_TIMEOUT_S)).ok())
            })
            .unwrap_or(default)
    }

    pub(crate) fn emit(&self, event: RunEvent) {
        if let Some(sink) = &self.events {
            sink(event);
        }
    }

    /// Live output, as [`RunEvent::Output`].
    pub(crate) fn output_listener(&self) -> Option<OutputListener> {
        let sink = self.events.clone()?;
        Some(Arc::new(move |stream, text: &str| {
            let stream = match stream {
                atelier_protocol::Stream::Stdout => OutputStream::Stdout,
                atelier_protocol::Stream::Stderr => OutputStream::Stderr,
            };
            sink(RunEvent::Output {
                stream,
                text: text.to_owned(),
            });
        }))
    }

    /// An observer for the call's workspace walks that reports them as
    /// [`RunEvent::Workspace`], throttled (a fast walk of many files would
    /// otherwise flood a UI), always with the last step.
    pub fn walk_observer(&self) -> Observer {
        let Some(sink) = self.events.clone() else {
            return Observer::default();
        };
        throttled(move |p| {
            sink(RunEvent::Workspace {
                files_done: p.files_done,
                files_total: p.files_total,
                bytes_done: p.bytes_done,
                bytes_total: p.bytes_total,
            });
        })
    }
}

/// What a call produced, with what it printed.
#[derive(Debug)]
pub struct Outcome {
    pub result: std::result::Result<Value, Failure>,
    pub stdout: Option<String>,
    pub stderr: Option<String>,
    /// MCP content blocks, shown by the default MCP plan when the tool
    /// declares no renderer.
    pub content: Option<Vec<Value>>,
}

/// Why a call failed: `kind` becomes `tool_calls.error_kind`.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub kind: ErrorKind,
    pub message: String,
    pub traceback: Option<String>,
}

impl Outcome {
    /// The call ran out of time.
    pub fn timed_out(after: Duration) -> Self {
        let s = after.as_secs_f64();
        let secs = if s.fract() == 0.0 {
            format!("{s:.0}")
        } else {
            format!("{s}")
        };
        Self::failed(ErrorKind::Timeout, format!("timed out after {secs} s"))
    }

    /// A person stopped the call.
    pub fn cancelled() -> Self {
        Self::failed(ErrorKind::Cancelled, "cancelled by user")
    }

    /// A failure with nothing printed.
    pub fn failed(kind: ErrorKind, message: impl Into<String>) -> Self {
        Outcome {
            result: Err(Failure {
                kind,
                message: message.into(),
                traceback: None,
            }),
            stdout: None,
            stderr: None,
            content: None,
        }
    }
}

/// What runs a tool's code.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Backend<'a> {
    /// A Rust function on the workspace.
    Builtin(&'static Builtin),
    /// A toolset's Python function, in the (toolset, chat) worker.
    Python(&'a ToolsetRecord),
    /// An MCP server's tool, on the server's instance for the chat.
    Mcp,
}

impl<'a> Backend<'a> {
    /// The backend of `tool` (with its toolset's row, for toolset tools).
    pub(crate) fn of(tool: &ToolRecord, toolset: Option<&'a ToolsetRecord>, mcp: bool) -> Result<Self> {
        match toolset {
            _ if mcp => Ok(Backend::Mcp),
            Some(ts) => Ok(Backend::Python(ts)),
            None => builtin::find(&tool.tool_id)
                .map(Backend::Builtin)
                .ok_or_else(|| Error::ToolNotFound(tool.tool_id.clone())),
        }
    }

    /// Calls the tool's code. Never fails: a failure is the call's outcome.
    pub(crate) async fn call(
        self,
        app: &Atelier,
        tool: &ToolRecord,
        chat_id: &str,
        args: &Value,
        control: &CallControl,
    ) -> Outcome {
        match self {
            Backend::Builtin(b) => {
                let (ws, args) = (app.workspace_dir(chat_id), args.clone());
                let timeout = control.timeout_for(tool, app.python().settings.default_timeout);
                if timeout.is_zero() {
                    // No time at all: do not start (a write must not happen
                    // and then be reported as timed out).
                    return Outcome::timed_out(timeout);
                }
                // A builtin honours the call's timeout and Cancel like any
                // tool. Its thread cannot be stopped, but builtins only block
                // on reads (a write is one small file, a read is capped), so
                // a thread left behind ends on its own and changes nothing.
                tokio::select! {
                    // A stop the caller asked for wins over a result.
                    biased;
                    () = control.cancel.cancelled() => Outcome::cancelled(),
                    () = tokio::time::sleep(timeout) => Outcome::timed_out(timeout),
                    done = blocking(move || builtin::run(b.id, &ws, &args)) => match done {
                        Ok(v) => Outcome {
                            result: Ok(v),
                            stdout: None,
                            stderr: None,
                            content: None,
                        },
                        Err(e) => Outcome::failed(ErrorKind::Exception, e.to_string()),
                    },
                }
            }
            Backend::Python(ts) => app.call_python(tool, ts, chat_id, args, control).await,
            Backend::Mcp => super::mcp::call(app, tool, chat_id, args, control).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::store::Progress;

    #[test]
    fn a_fast_walk_is_throttled_but_its_end_always_arrives_and_output_is_forwarded() {
        let got: Arc<Mutex<Vec<RunEvent>>> = Arc::default();
        let sink = Arc::clone(&got);
        let control = CallControl::with_events(move |e| sink.lock().expect("test step").push(e));
        let walks = control.walk_observer();
        for i in 1..=5000 {
            walks.progress(Progress {
                files_done: i,
                files_total: 5000,
                bytes_done: i * 10,
                bytes_total: 50_000,
            });
        }
        if let Some(l) = control.output_listener() {
            l(atelier_protocol::Stream::Stderr, "warming up\n");
        }
        let got = got.lock().expect("test step");
        let walks: Vec<&RunEvent> = got.iter().filter(|e| matches!(e, RunEvent::Workspace { .. })).collect();
        assert!(walks.len() < 50, "{} walk messages for one fast walk", walks.len());
        assert!(matches!(
            walks.last(),
            Some(RunEvent::Workspace { files_done: 5000, .. })
        ));
        assert_eq!(
            serde_json::to_value(got.last().expect("test step")).expect("test step"),
            serde_json::json!({"kind": "output", "stream": "stderr", "text": "warming up\n"})
        );
    }
}
