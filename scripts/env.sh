# Sourced by the other scripts: where the project's own tools are.
# shellcheck shell=bash
ATELIER_UV="$(pwd)/.tools/venv/bin/uv"
export ATELIER_UV
# The MCP client tests (tests/mcp, installed by scripts/install.sh): the
# npm packages' node_modules, and the python with the `mcp` SDK.
ATELIER_MCP_NODE_MODULES="$(pwd)/tests/mcp/node_modules"
export ATELIER_MCP_NODE_MODULES
ATELIER_MCP_PYTHON="$(pwd)/.tools/mcp-venv/bin/python"
export ATELIER_MCP_PYTHON
