"""Running a shell command in the workspace (asks for confirmation first)."""
import subprocess
from pathlib import Path


def run_command(workspace: Path, command: str) -> dict:
    result = subprocess.run(command, shell=True, cwd=workspace, capture_output=True, text=True)
    return {"command": command, "output": result.stdout + result.stderr, "exit_code": result.returncode}
