//! The words a recorded call is described with: its status and, when it
//! failed, the kind of failure. They are stored as text in `tool_calls`
//! (the migrations' CHECK lists the statuses) and cross the IPC as string
//! unions generated from these enums, so the UI cannot misspell one.

use serde::{Deserialize, Serialize};

/// Where a recorded call is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// Recorded by an older version before it ran; treated as unfinished.
    Pending,
    /// Waits for a person's Approve or Deny.
    AwaitingApproval,
    Running,
    Success,
    /// The call failed or was refused; `error_kind` says how.
    Error,
    Cancelled,
    /// The app stopped while the call waited or ran.
    Interrupted,
}

/// How a call failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The arguments do not match the tool's input schema (nothing ran).
    InvalidArgs,
    /// A person said no (nothing ran).
    Denied,
    /// The name called is not a tool of the run (an unknown toolset or
    /// tool, or one the agent is not allowed): nothing ran.
    NotFound,
    /// The tool's module could not be imported.
    Import,
    /// The entrypoint is missing or not callable.
    Entrypoint,
    /// The tool raised (or a builtin refused).
    Exception,
    /// The tool returned something that is not a JSON object.
    BadReturn,
    /// The tool returned more than the cap.
    TooLarge,
    Timeout,
    Cancelled,
    /// The tool's process died.
    Crash,
    /// The tool could not be started (no worker, a broken environment).
    Unavailable,
    /// Atelier itself failed while running the call.
    Internal,
    /// The app stopped while the call waited or ran.
    Interrupted,
}

text_enum!(CallStatus {
    Pending = "pending",
    AwaitingApproval = "awaiting_approval",
    Running = "running",
    Success = "success",
    Error = "error",
    Cancelled = "cancelled",
    Interrupted = "interrupted",
});

text_enum!(ErrorKind {
    InvalidArgs = "invalid_args",
    Denied = "denied",
    NotFound = "not_found",
    Import = "import",
    Entrypoint = "entrypoint",
    Exception = "exception",
    BadReturn = "bad_return",
    TooLarge = "too_large",
    Timeout = "timeout",
    Cancelled = "cancelled",
    Crash = "crash",
    Unavailable = "unavailable",
    Internal = "internal",
    Interrupted = "interrupted",
});

impl CallStatus {
    /// Whether the call has ended.
    pub fn is_finished(self) -> bool {
        !matches!(self, Self::Pending | Self::AwaitingApproval | Self::Running)
    }
}

impl From<atelier_protocol::ErrorKind> for ErrorKind {
    fn from(k: atelier_protocol::ErrorKind) -> Self {
        use atelier_protocol::ErrorKind as P;
        match k {
            P::Import => Self::Import,
            P::Entrypoint => Self::Entrypoint,
            P::InvalidArgs => Self::InvalidArgs,
            P::Exception => Self::Exception,
            P::BadReturn => Self::BadReturn,
            P::TooLarge => Self::TooLarge,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stored_words_are_the_serialized_words_and_parse_back() {
        for &s in CallStatus::ALL {
            assert_eq!(serde_json::to_value(s).expect("serialize"), s.as_str());
            assert_eq!(CallStatus::parse(s.as_str()), Some(s));
        }
        for &k in ErrorKind::ALL {
            assert_eq!(serde_json::to_value(k).expect("serialize"), k.as_str());
            assert_eq!(ErrorKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(CallStatus::parse("done"), None);
        // The worker's words and ours agree.
        assert_eq!(
            ErrorKind::from(atelier_protocol::ErrorKind::BadReturn).as_str(),
            atelier_protocol::ErrorKind::BadReturn.as_str()
        );
    }
}
