#!/usr/bin/env bash
# Runs every test: formatting, lints, unit and scenario tests (nextest),
# doc tests, and the desktop app end to end (scripts/e2e.sh). `.ci/run`
# calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
source scripts/env.sh
# A fresh clone gains nothing from incremental caches: they only cost disk
# (15 GB of it on a machine that builds this workspace every day) and time.
if [ "${CI:-}" = "true" ]; then
  export CARGO_INCREMENTAL=0
fi

# Each step says when it began (seconds since the start): where the time goes.
say() { printf '\033[1m==> [%4d s] %s\033[0m\n' "$SECONDS" "$*" >&2; }

# The desktop app embeds the built UI (tauri.conf.json: ../ui/dist), so
# the UI is installed, type-checked, built and tested before cargo runs.
say "ui: npm ci, build, test"
npm ci --prefix ui --no-audit --no-fund
npm --prefix ui run build
say "ui and e2e: ESLint, Prettier"
npm --prefix ui run lint
npm --prefix ui run format:check
npm --prefix ui test

say "core layering (scripts/layers.py: no upward import, no cycle)"
python3 scripts/layers.py --max 0
say "cargo fmt --check"
cargo fmt --all -- --check
# Clippy lints every target of the workspace (-D warnings) while it is built
# for the tests, instead of in a pass of its own: `cargo clippy` only checks,
# so its dependencies' metadata is made apart from the build's, and on a fresh
# clone that pass took 14 of the run's minutes on two cores. clippy-driver is
# rustc with clippy's lints; as the workspace's wrapper it compiles as rustc
# does, and fails the build on a lint as `cargo clippy -- -D warnings` does
# (CLIPPY_ARGS is how cargo-clippy hands it those arguments). The variables
# stay set, so nextest and the doc tests find this build fresh. By hand:
# `cargo clippy --workspace --all-targets -- -D warnings`.
say "build every target, linted by clippy"
# (Assigned apart from its export, so that a failing `rustc` stops the run.)
sysroot="$(rustc --print sysroot)"
export RUSTC_WORKSPACE_WRAPPER="$sysroot/bin/clippy-driver"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
cargo build --locked --workspace --all-targets
say "tests (nextest)"
cargo nextest run --locked --workspace --no-fail-fast
# The MCP servers the tests started (tests/mcp): none may outlive them.
say "no MCP server process left behind"
left="$(pgrep -af 'tests/mcp/(fixture_server\.py|node_modules/@modelcontextprotocol/server-)' || true)"
if [ -n "$left" ]; then
  printf 'MCP server processes left running after the tests:\n%s\n' "$left" >&2
  exit 1
fi
say "doc tests"
cargo test --locked --workspace --doc

# The desktop app end to end, under Xvfb (screenshots in target/e2e-screenshots).
# The UI and every binary it runs were built above: its own build of three
# packages would unify their dependencies' features otherwise than the
# workspace's and compile a dozen crates again (1.5 minutes on a fresh clone).
# The app it drives is the same code; the workspace's build adds only
# features the tests' dev-dependencies ask for (tauri's `test`, unused by
# the app's runtime).
say "end-to-end (the desktop app under Xvfb)"
E2E_SKIP_BUILD=1 bash scripts/e2e.sh
say "all tests passed"
