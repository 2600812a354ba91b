"""A stdio MCP server for the hard cases of crates/atelier-mcp's client tests.

Run it with the venv that scripts/install.sh makes (scripts/env.sh puts its
python on ATELIER_MCP_PYTHON):

    $ATELIER_MCP_PYTHON tests/mcp/fixture_server.py [--no-handshake] [--stderr-lines N] [--sse PATH]

It speaks the initialize handshake (protocol 2024-11-05 .. 2025-11-25) with
the PyPI `mcp` package (2.x, MCPServer), and advertises tools.listChanged.

Tools, and the client behaviour each one is there to test:

- echo(text) -> text. The plain round trip.
- slow(seconds: float) -> "done" after sleeping. Sends notifications/progress
  every 0.2 s when the call carries a progress token (progress = seconds
  elapsed, total = seconds). Cancellable: a notifications/cancelled for it
  stops it and no answer is sent. For timeouts, progress and cancellation.
- crash(code: int = 3) prints "fixture: crashing with exit code N" to stderr
  and exits the process mid-call (os._exit) with that code, never answering.
  For a server that dies while a call is in flight.
- flood(megabytes: int = 10) writes that many MB of numbered 1 KiB lines to
  stderr (stdout is the protocol) and returns "flooded". A client that does
  not drain the child's stderr deadlocks here.
- stubborn(seconds: float) ignores cancellation: the server drops any
  notifications/cancelled aimed at it before the SDK sees it (logging
  "fixture: stubborn ignores cancellation of request ID" to stderr), shields
  its sleep, and answers "stubborn done" anyway. For a late answer to a
  request the client has given up on.
- grow() adds a tool `extra` (returns "extra") and sends
  notifications/tools/list_changed; returns "grown". For refreshing the
  tool list on that notification.
- write_file(path, text) writes text (UTF-8) to path relative to the server's
  cwd, making parent folders; returns "wrote N bytes to PATH". For workspace
  snapshots of what a server changed.
- huge(megabytes: float = 17) returns a text of that many MiB: its answer is
  one stdout line over the client's 16 MiB limit. For a message too large to
  read failing its call at once, the session going on.
- garbage(megabytes: float = 17) writes one line of that many MiB that is not
  JSON straight to stdout (after 0.5 s, for the SDK's own messages in flight
  to go out first), then never answers. For an oversized line that answers
  no request the client can tell.
- mixed(big_kib: int = 0) returns content of every kind, in this order: the
  text "two charts", a 1x1 PNG, the same PNG again (byte-identical), an
  image/svg+xml image, the text "after the charts", an embedded text
  resource (file:///data.json, application/json), an embedded blob resource
  that is the PNG again (demo://pixel.png, image/png), a resource link
  (demo://more, "more"), a short audio/wav sound and, when big_kib > 0, a
  PNG of that many KiB. For showing every block in order and sending a
  model every image it takes.
- fails(text) returns `text` as a tool error (isError: true). For a
  failure reaching a model as an error result with its words.
- whereami() returns {"cwd": ..., "token": $FIXTURE_TOKEN or null} (as
  structured content and as JSON text). For the cwd and env a client spawns
  a server with.
- roots() returns "roots: URI, URI…", the client's roots, asked for by the
  SDK's `ListRoots` resolver: on protocol 2026-07-28 that is an
  `InputRequiredResult` (SEP-2322) the client answers by calling again with
  `inputResponses`; on older ones a `roots/list` request mid-call. A client
  that did not declare roots gets the SDK's "did not declare" error. For
  roots reaching a server of the newest protocol.
- ask_anyway() asks for a name by an `InputRequiredResult` holding an
  elicitation whatever the client declared (a hand-rolled tool, as the
  guard pattern of some frameworks writes it), then returns "answer:
  ACTION" with the action the client's retry gave (e.g. "decline"). For a
  server asking for input a client does not offer.
- ponder(polls, progress=False) answers `InputRequiredResult` with only its
  `request_state` (nothing asked: "still at it") `polls` times, then
  "pondered N"; with `progress`, each answer reports progress first. For a
  slow tool of the newest protocol polled past the rounds that ask.

Flags:

- --no-handshake: read stdin to its end and never answer anything (not even
  initialize). For the handshake timeout.
- --stderr-lines N: print "fixture stderr line 1" .. "line N" to stderr at
  start, before serving. For capturing a server's stderr.
- --instructions TEXT: give TEXT as the server's `instructions` in its
  initialize answer. For giving them to a model.
- --instructions-kib N: instructions of N KiB ("instruction 1. …" lines).
  For cutting them to the size a model is given.
- --odd-schemas: also list a tool `scalar` whose inputSchema is
  {"type": "string"} (not an object schema) and a tool `broken` whose
  inputSchema is not valid JSON Schema (a property of type 5).
  For the warnings a listing gives.
- --start-after SECONDS: sleep that long before serving, the first time
  only (a file `.fixture-started` in the cwd marks it), as `uvx` or `npx -y`
  fetch a server only the first time. Past rmcp's 10 s wait for an answer
  to `server/discover` it reads the probe and the `initialize` sent
  meanwhile together. For a slow start of a server of the newest protocol.
- --sse PATH: serve the old HTTP+SSE transport (2024-11-05) instead of stdio:
  GET PATH opens the event stream (POST to it answers 405), messages go to
  /messages/. It listens on 127.0.0.1, on a free port, and prints
  "fixture: old SSE transport at http://127.0.0.1:PORT/PATH" to stderr when
  ready. For a client pointed at a server that speaks only that transport.
"""

from __future__ import annotations

import argparse
import base64
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp.server import NotificationOptions
from mcp.server import stdio as mcp_stdio
from mcp.server.mcpserver import Context, ListRoots, MCPServer, Resolve
from mcp.server.stdio import stdio_server
from mcp.types import JSONRPCNotification, JSONRPCRequest
from mcp_types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    EmbeddedResource,
    ImageContent,
    InputRequiredResult,
    ListRootsResult,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

server = MCPServer("atelier-fixture", version="1.0.0", log_level="WARNING")

# Request ids of stubborn calls seen on stdin: cancellations aimed at them are dropped.
_stubborn_ids: set[Any] = set()


def _err(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


@server.tool()
def echo(text: str) -> str:
    """Returns text unchanged."""
    return text


@server.tool()
async def slow(seconds: float, ctx: Context) -> str:
    """Sleeps `seconds`, reporting progress every 0.2 s if asked to; returns "done"."""
    elapsed = 0.0
    while elapsed < seconds:
        step = min(0.2, seconds - elapsed)
        await anyio.sleep(step)
        elapsed += step
        await ctx.report_progress(round(elapsed, 3), seconds, "slow")  # a no-op without a progress token
    return "done"


@server.tool()
async def chatty(ctx: Context) -> str:
    """Logs one info line through the protocol (not stderr); returns "said"."""
    await ctx.info("chatty says hello")
    return "said"


@server.tool()
def crash(code: int = 3) -> str:
    """Exits the process mid-call with exit code `code`, never answering."""
    _err(f"fixture: crashing with exit code {code}")
    os._exit(code)


@server.tool()
async def flood(megabytes: int = 10) -> str:
    """Writes `megabytes` MB of numbered 1 KiB lines to stderr; returns "flooded"."""

    def write() -> None:
        out = sys.stderr.buffer
        for i in range(megabytes * 1024):
            head = f"flood {i:08d} ".encode()
            out.write(head + b"x" * (1023 - len(head)) + b"\n")
        out.flush()

    await anyio.to_thread.run_sync(write)  # blocks while nobody reads stderr
    return "flooded"


@server.tool()
async def stubborn(seconds: float) -> str:
    """Sleeps `seconds` whatever the client says, then answers "stubborn done"."""
    with anyio.CancelScope(shield=True):
        await anyio.sleep(seconds)
    return "stubborn done"


def extra() -> str:
    """Added by grow()."""
    return "extra"


@server.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool `extra` and sends notifications/tools/list_changed; returns "grown"."""
    if "extra" not in {tool.name for tool in await server.list_tools()}:
        server.add_tool(extra)
    # Older protocol versions: an unasked notification. 2026-07-28: only to
    # clients that opened a `subscriptions/listen` stream for it.
    await ctx.session.send_tool_list_changed()
    await ctx.notify_tools_changed()
    return "grown"


@server.tool()
def write_file(path: str, text: str) -> str:
    """Writes `text` to `path` (relative to the server's cwd); returns what it wrote."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode()
    target.write_bytes(data)
    return f"wrote {len(data)} bytes to {path}"


@server.tool()
def huge(megabytes: float = 17) -> str:
    """Returns a text of `megabytes` MiB (one answer line over 16 MiB by default)."""
    return "h" * int(megabytes * 1024 * 1024)


@server.tool()
async def garbage(megabytes: float = 17) -> str:
    """Writes a non-JSON line of `megabytes` MiB to stdout, then never answers."""
    # While it serves, the SDK points fd 1 at stderr and writes to a
    # duplicate of its own: write there, between its messages (each written
    # and flushed whole). A message it writes meanwhile (the acknowledgement
    # of a subscription opened at connection) would land inside the line:
    # let those go out first.
    await anyio.sleep(0.5)
    claim = mcp_stdio._claims.get(1)
    fd = claim.private_fd if claim is not None and claim.private_fd is not None else sys.stdout.fileno()
    data = memoryview(b"g" * int(megabytes * 1024 * 1024) + b"\n")

    def write() -> None:
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])

    await anyio.to_thread.run_sync(write)
    await anyio.sleep_forever()
    return "never"


PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQAY3Y2wAAAAAElFTkSuQmCC"
)
# A tenth of a second of 8 kHz mono WAV: a sound a player accepts.
BEEP = (
    "UklGRnQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YVAAAACAoIBggKCAYICggGCAoIBg"
    "gKCAYICggGCAoIBggKCAYICggGCAoIBggKCAYICggGCAoIBggKCAYICggGCAoIBggKCAYICggGCAoIBg"
    "gKCAYA=="
)


@server.tool()
def mixed(big_kib: int = 0) -> CallToolResult:
    """Text, images (one twice, one SVG), resources, a link and a sound, in order."""
    svg = base64.b64encode(b'<svg xmlns="http://www.w3.org/2000/svg"/>').decode()
    content: list[Any] = [
        TextContent(type="text", text="two charts"),
        ImageContent(type="image", data=PIXEL, mime_type="image/png"),
        ImageContent(type="image", data=PIXEL, mime_type="image/png"),
        ImageContent(type="image", data=svg, mime_type="image/svg+xml"),
        TextContent(type="text", text="after the charts"),
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(uri="file:///data.json", mime_type="application/json", text='{"n": 1}'),
        ),
        EmbeddedResource(
            type="resource",
            resource=BlobResourceContents(uri="demo://pixel.png", mime_type="image/png", blob=PIXEL),
        ),
        ResourceLink(type="resource_link", uri="demo://more", name="more"),
        AudioContent(type="audio", data=BEEP, mime_type="audio/wav"),
    ]
    if big_kib > 0:
        big = b"\x89PNG\r\n\x1a\n" + b"\0" * (big_kib * 1024 - 8)
        content.append(ImageContent(type="image", data=base64.b64encode(big).decode(), mime_type="image/png"))
    return CallToolResult(content=content)


@server.tool()
def fails(text: str) -> CallToolResult:
    """Reports a failure (isError) saying `text`."""
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


@server.tool()
def whereami() -> dict[str, str | None]:
    """The server's cwd and the env var FIXTURE_TOKEN (null when unset)."""
    return {"cwd": os.getcwd(), "token": os.environ.get("FIXTURE_TOKEN")}


def _ask_roots() -> ListRoots:
    return ListRoots()


@server.tool()
def roots(found: Annotated[ListRootsResult, Resolve(_ask_roots)]) -> str:
    """The client's roots, asked for by a resolver (input_required on 2026-07-28)."""
    return "roots: " + ", ".join(str(r.uri) for r in found.roots)


@server.tool()
async def ask_anyway(ctx: Context) -> InputRequiredResult | CallToolResult:
    """Asks for a name (input_required) whatever the client declared; says what came back."""
    answers = ctx.input_responses
    if answers and "name" in answers:
        answer = answers["name"]
        action = answer.get("action") if isinstance(answer, dict) else getattr(answer, "action", answer)
        return CallToolResult(content=[TextContent(type="text", text=f"answer: {action}")])
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    request = ElicitRequest(params=ElicitRequestFormParams(message="Your name?", requested_schema=schema))
    return InputRequiredResult(input_requests={"name": request}, request_state="asked")


@server.tool()
async def ponder(ctx: Context, polls: int, progress: bool = False) -> InputRequiredResult | CallToolResult:
    """Answers only its state (input_required, nothing asked) `polls` times, then "pondered N".

    With `progress`, each answer also reports progress (done of polls)."""
    done = int(ctx.request_state or 0)
    if progress:
        await ctx.report_progress(done, polls, "pondering")
    if done >= polls:
        return CallToolResult(content=[TextContent(type="text", text=f"pondered {done}")])
    return InputRequiredResult(request_state=str(done + 1))


class _IgnoreStubbornCancels:
    """Wraps the stdio read stream: notes stubborn calls, drops cancellations of them.

    The SDK never answers a request the peer cancelled, so ignoring a
    cancellation means not letting the SDK see it.
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:  # last_context, aclose, close, ...
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            msg = getattr(item, "message", None)
            params = getattr(msg, "params", None) or {}
            if isinstance(msg, JSONRPCRequest) and msg.method == "tools/call" and params.get("name") == "stubborn":
                _stubborn_ids.add(msg.id)
            elif (
                isinstance(msg, JSONRPCNotification)
                and msg.method == "notifications/cancelled"
                and params.get("requestId") in _stubborn_ids
            ):
                _err(f"fixture: stubborn ignores cancellation of request {params.get('requestId')}")
                continue
            return item

    def __aiter__(self) -> _IgnoreStubbornCancels:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _IgnoreStubbornCancels:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._inner.aclose()


# `--odd-schemas`: the SDK refuses to list a schema whose type is not
# "object", so `scalar`'s is changed on its way out.
_odd_schemas: list[bool] = []


class _OddSchemas:
    """Wraps the stdio write stream: lists `scalar` with {"type": "string"}."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def send(self, item: Any) -> None:
        result = getattr(getattr(item, "message", None), "result", None)
        if _odd_schemas and isinstance(result, dict):
            for tool in result.get("tools") or []:
                if tool.get("name") == "scalar":
                    tool["inputSchema"] = {"type": "string"}
        await self._inner.send(item)

    async def __aenter__(self) -> _OddSchemas:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._inner.aclose()


async def serve() -> None:
    # MCPServer.run_stdio_async would advertise tools.listChanged = false;
    # the low-level server under it takes the notification options.
    lowlevel = server._lowlevel_server
    options = lowlevel.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(_IgnoreStubbornCancels(read_stream), _OddSchemas(write_stream), options)


async def serve_sse(path: str) -> None:
    import socket

    import uvicorn

    # Our own socket: the port is free and known before uvicorn starts.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections wait in the backlog until uvicorn serves
    port = sock.getsockname()[1]
    config = uvicorn.Config(server.sse_app(sse_path=path), log_level="warning")
    _err(f"fixture: old SSE transport at http://127.0.0.1:{port}{path}")
    await uvicorn.Server(config).serve(sockets=[sock])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-handshake", action="store_true", help="read stdin, never answer")
    parser.add_argument("--stderr-lines", type=int, default=0, metavar="N", help="print N lines to stderr first")
    parser.add_argument("--sse", metavar="PATH", help="serve the old HTTP+SSE transport at PATH")
    parser.add_argument(
        "--hostile-words",
        action="store_true",
        help="also list a tool whose name and description hold terminal escapes, and say one on stderr",
    )
    parser.add_argument("--instructions", metavar="TEXT", help="the server's instructions (initialize)")
    parser.add_argument("--instructions-kib", type=int, default=0, metavar="N", help="instructions of N KiB")
    parser.add_argument("--odd-schemas", action="store_true", help="also list tools with odd input schemas")
    parser.add_argument("--start-after", type=float, default=0, metavar="SECONDS", help="sleep first, the first time")
    args = parser.parse_args()
    started = Path(".fixture-started")
    if args.start_after > 0 and not started.exists():
        started.touch()
        time.sleep(args.start_after)
    if args.odd_schemas:
        server.add_tool(echo, name="scalar", description="scalar input schema")
        server.add_tool(echo, name="broken", description="broken input schema")
        server._tool_manager.get_tool("broken").parameters = {"type": "object", "properties": {"a": {"type": 5}}}
        _odd_schemas.append(True)
    if args.instructions is not None:
        server._lowlevel_server.instructions = args.instructions
    if args.instructions_kib > 0:
        lines, size, i = [], 0, 0
        while size < args.instructions_kib * 1024:
            i += 1
            line = f"instruction {i}. Use the tools with care."
            lines.append(line)
            size += len(line) + 1
        server._lowlevel_server.instructions = "\n".join(lines)[: args.instructions_kib * 1024]
    if args.hostile_words:
        # \x1b[8m hides what follows on a terminal; a client prints it escaped.
        server.add_tool(echo, name="hide\x1b[8m", description="hides \x1b[8m what follows")
        sys.stderr.write("stderr \x1b[2J clears the screen\n")
    for i in range(1, args.stderr_lines + 1):
        sys.stderr.write(f"fixture stderr line {i}\n")
    sys.stderr.flush()
    if args.no_handshake:
        while sys.stdin.buffer.read(65536):
            pass
        return
    if args.sse:
        anyio.run(serve_sse, args.sse)
        return
    anyio.run(serve)


if __name__ == "__main__":
    main()
