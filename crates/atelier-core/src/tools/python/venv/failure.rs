//! An installer's failure in words a person reads: which requirement
//! failed (named by its release, not its hashes), the lines of the
//! installer's output that say why, and, where the output shows the cause
//! — a download matching none of its `--hash` pins, no network, a release
//! published as source only — a sentence saying it and the way out.

use crate::toolsets::validate::requirement::spec;

/// The requirement that failed, if the output names one, and the message:
/// what went wrong, then the installer's own lines, then a hint.
pub(super) fn explain(output: &str, requirements: &[String], allow_source: bool) -> (Option<String>, String) {
    let said = what_failed(output);
    let mut message = if hash_mismatch(output) {
        format!(
            "the downloaded file does not match the hash the bundle pinned (its requirements.txt's --hash): it \
             is not the file the bundle was locked to (changed since, or pinned wrong), so nothing was \
             installed\n{said}"
        )
    } else {
        said.clone()
    };
    if let Some(hint) = install_hint(output, allow_source) {
        message.push('\n');
        message.push_str(hint);
    }
    (failed_requirement(requirements, &said), message)
}

/// The lines of an installer's output that say what went wrong: from its
/// first error line on (pip's `ERROR:`, uv's `×`/`error:`), else the last
/// few. Every line already went by as a progress step; the error repeats
/// only these.
fn what_failed(output: &str) -> String {
    let mut lines = output.lines();
    let head = lines.next().unwrap_or_default();
    let rest: Vec<&str> = lines.collect();
    let is_error = |l: &str| {
        let t = l.trim_start();
        t.starts_with("ERROR") || t.starts_with("error:") || t.starts_with('×') || t.starts_with("╰─▶")
    };
    let picked: Vec<&str> = match rest.iter().position(|l| is_error(l)) {
        Some(i) => rest[i..].iter().take(20).copied().collect(),
        None => rest.iter().rev().take(10).rev().copied().collect(),
    };
    format!("{head}\n{}", picked.join("\n"))
}

/// What to do about an installer's failure, when its output says.
fn install_hint(output: &str, allow_source: bool) -> Option<&'static str> {
    if looks_offline(output) {
        return Some(
            "(no network? put the wheels in a folder and set ATELIER_FIND_LINKS to it, with \
             ATELIER_NO_INDEX=1 to use only that folder)",
        );
    }
    // Hash-checking needs every package pinned, dependencies too: pip
    // lists the ones missing, uv names them.
    if !hash_mismatch(output) && output.contains("require-hashes") {
        return Some(
            "(a hash-pinned requirements.txt must pin every package installed, dependencies included, with == \
             and --hash: pip-compile --generate-hashes writes such a file)",
        );
    }
    // pip says "from versions: none" of a release published as source
    // only; uv explains it, pip does not.
    (!allow_source && output.contains("No matching distribution found")).then_some(
        "(Atelier installs binary wheels only: this release may exist only as source; \
         ATELIER_ALLOW_SOURCE=1 allows building it, which runs its setup code)",
    )
}

/// Whether an installer refused a download for matching none of its
/// requirement's `--hash` pins (pip: "DO NOT MATCH THE HASHES"; uv: "Hash
/// mismatch for").
fn hash_mismatch(output: &str) -> bool {
    output.contains("DO NOT MATCH THE HASHES") || output.contains("Hash mismatch for")
}

/// Whether an installer failed for want of a network.
fn looks_offline(output: &str) -> bool {
    let o = output.to_ascii_lowercase();
    [
        "failed to establish a new connection",
        "network is unreachable",
        "temporary failure in name resolution",
        "name or service not known",
        "dns error",
        "failed to fetch",
        "connection refused",
        "could not connect",
    ]
    .iter()
    .any(|p| o.contains(p))
}

/// The requirement the error lines name: the one named last (installers
/// end with the package that failed), matched as a whole name (`six` is
/// not in `sixteen`).
fn failed_requirement(requirements: &[String], message: &str) -> Option<String> {
    let norm = |s: &str| s.to_ascii_lowercase().replace(['_', '.'], "-");
    let text = norm(message);
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '-';
    let last_at = |name: &str| -> Option<usize> {
        text.match_indices(name)
            .filter(|(at, _)| {
                let before = text[..*at].chars().next_back();
                let after = text[at + name.len()..].chars().next();
                !before.is_some_and(is_name) && !after.is_some_and(is_name)
            })
            .map(|(at, _)| at)
            .last()
    };
    requirements
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let name: String = r
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                .collect();
            (!name.is_empty()).then_some(())?;
            last_at(&norm(&name)).map(|at| (at, i, r))
        })
        .max_by_key(|(at, _, _)| *at)
        .map(|(_, i, r)| format!("python.requirements[{i}] `{}`", spec(r)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_only_release_under_pip_says_why_and_the_way_out() {
        let pip = "ERROR: Could not find a version that satisfies the requirement docopt==0.6.2 (from versions: none)\n\
                   ERROR: No matching distribution found for docopt==0.6.2";
        let hint = install_hint(pip, false).unwrap_or_default();
        assert!(
            hint.contains("binary wheels only") && hint.contains("ATELIER_ALLOW_SOURCE=1"),
            "{hint}"
        );
        assert_eq!(install_hint(pip, true), None, "source allowed: it was not that");
        assert!(install_hint("Failed to establish a new connection", false).is_some_and(|h| h.contains("FIND_LINKS")));
    }

    #[test]
    fn a_failure_names_the_requirement_it_mentions() {
        let reqs = vec!["requests>=2".to_owned(), "No_Such_Pkg==1".to_owned()];
        let msg = "error: Because no-such-pkg was not found in the package registry";
        assert_eq!(
            failed_requirement(&reqs, msg).as_deref(),
            Some("python.requirements[1] `No_Such_Pkg==1`")
        );
        assert_eq!(failed_requirement(&reqs, "network down"), None);
    }

    #[test]
    fn the_requirement_that_failed_is_named_not_the_first_one_listed() {
        let reqs = vec!["six==1.16".to_owned(), "requests>=2".to_owned(), "nosuch==1".to_owned()];
        // pip lists what it collected before saying what failed.
        let pip = "pip failed (exit status: 1):\nCollecting six==1.16\n  Using cached six-1.16.0-py2.py3-none-any.whl\n\
                   Collecting requests>=2\nERROR: Could not find a version that satisfies the requirement nosuch==1 \
                   (from versions: none)\nERROR: No matching distribution found for nosuch==1";
        let said = what_failed(pip);
        assert!(!said.contains("Collecting"), "only the error lines: {said}");
        assert!(said.contains("No matching distribution found for nosuch==1"), "{said}");
        assert_eq!(
            failed_requirement(&reqs, &said).as_deref(),
            Some("python.requirements[2] `nosuch==1`")
        );
        // A name inside a longer one is not that name.
        let reqs = vec!["six".to_owned(), "sixteen==2".to_owned()];
        assert_eq!(
            failed_requirement(&reqs, "error: sixteen==2 was not found").as_deref(),
            Some("python.requirements[1] `sixteen==2`")
        );
    }

    /// What pip 23 and uv 0.13 print when a download matches no pin.
    #[test]
    fn a_download_that_matches_no_hash_pin_is_recognized_and_named() {
        let reqs = vec!["tinyfmt==1.0.0 --hash=sha256:0000".to_owned()];
        let pip = "pip failed (exit status: 1):\nProcessing ./w/tinyfmt-1.0.0-py3-none-any.whl\n\
                   ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated \
                   the package versions, please update the hashes.\n    tinyfmt==1.0.0 from file:///w/tinyfmt-1.0.0-\
                   py3-none-any.whl (from -r r.txt (line 1)):\n        Expected sha256 0000\n             Got        3411";
        let uv = "uv failed (exit status: 1):\nResolved 1 package in 5ms\nerror: Failed to download `tinyfmt==1.0.0`\n  \
                  cause: Hash mismatch for `tinyfmt==1.0.0`\n\n         Expected:\n           sha256:0000";
        for out in [pip, uv] {
            assert!(hash_mismatch(out), "{out}");
            assert_eq!(
                failed_requirement(&reqs, &what_failed(out)).as_deref(),
                Some("python.requirements[0] `tinyfmt==1.0.0`"),
                "named by its release, without its pins"
            );
            assert_eq!(install_hint(out, false), None);
        }
        let missing =
            "ERROR: Hashes are required in --require-hashes mode, but they are missing from some requirements.";
        assert!(!hash_mismatch(missing));
        assert!(install_hint(missing, false).is_some_and(|h| h.contains("dependencies included")));
    }

    #[test]
    fn an_offline_failure_is_recognized() {
        assert!(looks_offline(
            "WARNING: Retrying … Failed to establish a new connection: [Errno 101] Network is unreachable"
        ));
        assert!(looks_offline(
            "error: Failed to fetch: `https://x/simple/six/`\n  Caused by: dns error"
        ));
        assert!(!looks_offline("ERROR: No matching distribution found for nosuch==1"));
    }
}
