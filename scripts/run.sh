#!/usr/bin/env bash
# Installs everything, builds Atelier and runs the desktop app (on the
# default data dir: ATELIER_DATA_DIR, else the OS data dir; a fresh one gets
# the bundled example toolsets). With arguments, runs the `atelier` CLI with
# them instead (e.g. `scripts/run.sh chat list`, `scripts/run.sh demo`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
source scripts/env.sh
# Where cargo puts the binaries (a CARGO_TARGET_DIR of your own is fine).
release="${CARGO_TARGET_DIR:-target}/release"
if (($#)); then
  cargo build --release --locked -p atelier-cli -p atelier-worker
  exec "$release/atelier" "$@"
fi
npm ci --prefix ui --no-audit --no-fund
npm --prefix ui run build
cargo build --release --locked -p atelier-app -p atelier-worker
exec "$release/atelier-app"
