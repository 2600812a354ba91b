//! Hand-offs to the desktop: opening a folder in the system file manager,
//! a page in the browser.

use std::io;
use std::path::Path;
use std::process::{Command, Stdio};

/// Opens `dir` with the platform's opener (`xdg-open`, `open`, `explorer`),
/// detached: the file manager outlives nothing of ours.
pub(crate) fn reveal(dir: &Path) -> io::Result<()> {
    reveal_with(platform_opener(), dir)
}

/// The platform's opener of folders and pages.
fn platform_opener() -> &'static str {
    if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    }
}

/// Opens `url` in the person's browser with the platform's opener,
/// detached (a sign-in page: the person approves there). Only an http or
/// https page: the address comes from a server's authorization metadata,
/// and the opener would launch whatever handles a `file:` or custom
/// scheme.
pub(crate) fn open_url(url: &str) -> io::Result<()> {
    if !is_web_address(url) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the sign-in address is not an http or https page; it was not opened",
        ));
    }
    let mut child = Command::new(platform_opener())
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    std::thread::spawn(move || child.wait());
    Ok(())
}

/// Whether `url` is an http or https address (the scheme in any case).
fn is_web_address(url: &str) -> bool {
    let lower = |n: usize| url.get(..n).map(str::to_ascii_lowercase);
    lower(8).as_deref() == Some("https://") || lower(7).as_deref() == Some("http://")
}

/// Opens `dir` with `opener`. A missing opener is said as such, not as a
/// missing folder (both are "not found" to the OS).
fn reveal_with(opener: &str, dir: &Path) -> io::Result<()> {
    if !dir.is_dir() {
        return Err(io::Error::new(io::ErrorKind::NotFound, "the folder does not exist"));
    }
    let mut child = Command::new(opener)
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                let hint = if opener == "xdg-open" { " (it comes with xdg-utils)" } else { "" };
                io::Error::new(
                    io::ErrorKind::NotFound,
                    format!(
                        "the folder is there, but {opener}, which opens folders in the file manager, is not installed{hint}; open the folder yourself"
                    ),
                )
            } else {
                e
            }
        })?;
    // Reap it in the background so it never lingers as a zombie.
    std::thread::spawn(move || child.wait());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_pages_are_opened() {
        for bad in ["file:///etc/passwd", "vscode://x", "javascript:alert(1)", "-x", ""] {
            let e = open_url(bad).expect_err(bad);
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{bad}");
        }
        assert!(is_web_address("https://a.example/authorize") && is_web_address("HTTP://127.0.0.1:9/"));
    }

    #[test]
    fn a_missing_opener_is_named_not_blamed_on_the_folder() {
        let dir = tempfile::tempdir().expect("tmp");
        let e = reveal_with("atelier-no-such-opener", dir.path()).expect_err("no opener");
        let text = e.to_string();
        assert!(text.contains("atelier-no-such-opener"), "{text}");
        assert!(
            text.contains("is not installed") && text.contains("the folder is there"),
            "{text}"
        );
        let gone = reveal_with("atelier-no-such-opener", &dir.path().join("gone")).expect_err("no folder");
        assert_eq!(gone.to_string(), "the folder does not exist");
    }
}
