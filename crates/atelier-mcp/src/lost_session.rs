//! A streamable-HTTP session the server lost (it restarted, or expired it).
//!
//! rmcp opens a new session and sends the request again when a request
//! carrying the session id is answered 404 (`reinit_on_expired_session`).
//! Servers built on the TypeScript SDK (server-everything among them)
//! answer 400 instead, with a JSON-RPC error that has no id ("Bad Request:
//! No valid session ID provided"): rmcp could route it to no request and
//! dropped it, so the call waited out its whole timeout, and so did every
//! later one. This client wrapper says that answer is what it is, a lost
//! session, so rmcp recovers the same way. Sending the request again is
//! safe: a server that did not know the session ran nothing of it.

use std::collections::HashMap;
use std::sync::Arc;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage};
use rmcp::transport::common::client_side_sse::BoxedSseResponse;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};

/// rmcp's own default client (not exported): no idle pool (a reused
/// connection stalled 40 ms on delayed ACKs), and only same-origin 307 and
/// 308 redirects, which keep the POST's body and never hand the session id
/// or the headers to another host.
pub(crate) fn http_client() -> reqwest::Client {
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt.previous().first().map(reqwest::Url::origin) == Some(attempt.url().origin());
        let keeps_body = matches!(attempt.status().as_u16(), 307 | 308);
        if same_origin && keeps_body && attempt.previous().len() <= 10 {
            attempt.follow()
        } else {
            attempt.stop()
        }
    });
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(policy)
        .build()
        .unwrap_or_default()
}

/// An HTTP client whose id-less error to a request in a session is the
/// session lost (see the module's words).
#[derive(Clone)]
pub(crate) struct LostSession<C>(pub(crate) C);

type Posted<E> = Result<StreamableHttpPostResponse, StreamableHttpError<E>>;

/// Whether `message` is a request sent within a session (the only post
/// whose id-less error answer means the session was lost).
fn in_session_request(session_id: &Option<Arc<str>>, message: &ClientJsonRpcMessage) -> bool {
    session_id.is_some() && matches!(message, JsonRpcMessage::Request(_))
}

/// `posted` (a message's post, however rmcp asked for it), with an id-less
/// error to a request in a session read as the session lost.
async fn judged<E: std::error::Error + Send + Sync + 'static>(
    in_session_request: bool,
    posted: impl Future<Output = Posted<E>>,
) -> Posted<E> {
    match posted.await {
        Ok(StreamableHttpPostResponse::Json(JsonRpcMessage::Error(e), _)) if in_session_request && e.id.is_none() => {
            tracing::debug!(message = %e.error.message, "an id-less error to a request in a session: the session is lost");
            Err(StreamableHttpError::SessionExpired)
        }
        other => other,
    }
}

impl<C: StreamableHttpClient + Sync> StreamableHttpClient for LostSession<C> {
    type Error = C::Error;

    fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> impl Future<Output = Posted<Self::Error>> + Send + '_ {
        let watch = in_session_request(&session_id, &message);
        judged(
            watch,
            self.0
                .post_message(uri, message, session_id, auth_header, custom_headers),
        )
    }

    fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> impl Future<Output = Posted<Self::Error>> + Send + '_ {
        let watch = in_session_request(&session_id, &message);
        let posted = self.0.post_message_with_max_sse_event_size(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            max_sse_event_size,
        );
        judged(watch, posted)
    }

    fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> impl Future<Output = Posted<Self::Error>> + Send + '_ {
        let watch = in_session_request(&session_id, &message);
        judged(
            watch,
            self.0
                .post_message_with_response_limits(uri, message, session_id, auth_header, custom_headers, limits),
        )
    }

    fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> impl Future<Output = Result<(), StreamableHttpError<Self::Error>>> + Send + '_ {
        self.0.delete_session(uri, session_id, auth_header, custom_headers)
    }

    fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> impl Future<Output = Result<BoxedSseResponse, StreamableHttpError<Self::Error>>> + Send + '_ {
        self.0
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
    }

    fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> impl Future<Output = Result<BoxedSseResponse, StreamableHttpError<Self::Error>>> + Send + '_ {
        self.0.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            max_sse_event_size,
        )
    }
}
