//! One line of `python.requirements`: a release on the package index,
//! named as PEP 508 names one — a project, its extras, version clauses, a
//! marker (`pandas[excel]>=2.1,<3; python_version >= "3.10"`). A direct
//! reference (`pkg @ https://…`, `./pkg`, a file) is refused: pip builds
//! it from source, running its `setup.py` with the person's rights, which
//! `--only-binary` does not stop; so are pip options, which could name
//! another index.
//!
//! A bundle whose manifest lists none may keep them where Python projects
//! do, in a `requirements.txt` at its root: its lines are read as
//! `python.requirements`, under the same rules ([`apply_requirements_txt`]),
//! except that what a project's own file holds for pip alone (`-e .`,
//! `-r dev.txt`, `--index-url …`, a direct reference) is a warning naming
//! its line and is not installed, and `--hash=` pins (pip-compile
//! `--generate-hashes`) are taken off with a warning that they are not
//! checked.

use super::{Checked, Problem, Severity};

/// The file a bundle's requirements are read from when its manifest
/// lists none.
pub(crate) const REQUIREMENTS_TXT: &str = "requirements.txt";

/// Why `line` is not a requirement Atelier installs; `None` when it is.
pub(super) fn problem(line: &str) -> Option<String> {
    const LIKE: &str = "is not a requirement like \"requests>=2.31\"";
    let r = line.trim();
    if r.is_empty() || r.contains(['\n', '\r']) {
        return Some(LIKE.to_owned());
    }
    if r.starts_with('-') {
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
fn is_direct_reference(r: &str) -> bool {
    let spec = r.split_once(';').map_or(r, |(s, _)| s).trim();
    spec.contains("://") || spec.contains('@') || spec.starts_with(['.', '/', '~']) || spec.contains('\\')
}

/// The requirements of a `requirements.txt`, one a line: comments (`#`
/// at the start, or after a space) and blank lines skipped, a line ending
/// in `\` continued on the next, `--hash=` options taken off (one warning
/// for the file: they are not checked). A line that is not a release on
/// the index (a URL, a path, `-e`, `--index-url` or any other option, `-r`
/// another file) is a warning naming its line, and is not installed; a
/// line that names a release badly is an error.
fn read_lines(text: &str) -> (Vec<String>, Vec<Problem>) {
    // Logical lines: (the line it starts on, its text).
    let mut lines: Vec<(usize, String)> = Vec::new();
    let mut continued = false;
    for (i, raw) in text.lines().enumerate() {
        match lines.last_mut() {
            Some((_, line)) if continued => line.push_str(raw),
            _ => lines.push((i + 1, raw.to_owned())),
        }
        let line = &mut lines.last_mut().expect("just pushed").1;
        continued = line.ends_with('\\');
        if continued {
            line.pop();
        }
    }
    let (mut out, mut problems) = (Vec::new(), Vec::new());
    let mut hashed: Vec<usize> = Vec::new();
    let at_line = |severity, start, message| Problem {
        severity,
        file: Some(REQUIREMENTS_TXT.to_owned()),
        path: "python.requirements".to_owned(),
        line: Some(start),
        column: Some(1),
        message,
    };
    for (start, line) in lines {
        let content = match line.find('#') {
            Some(at) if at == 0 || line[..at].ends_with(char::is_whitespace) => &line[..at],
            _ => line.as_str(),
        }
        .trim();
        if content.is_empty() {
            continue;
        }
        let (content, had_hashes) = without_hashes(content);
        if had_hashes {
            hashed.push(start);
        }
        if content.starts_with('-') || is_direct_reference(&content) {
            problems.push(at_line(
                Severity::Warning,
                start,
                format!(
                    "`{content}` is not installed: Atelier installs named releases only; list what the tools need \
                     under python.requirements in toolset.yaml"
                ),
            ));
        } else if let Some(why) = problem(&content) {
            problems.push(at_line(Severity::Error, start, format!("{content:?} {why}")));
        } else {
            out.push(content);
        }
    }
    if let Some(first) = hashed.first() {
        problems.push(at_line(
            Severity::Warning,
            *first,
            format!(
                "the --hash pins of {} requirement(s) are not checked: Atelier installs the pinned versions from \
                 the index without comparing hashes",
                hashed.len()
            ),
        ));
    }
    (out, problems)
}

/// `line` without its `--hash=…` / `--hash …` options, and whether it had
/// any.
fn without_hashes(line: &str) -> (String, bool) {
    let mut words = line.split_whitespace();
    let (mut kept, mut had) = (Vec::new(), false);
    while let Some(w) = words.next() {
        if w.starts_with("--hash=") {
            had = true;
        } else if w == "--hash" {
            had = true;
            words.next();
        } else {
            kept.push(w);
        }
    }
    if !had {
        return (line.to_owned(), false);
    }
    (kept.join(" "), true)
}

/// Reads a bundle's root `requirements.txt` (`bytes`, when it has one)
/// into `checked`: as its `python.requirements` when the manifest lists
/// none, each line checked as they are; when the manifest lists some, a
/// warning that the file is not read. Returns whether the requirements came
/// from the file.
pub(crate) fn apply_requirements_txt(checked: &mut Checked, bytes: Option<&[u8]>) -> bool {
    let (Some(bytes), Some(manifest)) = (bytes, checked.manifest.as_mut()) else {
        return false;
    };
    if !manifest.python.requirements.is_empty() {
        checked.problems.push(Problem::at(
            Severity::Warning,
            "python.requirements",
            format!(
                "{REQUIREMENTS_TXT} is not read: python.requirements lists what is installed (move its lines there, \
                 or drop python.requirements to have the file read)"
            ),
        ));
        return false;
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        checked.problems.push(Problem {
            file: Some(REQUIREMENTS_TXT.to_owned()),
            ..Problem::at(Severity::Error, "python.requirements", "is not UTF-8 text")
        });
        checked.manifest = None;
        return false;
    };
    let (requirements, problems) = read_lines(text.strip_prefix('\u{feff}').unwrap_or(text));
    let refused = problems.iter().any(|p| p.severity == Severity::Error);
    checked.problems.extend(problems);
    if refused {
        checked.manifest = None;
        return false;
    }
    manifest.python.requirements = requirements;
    !manifest.python.requirements.is_empty()
}

#[cfg(test)]
mod tests {
    use super::{Severity, problem, read_lines};

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
            ("", "is not a requirement"),
        ] {
            let why = problem(bad).unwrap_or_default();
            assert!(why.contains(says), "{bad}: {why}");
        }
    }

    #[test]
    fn requirements_txt_lines_are_read_as_requirements_and_what_pip_alone_reads_is_named_by_line() {
        let (ok, problems) = read_lines(
            "# pinned\n\nhumanize==4.9.0  # sizes\nrequests[socks]>=2.31; python_version >= \"3.9\"\npandas>=2,\\\n  <3\n",
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            ok,
            [
                "humanize==4.9.0",
                "requests[socks]>=2.31; python_version >= \"3.9\"",
                "pandas>=2,  <3"
            ]
        );
        // A project's own file: what pip alone reads is a warning naming
        // its line, not installed; the rest is.
        let (ok, problems) = read_lines(
            "ok==1\n-e .\n--index-url https://evil\n./pkg\n-r other.txt\nx @ https://a/x.whl\nrequests 2.0\n",
        );
        assert_eq!(ok, ["ok==1"]);
        let said: Vec<(Severity, Option<usize>, &str)> = problems
            .iter()
            .map(|p| (p.severity, p.line, p.message.as_str()))
            .collect();
        assert_eq!(said.len(), 6, "{said:?}");
        for (i, what) in [
            "-e .",
            "--index-url https://evil",
            "./pkg",
            "-r other.txt",
            "x @ https://a/x.whl",
        ]
        .into_iter()
        .enumerate()
        {
            assert_eq!(said[i].0, Severity::Warning, "{said:?}");
            assert_eq!(said[i].1, Some(i + 2), "{said:?}");
            assert!(said[i].2.starts_with(&format!("`{what}` is not installed")), "{said:?}");
        }
        assert!(
            said[5] == (Severity::Error, Some(7), said[5].2) && said[5].2.contains("not a version clause"),
            "{said:?}"
        );
        assert_eq!(
            problems[0].to_string(),
            "requirements.txt:2:1 warning python.requirements: `-e .` is not installed: Atelier installs named releases \
             only; list what the tools need under python.requirements in toolset.yaml"
        );
    }

    /// pip-compile --generate-hashes: each pin followed by its hashes on
    /// continued lines; the whole file used to be refused.
    #[test]
    fn hash_pinned_requirements_are_read_with_one_warning_that_hashes_are_not_checked() {
        let (ok, problems) = read_lines(
            "humanize==4.9.0 \\\n    --hash=sha256:aaaa \\\n    --hash=sha256:bbbb\n    # via -r requirements.in\n\
             six==1.16.0 ; python_version >= \"3\" \\\n    --hash sha256:cccc\nplain==1\n",
        );
        assert_eq!(
            ok,
            ["humanize==4.9.0", "six==1.16.0 ; python_version >= \"3\"", "plain==1"]
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].severity, Severity::Warning);
        assert_eq!(problems[0].line, Some(1));
        assert!(
            problems[0]
                .message
                .contains("--hash pins of 2 requirement(s) are not checked"),
            "{}",
            problems[0]
        );
    }
}
