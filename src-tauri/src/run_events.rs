//! What the UI hears while a tool runs: how far the workspace walks are
//! (a big workspace takes a while to record) and the tool's output as it
//! arrives. Walk progress is throttled to ~10 messages a second; output is
//! forwarded as the core reads it (the core caps it per stream).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use atelier_core::tools::python::{CallControl, OutputListener, Stream};
use atelier_core::{Observer, Progress};
use serde::Serialize;
use tauri::ipc::Channel;

/// One message on a run's channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunEvent {
    /// The call is recorded and running: its id, for Cancel.
    Started { call_id: String },
    /// The call waits for the person's answer (`answer_approval`).
    AwaitingApproval { call_id: String },
    /// The walk before or after the call (files looked at, bytes hashed).
    Workspace {
        files_done: u64,
        files_total: u64,
        bytes_done: u64,
        bytes_total: u64,
    },
    /// Text the tool wrote to `stream` (`stdout` or `stderr`).
    Output { stream: String, text: String },
}

const EVERY: Duration = Duration::from_millis(100);

/// An observer that passes progress to `send` at most every 100 ms, and
/// always the last step (when `files_done` reaches a known total).
pub fn throttled(send: impl Fn(Progress) + Send + Sync + 'static) -> Observer {
    let last: Mutex<Option<Instant>> = Mutex::new(None);
    Observer::default().with_progress(move |p| {
        let done = p.files_total > 0 && p.files_done >= p.files_total;
        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
        if !done && last.is_some_and(|t| t.elapsed() < EVERY) {
            return;
        }
        *last = Some(Instant::now());
        send(p);
    })
}

/// A call control that reports to `channel`.
pub fn control(channel: Channel<RunEvent>) -> CallControl {
    let walks = channel.clone();
    let walks_and_start = channel.clone();
    let workspace = throttled(move |p| {
        let _ = walks.send(RunEvent::Workspace {
            files_done: p.files_done,
            files_total: p.files_total,
            bytes_done: p.bytes_done,
            bytes_total: p.bytes_total,
        });
    });
    let listener: OutputListener = Arc::new(move |stream, text| {
        let stream = match stream {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        };
        let _ = channel.send(RunEvent::Output {
            stream: stream.to_owned(),
            text: text.to_owned(),
        });
    });
    let started_channel = walks_and_start.clone();
    let awaiting_channel = walks_and_start.clone();
    CallControl {
        listener: Some(listener),
        workspace,
        on_started: Some(Arc::new(move |id: &str| {
            let _ = started_channel.send(RunEvent::Started { call_id: id.to_owned() });
        })),
        on_awaiting: Some(Arc::new(move |id: &str| {
            let _ = awaiting_channel.send(RunEvent::AwaitingApproval { call_id: id.to_owned() });
        })),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use tauri::ipc::InvokeResponseBody;

    use super::*;

    fn collecting() -> (Channel<RunEvent>, Arc<Mutex<Vec<serde_json::Value>>>) {
        let got = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&got);
        let channel = Channel::new(move |body: InvokeResponseBody| {
            if let InvokeResponseBody::Json(s) = body {
                sink.lock().expect("lock").push(serde_json::from_str(&s).expect("json"));
            }
            Ok(())
        });
        (channel, got)
    }

    #[test]
    fn a_fast_walk_is_throttled_but_its_end_always_arrives_and_output_is_forwarded() {
        let (channel, got) = collecting();
        let c = control(channel);
        for i in 1..=5000 {
            c.workspace.progress(Progress {
                files_done: i,
                files_total: 5000,
                bytes_done: i * 10,
                bytes_total: 50_000,
            });
        }
        if let Some(l) = &c.listener {
            l(Stream::Stderr, "warming up\n");
        }
        let got = got.lock().expect("lock");
        let walks: Vec<&serde_json::Value> = got.iter().filter(|e| e["kind"] == "workspace").collect();
        assert!(walks.len() < 50, "{} walk messages for one fast walk", walks.len());
        assert_eq!(walks.last().map(|e| e["files_done"].clone()), Some(5000.into()));
        assert_eq!(
            got.last(),
            Some(&serde_json::json!({"kind": "output", "stream": "stderr", "text": "warming up\n"}))
        );
    }
}
