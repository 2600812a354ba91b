//! Which files of a toolset folder are not part of the toolset: names no
//! bundle ever holds (dot-files, `__pycache__`, macOS and Windows debris),
//! sensible defaults (compiled Python, editor backups, `node_modules`,
//! `venv/`, and at the top only, where tools put them, `env/` and build
//! output: a package `tools/build/` stays), and the author's own
//! `.atelierignore` — gitignore
//! syntax: `#` comments, `!` to take a name back, a trailing `/` for
//! folders only, a `/` anywhere else to anchor the pattern at the folder's
//! top, `*`, `?` and `**`. The last pattern that matches wins.
//!
//! The same rules decide what `pack` puts in a ZIP, what a local import
//! copies and what the dev watcher hashes, so a `venv/` in the folder is
//! never packed, copied or watched.

use std::path::Path;

/// The author's file of patterns, at the top of the folder.
pub const IGNORE_FILE: &str = ".atelierignore";

/// Patterns every folder starts with.
const DEFAULTS: &[&str] = &[
    "*.pyc",
    "*.pyo",
    "*~",
    "*.swp",
    "*.swo",
    "#*#",
    "venv/",
    "/env/",
    "*.egg-info/",
    "/dist/",
    "/build/",
    // A Node server's dependencies are the author's to bundle
    // (`!node_modules/`); a renderer's build tooling is not.
    "node_modules/",
];

/// A name no bundle ever holds, whatever the patterns say (the
/// `.atelierignore` itself included: it is the author's, not the bundle's).
/// A ZIP's `node_modules` is kept: its author put it there for a server.
pub fn always_ignored(segment: &str) -> bool {
    segment.starts_with('.')
        || matches!(segment, "__pycache__" | "__MACOSX")
        || segment.eq_ignore_ascii_case("Thumbs.db")
        || segment.eq_ignore_ascii_case("desktop.ini")
}

#[derive(Debug, Clone)]
struct Pattern {
    glob: String,
    negated: bool,
    dir_only: bool,
    anchored: bool,
}

/// The rules of one folder.
#[derive(Debug, Clone)]
pub struct Ignore {
    patterns: Vec<Pattern>,
}

impl Ignore {
    /// The defaults, then the folder's `.atelierignore` if it has one.
    pub fn for_folder(dir: &Path) -> Self {
        let own = std::fs::read_to_string(dir.join(IGNORE_FILE)).unwrap_or_default();
        Self::from_lines(DEFAULTS.iter().copied().chain(own.lines()))
    }

    fn from_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> Self {
        let patterns = lines
            .into_iter()
            .filter_map(|line| {
                let line = line.trim_end();
                if line.is_empty() || line.starts_with('#') && !line.starts_with("#*") {
                    return None;
                }
                let (negated, rest) = match line.strip_prefix('!') {
                    Some(r) => (true, r),
                    None => (false, line.strip_prefix('\\').unwrap_or(line)),
                };
                let (dir_only, rest) = match rest.strip_suffix('/') {
                    Some(r) => (true, r),
                    None => (false, rest),
                };
                let anchored = rest.contains('/');
                let glob = rest.trim_start_matches('/').to_owned();
                (!glob.is_empty()).then_some(Pattern {
                    glob,
                    negated,
                    dir_only,
                    anchored,
                })
            })
            .collect();
        Self { patterns }
    }

    /// Whether `rel` (`/`-separated, relative to the folder) is left out.
    /// Called for each entry as a walk meets it, folders before what they
    /// hold: a folder left out is not entered.
    pub fn ignored(&self, rel: &str, is_dir: bool) -> bool {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        if always_ignored(name) {
            return true;
        }
        let mut out = false;
        for p in &self.patterns {
            if p.dir_only && !is_dir {
                continue;
            }
            let hit = if p.anchored {
                glob(&p.glob, rel)
            } else {
                glob(&p.glob, name)
            };
            if hit {
                out = !p.negated;
            }
        }
        out
    }
}

/// gitignore's glob: `*` and `?` stop at `/`, `**` crosses it.
fn glob(pattern: &str, text: &str) -> bool {
    fn go(p: &[u8], t: &[u8]) -> bool {
        match p.first() {
            None => t.is_empty(),
            Some(b'*') if p.get(1) == Some(&b'*') => {
                let rest = p[2..].strip_prefix(b"/").unwrap_or(&p[2..]);
                (0..=t.len()).any(|i| go(rest, &t[i..]))
            }
            Some(b'*') => (0..=t.len())
                .take_while(|&i| i == 0 || t[i - 1] != b'/')
                .any(|i| go(&p[1..], &t[i..])),
            Some(b'?') => t.first().is_some_and(|&c| c != b'/') && go(&p[1..], &t[1..]),
            Some(&c) => t.first() == Some(&c) && go(&p[1..], &t[1..]),
        }
    }
    go(pattern.as_bytes(), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_leave_out_build_debris_and_environments() {
        let i = Ignore::from_lines(DEFAULTS.iter().copied());
        for (rel, dir) in [
            ("tools/a.pyc", false),
            ("notes.txt~", false),
            ("venv", true),
            ("server/venv", true),
            ("build", true),
            ("dist", true),
            ("server/node_modules", true),
            (".git", true),
            ("tools/__pycache__", true),
            ("#draft.py#", false),
            ("Thumbs.db", false),
            ("assets/desktop.ini", false),
        ] {
            assert!(i.ignored(rel, dir), "{rel}");
        }
        // Packages named like build output, below the top, are tools.
        for (rel, dir) in [
            ("tools/a.py", false),
            ("venv", false),
            ("README.md", false),
            ("tools/build", true),
            ("tools/env", true),
            ("tools/dist", true),
        ] {
            assert!(!i.ignored(rel, dir), "{rel}");
        }
    }

    #[test]
    fn a_node_servers_dependencies_are_taken_back_with_one_line() {
        let i = Ignore::from_lines(DEFAULTS.iter().copied().chain(["!node_modules/"]));
        assert!(!i.ignored("server/node_modules", true));
        assert!(!always_ignored("node_modules"), "a ZIP's node_modules is installed");
    }

    #[test]
    fn an_authors_patterns_anchor_negate_and_cross_folders() {
        let i = Ignore::from_lines([
            "data/*.csv",
            "!data/keep.csv",
            "secrets.txt",
            "docs/**/draft*",
            "/top.log",
        ]);
        assert!(i.ignored("data/big.csv", false));
        assert!(!i.ignored("data/keep.csv", false), "taken back");
        assert!(!i.ignored("data/sub/big.csv", false), "* stops at /");
        assert!(i.ignored("a/b/secrets.txt", false), "a bare name matches at any depth");
        assert!(i.ignored("docs/x/y/draft-1.md", false));
        assert!(
            i.ignored("top.log", false) && !i.ignored("sub/top.log", false),
            "a leading / anchors"
        );
    }
}
