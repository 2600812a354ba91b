//! The official MCP client conformance suite (`@modelcontextprotocol/conformance`,
//! npm, installed by `scripts/install.sh` in `tests/mcp`) against our
//! `atelier-mcp-conformance`, which drives `Supervisor` / `Connection` the
//! way the app does. Scenarios we are known to fail are listed with the
//! reason in `conformance-baseline.yaml`.
//!
//! The suite's own exit code (0 when every failure is in the baseline and
//! no listed scenario passes) is not enough: a client that does nothing
//! "passes" `initialize` with no check recorded. So every scenario's
//! `checks.json` is read too: one not in the baseline must have a
//! `SUCCESS` and no `FAILURE` or `WARNING`, and every scenario of the
//! suite must have run.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn npx(prefix: &Path) -> Command {
    let mut cmd = Command::new("npx");
    cmd.arg("--prefix").arg(prefix).arg("conformance");
    cmd
}

/// The scenario names in the baseline (`client:` list, `#` comments).
fn baseline(path: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .filter_map(|l| l.strip_prefix("- "))
        .map(|s| s.trim().to_owned())
        .collect()
}

/// `DIR/[auth/]<scenario>-<timestamp>/checks.json` → scenario → its checks
/// and its folder.
fn results(dir: &Path, prefix: &str, out: &mut BTreeMap<String, (Vec<Value>, PathBuf)>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if !path.is_dir() {
            continue;
        }
        let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let checks = path.join("checks.json");
        if checks.is_file() {
            // `-2026-11-25T12-32-52-871Z`: 25 characters.
            let scenario = name
                .get(..name.len().saturating_sub(25))
                .filter(|_| name.ends_with('Z'))
                .unwrap_or_else(|| panic!("unexpected result folder {}", path.display()));
            let text = std::fs::read_to_string(&checks).unwrap_or_else(|e| panic!("{}: {e}", checks.display()));
            let list: Vec<Value> = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", checks.display()));
            out.insert(format!("{prefix}{scenario}"), (list, path.clone()));
        } else {
            results(&path, &format!("{prefix}{name}/"), out);
        }
    }
}

fn count(checks: &[Value], status: &str) -> usize {
    checks.iter().filter(|c| c["status"] == status).count()
}

#[test]
fn the_official_client_conformance_suite_passes_but_for_the_baseline() {
    let prefix = repo().join("tests/mcp");
    assert!(
        prefix.join("node_modules/@modelcontextprotocol/conformance").is_dir(),
        "{} has no @modelcontextprotocol/conformance: run scripts/install.sh",
        prefix.join("node_modules").display()
    );
    let client = env!("CARGO_BIN_EXE_atelier-mcp-conformance");
    let baseline_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance-baseline.yaml");
    let expected = baseline(&baseline_file);
    let out = tempfile::tempdir().expect("a temporary folder");

    let listed = npx(&prefix)
        .args(["list", "--client"])
        .output()
        .expect("npx runs (is node on PATH? run scripts/install.sh)");
    assert!(listed.status.success(), "conformance list --client failed: {listed:?}");
    let scenarios: BTreeSet<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .map(str::to_owned)
        .collect();
    assert!(
        !scenarios.is_empty(),
        "conformance list --client named no scenario: {listed:?}"
    );
    let unknown: Vec<_> = expected.difference(&scenarios).collect();
    assert!(
        unknown.is_empty(),
        "the baseline names scenarios the suite does not have: {unknown:?}"
    );

    let started = Instant::now();
    let run = npx(&prefix)
        .args(["client", "--command", client, "--suite", "all", "--expected-failures"])
        .arg(&baseline_file)
        .arg("-o")
        .arg(out.path())
        .output()
        .expect("npx runs");
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let summary = stdout
        .rfind("=== SUITE SUMMARY")
        .map_or(&stdout[..], |at| &stdout[at..]);

    let mut checks = BTreeMap::new();
    results(out.path(), "", &mut checks);
    let ran: BTreeSet<String> = checks.keys().cloned().collect();
    let missing: Vec<_> = scenarios.difference(&ran).collect();
    assert!(missing.is_empty(), "no checks.json for {missing:?}\n{summary}");

    let mut passed = Vec::new();
    let mut failed = Vec::new();
    for (scenario, (list, _)) in &checks {
        let ok = count(list, "SUCCESS") > 0 && count(list, "FAILURE") == 0 && count(list, "WARNING") == 0;
        if ok {
            passed.push(scenario.clone());
        } else {
            failed.push(scenario.clone());
        }
    }
    let unexpected: Vec<_> = failed.iter().filter(|s| !expected.contains(*s)).collect();
    let stale: Vec<_> = passed.iter().filter(|s| expected.contains(*s)).collect();
    assert!(
        unexpected.is_empty(),
        "scenarios failed that are not in conformance-baseline.yaml: {unexpected:?}\n{summary}"
    );
    assert!(
        stale.is_empty(),
        "scenarios in conformance-baseline.yaml now pass (remove them): {stale:?}\n{summary}"
    );
    assert!(
        run.status.success(),
        "the suite failed ({}):\n{stdout}\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );

    // The auth scenarios still failing are refusals (an issuer that does
    // not match, a grant we do not do): what we owe them is a sign-in that
    // stops with a clear error, not a hang or a confusing one.
    for scenario in failed.iter().filter(|s| s.starts_with("auth/")) {
        let dir = &checks[scenario].1;
        let stderr = std::fs::read_to_string(dir.join("stderr.txt")).unwrap_or_default();
        assert!(
            stderr.contains("the sign-in failed: "),
            "{scenario}: the client did not end with a sign-in error; its stderr:\n{stderr}"
        );
    }

    eprintln!(
        "conformance: {}/{} scenarios pass, {} expected failures ({:.1} s): passing {passed:?}",
        passed.len(),
        checks.len(),
        failed.len(),
        took.as_secs_f64()
    );
}
