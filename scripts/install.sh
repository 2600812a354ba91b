#!/usr/bin/env bash
# Installs what Atelier needs to build, run and test on Debian 12 (or a
# derivative): system packages via apt when missing, cargo-nextest, and the
# Rust dependencies, `uv` (for toolsets' python.requirements) into .tools/,
# and the MCP client tests' servers (tests/mcp: npm packages, and the Python
# `mcp` SDK into .tools/mcp-venv). Safe to run again: it only installs what
# is missing or out of date.
#
# Prerequisites it does not install: a Rust toolchain (rustup, >= 1.95).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo not found. Install Rust >= 1.95 with rustup (see README.md), then run this again." >&2
  exit 1
fi

# System packages. Keep this list in sync with README.md's prerequisites.
# python3.11 + libpython3.11-dev: the worker embeds Debian's shared
# libpython 3.11; python3.11-venv: venvs for toolsets' requirements.
APT_PACKAGES=(build-essential pkg-config git ca-certificates unzip python3.11 libpython3.11-dev python3.11-venv)
# The desktop app (Tauri 2 on WebKitGTK), and its end-to-end tests under
# Xvfb with tauri-driver + WebKitWebDriver (scripts/e2e.sh). xdotool and
# PyGObject with GTK 3 (for Debian's /usr/bin/python3) drive drag and drop:
# e2e/drag_source.py is a GTK drag source.
# Secrets: the keyring crate talks to the Secret Service over libdbus; the
# tests start a private session bus with gnome-keyring-daemon (and check
# entries with secret-tool).
APT_PACKAGES+=(libdbus-1-dev dbus gnome-keyring libsecret-tools)
APT_PACKAGES+=(libwebkit2gtk-4.1-dev libssl-dev libxdo-dev libayatana-appindicator3-dev librsvg2-dev
  xvfb xauth webkit2gtk-driver dbus at-spi2-core xdotool python3-gi gir1.2-gtk-3.0)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  say "installing system packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

for component in rustfmt clippy; do
  if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
    say "adding the Rust component $component"
    rustup component add "$component"
  fi
done

if ! cargo nextest --version >/dev/null 2>&1; then
  say "installing cargo-nextest"
  cargo install cargo-nextest --locked
fi

if ! command -v tauri-driver >/dev/null 2>&1; then
  say "installing tauri-driver (end-to-end tests of the desktop app)"
  cargo install tauri-driver --version '^2' --locked
fi

if ! command -v node >/dev/null 2>&1 || [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
  echo "error: Node.js >= 20 is needed for the desktop UI (see README.md, Prerequisites)." >&2
  exit 1
fi

say "fetching Rust dependencies"
cargo fetch --locked

# uv installs toolsets' python.requirements (the core falls back to venv +
# pip without it). From PyPI into a private venv; scripts/env.sh puts it on
# ATELIER_UV.
UV_VERSION=0.13.9
if [[ "$(.tools/venv/bin/uv --version 2>/dev/null)" != "uv $UV_VERSION "* ]]; then
  say "installing uv $UV_VERSION into .tools/venv"
  /usr/bin/python3.11 -m venv .tools/venv
  .tools/venv/bin/pip install --quiet --disable-pip-version-check "uv==$UV_VERSION"
fi

# The MCP client tests' reference servers, TS SDK and conformance suite
# (tests/mcp/README.md), pinned by tests/mcp/package-lock.json. node_modules
# keeps a copy of the lockfile it was installed from: a changed lock installs
# again.
if ! cmp -s tests/mcp/package-lock.json tests/mcp/node_modules/.installed-package-lock.json; then
  say "installing the MCP test servers (npm ci in tests/mcp)"
  npm ci --prefix tests/mcp --no-audit --no-fund
  cp tests/mcp/package-lock.json tests/mcp/node_modules/.installed-package-lock.json
fi

# The Python `mcp` SDK for tests/mcp/fixture_server.py, pinned with its
# dependencies by tests/mcp/requirements.txt, in a venv of its own;
# scripts/env.sh puts its python on ATELIER_MCP_PYTHON.
if ! cmp -s tests/mcp/requirements.txt .tools/mcp-venv/installed-requirements.txt; then
  say "installing the Python mcp SDK into .tools/mcp-venv"
  /usr/bin/python3.11 -m venv .tools/mcp-venv
  .tools/mcp-venv/bin/pip install --quiet --disable-pip-version-check -r tests/mcp/requirements.txt
  cp tests/mcp/requirements.txt .tools/mcp-venv/installed-requirements.txt
fi
