"""An old-style stdio MCP server, hand-written on purpose (no SDK): it knows
only `initialize`, `tools/list` and `tools/call` of protocol 2024-11-05 and
answers every other request with an empty result `{}` instead of "method
not found" — as some servers written before 2026 do. A client probing with
`server/discover` first must still end up speaking `initialize` to it.
With `--silent` it answers them not at all, as others do. Each request's
method goes to stderr, so a test can tell which handshake it was offered.

    python3 tests/mcp/legacy_server.py [--silent]
"""

import json
import sys

TOOLS = [
    {
        "name": "shout",
        "description": "Upper-cases its text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    }
]


def answer(msg_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}) + "\n")
    sys.stdout.flush()


def main():
    silent = "--silent" in sys.argv[1:]
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if "id" not in msg or "method" not in msg:
            continue  # a notification or a response
        method, params = msg["method"], msg.get("params") or {}
        sys.stderr.write(f"request {method}\n")
        sys.stderr.flush()
        if method == "initialize":
            answer(
                msg["id"],
                {
                    "protocolVersion": "2024-11-05",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "legacy-shouter", "version": "0.1.0"},
                },
            )
        elif method == "tools/list":
            answer(msg["id"], {"tools": TOOLS})
        elif method == "tools/call":
            text = str((params.get("arguments") or {}).get("text", ""))
            answer(msg["id"], {"content": [{"type": "text", "text": text.upper()}]})
        elif not silent:
            answer(msg["id"], {})


if __name__ == "__main__":
    main()
