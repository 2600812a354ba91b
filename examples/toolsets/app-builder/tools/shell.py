"""Running a shell command in the workspace (asks for confirmation first).

The command's output is printed line by line as it comes, so Atelier shows
it live while the command runs; the whole of it is also returned.
"""
import subprocess
import sys
from pathlib import Path


def run_command(workspace: Path, command: str) -> dict:
    lines = []
    with subprocess.Popen(
        command,
        shell=True,
        cwd=workspace,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        # It stays in the worker's process group, which Atelier stops
        # whole when the call is cancelled or times out.
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            sys.stdout.write(line)
            sys.stdout.flush()
        code = proc.wait()
    return {"command": command, "output": "".join(lines), "exit_code": code}
