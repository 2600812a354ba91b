//! Hand-offs to the desktop: opening a folder in the system file manager.

use std::io;
use std::path::Path;
use std::process::{Command, Stdio};

/// Opens `dir` with the platform's opener (`xdg-open`, `open`, `explorer`),
/// detached: the file manager outlives nothing of ours.
pub(crate) fn reveal(dir: &Path) -> io::Result<()> {
    if !dir.is_dir() {
        return Err(io::Error::new(io::ErrorKind::NotFound, "no such folder"));
    }
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    let mut child = Command::new(opener)
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    // Reap it in the background so it never lingers as a zombie.
    std::thread::spawn(move || child.wait());
    Ok(())
}
