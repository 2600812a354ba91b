//! A bundle whose manifest lists no `python.requirements` may keep them
//! where Python projects do, in a `requirements.txt` at its root: its lines
//! are read as `python.requirements`, under the same rules
//! ([`apply_requirements_txt`]), except that what a project's own file
//! holds for pip alone (`-e .`, `-r dev.txt`, `--index-url …`, a direct
//! reference) is a warning naming its line and is not installed.
//!
//! `--hash=` pins (pip-compile `--generate-hashes`, the usual way to lock
//! a project's supply chain) are kept when every requirement of the file
//! carries at least one: each requirement is stored with them
//! ([`super::requirement`]) and installed in pip's hash-checking mode, so a
//! file that is not the one the author locked fails the install. pip's
//! hash-checking mode takes all requirements or none, so a file where only
//! some lines carry hashes could not be installed with them: there they
//! are taken off, with a warning naming a line without one.

use super::requirement::{HASH_OPTION, is_direct_reference, problem};
use super::{Checked, Problem, Severity};

/// The file a bundle's requirements are read from when its manifest
/// lists none.
pub(crate) const REQUIREMENTS_TXT: &str = "requirements.txt";

/// The hash algorithms pip's hash-checking mode takes (uv too), and the
/// length of their hex digests.
const ALGORITHMS: [(&str, usize); 3] = [("sha256", 64), ("sha384", 96), ("sha512", 128)];

/// A requirement line of the file that is installed.
struct Line {
    /// The line it starts on.
    start: usize,
    /// The release, without its hashes.
    spec: String,
    /// The values of its `--hash` options (`sha256:…`).
    hashes: Vec<String>,
}

/// The requirements of a `requirements.txt`, one a line: comments (`#`
/// at the start, or after a space) and blank lines skipped, a line ending
/// in `\` continued on the next, `--hash=` options kept when every line has
/// one (see the module's paragraph). A line that is not a release on the
/// index (a URL, a path, `-e`, `--index-url` or any other option, `-r`
/// another file) is a warning naming its line, and is not installed; a
/// line that names a release badly, or a hash pip would not check, is an
/// error.
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
    let (mut kept, mut problems) = (Vec::<Line>::new(), Vec::new());
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
        let (content, hashes) = without_hashes(content);
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
            kept.push(Line {
                start,
                spec: content,
                hashes,
            });
        }
    }
    let hashed: Vec<&Line> = kept.iter().filter(|l| !l.hashes.is_empty()).collect();
    let Some(first) = hashed.first() else {
        return (kept.into_iter().map(|l| l.spec).collect(), problems);
    };
    if let Some(bare) = kept.iter().find(|l| l.hashes.is_empty()) {
        problems.push(at_line(
            Severity::Warning,
            first.start,
            format!(
                "the --hash pins of {} requirement(s) are not checked: pip checks hashes only when every \
                 requirement carries one, and line {} (`{}`) has none; Atelier installs the pinned versions \
                 without comparing hashes",
                hashed.len(),
                bare.start,
                bare.spec
            ),
        ));
        return (kept.into_iter().map(|l| l.spec).collect(), problems);
    }
    for line in &kept {
        for hash in &line.hashes {
            if let Some(why) = bad_hash(hash) {
                problems.push(at_line(Severity::Error, line.start, format!("`--hash={hash}` {why}")));
            }
        }
        if !is_pinned(&line.spec) {
            problems.push(at_line(
                Severity::Error,
                line.start,
                format!(
                    "`{}` carries --hash pins but no exact version: pip checks hashes only of releases pinned \
                     with ==",
                    line.spec
                ),
            ));
        }
    }
    let out = kept
        .into_iter()
        .map(|l| {
            let pins: Vec<String> = l
                .hashes
                .iter()
                .map(|h| format!("{HASH_OPTION}{}", h.to_ascii_lowercase()))
                .collect();
            format!("{} {}", l.spec, pins.join(" "))
        })
        .collect();
    (out, problems)
}

/// `line` without its `--hash=…` / `--hash …` options, and their values.
fn without_hashes(line: &str) -> (String, Vec<String>) {
    let mut words = line.split_whitespace();
    let (mut kept, mut hashes) = (Vec::new(), Vec::new());
    while let Some(w) = words.next() {
        if let Some(value) = w.strip_prefix(HASH_OPTION) {
            hashes.push(value.to_owned());
        } else if w == "--hash" {
            hashes.push(words.next().unwrap_or_default().to_owned());
        } else {
            kept.push(w);
        }
    }
    if hashes.is_empty() {
        return (line.to_owned(), hashes);
    }
    (kept.join(" "), hashes)
}

/// Why pip would not check `hash` (`sha256:…`), if it would not.
fn bad_hash(hash: &str) -> Option<String> {
    let (algorithm, hex) = hash.split_once(':').unwrap_or(("", hash));
    let length = ALGORITHMS
        .iter()
        .find(|(a, _)| a.eq_ignore_ascii_case(algorithm))
        .map(|(_, n)| *n);
    match length {
        Some(n) if hex.len() == n && hex.chars().all(|c| c.is_ascii_hexdigit()) => None,
        Some(n) => Some(format!("is not a {algorithm} hash: that is {n} hexadecimal digits")),
        None => {
            Some("is not a hash pip checks: write --hash=sha256:<64 hexadecimal digits> (or sha384, sha512)".into())
        }
    }
}

/// Whether `spec` names one exact version (`==1.2`, `===1.2`, not `==1.*`):
/// hash-checking installs only those.
fn is_pinned(spec: &str) -> bool {
    let spec = spec.split_once(';').map_or(spec, |(s, _)| s);
    let Some(clauses) = spec.find(['=', '<', '>', '!', '~']).map(|at| spec[at..].trim()) else {
        return false;
    };
    let clauses = clauses.trim_end_matches(')').trim_end();
    clauses.starts_with("==") && !clauses.contains(',') && !clauses.ends_with(".*")
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

/// The requirements a bundle's `requirements.txt` gives when its manifest
/// lists none; `None` when the file is refused.
pub(crate) fn requirements_of(bytes: &[u8]) -> Option<Vec<String>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let (requirements, problems) = read_lines(text.strip_prefix('\u{feff}').unwrap_or(text));
    problems
        .iter()
        .all(|p| p.severity != Severity::Error)
        .then_some(requirements)
}

#[cfg(test)]
mod tests {
    use super::{Severity, read_lines};

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

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const B: &str = "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";

    /// pip-compile --generate-hashes: each pin followed by its hashes on
    /// continued lines, every requirement pinned: the hashes are kept, in
    /// the one form a stored requirement carries them.
    #[test]
    fn a_file_whose_every_requirement_carries_hashes_keeps_them() {
        let (ok, problems) = read_lines(&format!(
            "humanize==4.9.0 \\\n    --hash=sha256:{A} \\\n    --hash=sha256:{B}\n    # via -r requirements.in\n\
             six==1.16.0 ; python_version >= \"3\" \\\n    --hash sha256:{A}\n-e .\n"
        ));
        let b = B.to_ascii_lowercase();
        assert_eq!(
            ok,
            [
                format!("humanize==4.9.0 --hash=sha256:{A} --hash=sha256:{b}"),
                format!("six==1.16.0 ; python_version >= \"3\" --hash=sha256:{A}"),
            ]
        );
        // Only `-e .`'s warning: no word about hashes not being checked.
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].message.starts_with("`-e .` is not installed"),
            "{problems:?}"
        );
    }

    /// pip checks hashes only when every requirement has one: a file where
    /// some lines have none is installed as it was before hashes were
    /// kept, and the warning says why.
    #[test]
    fn a_file_where_only_some_lines_carry_hashes_installs_without_them_and_says_why() {
        let (ok, problems) = read_lines(&format!(
            "humanize==4.9.0 \\\n    --hash=sha256:{A} \\\n    --hash=sha256:{B}\n\
             six==1.16.0 ; python_version >= \"3\" \\\n    --hash sha256:{A}\nplain==1\n"
        ));
        assert_eq!(
            ok,
            ["humanize==4.9.0", "six==1.16.0 ; python_version >= \"3\"", "plain==1"]
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!((problems[0].severity, problems[0].line), (Severity::Warning, Some(1)));
        assert!(
            problems[0].message.contains(
                "--hash pins of 2 requirement(s) are not checked: pip checks hashes only when every requirement \
                 carries one, and line 6 (`plain==1`) has none"
            ),
            "{}",
            problems[0]
        );
    }

    /// What pip's hash-checking mode would refuse is refused at import,
    /// naming the line, rather than when pip runs.
    #[test]
    fn hashes_pip_would_not_check_and_versions_that_are_not_pinned_are_errors_naming_their_line() {
        let (_, problems) = read_lines(&format!(
            "a==1 --hash=sha256:{A}\nb==1 --hash=md5:{A}\nc==1 --hash=sha256:abc\nd>=1 --hash=sha256:{A}\n\
             e==1.* --hash=sha256:{A}\nf===1 --hash=sha512:{A}{A}\n"
        ));
        let said: Vec<(Severity, Option<usize>, &str)> = problems
            .iter()
            .map(|p| (p.severity, p.line, p.message.as_str()))
            .collect();
        assert_eq!(said.len(), 4, "{said:?}");
        assert!(said.iter().all(|s| s.0 == Severity::Error), "{said:?}");
        assert!(
            said[0].1 == Some(2) && said[0].2.contains("not a hash pip checks"),
            "{said:?}"
        );
        assert!(
            said[1].1 == Some(3) && said[1].2.contains("not a sha256 hash"),
            "{said:?}"
        );
        assert!(
            said[2].1 == Some(4) && said[2].2.contains("no exact version"),
            "{said:?}"
        );
        assert!(
            said[3].1 == Some(5) && said[3].2.contains("no exact version"),
            "{said:?}"
        );
    }
}
