#!/usr/bin/env bash
# The desktop app's UI benchmarks, as ratios measured in one run (not part
# of .ci/run; needs what scripts/install.sh installs):
#
#   1. a branch switch in a 10,000-file workspace, click → file tree
#      updated, against the core's checkout of the same switch (≤ 1.5×);
#   2. scrolling a 2,000-call chat: requestAnimationFrame intervals against
#      the same scroll on an empty chat (≤ 2×);
#   3. a 20,000-token answer streamed at 500 tokens/s from a scripted model
#      on loopback (e2e/llm-server.mjs): frame intervals against the page
#      idle (≤ 1.5×), and each token's send → paint against send → the page
#      receiving it (≤ 1.5×);
#   4. a switch between two 200-message branches, click → the other branch
#      shown, against the core's checkout of the same two leaves (≤ 1.5×),
#      and against that checkout with the tree the view reads (printed).
#
# Release builds of the app, the worker and atelier-bench; a fresh data dir
# seeded by `atelier-bench ui-seed` and `ui-seed-chat`; then `atelier-bench
# checkout` (the references) and e2e/bench-ui.mjs (the app, under Xvfb +
# tauri-driver).
# BENCH_SKIP_BUILD=1 reuses the release binaries and ui/dist; BENCH_ONLY=chat
# runs only 3-4 (no 10,000-file seed).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
source scripts/env.sh

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
  say "bench-ui: building the UI and the release binaries"
  [ -d ui/node_modules ] || npm ci --prefix ui --no-audit --no-fund
  npm --prefix ui run build
  cargo build --release --locked -p atelier-app -p atelier-worker -p atelier-bench
fi

# Ports of its own (the E2E lane uses 4444/4445): the two can run side by
# side. The driver on 4454/4455, the scripted model on 4456.
port=4454
llm_port=4456
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if port_busy "$port" || port_busy "$((port + 1))" || port_busy "$llm_port"; then
  echo "error: ports $port-$llm_port are in use (another bench-ui run?)" >&2
  exit 1
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/atelier-bench-ui.XXXXXX")"
trap 'rm -rf "$work"' EXIT
data="$work/data"
release="${CARGO_TARGET_DIR:-$root/target}/release"
bench="$release/atelier-bench"

only="${BENCH_ONLY:-}"
if [ "$only" != chat ]; then
  say "bench-ui: seeding a 10,000-file workspace with two branches and a 2,000-call chat"
  "$bench" ui-seed --data-dir "$data" >"$work/seed.json"
  read -r chat a b < <(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["switch"]; print(s["chat"], s["a"], s["b"])' "$work/seed.json")
fi

say "bench-ui: seeding two 200-message branches and a chat to stream into"
"$bench" ui-seed-chat --data-dir "$data" --llm-base "http://127.0.0.1:$llm_port/v1" >"$work/seed-chat.json"
read -r bchat ba bb < <(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["branches"]; print(s["chat"], s["a"], s["b"])' "$work/seed-chat.json")

say "bench-ui: the references, the core's checkout alone"
if [ "$only" != chat ]; then
  "$bench" checkout --data-dir "$data" --chat "$chat" --from "$a" --to "$b" --runs "${BENCH_RUNS:-9}" \
    --pause-ms 400 >"$work/core.json"
fi
"$bench" checkout --data-dir "$data" --chat "$bchat" --from "$ba" --to "$bb" --runs "${BENCH_RUNS:-9}" \
  --pause-ms 400 >"$work/core-branches.json"
"$bench" checkout-read --data-dir "$data" --chat "$bchat" --from "$ba" --to "$bb" --runs "${BENCH_RUNS:-9}" \
  --pause-ms 400 >"$work/core-branches-read.json"

cat >"$work/app.sh" <<EOS
export ATELIER_DATA_DIR='$data'
export NO_AT_BRIDGE=1
exec '$release/atelier-app' "\$@" 2>>'$work/app.log'
EOS
chmod +x "$work/app.sh"

say "bench-ui: the app under Xvfb"
cat >"$work/inside.sh" <<EOS
tauri-driver --port $port --native-port $((port + 1)) >'$work/driver.log' 2>&1 &
driver=\$!
trap 'kill \$driver 2>/dev/null || true' EXIT
BENCH_DRIVER='http://127.0.0.1:$port' BENCH_APP='$work/app.sh' BENCH_SEED='$work/seed.json' BENCH_CORE='$work/core.json' \\
  BENCH_SEED_CHAT='$work/seed-chat.json' BENCH_CORE_BRANCHES='$work/core-branches.json' \\
  BENCH_CORE_BRANCHES_READ='$work/core-branches-read.json' BENCH_LLM_PORT=$llm_port BENCH_ONLY='$only' \\
  node '$root/e2e/bench-ui.mjs'
EOS
runner=()
command -v dbus-run-session >/dev/null 2>&1 && runner=(dbus-run-session --)
"${runner[@]}" xvfb-run -a -s "-screen 0 1280x800x24" bash "$work/inside.sh" || {
  tail -20 "$work/app.log" >&2 || true
  exit 1
}
