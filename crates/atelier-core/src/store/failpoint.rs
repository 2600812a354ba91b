//! Failure injection for crash-safety tests.
//!
//! `ATELIER_FAILPOINT=<name>` makes [`hit`] fail with [`Error::Injected`] at
//! that point; `ATELIER_FAILPOINT=<name>:abort` kills the process there, as a
//! crash or power cut would. Unset (always, outside tests) it costs one
//! cached environment lookup.

use std::sync::OnceLock;

use crate::{Error, Result};

/// Between durable blobs and the manifest row that names them.
pub const AFTER_BLOBS: &str = "after-blobs";
/// In materialize, after every blob is verified and before the workspace
/// is touched.
pub const AFTER_VERIFY: &str = "after-verify";

/// In a toolset import, after the folder swap and before the commit.
pub const IMPORT_BEFORE_COMMIT: &str = "import-before-commit";

/// In a chat delete, after its folder went to the trash and before the
/// row is deleted; and after the commit, before the trash is emptied.
pub const DELETE_BEFORE_COMMIT: &str = "delete-before-commit";
pub const DELETE_AFTER_COMMIT: &str = "delete-after-commit";

static ARMED: OnceLock<Option<String>> = OnceLock::new();

/// Fails (or aborts) if the named failpoint is armed.
pub fn hit(name: &'static str) -> Result<()> {
    let armed = ARMED.get_or_init(|| std::env::var("ATELIER_FAILPOINT").ok());
    match armed.as_deref() {
        Some(v) if v == name => Err(Error::Injected(name)),
        Some(v) if v.strip_suffix(":abort") == Some(name) => std::process::abort(),
        _ => Ok(()),
    }
}
