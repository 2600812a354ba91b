"""Reading and writing workspace files (seed 004 §10)."""
from pathlib import Path


def _inside(workspace: Path, path: str) -> Path:
    target = (workspace / path).resolve()
    if not target.is_relative_to(workspace.resolve()):
        raise ValueError(f"{path!r} is outside the workspace")
    return target


def write_file(workspace: Path, path: str, content: str) -> dict:
    target = _inside(workspace, path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content)
    return {"written": path, "size": len(content)}


def read_file(workspace: Path, path: str) -> dict:
    content = _inside(workspace, path).read_text()
    return {"path": path, "content": content, "size": len(content)}
