#!/usr/bin/env python3
"""Counts how atelier-core's modules import each other, against its layers.

ARCHITECTURE.md ("Layers of atelier-core") names the layers; LAYERS below is
the same list, lowest first. A module may use modules of its own layer or of
a lower one. This script prints every import that runs from a lower layer up
to a higher one, and every cycle between top-level modules, then a summary
line. It exits non-zero when there is a cycle, when a module has no layer,
or when upward imports exceed --max (scripts/test.sh runs it with the
current ceiling, so a new upward import has to be argued for here).

An "import" is one (file, target module) pair: a file that names
`crate::tools::...` three times imports `tools` once. Root items count as
the module that defines them (`crate::Error` is `error`; `crate::Atelier`
and `crate::blocking` are the handle, which every module extends with its
own facet and `impl` block, so they are not counted). Doc comments are
ignored.

    python3 scripts/layers.py            # report
    python3 scripts/layers.py --max 5    # fail above 5 upward imports
"""

import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "crates" / "atelier-core" / "src"

# Lowest first. Same layer: may import each other (but not in a cycle).
LAYERS = [
    # Foundations: no knowledge of chats, toolsets or tools.
    ["ids", "error", "diagnostics", "data_dir", "lock", "zipfile", "environment", "logging"],
    # The database and the records it hands out.
    ["db", "model"],
    # The content-addressed store (blocking code).
    ["store"],
    # Settings, the message tree's rows, secrets, LLM providers.
    ["settings", "messages", "secrets", "providers"],
    # A chat's workspace: snapshots, checkouts, edits.
    ["workspace"],
    # Chats as a whole (create, delete, branches).
    ["chats"],
    # Bundles of tools.
    ["toolsets"],
    # MCP servers: rows, launches, running instances (tools call them).
    ["mcp"],
    # Running tools.
    ["tools"],
    # Which tools a run sees and where a call goes.
    ["routing"],
    # Agents and their allowlists.
    ["agents"],
    # The chat engine: context, the agent loop, persistence.
    ["conversation"],
]

ROOT_ITEMS = {
    "Error": "error",
    "Result": "error",
    "Atelier": None,
    "DataDir": "data_dir",
    "blocking": None,
    "Observer": "store",
    "Progress": "store",
    "PythonSettings": "tools",
}


def module_of(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT)
    if rel.parts == ("lib.rs",):
        return "lib"
    return rel.parts[0].removesuffix(".rs")


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//", 1)[0] if "//" in line else line for line in text.splitlines())


def use_tree_heads(tree: str) -> list[str]:
    """First path segments of a `use crate::<tree>;` tree: `{a::b, c}` → [a, c]."""
    tree = tree.strip()
    if not tree.startswith("{"):
        return [re.split(r"::|\s", tree, maxsplit=1)[0]]
    inner, depth, parts, cur = tree[1:-1], 0, [], ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    return [re.split(r"::|\s", p.strip(), maxsplit=1)[0] for p in parts if p.strip()]


def imports_of(path: pathlib.Path) -> set[str]:
    text = strip_comments(path.read_text())
    heads: list[str] = []
    for m in re.finditer(r"\buse\s+crate::(\{[^;]*\}|[^;]*);", text, flags=re.S):
        heads += use_tree_heads(m.group(1))
    heads += re.findall(r"(?<![\w:])crate::(\w+)", re.sub(r"\buse\s+crate::[^;]*;", "", text, flags=re.S))
    mods = set()
    for h in heads:
        if h in ("self", "*", ""):
            continue
        m = ROOT_ITEMS.get(h, h)
        if m is not None:
            mods.add(m)
    return mods


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max", type=int, default=None, help="fail when upward imports exceed this")
    args = ap.parse_args()

    layer = {m: i for i, group in enumerate(LAYERS) for m in group}
    edges: dict[str, set[str]] = {}
    upward: list[tuple[str, str]] = []
    unknown: set[str] = set()
    for path in sorted(ROOT.rglob("*.rs")):
        src = module_of(path)
        rel = str(path.relative_to(ROOT))
        for dst in sorted(imports_of(path)):
            if dst == src:
                continue
            for m in (src, dst):
                if m not in layer:
                    unknown.add(m)
            edges.setdefault(src, set()).add(dst)
            if src in layer and dst in layer and layer[dst] > layer[src]:
                upward.append((rel, dst))

    # Cycles between top-level modules: strongly connected components > 1.
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    for v in sorted(set(edges) | {d for ds in edges.values() for d in ds}):
        if v not in index:
            strong(v)

    for rel, dst in upward:
        print(f"upward: {rel} -> {dst}")
    for comp in sccs:
        print(f"cycle: {' <-> '.join(comp)}")
    for m in sorted(unknown):
        print(f"no layer: {m} (add it to LAYERS in scripts/layers.py and to ARCHITECTURE.md)")
    print(f"layers: {len(upward)} upward import(s), {len(sccs)} cycle(s) between top-level modules")
    if unknown or sccs or (args.max is not None and len(upward) > args.max):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
