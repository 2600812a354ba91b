//! Workspace-relative paths: the only form a path takes inside the store.
//!
//! A valid path is UTF-8, uses `/` between segments, and has no empty, `.`
//! or `..` segment, no NUL and no leading `/`: it names something inside the
//! workspace and nothing else, whatever string a manifest, a CLI argument or
//! (later) a tool supplies.

use crate::{Error, Result};

/// Checks that `path` is a clean workspace-relative path.
pub fn validate(path: &str) -> Result<()> {
    let bad = |reason| {
        Err(Error::InvalidPath {
            path: path.to_owned(),
            reason,
        })
    };
    if path.is_empty() {
        return bad("the path is empty");
    }
    if path.starts_with('/') {
        return bad("absolute paths are not allowed");
    }
    if path.contains('\0') {
        return bad("paths cannot contain NUL");
    }
    for seg in path.split('/') {
        match seg {
            "" => return bad("empty path segment (`//` or a trailing `/`)"),
            "." | ".." => return bad("`.` and `..` segments are not allowed"),
            _ => {}
        }
    }
    Ok(())
}

/// Normalizes a user-typed path (`./a//b/`) to the stored form (`a/b`), then
/// validates it.
pub fn normalize(path: &str) -> Result<String> {
    if path.starts_with('/') {
        return Err(Error::InvalidPath {
            path: path.to_owned(),
            reason: "absolute paths are not allowed",
        });
    }
    let joined = path
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/");
    validate(&joined).map_err(|_| Error::InvalidPath {
        path: path.to_owned(),
        reason: if joined.is_empty() {
            "the path is empty"
        } else {
            "`..` segments, NUL and absolute paths are not allowed"
        },
    })?;
    Ok(joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_escapes_and_accepts_unusual_names() {
        for bad in ["", "/etc/passwd", "../x", "a/../../x", "a//b", "a/", "./a", "a\0b"] {
            assert!(validate(bad).is_err(), "{bad:?} should be rejected");
        }
        for good in ["a", "dir/ünïcødé ✓.txt", "-rf", "a b/c\nd", "...", ".hidden", "a\\b"] {
            assert!(validate(good).is_ok(), "{good:?} should be accepted");
        }
    }

    #[test]
    fn normalizes_user_input() {
        assert_eq!(normalize("./a//b/").ok().as_deref(), Some("a/b"));
        assert!(normalize("a/../b").is_err());
        assert!(normalize("/").is_err());
        assert!(normalize("/etc/passwd").is_err());
    }
}
