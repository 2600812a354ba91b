//! One requirement of `python.requirements`: a release on the package
//! index, named as PEP 508 names one — a project, its extras, version
//! clauses, a marker (`pandas[excel]>=2.1,<3; python_version >= "3.10"`).
//! A direct reference (`pkg @ https://…`, `./pkg`, a file) is refused: pip
//! builds it from source, running its `setup.py` with the person's rights,
//! which `--only-binary` does not stop; so are pip options, which could
//! name another index.
//!
//! A requirement is kept (in the toolset's row, its venv's name, an
//! export) as one string in pip's requirements-file syntax: the release,
//! then, when the bundle's `requirements.txt` pinned every line with
//! hashes ([`super::requirements_txt`]), its `--hash=<algo>:<hex>` options
//! (`humanize==4.9.0 --hash=sha256:…`). One string, not a column of its
//! own: the hashes go wherever the requirement goes — a changed hash is a
//! new venv (the venv is named by these strings), an export keeps the
//! file they came from — with no schema change. Every reader that wants
//! the release alone (to show it, to name a failure) takes [`spec`]; the
//! installer, seeing [`is_hash_pinned`], writes the strings to a
//! requirements file and installs it with `--require-hashes`, since pip
//! reads hashes only there. `toolset.yaml`'s own list takes no hashes
//! ([`problem`] says where they go): pip-compile writes them into a
//! `requirements.txt`, and one way to pin keeps the manifest plain.

/// The option that pins a requirement to the hashes of its files, in the
/// form a stored requirement carries it.
pub(super) const HASH_OPTION: &str = "--hash=";

/// The release `r` names, without its `--hash` pins.
pub fn spec(r: &str) -> &str {
    r.find(&format!(" {HASH_OPTION}")).map_or(r, |at| &r[..at]).trim()
}

/// Whether `r` carries `--hash` pins: its files are installed only if they
/// match one of them.
pub fn is_hash_pinned(r: &str) -> bool {
    r.contains(&format!(" {HASH_OPTION}"))
}

/// Why `line` is not a requirement Atelier installs; `None` when it is.
pub(super) fn problem(line: &str) -> Option<String> {
    const LIKE: &str = "is not a requirement like \"requests>=2.31\"";
    let r = line.trim();
    if r.is_empty() || r.contains(['\n', '\r']) {
        return Some(LIKE.to_owned());
    }
    if r.split_whitespace().any(|w| w.starts_with("--hash")) {
        return Some(format!(
            "carries a --hash pin: hashes are read from a {} at the bundle's root (with no python.requirements \
             in toolset.yaml), every line pinned",
            super::requirements_txt::REQUIREMENTS_TXT
        ));
    }
    // Anywhere in the line: in a requirements file pip reads a word that
    // starts with `-` as an option, also after a release.
    if r.split_whitespace().any(|w| w.starts_with('-')) {
        return Some(format!("{LIKE} (pip options are not allowed)"));
    }
    let spec = r.split_once(';').map_or(r, |(s, _)| s).trim();
    if is_direct_reference(r) {
        return Some(
            "is a direct reference (a URL or a path), which pip builds from source by running its code: \
             name a release on the package index instead, like \"pkg==1.2\""
                .to_owned(),
        );
    }
    let name_end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        .unwrap_or(spec.len());
    let name = &spec[..name_end];
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Some(format!("{LIKE}: it does not start with a project name"));
    }
    let mut rest = spec[name_end..].trim_start();
    if let Some(after) = rest.strip_prefix('[') {
        let Some((extras, tail)) = after.split_once(']') else {
            return Some(format!("{LIKE}: the extras' `[` is not closed"));
        };
        let ok = extras
            .split(',')
            .all(|e| !e.trim().is_empty() && e.trim().chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)));
        if !ok {
            return Some(format!("{LIKE}: bad extras [{extras}]"));
        }
        rest = tail.trim_start();
    }
    // `(>=1, <2)`, the old way of writing the same clauses.
    let rest = rest
        .strip_prefix('(')
        .and_then(|r| r.trim_end().strip_suffix(')'))
        .unwrap_or(rest)
        .trim();
    if rest.is_empty() {
        return None;
    }
    for clause in rest.split(',') {
        let clause = clause.trim();
        let op_len = ["===", "~=", "==", "!=", "<=", ">=", "<", ">"]
            .iter()
            .find(|op| clause.starts_with(**op))
            .map(|op| op.len());
        let Some(op_len) = op_len else {
            return Some(format!(
                "{LIKE}: {clause:?} is not a version clause (==, >=, <=, !=, ~=, <, >)"
            ));
        };
        let version = clause[op_len..].trim();
        if version.is_empty()
            || !version
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._*+!-".contains(c))
        {
            let what = if version.is_empty() {
                "has no version after its operator"
            } else {
                "does not end in a valid version"
            };
            return Some(format!("{LIKE}: {clause:?} {what}"));
        }
    }
    None
}

/// Whether `r` names a URL or a path rather than a release on the index.
pub(super) fn is_direct_reference(r: &str) -> bool {
    let spec = r.split_once(';').map_or(r, |(s, _)| s).trim();
    spec.contains("://") || spec.contains('@') || spec.starts_with(['.', '/', '~']) || spec.contains('\\')
}

#[cfg(test)]
mod tests {
    use super::{is_hash_pinned, problem, spec};

    #[test]
    fn releases_on_the_index_pass_and_what_pip_would_build_or_misread_does_not() {
        for ok in [
            "requests",
            "requests>=2.31",
            "pandas[excel,plot]>=2.1,<3",
            "numpy == 2.0.*",
            "six==1.16; python_version >= \"3.8\"",
            "backports.zoneinfo (>=0.2)",
            "torch~=2.3",
        ] {
            assert_eq!(problem(ok), None, "{ok}");
        }
        for (bad, says) in [
            ("local_pkg @ file:///tmp/local_pkg-0.1.tar.gz", "direct reference"),
            ("./local_pkg", "direct reference"),
            ("https://example.com/x.whl", "direct reference"),
            ("git+https://github.com/a/b", "direct reference"),
            ("requests==", "no version"),
            ("requests 2.0", "not a version clause"),
            ("--index-url=https://evil", "pip options"),
            ("six==1 ; python_version > \"3\" --index-url x", "pip options"),
            ("six==1 --hash=sha256:00", "read from a requirements.txt"),
            ("", "is not a requirement"),
        ] {
            let why = problem(bad).unwrap_or_default();
            assert!(why.contains(says), "{bad}: {why}");
        }
    }

    #[test]
    fn a_stored_requirement_shows_its_release_and_says_whether_hashes_pin_it() {
        let pinned = "six==1.16.0 ; python_version >= \"3\" --hash=sha256:aa --hash=sha256:bb";
        assert_eq!(spec(pinned), "six==1.16.0 ; python_version >= \"3\"");
        assert!(is_hash_pinned(pinned));
        assert_eq!(spec("six==1.16.0"), "six==1.16.0");
        assert!(!is_hash_pinned("six==1.16.0"));
    }
}
