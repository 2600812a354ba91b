//! A server's progress and log notifications, taken in the order they
//! came. rmcp hands each notification to a task of its own, so handlers ran
//! in any order: 40 quick progress notifications of one call showed "5/40,
//! 1/40 … 40/40, 6/40", and log messages were kept shuffled. They are taken
//! here instead, by a wrapper of the transport, as it reads them one after
//! the other: a call's progress reaches its sink in order and before the
//! call's answer (which comes after it on the wire), log messages reach the
//! stderr tail in order. rmcp still sees every message, as before.
//!
//! A call learns its progress token only once rmcp has sent the request,
//! and a quick server's first progress can be read before the call has
//! said where it goes: the last few notifications nobody watched are kept,
//! and a call that starts watching gets its own first. A server's
//! `roots/list` is noted here too, in order (see `roots_wait`).
// Logging is deprecated by SEP-2577 (protocol 2026-07-28), but servers on
// older versions still log.
#![allow(deprecated)]

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    JsonRpcMessage, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken, ServerNotification,
    ServerRequest,
};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

use crate::call::Progress;
use crate::roots_wait::{RootsAsked, mark};
use crate::stderr::StderrLog;
use crate::words::cut;

/// Where one call's progress goes.
pub(crate) type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// Progress notifications kept for a token nobody watches yet (a call's
/// first ones, read before it watched: a handful at most; the rest are for
/// requests nobody watches, such as a listing's).
const UNWATCHED_KEPT: usize = 64;
/// …each with its message cut to this many characters.
const UNWATCHED_MESSAGE: usize = 1000;

/// Where a session's progress and log notifications go.
pub(crate) struct Notices {
    progress: Mutex<Progressing>,
    log: Arc<StderrLog>,
    /// Whether the server asked for roots, seen as it is read (in order).
    pub(crate) roots: tokio::sync::watch::Sender<RootsAsked>,
}

#[derive(Default)]
struct Progressing {
    watches: HashMap<ProgressToken, Watch>,
    /// The last notifications for no watched token, oldest first.
    unwatched: VecDeque<ProgressNotificationParam>,
}

struct Watch {
    sink: ProgressSink,
    /// The last progress delivered: the spec says it MUST increase, so a
    /// lower one is dropped rather than shown over a newer one.
    last: Option<f64>,
}

impl Notices {
    pub(crate) fn new(log: Arc<StderrLog>) -> Self {
        Self {
            progress: Mutex::default(),
            log,
            roots: tokio::sync::watch::Sender::new(RootsAsked::No),
        }
    }

    fn progressing(&self) -> std::sync::MutexGuard<'_, Progressing> {
        self.progress.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sends `token`'s progress to `sink`: first what came before, in order.
    pub(crate) fn watch_progress(&self, token: ProgressToken, sink: ProgressSink) {
        let mut p = self.progressing();
        let mut watch = Watch { sink, last: None };
        // Under the lock: a newer notification read meanwhile waits for
        // these, so it cannot overtake them.
        let (early, others) = p.unwatched.drain(..).partition(|n| n.progress_token == token);
        p.unwatched = others;
        for n in early {
            watch.deliver(&n);
        }
        p.watches.insert(token, watch);
    }

    pub(crate) fn unwatch_progress(&self, token: &ProgressToken) {
        self.progressing().watches.remove(token);
    }

    fn take(&self, notification: &ServerNotification) {
        match notification {
            ServerNotification::ProgressNotification(n) => self.progress(&n.params),
            ServerNotification::LoggingMessageNotification(n) => self.log(&n.params),
            _ => {}
        }
    }

    fn progress(&self, params: &ProgressNotificationParam) {
        // The sink is told under the lock, so that what `watch_progress`
        // hands over and what is read meanwhile cannot overtake each other
        // (a sink only passes the value on; it never calls back in here).
        let mut p = self.progressing();
        match p.watches.get_mut(&params.progress_token) {
            Some(watch) => watch.deliver(params),
            None => {
                if p.unwatched.len() == UNWATCHED_KEPT {
                    p.unwatched.pop_front();
                }
                let mut kept = params.clone();
                kept.message = kept.message.map(|m| cut(&m, UNWATCHED_MESSAGE));
                p.unwatched.push_back(kept);
            }
        }
    }

    fn log(&self, params: &LoggingMessageNotificationParam) {
        self.log.push(&log_line(params));
    }
}

/// A log notification as the line a person reads among the call's
/// output: "[info] words". A record with a `msg` or `message` (FastMCP
/// sends `{"msg": …, "extra": …}`) gives its words first and whatever
/// else it holds after them, as JSON; other data is JSON as sent.
fn log_line(params: &LoggingMessageNotificationParam) -> String {
    use serde_json::Value;
    let data = match &params.data {
        Value::String(s) => s.clone(),
        Value::Object(fields) => {
            let words = ["msg", "message"]
                .into_iter()
                .find_map(|k| fields.get(k).and_then(Value::as_str).map(|w| (k, w)));
            match words {
                Some((key, words)) => {
                    let said = |v: &Value| !(v.is_null() || v.as_object().is_some_and(|o| o.is_empty()));
                    let rest: serde_json::Map<String, Value> = fields
                        .iter()
                        .filter(|(k, v)| k.as_str() != key && said(v))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    match rest.is_empty() {
                        true => words.to_owned(),
                        false => format!("{words} {}", Value::Object(rest)),
                    }
                }
                None => params.data.to_string(),
            }
        }
        other => other.to_string(),
    };
    let level = serde_json::to_value(params.level)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    format!("[{level}] {data}")
}

impl Watch {
    /// Tells the sink, unless `n` goes back on what it was told.
    fn deliver(&mut self, n: &ProgressNotificationParam) {
        if self.last.is_some_and(|last| n.progress < last) {
            return;
        }
        self.last = Some(n.progress);
        (self.sink)(Progress {
            progress: n.progress,
            total: n.total,
            message: n.message.clone(),
        });
    }
}

/// A transport whose progress and log notifications go to [`Notices`] as
/// they are read (see the module's words).
pub(crate) struct InOrder<T> {
    inner: T,
    notices: Arc<Notices>,
}

impl<T> InOrder<T> {
    pub(crate) fn new(inner: T, notices: &Arc<Notices>) -> Self {
        Self {
            inner,
            notices: Arc::clone(notices),
        }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for InOrder<T> {
    type Error = T::Error;

    /// rmcp puts this name in its error messages; its default is the type's
    /// full name, which means nothing to a person.
    fn name() -> Cow<'static, str> {
        "MCP connection".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await;
        match &message {
            Some(JsonRpcMessage::Notification(n)) => self.notices.take(&n.notification),
            Some(JsonRpcMessage::Request(r)) if matches!(r.request, ServerRequest::ListRootsRequest(_)) => {
                mark(&self.notices.roots, RootsAsked::Asked);
            }
            _ => {}
        }
        message
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
    use serde_json::json;

    fn line(data: serde_json::Value) -> String {
        super::log_line(&LoggingMessageNotificationParam::new(LoggingLevel::Info, data))
    }

    /// FastMCP's `ctx.info("…")` came out as `{"msg":"…","extra":null}`.
    #[test]
    fn a_log_record_says_its_words_first() {
        assert_eq!(line(json!("plain words")), "[info] plain words");
        assert_eq!(
            line(json!({"msg": "Reading 3 files", "extra": null})),
            "[info] Reading 3 files"
        );
        assert_eq!(line(json!({"msg": "Read", "extra": {}})), "[info] Read");
        assert_eq!(
            line(json!({"msg": "Read", "extra": {"files": 3}})),
            r#"[info] Read {"extra":{"files":3}}"#
        );
        assert_eq!(line(json!({"message": "done", "ms": 12})), r#"[info] done {"ms":12}"#);
        assert_eq!(line(json!({"count": 1})), r#"[info] {"count":1}"#);
        assert_eq!(line(json!(42)), "[info] 42");
    }
}
