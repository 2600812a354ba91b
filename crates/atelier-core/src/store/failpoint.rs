//! Failure injection for crash-safety tests.
//!
//! `ATELIER_FAILPOINT=<name>` makes [`hit`] fail with [`Error::Injected`] at
//! that point; `ATELIER_FAILPOINT=<name>:abort` kills the process there, as a
//! crash or power cut would; `ATELIER_FAILPOINT=<name>:pause` holds the
//! process there while the file named by `ATELIER_FAILPOINT_FLAG` exists (it
//! creates it on arrival; a test does what it wants to race with, then
//! deletes it). Unset (always, outside tests) it costs one cached
//! environment lookup.

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
        Some(v) if v.strip_suffix(":pause") == Some(name) => {
            pause();
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Waits while the flag file exists (at most two minutes: a test that died
/// must not leave a process hanging forever).
fn pause() {
    let Some(flag) = std::env::var_os("ATELIER_FAILPOINT_FLAG") else {
        return;
    };
    if std::fs::write(&flag, b"paused\n").is_err() {
        return;
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while std::path::Path::new(&flag).exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
