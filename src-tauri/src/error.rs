//! The one error type at the IPC edge: `{kind, message}`, from the core's
//! error in one place.

use serde::Serialize;

/// What a failed command sends to the UI. `kind` is stable
/// ([`atelier_core::Error::kind`]); `message` says what and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, thiserror::Error)]
#[error("{message}")]
pub struct IpcError {
    pub kind: String,
    pub message: String,
}

impl IpcError {
    pub fn new(kind: &str, message: impl Into<String>) -> Self {
        Self {
            kind: kind.to_owned(),
            message: message.into(),
        }
    }
}

impl From<atelier_core::Error> for IpcError {
    fn from(e: atelier_core::Error) -> Self {
        Self::new(e.kind(), e.to_string())
    }
}

/// Command results.
pub type IpcResult<T> = Result<T, IpcError>;
