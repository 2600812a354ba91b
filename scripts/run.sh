#!/usr/bin/env bash
# Installs everything, builds Atelier and runs it. Until the desktop app
# lands, the main program is the `atelier` CLI: with no arguments this runs
# its demo (a chat with two branches in a throwaway data dir); any arguments
# are passed to `atelier` (e.g. `scripts/run.sh chat list`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
source scripts/env.sh
cargo build --release --locked -p atelier-cli -p atelier-worker
if (($#)); then
  exec ./target/release/atelier "$@"
fi
exec ./target/release/atelier demo
