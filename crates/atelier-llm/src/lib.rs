//! LLM provider clients for Atelier: one request in, one normalized event
//! stream out, whatever the provider speaks.
//!
//! - [`types`]: the request (messages of [`Part`]s, tools) and the events
//!   ([`Event`]) and whole [`Turn`] a stream gives — the only types the
//!   conversation engine sees.
//! - [`client`]: a [`Provider`] (kind, base URL, key, headers) and the
//!   [`Client`] that streams a turn, with retries, cancel and typed errors.
//! - `openai` / `anthropic`: the two wire formats (request bodies, stream
//!   events); `accumulate`: tool calls and `<think>` text put together from
//!   deltas, tolerant of what real servers send; [`sse`]: server-sent
//!   events from raw bytes; `whole`: a reply that came as one JSON body
//!   instead of a stream; `wire_ids`: a request's call ids, unique in it;
//!   `model_list`: which of a provider's models can chat.
//! - [`error`]: [`Error`] with an [`ErrorKind`] a person can act on.
//! - [`replay`]: a loopback server that replays recorded streams, for tests
//!   and benchmarks.
//!
//! This crate knows nothing of chats, tools or the database: the core's
//! conversation engine builds requests and persists turns. A provider's key
//! is given to [`Provider`] by the core (from the secret store) and never
//! leaves the request's headers.

mod accumulate;
mod anthropic;
pub mod client;
pub mod error;
mod model_list;
mod names;
mod openai;
pub mod replay;
pub mod sse;
pub mod types;
mod whole;
mod wire_ids;

pub use client::{Client, Failed, Kind, Provider, Retry};
pub use error::{Error, ErrorKind, Result};
pub use types::{
    Event, Message, Part, Request, Role, StopReason, ThinkingBlock, ToolCall, ToolChoice, ToolSpec, Turn, Usage,
};
