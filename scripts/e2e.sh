#!/usr/bin/env bash
# The end-to-end lane: the real desktop app (debug build) on a fresh data
# dir, under Xvfb, driven by e2e/run.mjs through tauri-driver +
# WebKitWebDriver. Builds what it needs, packs the fixture bundles, and
# exits non-zero if any step fails. Screenshots of every step go to
# target/e2e-screenshots/NN-name.png; the app's stderr to target/e2e-app.log.
#
# E2E_SKIP_BUILD=1 skips the UI and cargo builds (when they are fresh).
# E2E_STEPS=toolsets,mcp,chat runs only those groups of steps (the names in
# e2e/run.mjs; list the groups a step builds on too).
# Needs what scripts/install.sh installs (xvfb, webkit2gtk-driver,
# tauri-driver, xdotool, python3-gi + gir1.2-gtk-3.0 for drag and drop and for
# screenshots of native dialogs).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
# shellcheck source=scripts/env.sh
source scripts/env.sh

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() {
  echo "error: $*" >&2
  exit 1
}

if [ "${E2E_SKIP_BUILD:-0}" != 1 ]; then
  say "e2e: building the UI and the app (debug)"
  [ -d ui/node_modules ] || npm ci --prefix ui --no-audit --no-fund
  npm --prefix ui run build
  cargo build --locked -p atelier-app -p atelier-worker -p atelier-cli
fi

for tool in node xvfb-run tauri-driver WebKitWebDriver xdotool; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is missing: run scripts/install.sh"
done
# The drag source for drag and drop is a GTK window in Debian's Python.
/usr/bin/python3 -c 'import gi; gi.require_version("Gtk", "3.0"); from gi.repository import Gtk' 2>/dev/null ||
  die "/usr/bin/python3 cannot import GTK 3 (python3-gi, gir1.2-gtk-3.0): run scripts/install.sh"
# Where cargo put the binaries: a CARGO_TARGET_DIR outside the checkout is
# allowed (CI may keep one between runs).
bins="${CARGO_TARGET_DIR:-$root/target}/debug"
for bin in atelier-app atelier-worker atelier; do
  [ -x "$bins/$bin" ] || die "$bins/$bin is missing (build without E2E_SKIP_BUILD=1)"
done

# One tauri-driver at a time (port 4444, and WebKitWebDriver on 4445): wait
# for a previous run's to exit rather than fail on "address in use".
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for i in $(seq 1 60); do
  port_busy 4444 || port_busy 4445 || break
  [ "$i" -lt 60 ] || die "ports 4444/4445 are still in use (another tauri-driver or WebKitWebDriver is running)"
  sleep 1
done

work="$(mktemp -d "${TMPDIR:-/tmp}/atelier-e2e.XXXXXX")"
cleanup() {
  local rc=$?
  if [ "$rc" -eq 0 ]; then rm -rf "$work"; else echo "e2e: kept $work (data dir and fixtures) for a look" >&2; fi
}
trap cleanup EXIT

data="$work/data"
fixtures="$work/fixtures"
shots="$root/target/e2e-screenshots"
app_log="$root/target/e2e-app.log"
cli="$bins/atelier"
mkdir -p "$fixtures" "$root/target"
: >"$app_log"

say "e2e: fixture bundles"
# A valid toolset: the `atelier toolset init` scaffold (a Python tool and an
# HTML renderer), with a display name, packed by the CLI.
"$cli" --data-dir "$work/scratch" toolset init "$fixtures/word-tools" --id word-tools >/dev/null
sed -i 's/^name: .*/name: Word Tools/' "$fixtures/word-tools/toolset.yaml"
"$cli" --data-dir "$work/scratch" toolset pack "$fixtures/word-tools" -o "$fixtures/word-tools.zip"
# An invalid one: zipped as is (pack would refuse it).
(cd e2e/fixtures/broken-tools && python3 -m zipfile -c "$fixtures/broken-tools.zip" toolset.yaml tools)
printf "# Notes\n\nDropped in by the end-to-end lane.\n" >"$fixtures/dropped-notes.md"

# tauri-driver starts this instead of the binary, so the app gets the data
# dir and its stderr lands in a file (the driver does not keep it). A first
# argument --gtk-dark starts it with GTK's dark look (the driver passes no
# environment): the dark-mode step.
cat >"$work/atelier-app.sh" <<EOF
#!/bin/sh
export ATELIER_DATA_DIR='$data'
export NO_AT_BRIDGE=1
export ATELIER_UV='${ATELIER_UV:-}'
if [ "\$1" = --gtk-dark ]; then
  export GTK_THEME=Adwaita:dark
  shift
fi
exec '$bins/atelier-app' "\$@" 2>>'$app_log'
EOF
chmod +x "$work/atelier-app.sh"

export NO_AT_BRIDGE=1
export E2E_APP="$work/atelier-app.sh" E2E_DATA_DIR="$data" E2E_CLI="$cli" E2E_FIXTURES="$fixtures"
export E2E_SHOTS="$shots" E2E_APP_LOG="$app_log"

# A session bus of its own when dbus-run-session is there (WebKitGTK asks
# for one); Xvfb on a free display.
runner=()
command -v dbus-run-session >/dev/null 2>&1 && runner=(dbus-run-session --)

say "e2e: running the app under Xvfb (screenshots: target/e2e-screenshots)"
# A bound on the whole lane (a clean run takes ~6 min): a hung app or driver
# fails here, with run.mjs's summary, instead of eating CI's time.
"${runner[@]}" timeout --signal=TERM --kill-after=30 "${E2E_TIMEOUT:-30m}" \
  xvfb-run -a -s "-screen 0 1280x800x24" node e2e/run.mjs
