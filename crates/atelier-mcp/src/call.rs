//! One `tools/call` on a connection: its own progress token (progress goes
//! to that call only), a timeout and a cancel, both of which send the
//! server `notifications/cancelled`.
//!
//! The timeout is the time allowed without news, as the MCP spec puts it
//! ("Timeouts"): each progress notification of the call resets it, so a
//! long job that keeps saying how far it got is not cut at the timeout; a
//! ceiling ([`CallOptions::max_total`], by default ten times the timeout
//! but at most an hour, never under the timeout) ends it anyway, as the
//! spec says a client should.
//!
//! A server of the newest protocol that needs something of ours mid-call
//! (roots, a person's answer) answers `input_required`; the call is made
//! again with our answers (`input`), within the same limits, at most
//! `input::MAX_ROUNDS` times.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ServerResult};
use rmcp::service::PeerRequestOptions;
use serde_json::Value;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::connection::Connection;
use crate::error::McpError;
use crate::notices::ProgressSink;

/// A progress notification of a running call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// How to make one call.
#[derive(Clone, Default)]
pub struct CallOptions {
    /// No answer and no progress in this time: the server is told to
    /// cancel, the call ends [`McpError::Timeout`]. Each progress
    /// notification of the call starts it again.
    pub timeout: Option<Duration>,
    /// The most a call may take however much progress it reports, with or
    /// without a timeout; `None`:
    /// [`ceiling`] of the timeout.
    pub max_total: Option<Duration>,
    /// Cancelled: the server is told, the call ends [`McpError::Cancelled`].
    pub cancel: CancellationToken,
    /// Told about each progress notification of this call.
    pub progress: Option<Arc<dyn Fn(Progress) + Send + Sync>>,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("max_total", &self.max_total)
            .field("cancelled", &self.cancel.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl CallOptions {
    /// The most the call may take in all: `max_total` when set (with or
    /// without a timeout), else the [`ceiling`] of the timeout; `None`:
    /// no limit.
    pub fn total_limit(&self) -> Option<Duration> {
        self.max_total.or_else(|| self.timeout.map(ceiling))
    }
}

/// The longest a call with `timeout` runs while it reports progress: ten
/// times the timeout, at most an hour, never less than the timeout.
pub fn ceiling(timeout: Duration) -> Duration {
    timeout.saturating_mul(10).min(Duration::from_secs(3600)).max(timeout)
}

/// What a call returned, as plain JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    /// MCP content blocks (`{"type": "text", "text": …}`, images, …).
    pub content: Vec<Value>,
    pub structured: Option<Value>,
    /// The tool reported a failure (`isError: true`).
    pub is_error: bool,
    /// What the server wrote to stderr during the call (the kept part).
    pub stderr: Vec<String>,
}

impl Connection {
    /// Calls `tool`. A tool that reports a failure (`isError`) is a
    /// result, not an error; an error is the call not ending normally.
    pub async fn call(&self, tool: &str, args: &Value, options: &CallOptions) -> Result<CallResult, McpError> {
        match self.call_inner(tool, args, options).await {
            Ok(r) => Ok(CallResult {
                stderr: self.redact.lines(r.stderr),
                ..r
            }),
            Err(e) => Err(self.redact.error(e)),
        }
    }

    async fn call_inner(&self, tool: &str, args: &Value, options: &CallOptions) -> Result<CallResult, McpError> {
        let mark = self.log.mark();
        let mut params = CallToolRequestParams::new(tool.to_owned());
        match args {
            Value::Object(map) => params = params.with_arguments(map.clone()),
            Value::Null => {}
            other => {
                return Err(McpError::Protocol {
                    server: self.server.clone(),
                    message: format!("tool arguments must be a JSON object, not {other}"),
                });
            }
        }
        // The 2026-07-28 protocol logs only at the level a request asks for
        // (SEP-2575); older servers ignore the key. Logging is deprecated
        // there (SEP-2577), but servers built on today's SDKs still log this
        // way, and their lines are the call's output a person reads.
        let mut meta = rmcp::model::RequestMetaObject::new();
        #[allow(deprecated)]
        meta.set_log_level(rmcp::model::LoggingLevel::Info);
        params.meta = Some(meta);
        let began = Instant::now();
        let ceiling_at = options
            .total_limit()
            .and_then(|c| began.checked_add(c).map(|at| (at, c)));
        // Rounds in which the server asked us something, and when it began
        // answering only "still at it" (its state back, nothing asked).
        let (mut rounds, mut polls) = (0, 0u32);
        let mut polling_since: Option<Instant> = None;
        // Set by any progress of the call's rounds: news, which starts the
        // timeout of a server still at it again, as it does within a round.
        let heard = Arc::new(AtomicBool::new(false));
        let result = loop {
            match self.round(params.clone(), options, ceiling_at, &heard).await? {
                ServerResult::CallToolResult(r) => break r,
                // A result with nothing in it (`{}`), as rmcp's own helper
                // takes it: the tool ran and had nothing to say.
                ServerResult::EmptyResult(_) => break CallToolResult::default(),
                // The newest protocol's way to ask us something mid-call
                // (`input`): the call again, with our answers.
                ServerResult::InputRequiredResult(asked) => {
                    let asks = asked.input_requests.as_ref().is_some_and(|r| !r.is_empty());
                    let (responses, state) = crate::input::answer(&self.server, tool, &self.handler, asked)?;
                    if asks {
                        rounds += 1;
                        if rounds > crate::input::MAX_ROUNDS {
                            return Err(McpError::Protocol {
                                server: self.server.clone(),
                                message: format!(
                                    "asked for input {} times in one call of {tool}; Atelier gave up",
                                    crate::input::MAX_ROUNDS
                                ),
                            });
                        }
                        (polls, polling_since) = (0, None);
                    } else {
                        // Only its state back: the server is still at it. A
                        // slow tool is asked again, not counted as a round;
                        // being still at it is no news, so the call's timeout
                        // runs from the first such answer, or from its last
                        // progress (and its ceiling holds).
                        polls += 1;
                        if heard.swap(false, Ordering::Relaxed) {
                            polling_since = None;
                        }
                        let since = *polling_since.get_or_insert_with(Instant::now);
                        let wait = Duration::from_millis((50u64 << polls.min(3)).min(250));
                        pause(wait, since, options, ceiling_at).await?;
                    }
                    params.input_responses = responses;
                    params.request_state = state;
                }
                _ => {
                    return Err(McpError::Protocol {
                        server: self.server.clone(),
                        message: format!("answered tools/call for {tool} with something that is not a tool result"),
                    });
                }
            }
        };
        let (stderr, _) = self.log.since(mark);
        let content = result
            .content
            .iter()
            .map(|c| serde_json::to_value(c).unwrap_or(Value::Null))
            .collect();
        Ok(CallResult {
            content,
            structured: result.structured_content.clone(),
            is_error: result.is_error.unwrap_or(false),
            stderr,
        })
    }
}

impl Connection {
    /// One `tools/call` request and its answer, within the call's timeout
    /// (each progress notification starts it again, and sets `heard`), its
    /// ceiling (from the call's start, `ceiling_at`) and its cancel; a
    /// timeout or a cancel tells the server.
    async fn round(
        &self,
        params: CallToolRequestParams,
        options: &CallOptions,
        ceiling_at: Option<(Instant, Duration)>,
        heard: &Arc<AtomicBool>,
    ) -> Result<ServerResult, McpError> {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let mut handle = match self
            .peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(h) => h,
            Err(e) => return Err(self.failure(&e).await),
        };
        let token = handle.progress_token.clone();
        let notices = &self.handler.notices;
        // Every progress of the call is news: it starts the timeout again.
        let news = Arc::new(Notify::new());
        let sink: ProgressSink = {
            let (news, heard, caller) = (Arc::clone(&news), Arc::clone(heard), options.progress.clone());
            Arc::new(move |p| {
                news.notify_one();
                heard.store(true, Ordering::Relaxed);
                if let Some(caller) = &caller {
                    caller(p);
                }
            })
        };
        notices.watch_progress(token.clone(), sink);
        let ended = loop {
            let (at, after) = deadline(options.timeout, ceiling_at);
            tokio::select! {
                biased;
                () = options.cancel.cancelled() => break Err(McpError::Cancelled),
                () = sleep_until(at) => break Err(McpError::Timeout { after }),
                r = &mut handle.rx => break Ok(r),
                () = news.notified() => {}
            }
        };
        // Progress is taken as the transport reads it, in order: what the
        // server sent before its answer has been delivered by now.
        notices.unwatch_progress(&token);
        match ended {
            Ok(Ok(Ok(answer))) => Ok(answer),
            Ok(Ok(Err(e))) => Err(self.failure(&e).await),
            Ok(Err(_closed)) => Err(self.failure(&rmcp::ServiceError::TransportClosed).await),
            Err(stop) => {
                let reason = stop.to_string();
                // `notifications/cancelled`; the server may ignore it, but
                // the call is over for us either way.
                let _ = handle.cancel(Some(reason)).await;
                Err(stop)
            }
        }
    }
}

/// Waits `wait` before a server still at its call is asked again, or less:
/// until the call's timeout counted from `since` (its first "still at it")
/// or its ceiling, which end the call, or its cancel.
async fn pause(
    wait: Duration,
    since: Instant,
    options: &CallOptions,
    ceiling_at: Option<(Instant, Duration)>,
) -> Result<(), McpError> {
    let mut at = Instant::now() + wait;
    let mut over = None;
    let idle = options.timeout.and_then(|t| since.checked_add(t).map(|at| (at, t)));
    for (end, limit) in [idle, ceiling_at].into_iter().flatten() {
        if end <= at {
            (at, over) = (end, Some(limit));
        }
    }
    tokio::select! {
        biased;
        () = options.cancel.cancelled() => Err(McpError::Cancelled),
        () = tokio::time::sleep_until(at) => over.map_or(Ok(()), |after| Err(McpError::Timeout { after })),
    }
}

/// When the call times out from now, and the limit that is: the timeout
/// from now, or the ceiling when that comes first. `None`: never.
fn deadline(timeout: Option<Duration>, ceiling_at: Option<(Instant, Duration)>) -> (Option<Instant>, Duration) {
    let Some(timeout) = timeout else {
        // No time without news is too long, but the ceiling still holds.
        return match ceiling_at {
            Some((at, limit)) => (Some(at), limit),
            None => (None, Duration::MAX),
        };
    };
    match (Instant::now().checked_add(timeout), ceiling_at) {
        (Some(idle), Some((at, limit))) if at <= idle => (Some(at), limit),
        (Some(idle), _) => (Some(idle), timeout),
        (None, Some((at, limit))) => (Some(at), limit),
        (None, None) => (None, timeout),
    }
}

async fn sleep_until(at: Option<Instant>) {
    // A timeout too long for the timer is no timer.
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ceiling_is_ten_timeouts_at_most_an_hour_never_under_the_timeout() {
        assert_eq!(ceiling(Duration::from_secs(60)), Duration::from_secs(600));
        assert_eq!(ceiling(Duration::from_secs(600)), Duration::from_secs(3600));
        assert_eq!(ceiling(Duration::from_secs(7200)), Duration::from_secs(7200));
        assert_eq!(ceiling(Duration::MAX), Duration::MAX);
    }

    /// `max_total` without a timeout used to be ignored: such a call ran
    /// for ever.
    #[test]
    fn max_total_limits_a_call_with_no_timeout() {
        let minute = Duration::from_secs(60);
        let only_total = CallOptions {
            max_total: Some(minute),
            ..CallOptions::default()
        };
        assert_eq!(only_total.total_limit(), Some(minute));
        let at = Instant::now() + minute;
        assert_eq!(deadline(None, Some((at, minute))), (Some(at), minute));
        // Neither: no limit at all.
        assert_eq!(CallOptions::default().total_limit(), None);
        assert_eq!(deadline(None, None), (None, Duration::MAX));
        // A timeout alone: its ceiling; both: max_total.
        let timeout = CallOptions {
            timeout: Some(minute),
            ..CallOptions::default()
        };
        assert_eq!(timeout.total_limit(), Some(Duration::from_secs(600)));
        let both = CallOptions {
            max_total: Some(Duration::from_secs(90)),
            ..timeout
        };
        assert_eq!(both.total_limit(), Some(Duration::from_secs(90)));
    }
}
