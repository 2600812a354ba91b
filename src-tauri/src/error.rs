//! The one error type at the IPC edge: `{kind, message}`, from the core's
//! error in one place. Shell code that fails (a path from the webview, a
//! file manager that will not open) fails with a core [`atelier_core::Error`]
//! too, so this conversion is the only way an `IpcError` is made.

use atelier_core::ErrorCode;
use serde::Serialize;

/// What a failed command sends to the UI. `kind` is stable
/// ([`atelier_core::Error::code`]); `message` says what and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, thiserror::Error)]
#[error("{message}")]
pub struct IpcError {
    pub kind: ErrorCode,
    pub message: String,
}

impl From<atelier_core::Error> for IpcError {
    fn from(e: atelier_core::Error) -> Self {
        Self {
            kind: e.code(),
            message: e.to_string(),
        }
    }
}

/// Command results.
pub type IpcResult<T> = Result<T, IpcError>;
