//! Paths that come from the webview (dropped files, dialog results passed
//! back) are checked again here before the core sees them: the UI is not
//! trusted to say what a path is.

use std::path::{Path, PathBuf};

use atelier_core::{Error, Result};

fn absolute(path: &Path) -> Result<()> {
    if path.is_absolute() {
        Ok(())
    } else {
        Err(Error::UnusablePath {
            path: path.to_path_buf(),
            reason: "not an absolute path",
        })
    }
}

/// A toolset bundle: an existing `.zip` file or a folder with a
/// `toolset.yaml`, as an absolute canonical path.
pub fn bundle(path: &Path) -> Result<PathBuf> {
    absolute(path)?;
    let real = std::fs::canonicalize(path).map_err(Error::io("open", path))?;
    let md = std::fs::metadata(&real).map_err(Error::io("open", &real))?;
    let is_zip = md.is_file() && real.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip"));
    let is_toolset_dir = md.is_dir() && real.join("toolset.yaml").is_file();
    if is_zip || is_toolset_dir {
        Ok(real)
    } else {
        Err(Error::Bundle {
            bundle: path.display().to_string(),
            entry: None,
            message: "neither a .zip file nor a folder with a toolset.yaml".to_owned(),
        })
    }
}

/// Where an export may be written: an absolute path in an existing folder,
/// ending in `.zip`.
pub fn export_target(path: &Path) -> Result<PathBuf> {
    let parent = path.parent().filter(|p| p.is_dir());
    if !path.is_absolute() || parent.is_none() || !path.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip")) {
        return Err(Error::UnusablePath {
            path: path.to_path_buf(),
            reason: "cannot export here: choose a .zip file in an existing folder",
        });
    }
    Ok(path.to_path_buf())
}

/// A file or folder dropped onto a workspace: an absolute path that exists.
pub fn upload_source(path: &Path) -> Result<PathBuf> {
    absolute(path)?;
    std::fs::symlink_metadata(path).map_err(Error::io("open", path))?;
    Ok(path.to_path_buf())
}

/// Where a workspace export may go: an absolute path in an existing folder
/// (a `.zip` file, or a folder the core creates or finds empty).
pub fn workspace_export_target(path: &Path) -> Result<PathBuf> {
    if !path.is_absolute() || !path.parent().is_some_and(Path::is_dir) {
        return Err(Error::UnusablePath {
            path: path.to_path_buf(),
            reason: "cannot export here: choose a place in an existing folder",
        });
    }
    Ok(path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(r: Result<PathBuf>) -> Option<&'static str> {
        r.err().map(|e| e.kind())
    }

    #[test]
    fn only_zips_and_toolset_folders_are_bundles() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let zip = tmp.path().join("a.zip");
        std::fs::write(&zip, b"PK").expect("write");
        let txt = tmp.path().join("a.txt");
        std::fs::write(&txt, b"x").expect("write");
        assert!(bundle(&zip).is_ok());
        assert_eq!(kind(bundle(&txt)), Some("invalid_bundle"));
        assert_eq!(kind(bundle(tmp.path())), Some("invalid_bundle"));
        std::fs::write(tmp.path().join("toolset.yaml"), b"id: x").expect("write");
        assert!(bundle(tmp.path()).is_ok());
        assert_eq!(kind(bundle(Path::new("rel.zip"))), Some("invalid_path"));
        assert!(export_target(&tmp.path().join("out.zip")).is_ok());
        assert!(export_target(&tmp.path().join("missing/out.zip")).is_err());
        assert!(export_target(&tmp.path().join("out.txt")).is_err());
        assert!(upload_source(&zip).is_ok() && upload_source(tmp.path()).is_ok());
        assert_eq!(kind(upload_source(Path::new("a.zip"))), Some("invalid_path"));
        let gone = upload_source(&tmp.path().join("gone")).expect_err("must be refused");
        assert_eq!(gone.kind(), "io");
        assert!(gone.to_string().contains("gone"), "{gone}");
        assert!(workspace_export_target(&tmp.path().join("ws")).is_ok());
        assert!(workspace_export_target(&tmp.path().join("missing/ws.zip")).is_err());
    }
}
