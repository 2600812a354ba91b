#!/usr/bin/env bash
# Installs everything, builds Atelier and runs the desktop app (on the
# default data dir: ATELIER_DATA_DIR, else the OS data dir; a fresh one gets
# the bundled example toolsets). With arguments, runs the `atelier` CLI with
# them instead (e.g. `scripts/run.sh chat list`, `scripts/run.sh demo`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
source scripts/env.sh
if (($#)); then
  cargo build --release --locked -p atelier-cli -p atelier-worker
  exec ./target/release/atelier "$@"
fi
npm ci --prefix ui --no-audit --no-fund
npm --prefix ui run build
cargo build --release --locked -p atelier-app -p atelier-worker
exec ./target/release/atelier-app
