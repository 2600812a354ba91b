//! What the client answers when a server of the newest protocol (2026-07-28)
//! needs something from it mid-call: such a server cannot send a request of
//! its own while a call runs, so it answers the call `input_required`
//! (SEP-2322) with the requests it has, and the client calls again with its
//! answers (`inputResponses`) and the server's `requestState` echoed.
//!
//! The answers are the ones an older server gets to the same requests sent
//! mid-call (see `handler`): our roots (a chat instance's workspace; none
//! for a shared server), an elicitation declined — Atelier has no form to
//! ask a person with, and says so the way the spec allows — and sampling
//! refused with words: there is no model to lend a server.

use rmcp::model::{ElicitResult, ElicitationAction, InputRequest, InputRequiredResult, InputResponses};
use serde_json::Value;

use crate::error::McpError;
use crate::handler::Handler;

/// The most `input_required` answers asking for something that one call
/// takes before it gives up (as rmcp's own helper: a server that keeps
/// asking is not heard for ever). Answers that ask nothing — the server's
/// state back, "still at it" — are not counted: the call's timeout bounds them.
pub(crate) const MAX_ROUNDS: usize = 10;

/// The answers to `asked`, and the state to echo, for the call's next round.
pub(crate) fn answer(
    server: &str,
    tool: &str,
    handler: &Handler,
    asked: InputRequiredResult,
) -> Result<(Option<InputResponses>, Option<String>), McpError> {
    let requests = asked.input_requests.unwrap_or_default();
    if requests.is_empty() && asked.request_state.is_none() {
        return Err(McpError::Protocol {
            server: server.to_owned(),
            message: format!("answered tools/call for {tool} with input_required but asked for nothing"),
        });
    }
    let mut responses = InputResponses::new();
    for (key, request) in requests {
        let value = match request {
            InputRequest::ListRoots(_) => to_value(&handler.roots_result()),
            InputRequest::Elicitation(_) => to_value(&ElicitResult::new(ElicitationAction::Decline)),
            InputRequest::CreateMessage(_) => {
                return Err(McpError::Protocol {
                    server: server.to_owned(),
                    message: format!(
                        "its tool {tool} asked to use a model of ours (MCP sampling), which Atelier does not offer to MCP servers"
                    ),
                });
            }
            // A kind of request this client does not know: not answered,
            // so the server says what it misses.
            _ => continue,
        };
        responses.insert(key, value);
    }
    Ok(((!responses.is_empty()).then_some(responses), asked.request_state))
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}
