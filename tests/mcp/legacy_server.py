"""An old-style stdio MCP server, hand-written on purpose (no SDK): it knows
only `initialize`, `tools/list` and `tools/call` of protocol 2024-11-05 (tools
`shout`, and `count`, which floods the client with progress and log
notifications) and answers every other request with an empty result `{}`
instead of "method not found" — as some servers written before 2026 do. A
client probing with `server/discover` first must still end up speaking
`initialize` to it. With `--silent` it answers them not at all, as others
do; with `--not-found` it answers them "method not found", as most do. Each
request's method goes to stderr, so a test can tell which handshake it was
offered.

    python3 tests/mcp/legacy_server.py [--silent | --not-found] [--start-after S] [--tools-list MODE] [--protocol-version V]

`--start-after` sleeps S seconds before it reads anything, as a server does
that `npx -y` or `uvx` is still fetching, or a container still starting:
the client's first requests wait in the pipe.

`--protocol-version` answers `initialize` with V instead of 2024-11-05,
whatever the client asked for (a version a client may not know).

`--tools-list` makes `tools/list` misbehave, for the client's listing limits:

- endless: one tool a page (`tool_N`), each with a new `nextCursor`, forever.
- repeat: every page has `shout` and the same `nextCursor`, "again".
- huge: 500 tools a page, each page with a new `nextCursor`, forever.
- silent: no answer to `tools/list` at all.
- duplicate: two pages, `shout` on each (the second described "A second
  shout."), `whisper` on the second: one name listed twice.
"""

import argparse
import json
import sys
import time

TOOLS = [
    {
        "name": "shout",
        "description": "Upper-cases its text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    },
    {
        "name": "count",
        "description": "Sends n progress notifications (i of n) and n log messages, all at once, then answers.",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    },
]


def answer(msg_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}) + "\n")
    sys.stdout.flush()


def count(msg_id, n, token):
    """`count`: i/n progress (to `token`) and "count i" logs, interleaved, in one write."""
    lines = []
    for i in range(1, n + 1):
        if token is not None:
            progress = {"progressToken": token, "progress": i, "total": n, "message": f"{i}/{n}"}
            lines.append({"jsonrpc": "2.0", "method": "notifications/progress", "params": progress})
        log = {"level": "info", "data": f"count {i}"}
        lines.append({"jsonrpc": "2.0", "method": "notifications/message", "params": log})
    lines.append({"jsonrpc": "2.0", "id": msg_id, "result": {"content": [{"type": "text", "text": f"counted {n}"}]}})
    sys.stdout.write("".join(json.dumps(line) + "\n" for line in lines))
    sys.stdout.flush()


def tools_page(mode, cursor):
    """The `tools/list` result for `cursor` in `mode`, or None for no answer."""
    page = int(cursor.removeprefix("page-")) if cursor and cursor.startswith("page-") else 0
    if mode == "endless":
        return {"tools": [dict(TOOLS[0], name=f"tool_{page}")], "nextCursor": f"page-{page + 1}"}
    if mode == "repeat":
        return {"tools": TOOLS, "nextCursor": "again"}
    if mode == "huge":
        tools = [dict(TOOLS[0], name=f"tool_{page}_{i}") for i in range(500)]
        return {"tools": tools, "nextCursor": f"page-{page + 1}"}
    if mode == "silent":
        return None
    if mode == "duplicate" and not cursor:
        return {"tools": TOOLS[:1], "nextCursor": "page-1"}
    if mode == "duplicate":
        second = dict(TOOLS[0], description="A second shout.")
        return {"tools": [second, dict(TOOLS[0], name="whisper", description="Lower-cases its text.")]}
    return {"tools": TOOLS}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--silent", action="store_true", help="no answer to unknown requests")
    parser.add_argument("--not-found", action="store_true", help="'method not found' to unknown requests")
    parser.add_argument("--start-after", type=float, default=0, help="seconds asleep before reading")
    parser.add_argument("--tools-list", choices=["endless", "repeat", "huge", "silent", "duplicate"], help="misbehave listing")
    parser.add_argument("--protocol-version", default="2024-11-05", help="the version initialize answers")
    args = parser.parse_args()
    silent = args.silent
    time.sleep(args.start_after)
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
                    "protocolVersion": args.protocol_version,
                    "capabilities": {"tools": {}, "logging": {}},
                    "serverInfo": {"name": "legacy-shouter", "version": "0.1.0"},
                },
            )
        elif method == "tools/list":
            page = tools_page(args.tools_list, params.get("cursor"))
            if page is not None:
                answer(msg["id"], page)
        elif method == "tools/call" and params.get("name") == "count":
            token = (params.get("_meta") or {}).get("progressToken")
            count(msg["id"], int((params.get("arguments") or {}).get("n", 10)), token)
        elif method == "tools/call":
            text = str((params.get("arguments") or {}).get("text", ""))
            answer(msg["id"], {"content": [{"type": "text", "text": text.upper()}]})
        elif args.not_found:
            error = {"code": -32601, "message": f"Method not found: {method}"}
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": error}) + "\n")
            sys.stdout.flush()
        elif not silent:
            answer(msg["id"], {})


if __name__ == "__main__":
    main()
