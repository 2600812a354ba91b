#!/usr/bin/env bash
# Builds the Debian package of the desktop app: target/release/bundle/deb/
# Atelier_<version>_amd64.deb, with the app (/usr/bin/atelier-app), the
# Python worker (/usr/bin/atelier-worker) and the CLI (/usr/bin/atelier).
# Not part of CI. Needs the build prerequisites (scripts/install.sh) and the
# UI's npm packages and the Tauri CLI (@tauri-apps/cli 2.12.5, installed
# without saving). The same as `cargo tauri build --bundles deb` with a
# cargo-installed CLI: tauri.conf.json's beforeBuildCommand builds the UI,
# the worker and the CLI, the bundler adds them (bundle.linux.deb).
# Extra arguments go to `tauri build` (e.g. --verbose).
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in cargo npm dpkg-deb; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "error: $tool is missing (see README.md, Prerequisites; scripts/install.sh)" >&2
    exit 1
  }
done
[ -d ui/node_modules ] || npm ci --prefix ui --no-audit --no-fund
# The Tauri CLI is installed here, not in package.json: its per-platform
# optional packages put ui/package-lock.json out of `npm ci`'s sync.
[ -x ui/node_modules/.bin/tauri ] || npm install --prefix ui --no-save --no-audit --no-fund @tauri-apps/cli@2.12.5

# From the repository root: the Tauri CLI finds src-tauri/tauri.conf.json
# below it, and ui/ (the only package.json) as the folder its hooks run in.
ui/node_modules/.bin/tauri build --bundles deb "$@" -- --locked

version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
deb="target/release/bundle/deb/Atelier_${version}_amd64.deb"
[ -f "$deb" ] || {
  echo "error: $deb was not produced" >&2
  exit 1
}
echo "built $deb"
