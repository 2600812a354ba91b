//! What the UI hears while something runs, over typed `ipc::Channel`s: a
//! tool call's [`RunEvent`]s (defined by the core, forwarded as they are)
//! and the [`Progress`] of long workspace operations (throttled by the
//! core's [`throttled`] to about ten messages a second).

use atelier_core::store::throttled;
use atelier_core::tools::{CallControl, RunEvent};
use atelier_core::{Observer, Progress};
use tauri::ipc::Channel;

/// A call control that forwards every event of the call to `channel`.
pub fn control(channel: Channel<RunEvent>) -> CallControl {
    CallControl::with_events(move |event| {
        let _ = channel.send(event);
    })
}

/// An observer that reports progress to `channel`, throttled.
pub fn reporting(channel: Channel<Progress>) -> Observer {
    throttled(move |p| {
        let _ = channel.send(p);
    })
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use atelier_core::tools::OutputStream;
    use tauri::ipc::InvokeResponseBody;

    use super::*;

    #[test]
    fn events_reach_the_channel_as_the_generated_typescript_type_reads_them() {
        let got: Arc<Mutex<Vec<serde_json::Value>>> = Arc::default();
        let sink = Arc::clone(&got);
        let channel = Channel::new(move |body: InvokeResponseBody| {
            if let InvokeResponseBody::Json(s) = body {
                sink.lock().expect("lock").push(serde_json::from_str(&s).expect("json"));
            }
            Ok(())
        });
        let c = control(channel);
        let send = c.events.expect("a sink");
        send(RunEvent::Started { call_id: "c1".into() });
        send(RunEvent::Output {
            stream: OutputStream::Stderr,
            text: "warming up\n".into(),
        });
        assert_eq!(
            *got.lock().expect("lock"),
            [
                serde_json::json!({"kind": "started", "call_id": "c1"}),
                serde_json::json!({"kind": "output", "stream": "stderr", "text": "warming up\n"}),
            ]
        );
    }
}
