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
        let data = match &params.data {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        self.log.push(&format!("[{level}] {data}"));
    }
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
