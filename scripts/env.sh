# Sourced by the other scripts: where the project's own tools are.
# shellcheck shell=bash
ATELIER_UV="$(pwd)/.tools/venv/bin/uv"
export ATELIER_UV
