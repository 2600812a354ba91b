//! A `server/discover` probe answered after rmcp gave up on it.
//!
//! rmcp's Auto lifecycle waits 10 s for an answer to `server/discover`
//! (not configurable in 3.11), then sends `initialize` on the same pipe.
//! A stdio server that takes longer to start — `npx -y` or `uvx` fetching
//! it, a container, a JVM — reads both requests once it is up and answers
//! the probe first; rmcp, waiting for the `initialize` answer, took that
//! reply as the wrong one and failed the handshake, so such a server never
//! connected. This transport wrapper drops the probe's reply once
//! `initialize` has been sent: nobody waits for it any more, and the
//! handshake goes on with the answer to `initialize`, on the same process.
//!
//! A late reply that is a result, not an error, came from a server of the
//! newest protocol, which then refuses `initialize` on that connection:
//! the wrapper notes it ([`LateProbe::modern`]), and the start tries a
//! fresh process with discovery alone (`start`).

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{ClientRequest, JsonRpcMessage, RequestId};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

/// A transport that drops a late reply to the discovery probe (see the
/// module's words).
pub(crate) struct LateProbe<T> {
    inner: T,
    /// The id of the `server/discover` request, once sent.
    probe: Option<RequestId>,
    /// `initialize` was sent after the probe: its reply is nobody's.
    abandoned: bool,
    /// The late reply was a result: the server speaks the newest protocol.
    modern: Arc<AtomicBool>,
}

impl<T> LateProbe<T> {
    pub(crate) fn new(inner: T) -> Self {
        Self {
            inner,
            probe: None,
            abandoned: false,
            modern: Arc::default(),
        }
    }

    /// Becomes true when the probe's late reply is a result (see the
    /// module's words); shared, as rmcp owns the transport.
    pub(crate) fn modern(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.modern)
    }

    /// A reply to the abandoned probe. Ids are compared as written: a
    /// server may echo `0` as `"0"`.
    fn is_late_reply(&self, message: &RxJsonRpcMessage<RoleClient>) -> bool {
        let (true, Some(probe)) = (self.abandoned, &self.probe) else {
            return false;
        };
        let id = match message {
            JsonRpcMessage::Response(r) => Some(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        id.is_some_and(|id| id.to_string() == probe.to_string())
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for LateProbe<T> {
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(r) = &item {
            match &r.request {
                ClientRequest::DiscoverRequest(_) => self.probe = Some(r.id.clone()),
                ClientRequest::InitializeRequest(_) if self.probe.is_some() => self.abandoned = true,
                _ => {}
            }
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let message = self.inner.receive().await;
            match &message {
                Some(m) if self.is_late_reply(m) => {
                    if matches!(m, JsonRpcMessage::Response(_)) {
                        self.modern.store(true, Ordering::Relaxed);
                    }
                    tracing::debug!("dropped a reply to server/discover that came after initialize was sent");
                }
                _ => return message,
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
