//! What a bundle holds where its `toolset.yaml` should be, when it is not
//! there: a person who zipped the wrong folder, named the file
//! `toolset.yml`, or downloaded a release archive holding the real ZIP is
//! told what was found and what to do, not only what is missing.

use super::validate::MANIFEST_FILE;

/// Where a manifest may sit in the bundle being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// A ZIP: at its top, or in its one top-level folder.
    Archive,
    /// A folder: at its top.
    Folder,
}

fn is_manifest_like(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    matches!(base.as_str(), "toolset.yaml" | "toolset.yml")
}

fn depth(name: &str) -> usize {
    name.matches('/').count()
}

/// Why there is no manifest to read, given the bundle's file names (after
/// the ones an import skips).
pub(super) fn explain<'a>(names: impl Iterator<Item = &'a str> + Clone, place: Place) -> String {
    let (top, here) = match place {
        Place::Archive => (1, "at the top of the archive or in its one top-level folder"),
        Place::Folder => (0, "at the top of the folder"),
    };
    let mut manifests: Vec<&str> = names.clone().filter(|n| is_manifest_like(n)).collect();
    manifests.sort_by_key(|n| (depth(n), *n));
    if let Some(misnamed) = manifests
        .iter()
        .find(|n| depth(n) <= top && !n.ends_with(MANIFEST_FILE))
    {
        return format!("found {misnamed}: rename it to {MANIFEST_FILE} (the name is exact: lower case, `.yaml`)");
    }
    if let Some(found) = manifests.first() {
        if place == Place::Archive
            && depth(found) == 1
            && let Some((folder, _)) = found.split_once('/')
            && let Some(outside) = names.clone().find(|n| !n.starts_with(&format!("{folder}/")))
        {
            return format!(
                "found {found}, but {outside} is outside its folder {folder}/: put every file in that folder, \
                 or the folder's content at the top of the archive"
            );
        }
        let folder = found.rsplit_once('/').map_or("", |(f, _)| f);
        return match place {
            Place::Archive => format!(
                "found {found}: the manifest must be {here}; zip the folder {folder}/ on its own, or import it as a folder"
            ),
            Place::Folder => format!("found {found}: give the folder {folder}/ itself (the manifest must be {here})"),
        };
    }
    if let Some(inner) = names.clone().find(|n| n.to_ascii_lowercase().ends_with(".zip")) {
        return format!("no {MANIFEST_FILE} {here}, but it holds another ZIP, {inner}: unpack it and import that one");
    }
    format!("no {MANIFEST_FILE} {here}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(names: &[&str], place: Place) -> String {
        explain(names.iter().copied(), place)
    }

    #[test]
    fn says_what_was_found_instead_of_the_manifest() {
        let a = Place::Archive;
        assert!(said(&["toolset.yml", "tools/a.py"], a).starts_with("found toolset.yml: rename it to toolset.yaml"));
        assert!(said(&["x/Toolset.yaml", "x/tools/a.py"], a).starts_with("found x/Toolset.yaml: rename it"));
        assert!(
            said(&["a/b/toolset.yaml", "a/b/tools/a.py"], a)
                .starts_with("found a/b/toolset.yaml: the manifest must be at the top of the archive or in its one")
        );
        assert!(
            said(&["x/toolset.yaml", "README.md"], a)
                .starts_with("found x/toolset.yaml, but README.md is outside its folder x/")
        );
        assert_eq!(
            said(&["release/real.zip", "NOTES.txt"], a),
            "no toolset.yaml at the top of the archive or in its one top-level folder, but it holds another ZIP, \
             release/real.zip: unpack it and import that one"
        );
        assert_eq!(
            said(&["a.txt"], a),
            "no toolset.yaml at the top of the archive or in its one top-level folder"
        );
        assert!(
            said(&["sub/toolset.yaml"], Place::Folder)
                .starts_with("found sub/toolset.yaml: give the folder sub/ itself")
        );
        assert!(said(&["toolset.yml"], Place::Folder).starts_with("found toolset.yml: rename it"));
    }
}
