//! A server offered roots asks for them (`roots/list`) only once the
//! handshake is over — server-filesystem on `notifications/initialized` —
//! and then applies them on its own time. A call sent at once reached it
//! first: a per-chat server-filesystem's first call usually found no root
//! and refused every path. So a connection that offered roots waits,
//! briefly, before it is handed out: a `ping` (answered in order, after
//! any `roots/list` the server sent on reading `initialized`) says whether
//! the server asks; one that asks is waited for until our answer went out
//! and a moment more for the server to take it in. Bounded by
//! [`ROOTS_WAIT`] in all: a server that never asks costs one round trip.

use std::time::Duration;

use rmcp::model::{ClientRequest, PingRequest};
use rmcp::service::{Peer, RoleClient};
use tokio::sync::watch;
use tokio::time::{Instant, timeout_at};

use crate::handler::Handler;

/// The longest a connection waits for a server to ask for its roots and
/// take our answer in.
pub(crate) const ROOTS_WAIT: Duration = Duration::from_secs(2);

/// After our answer went out: time for the server to read and apply it
/// (server-filesystem checks each folder on disk, asynchronously).
const TAKE_IN: Duration = Duration::from_millis(100);

/// How far a session's roots exchange went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(crate) enum RootsAsked {
    #[default]
    No,
    /// The server's `roots/list` was read (by the transport, in order).
    Asked,
    /// Our answer was handed to rmcp to send.
    Answered,
}

/// Raises the state to `to` (never back).
pub(crate) fn mark(state: &watch::Sender<RootsAsked>, to: RootsAsked) {
    state.send_if_modified(|s| {
        let raise = *s < to;
        if raise {
            *s = to;
        }
        raise
    });
}

/// Waits as the module's words say, when roots were offered, on the
/// `initialize` protocol (`legacy`; 2026-07-28 has neither roots nor ping).
pub(crate) async fn settle(peer: &Peer<RoleClient>, handler: &Handler, legacy: bool) {
    if handler.roots.is_none() || !legacy {
        return;
    }
    let state = &handler.notices.roots;
    let deadline = Instant::now() + ROOTS_WAIT;
    let mut rx = state.subscribe();
    let ping = peer.send_request(ClientRequest::PingRequest(PingRequest::default()));
    // Either the ping's answer (nothing asked before it: the server does
    // not ask, or not at once) or a `roots/list` read first.
    let _ = timeout_at(deadline, async {
        tokio::select! {
            _ = ping => {}
            _ = rx.wait_for(|s| *s >= RootsAsked::Asked) => {}
        }
    })
    .await;
    if *rx.borrow() == RootsAsked::No {
        return;
    }
    if timeout_at(deadline, rx.wait_for(|s| *s == RootsAsked::Answered))
        .await
        .is_ok()
    {
        let _ = timeout_at(deadline, tokio::time::sleep(TAKE_IN)).await;
    }
}
