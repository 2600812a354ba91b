#!/usr/bin/env python3
"""An opt-in soak: kills `atelier` at random moments and checks what is left.

    python3 scripts/soak_kill.py [--rounds 30] [--seed N] [--keep]

Each round, in one throwaway data dir, it starts one of these with the real
binary and kills it (SIGKILL, SIGTERM or SIGHUP) after a random delay:
`atelier run` of a Python tool that writes marker files in a loop,
`atelier toolset import --force` of a bundle, `atelier chat delete`; and,
as a person would, it writes marker files into a chat's workspace by hand,
or edits tracked files of another chat while `atelier chat checkout`
switches that chat between two states (a race round, not killed).
Afterwards one ordinary command opens the data dir (start-up recovery runs)
and the script checks:

- no `atelier-worker` of this data dir is still running (none orphaned);
- no `toolsets/.staging-*` or `toolsets/.old-*` folder is left;
- the chats in the database and the folders under `chats/` agree;
- every marker written by hand is in the chat's recorded workspace;
- every edit made during a checkout is on disk or in a manifest (after
  `atelier gc`, its content's blob exists).

It needs a debug build (`cargo build -p atelier-cli -p atelier-worker`) and
is not part of scripts/test.sh: it takes minutes and its kills are random
(the seed is printed, so a failure can be replayed).
"""

import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "debug" / "atelier"

MANIFEST = """\
manifest_version: "1"
id: soak
name: Soak
version: "{version}"
description: writes markers until it is stopped
tools:
  - id: spin
    name: Spin
    description: writes a numbered file every 20 ms for a while
    entrypoint: tools.spin:run
    timeout_s: 30
    input_schema: {{type: object, properties: {{}}}}
"""

SPIN = """\
import time

def run(workspace, **_):
    for i in range(500):
        (workspace / f"spin-{i:04}.txt").write_text(str(i))
        time.sleep(0.02)
    return {"done": True}
"""


def atelier(data: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    out = subprocess.run(
        [str(BIN), "--data-dir", str(data), *args], capture_output=True, text=True, env=env()
    )
    if check and out.returncode != 0:
        sys.exit(f"atelier {' '.join(args)} failed ({out.returncode}):\n{out.stderr}")
    return out


def env() -> dict:
    e = dict(os.environ)
    e.pop("ATELIER_DATA_DIR", None)
    return e


def bundle(dir: Path, version: str) -> Path:
    path = dir / f"soak-{version}.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("toolset.yaml", MANIFEST.format(version=version))
        z.writestr("tools/__init__.py", "")
        z.writestr("tools/spin.py", SPIN)
    return path


def kill_after(data: Path, args: list, rng: random.Random, most: float) -> str:
    proc = subprocess.Popen(
        [str(BIN), "--data-dir", str(data), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env(),
    )
    time.sleep(rng.uniform(0.0, most))
    how = rng.choice([signal.SIGKILL, signal.SIGTERM, signal.SIGHUP])
    proc.send_signal(how)
    proc.wait()
    return how.name


RACE_FILES = 40
KEPT_DURING_CHECKOUT = 0


def race_setup(data: Path) -> tuple:
    """A chat with two recorded states of RACE_FILES tracked files."""
    chat = json.loads(atelier(data, "--json", "chat", "new").stdout)["id"]
    ws = data / "chats" / chat / "workspace"
    states = []
    for state in ("one", "two"):
        for i in range(RACE_FILES):
            (ws / f"f{i:02}.txt").write_text(f"{state} {i}\n" * 20_000)
        states.append(json.loads(atelier(data, "--json", "workspace", "snapshot", chat).stdout)["message_id"])
    return chat, ws, states


def race(data: Path, chat: str, ws: Path, target: str, r: int, rng: random.Random) -> list:
    """Checks out `target` while editing tracked files by hand; returns the
    contents written (each file at most once, so none overwrites another)."""
    proc = subprocess.Popen(
        [str(BIN), "--data-dir", str(data), "chat", "checkout", chat, target],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env(),
    )
    written = []
    for i in rng.sample(range(RACE_FILES), RACE_FILES // 2):
        content = f"hand edit {r}.{i}\n"
        (ws / f"f{i:02}.txt").write_text(content)
        written.append(content)
        time.sleep(rng.uniform(0.0, 0.01))
    _, err = proc.communicate()
    if proc.returncode != 0:
        sys.exit(f"checkout in race round {r} failed ({proc.returncode}):\n{err.decode()}")
    # Edits that landed after the checkout are recorded now, before the next
    # round's edits could overwrite them (that loss would be the person's).
    atelier(data, "workspace", "snapshot", chat)
    global KEPT_DURING_CHECKOUT
    KEPT_DURING_CHECKOUT += err.decode().count("changed by hand")
    return written


def workers_of(data: Path) -> list:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            environ = Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if "atelier-worker" in cmd and (str(data) in cmd or str(data) in environ):
            found.append((int(pid), cmd.strip()))
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--keep", action="store_true", help="keep the data dir")
    args = ap.parse_args()
    if not BIN.exists():
        sys.exit(f"{BIN} is missing: cargo build -p atelier-cli -p atelier-worker")
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    print(f"soak: {args.rounds} rounds, seed {seed}")

    scratch = Path(tempfile.mkdtemp(prefix="atelier-soak-"))
    data = scratch / "data"
    v1, v2 = bundle(scratch, "1.0.0"), bundle(scratch, "2.0.0")
    atelier(data, "toolset", "import", str(v1))
    chat = json.loads(atelier(data, "--json", "chat", "new").stdout)["id"]
    workspace = data / "chats" / chat / "workspace"
    written = []
    race_chat, race_ws, race_states = race_setup(data)
    race_written = []

    for r in range(args.rounds):
        what = rng.choice(["run", "import", "delete", "hand", "race"])
        if what == "run":
            how = kill_after(data, ["run", "soak:spin", "--chat", chat, "--quiet"], rng, 1.5)
        elif what == "import":
            target = v2 if r % 2 else v1
            how = kill_after(data, ["toolset", "import", "--force", str(target)], rng, 0.8)
        elif what == "delete":
            doomed = json.loads(atelier(data, "--json", "chat", "new").stdout)["id"]
            (data / "chats" / doomed / "workspace" / "x.txt").write_text("x" * 100_000)
            how = kill_after(data, ["chat", "delete", doomed], rng, 0.3)
        elif what == "race":
            race_written += race(data, race_chat, race_ws, race_states[r % 2], r, rng)
            how = "-"
        else:
            name = f"hand-{r:03}.txt"
            (workspace / name).write_text(f"written by hand in round {r}\n")
            written.append(name)
            how = "-"
        print(f"  round {r:3}: {what:6} {how}")

    # One ordinary command opens the data dir: start-up recovery runs.
    atelier(data, "chat", "list")
    # A worker must die with its caller, not finish its call first: 2 s.
    deadline = time.time() + 2
    while workers_of(data) and time.time() < deadline:
        time.sleep(0.2)
    # Markers still on disk must be recorded once the chat is snapshotted.
    atelier(data, "workspace", "snapshot", chat)
    atelier(data, "workspace", "snapshot", race_chat)
    atelier(data, "gc")

    problems = []
    for pid, cmd in workers_of(data):
        problems.append(f"orphan worker {pid}: {cmd}")
    for leftover in sorted((data / "toolsets").glob(".staging-*")) + sorted((data / "toolsets").glob(".old-*")):
        problems.append(f"left behind: {leftover.relative_to(data)}")
    rows = {c["id"] for c in json.loads(atelier(data, "--json", "chat", "list").stdout)}
    folders = {p.name for p in (data / "chats").iterdir() if p.is_dir()}
    for extra in sorted(folders - rows):
        problems.append(f"chats/{extra}/ has no chat row")
    for missing in sorted(rows - folders):
        problems.append(f"chat {missing} has no folder")
    recorded = {f["path"] for f in json.loads(atelier(data, "--json", "workspace", "ls", chat).stdout)}
    for name in written:
        if name not in recorded:
            problems.append(f"hand-written {name} is in no manifest of the chat")

    lost = 0
    for content in race_written:
        sha = hashlib.sha256(content.encode()).hexdigest()
        if not (data / "chats" / race_chat / "blobs" / sha[:2] / sha).exists():
            lost += 1
            problems.append(f"edit {content.strip()!r} made during a checkout is in no manifest")

    if problems:
        print(f"soak FAILED (seed {seed}; data dir kept at {data}):")
        for p in problems:
            print(f"  - {p}")
        return 1
    print(
        f"soak passed: {args.rounds} rounds, {len(written)} hand-written markers and "
        f"{len(race_written)} edits made during checkouts recorded "
        f"({KEPT_DURING_CHECKOUT} of them kept by a checkout that met them), no orphan, no leftover"
    )
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
