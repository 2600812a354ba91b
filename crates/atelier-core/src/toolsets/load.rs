//! Reading a bundle from disk: a folder where it is (for `validate`) or
//! copied, a ZIP unpacked, into a staging folder (for an import); its
//! manifest checked; and `check_bundle`, everything `validate` says of a
//! bundle without installing it (its Python read, nothing run).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::bundle::{self, Files};
use super::install::will_run;
use super::records::{BundleReport, SourceType, VersionChange};
use super::swap::ImportDir;
use super::validate::requirements_txt::{self, REQUIREMENTS_TXT};
use super::validate::{self, Checked, MANIFEST_FILE, Severity};
use crate::store::Observer;
use crate::toolsets::Toolsets;
use crate::{Atelier, Error, Result, blocking};

/// A bundle read from disk and checked.
pub(super) struct Loaded {
    pub(super) source_type: SourceType,
    /// Where the files are: the staging folder they were unpacked or
    /// copied into.
    pub(super) root: PathBuf,
    /// The author's folder of a local toolset (watched, and where its
    /// manifest is read from).
    pub(super) source: Option<PathBuf>,
    pub(super) staging: Option<Staging>,
    pub(super) files: Files,
    pub(super) checked: Checked,
    pub(super) label: String,
    /// Its requirements were read from its root `requirements.txt`.
    pub(super) requirements_file: Option<String>,
}

/// A ZIP's import: its lock and names (the staging folder is removed when
/// it drops, unless it was swapped in).
pub(super) struct Staging(pub(super) ImportDir);

impl Atelier {
    /// Reads a bundle (ZIP file or folder) and checks it, blocking work on a
    /// worker thread.
    /// `install`: a folder is copied into a staging folder to be swapped
    /// in; a check alone reads it where it is.
    pub(super) async fn load_bundle(&self, path: &Path, observer: &Observer, install: bool) -> Result<Loaded> {
        let md = tokio::fs::metadata(path).await.map_err(Error::io("open", path))?;
        let label = path.display().to_string();
        let obs = observer.clone();
        if md.is_dir() {
            let dir = tokio::fs::canonicalize(path).await.map_err(Error::io("open", path))?;
            let d = dir.clone();
            let files = blocking(move || bundle::scan_folder(&d, &obs)).await?;
            let (checked, requirements_file) = read_manifest(&dir, &files, path).await?;
            if !install {
                return Ok(Loaded {
                    source_type: SourceType::Local,
                    root: dir.clone(),
                    source: Some(dir),
                    staging: None,
                    files,
                    checked,
                    label,
                    requirements_file,
                });
            }
            // Runs from a copy (see `bundle::copy_folder`).
            let import = ImportDir::begin(&self.data_dir().toolsets_dir())?;
            let staging_dir = import.staging();
            let (from, to, listed, obs) = (dir.clone(), staging_dir.clone(), files.clone(), observer.clone());
            blocking(move || bundle::copy_folder(&from, &listed, &to, &obs)).await?;
            return Ok(Loaded {
                source_type: SourceType::Local,
                root: staging_dir,
                source: Some(dir),
                staging: Some(Staging(import)),
                files,
                checked,
                label,
                requirements_file,
            });
        }
        // The manifest itself, given for its folder: said, not read as a
        // ZIP that is not one.
        let named = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase());
        if named.is_some_and(|n| n.ends_with(".yaml") || n.ends_with(".yml")) {
            let folder = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            return Err(Error::Bundle {
                bundle: label,
                entry: None,
                message: format!(
                    "this is a manifest, not a bundle: give its folder ({}) or a ZIP",
                    folder.display()
                ),
            });
        }
        let import = ImportDir::begin(&self.data_dir().toolsets_dir())?;
        let staging_dir = import.staging();
        let staging = Staging(import);
        let (zip, dest) = (path.to_path_buf(), staging_dir.clone());
        let files = blocking(move || bundle::unpack_zip(&zip, &dest, &obs)).await?;
        let (checked, requirements_file) = read_manifest(&staging_dir, &files, path).await?;
        Ok(Loaded {
            source_type: SourceType::Zip,
            root: staging_dir,
            source: None,
            staging: Some(staging),
            files,
            checked,
            label,
            requirements_file,
        })
    }

    /// HTML artifacts are also kept by content hash in `artifacts/`, never
    /// deleted, so renders of old tool calls keep working after an upgrade
    /// or uninstall. Each file added is named in `undo`: an import that
    /// does not commit removes it (called under the import's write lock,
    /// so no other import can have come to share it meanwhile).
    pub(super) async fn keep_artifacts(
        &self,
        loaded: &Loaded,
        artifacts: &BTreeSet<String>,
        undo: &mut super::undo::Undo,
    ) -> Result<()> {
        let dir = self.data_dir().root().join("artifacts");
        for a in artifacts {
            let Some(info) = loaded.files.get(a) else { continue };
            let hex = info.sha256.to_hex();
            let dest = dir.join(&hex[..2]).join(&hex);
            if tokio::fs::try_exists(&dest).await.unwrap_or(false) {
                continue;
            }
            let parent = dir.join(&hex[..2]);
            tokio::fs::create_dir_all(&parent)
                .await
                .map_err(Error::io("create", &parent))?;
            let tmp = dest.with_extension("tmp");
            tokio::fs::copy(loaded.root.join(a), &tmp)
                .await
                .map_err(Error::io("copy", &tmp))?;
            tokio::fs::rename(&tmp, &dest)
                .await
                .map_err(Error::io("store", &dest))?;
            undo.artifacts.push(dest);
        }
        Ok(())
    }
}

impl Toolsets<'_> {
    /// Checks a bundle without installing it: every manifest problem, and
    /// what it would run (entry points, requirements, MCP commands).
    pub async fn check_bundle(&self, path: &Path, observer: &Observer) -> Result<BundleReport> {
        let loaded = self.app.load_bundle(path, observer, false).await?;
        let m = loaded.checked.manifest.as_ref();
        let mut problems = loaded.checked.problems.clone();
        // The Python is read only of a manifest that holds together.
        let python = match m.filter(|_| loaded.checked.errors().next().is_none()) {
            Some(m) => {
                let names: BTreeSet<String> = loaded.files.keys().cloned().collect();
                let mut scratch = self.app.scratch(&loaded.root, false);
                let found = self.app.inspect_python(m, &mut scratch, &names).await;
                scratch.stop().await;
                found
            }
            None => Default::default(),
        };
        problems.extend(python.problems);
        problems.extend(python.unread);
        let mut will_run = m.map(will_run).unwrap_or_default();
        will_run.requirements_file = loaded.requirements_file.clone();
        let installed_version: Option<String> = match m {
            Some(m) => {
                sqlx::query_scalar("SELECT version FROM toolsets WHERE id = ?")
                    .bind(&m.id)
                    .fetch_optional(self.app.db())
                    .await?
            }
            None => None,
        };
        let version_change = m.map(|m| version_change(installed_version.as_deref(), &m.version));
        Ok(BundleReport {
            id: m.map(|m| m.id.clone()),
            name: m.map(|m| m.name.clone()),
            version: m.map(|m| m.version.clone()),
            description: m.map(|m| m.description.clone()).unwrap_or_default(),
            installed_version,
            version_change,
            valid: problems.iter().all(|p| p.severity != Severity::Error),
            problems,
            exported: python.exported,
            derived: python.derived,
            will_run,
            file_count: loaded.files.len(),
            total_size: loaded.files.values().map(|f| f.size).sum(),
            consent: match m {
                Some(m) => super::config::import::consent(self.app, m).await?,
                None => Default::default(),
            },
        })
    }
}

/// Reads and checks `toolset.yaml` of an unpacked or local bundle, with
/// its root `requirements.txt` when the manifest lists no requirements
/// (then named in the answer); `bundle`: the ZIP or folder the person named
/// (errors name it).
async fn read_manifest(root: &Path, files: &Files, bundle: &Path) -> Result<(Checked, Option<String>)> {
    let path = root.join(MANIFEST_FILE);
    if !files.contains_key(MANIFEST_FILE) {
        return Err(Error::Bundle {
            bundle: bundle.display().to_string(),
            entry: None,
            message: super::not_found::explain(files.keys().map(String::as_str), super::not_found::Place::Folder),
        });
    }
    let bundle = bundle.to_path_buf();
    let text = blocking(move || validate::text::read(&path, &bundle)).await?;
    let names: BTreeSet<String> = files.keys().cloned().collect();
    let mut checked = validate::check(&text, &names);
    let from_file = with_requirements_txt(&mut checked, root, files).await?;
    Ok((checked, from_file))
}

/// [`requirements_txt::apply_requirements_txt`] with the bundle's file, if it
/// has one; the file's name when its requirements are the bundle's.
async fn with_requirements_txt(checked: &mut Checked, root: &Path, files: &Files) -> Result<Option<String>> {
    if !files.contains_key(REQUIREMENTS_TXT) {
        return Ok(None);
    }
    let path = root.join(REQUIREMENTS_TXT);
    let bytes = tokio::fs::read(&path).await.map_err(Error::io("read", &path))?;
    Ok(requirements_txt::apply_requirements_txt(checked, Some(&bytes)).then(|| REQUIREMENTS_TXT.to_owned()))
}

/// How `version` stands to the `installed` one: semantic versions compared
/// as such (`1.10.0` is newer than `1.9.0`); a version that is not one
/// compares as text.
pub(crate) fn version_change(installed: Option<&str>, version: &str) -> VersionChange {
    let Some(installed) = installed else {
        return VersionChange::New;
    };
    let order = match (semver::Version::parse(installed), semver::Version::parse(version)) {
        (Ok(a), Ok(b)) => b.cmp(&a),
        _ => version.cmp(installed),
    };
    match order {
        std::cmp::Ordering::Equal => VersionChange::Same,
        std::cmp::Ordering::Greater => VersionChange::Upgrade,
        std::cmp::Ordering::Less => VersionChange::Downgrade,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_as_semantic_versions() {
        assert_eq!(version_change(None, "1.0.0"), VersionChange::New);
        assert_eq!(version_change(Some("1.1.0"), "1.0.0"), VersionChange::Downgrade);
        assert_eq!(version_change(Some("1.9.0"), "1.10.0"), VersionChange::Upgrade);
        assert_eq!(version_change(Some("2.0.0"), "2.0.0"), VersionChange::Same);
        assert_eq!(version_change(Some("1.0.0"), "1.0.0-beta.1"), VersionChange::Downgrade);
    }
}
