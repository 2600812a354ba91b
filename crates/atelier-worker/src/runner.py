"""The Python half of atelier-worker: resolve a tool, check its arguments,
call it, and check what it returned.

The Rust half (main.rs) owns the process: the protocol socket, fd 1/2
capture and the end-of-call markers. Every function here returns the JSON
text of an `Outcome` of the atelier-protocol crate:
{"status": "ok", "value": ...} or
{"status": "error", "kind": ..., "message": ..., "exception_type": ..., "traceback": ...}.
"""

import importlib
import inspect
import json
import os
import sys
import traceback
# Imported lazily by traceback's formatting on newer Pythons: loaded here,
# before the toolset's folder is on sys.path, so a bundle's own
# unicodedata.py is never the one a traceback imports.
import unicodedata  # noqa: F401
from pathlib import Path

# inspect_static.py, loaded by the worker before this module.
import _atelier_static as _static
from _atelier_static import UNKNOWN as _UNKNOWN
from _atelier_values import json_problem as _json_problem
from _atelier_values import plain as _plain
from _atelier_values import type_name as _type_name

_config = {}


def setup(config_json):
    """Puts the toolset folder and its venv on sys.path; returns
    (python_version, base_prefix)."""
    global _config
    _config = json.loads(config_json)
    venv = _config.get("venv")
    if venv:
        # The venv's own Python sees no system packages; neither does its
        # worker, or a toolset missing a requirement would work here (an
        # `import yaml` from Debian's dist-packages) and break elsewhere.
        sys.path[:] = [p for p in sys.path if not p.endswith(("site-packages", "dist-packages"))]
    sys.path[0:0] = [_config["toolset_dir"], *_config.get("site_packages", [])]
    # A tool module importing a sibling by its bare name (`import helpers`
    # in tools/hello.py) finds it: `tools/` is searched last, so a bundle's
    # tools/json.py never hides the standard library's.
    sys.path.append(os.path.join(_config["toolset_dir"], "tools"))
    sys.argv = [""]
    if os.environ.pop("ATELIER_WORKER_PINNED_HOME", None):
        # Set by the worker for its own start only (see main.rs).
        os.environ.pop("PYTHONHOME", None)
    minor = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    # Tools that start `sys.executable` must get a Python, not this worker.
    sys.executable = os.path.join(venv, "bin", "python") if venv else os.path.join(sys.base_prefix, "bin", minor)
    for stream in (sys.stdout, sys.stderr):
        # fd 1/2 are pipes: line-buffer so output streams while a call runs.
        stream.reconfigure(line_buffering=True, errors="backslashreplace")
    import faulthandler

    # A segfault in a C extension prints the Python stack to the capture.
    faulthandler.enable(file=sys.stderr)
    return "%d.%d.%d" % sys.version_info[:3], sys.base_prefix


# The most characters of an error's message or traceback kept: a tool
# raising a 20 MiB message must not put it in every row and view.
_ERROR_CAP = 64 << 10


def _said(text):
    """`text` as an error keeps it: capped, and a lone surrogate (a file
    name that is not UTF-8) written as its escape, which JSON readers take."""
    if len(text) > _ERROR_CAP:
        text = f"{text[:_ERROR_CAP]}… [cut: {len(text)} characters]"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _error(kind, message, exc=None, tb=None):
    out = {"status": "error", "kind": kind, "message": _said(message)}
    if exc is not None:
        out["exception_type"] = _type_name(type(exc))
        out["traceback"] = _said("".join(traceback.format_exception(type(exc), exc, tb or exc.__traceback__)))
    return json.dumps(out)


_IMPORTLIB = os.path.dirname(importlib.__file__)


def _user_frames(exc):
    """The traceback without the frames before the tool's own code: this
    file's, and the import machinery's (a module that fails to import is
    shown from its own line)."""
    tb = exc.__traceback__
    while tb is not None:
        f = tb.tb_frame.f_code.co_filename
        if f != __file__ and not f.startswith("<frozen importlib") and not f.startswith(_IMPORTLIB):
            break
        tb = tb.tb_next
    return tb


class _Fail(Exception):
    def __init__(self, kind, message, exc=None):
        super().__init__(message)
        self.kind, self.message, self.exc = kind, message, exc


def _import(module_name):
    try:
        return importlib.import_module(module_name)
    except Exception as e:  # noqa: BLE001 - any import failure is reported
        raise _Fail("import", f"could not import {module_name}: {_type_name(type(e))}: {e}", e) from e


def _wrong_kind(fn):
    """Why `fn` cannot be a tool, or None (a callable without a signature
    to read is left to its call)."""
    if inspect.isclass(fn):
        return "a class"
    sig = _signature(fn)
    if sig is not None and not _static.takes_workspace(sig):
        return "a function without a `workspace` parameter"
    return None


def _exports(module, kinds=False):
    """Seed 002's explicit exports: TOOLS (dict or list) wins, else __all__.
    Returns {name: callable}; raises on duplicates, non-callables, or none,
    and with `kinds` (an import listing them) on what cannot be a tool — a
    class, a helper without `workspace` — naming each. A call resolves its
    own tool only: the import already refused the rest."""
    name = module.__name__
    if hasattr(module, "TOOLS"):
        table = module.TOOLS
        if isinstance(table, dict):
            items = list(table.items())
        elif isinstance(table, (list, tuple)):
            items = [(getattr(f, "__name__", repr(f)), f) for f in table]
        else:
            raise _Fail("entrypoint", f"{name}.TOOLS must be a dict or a list, not {_type_name(type(table))}")
        source = "TOOLS"
    elif hasattr(module, "__all__"):
        items = [(n, getattr(module, n, None)) for n in module.__all__]
        source = "__all__"
    else:
        raise _Fail("entrypoint", f"{name} exports no tools: define TOOLS (a dict or list) or __all__")
    seen, dupes, bad = {}, [], []
    for tool_name, fn in items:
        if not isinstance(tool_name, str) or not tool_name:
            bad.append(repr(tool_name))
            continue
        if tool_name in seen:
            dupes.append(tool_name)
        if not callable(fn):
            bad.append(tool_name)
        seen[tool_name] = fn
    if dupes:
        raise _Fail("entrypoint", f"{name}.{source} names these tools twice: {', '.join(sorted(set(dupes)))}")
    if bad:
        raise _Fail("entrypoint", f"{name}.{source} lists entries that are not callable: {', '.join(bad)}")
    wrong = [(n, why) for n, why in ((n, _wrong_kind(fn)) for n, fn in seen.items()) if why] if kinds else []
    if wrong:
        raise _Fail("entrypoint", _static.not_tools(name, source, wrong))
    return seen


def _resolve(entrypoint, exported):
    module_name, sep, attr = entrypoint.partition(":")
    if not sep or not module_name or not attr:
        raise _Fail("entrypoint", f"entrypoint {entrypoint!r} is not of the form module.path:function")
    module = _import(module_name)
    if exported:
        table = _exports(module)
        if attr not in table:
            raise _Fail("entrypoint", f"{module_name} does not export a tool named {attr!r} (it exports: {', '.join(table) or 'nothing'})")
        return table[attr]
    fn = module
    for part in attr.split("."):
        if not hasattr(fn, part):
            raise _Fail("entrypoint", f"{module_name} has no attribute {attr!r} (entrypoint {entrypoint})")
        fn = getattr(fn, part)
    if not callable(fn):
        raise _Fail("entrypoint", f"{entrypoint} is a {_type_name(type(fn))}, not a function")
    return fn


def _declares(fn, name):
    """Whether fn names `name` as a parameter (not only through **kwargs)."""
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _bind(fn, entrypoint, kwargs):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return  # builtins without a signature: let the call decide
    try:
        sig.bind(**kwargs)
    except TypeError as e:
        params = ", ".join(p for p in sig.parameters)
        raise _Fail("invalid_args", f"{entrypoint} cannot be called with these arguments: {e} (its parameters: {params})") from None


def _converted(fn, entrypoint, kwargs):
    """The arguments as the function's annotations ask for them: JSON has
    strings where a parameter says `Path` or an `Enum`; the tool gets a
    Path and the Enum's member, as a direct call would give it."""
    import enum
    import typing

    sig = _signature(fn)
    if sig is None:
        return kwargs
    out = dict(kwargs)
    for name, value in kwargs.items():
        p = sig.parameters.get(name)
        if p is None or value is None or p.annotation is inspect.Parameter.empty or name == "workspace":
            continue
        ann = p.annotation
        origin = typing.get_origin(ann)
        if origin is typing.Annotated:
            ann = typing.get_args(ann)[0]
            origin = typing.get_origin(ann)
        if origin is typing.Union or (origin is not None and getattr(origin, "__name__", "") == "UnionType"):
            inner = [a for a in typing.get_args(ann) if a is not type(None)]
            if len(inner) != 1:
                continue
            ann = inner[0]
        if not isinstance(ann, type):
            continue
        if issubclass(ann, enum.Enum) and not isinstance(value, ann):
            try:
                out[name] = ann(value)
            except ValueError:
                allowed = ", ".join(repr(m.value) for m in ann)
                raise _Fail("invalid_args", f"{entrypoint}: {name} must be one of {allowed}, not {value!r}") from None
        elif issubclass(ann, os.PathLike) and isinstance(value, str):
            out[name] = ann(value) if ann is not os.PathLike else Path(value)
    return out


def _call(req):
    entrypoint = req["entrypoint"]
    fn = _resolve(entrypoint, req.get("exported", False))
    args = req.get("args") or {}
    if "workspace" in args:
        raise _Fail("invalid_args", "'workspace' is given by Atelier and cannot be an argument")
    if "atelier_config" in args:
        raise _Fail("invalid_args", "'atelier_config' is given by Atelier and cannot be an argument")
    workspace = Path(req["workspace"])
    kwargs = {"workspace": workspace, **args}
    if _declares(fn, "atelier_config"):
        kwargs["atelier_config"] = dict(req.get("config") or {})
    _bind(fn, entrypoint, kwargs)
    kwargs = _converted(fn, entrypoint, kwargs)
    os.chdir(workspace)
    try:
        value = fn(**kwargs)
        if inspect.iscoroutine(value):
            # An `async def` tool: run to its end on a loop of its own.
            import asyncio

            value = asyncio.run(value)
    except BaseException as e:  # noqa: BLE001 - SystemExit and KeyboardInterrupt are tool failures too
        raise _Fail("exception", f"{_type_name(type(e))}: {e}", e) from e
    if not isinstance(value, dict):
        raise _Fail("bad_return", f"{entrypoint} must return a dict (a JSON object), not {_type_name(type(value))}")
    problem = _json_problem(value, "$return")
    if problem:
        raise _Fail("bad_return", f"{entrypoint} returned a value JSON cannot hold: {problem[0]} at {problem[1]}")
    return value


def _nullable(schema):
    """`schema`, also accepting null (an Optional, or a default of None)."""
    t = schema.get("type")
    if isinstance(t, str):
        return {**schema, "type": [t, "null"]}
    if isinstance(t, list):
        return schema if "null" in t else {**schema, "type": [*t, "null"]}
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    if "enum" in schema:
        return schema if None in schema["enum"] else {**schema, "enum": [*schema["enum"], None]}
    return schema  # no type: anything, null included


def _schema_of(annotation):
    import typing

    if annotation is inspect.Parameter.empty:
        return {}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        # Annotated[int, "the count"]: the text is the description.
        schema = _schema_of(args[0])
        notes = [a for a in args[1:] if isinstance(a, str)]
        if notes:
            schema["description"] = " ".join(notes)
        return schema
    if origin is typing.Union or (origin is not None and getattr(origin, "__name__", "") == "UnionType"):
        inner = [a for a in args if a is not type(None)]
        schema = _schema_of(inner[0]) if len(inner) == 1 else {"anyOf": [_schema_of(a) for a in inner]}
        return _nullable(schema) if len(inner) < len(args) else schema
    if origin is typing.Literal:
        return {"enum": list(args)}
    simple = {str: "string", int: "integer", float: "number", bool: "boolean", dict: "object", Path: "string"}
    if isinstance(annotation, type) and annotation in simple:
        return {"type": simple[annotation]}
    import enum

    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        # The values are what a model sends (see `_converted`).
        values = [m.value for m in annotation]
        if all(isinstance(v, (str, int, float, bool)) for v in values):
            return {"enum": values}
        return {}
    if isinstance(annotation, type) and issubclass(annotation, os.PathLike):
        return {"type": "string"}
    if annotation is list or origin in (list, tuple, set):
        out = {"type": "array"}
        if origin is list and args:
            out["items"] = _schema_of(args[0])
        return out
    if origin is dict:
        return {"type": "object"}
    return {}


def _param_docs(doc):
    """Parameter descriptions from a docstring's `Args:` (Google) or
    `Parameters` + dashes (NumPy) section: {name: text}."""
    lines = doc.splitlines()
    out, i = {}, 0
    while i < len(lines):
        head = lines[i].strip()
        numpy = head in ("Parameters", "Params") and i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}
        google = head in ("Args:", "Arguments:", "Parameters:", "Params:")
        if not (numpy or google):
            i += 1
            continue
        i += 2 if numpy else 1
        indent, name = None, None
        while i < len(lines):
            line = lines[i]
            if not line.strip():
                i += 1
                if numpy:
                    name = None
                continue
            depth = len(line) - len(line.lstrip())
            if indent is None:
                indent = depth
            if depth < indent or (numpy and depth == indent and set(line.strip()) == {"-"}):
                break
            text = line.strip()
            if depth == indent:
                if google:
                    key, _, rest = text.partition(":")
                else:
                    key, rest = text.partition(":")[0], ""
                name = key.split("(")[0].strip()
                out[name] = rest.strip()
            elif name is not None:
                out[name] = (out[name] + " " + text).strip()
            i += 1
            if numpy and i < len(lines) and lines[i].strip() and set(lines[i].strip()) == {"-"}:
                break
        break
    return {k: v for k, v in out.items() if k and v}


def _tool(module_name, name, sig, doc):
    """A `tools_from` tool: its input schema from the signature `sig` (an
    inspect.Signature, or None when there is none) and docstring `doc`."""
    props, required = {}, []
    described = _param_docs(doc)
    for p in (sig.parameters.values() if sig else []):
        # Given by Atelier, never by the model.
        if p.name in ("workspace", "atelier_config") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        schema = _schema_of(p.annotation)
        if p.default is inspect.Parameter.empty:
            required.append(p.name)
        elif p.default is not _UNKNOWN:
            if p.default is None:
                # `x: int = None` means "may be left out or null".
                schema = _nullable(schema)
            if _json_problem(p.default, "") is None:
                schema["default"] = p.default
        if "description" not in schema and p.name in described:
            schema["description"] = described[p.name]
        props[p.name] = schema
    input_schema = {"type": "object", "properties": props}
    if required:
        input_schema["required"] = required
    takes_more = sig is not None and any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
    if not takes_more:
        input_schema["additionalProperties"] = False
    return {
        "name": name,
        "entrypoint": f"{module_name}:{name}",
        "description": doc.split("\n\n")[0].strip(),
        "input_schema": input_schema,
    }


def _signature(fn):
    """`fn`'s signature with its annotations as types, also in a module with
    `from __future__ import annotations` (where they are strings); as
    strings when they cannot be evaluated (a name imported only under
    TYPE_CHECKING); None for a callable without one."""
    try:
        return inspect.signature(fn, eval_str=True)
    except (TypeError, ValueError):
        return None
    except Exception:  # noqa: BLE001 - an annotation that fails to evaluate
        try:
            return inspect.signature(fn)
        except (TypeError, ValueError):
            return None


def _describe(req):
    module_name = req["module"]
    module = _import(module_name)
    tools = []
    for name, fn in _exports(module, kinds=True).items():
        tools.append(_tool(module_name, name, _signature(fn), inspect.getdoc(fn) or ""))
    return tools


def _check(req):
    fn = _resolve(req["entrypoint"], False)
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return {"parameters": None, "var_keyword": True}
    return _static.parameters(sig)


def _root(toolset_dir):
    """Imports come from `toolset_dir` now (a spare worker taking up a
    version's looks; it has imported nothing of the old folder)."""
    old = _config["toolset_dir"]
    moved = {old: toolset_dir, os.path.join(old, "tools"): os.path.join(toolset_dir, "tools")}
    sys.path[:] = [moved.get(p, p) for p in sys.path]
    _config["toolset_dir"] = toolset_dir
    os.chdir(toolset_dir)
    importlib.invalidate_caches()
    return {}


def handle(request_json):
    """Answers one request; returns the JSON text of its Outcome."""
    try:
        req = json.loads(request_json)
        op = req.get("op")
        if op == "call":
            value = _call(req)
        elif op == "describe":
            value = _describe(req)
        elif op == "check":
            value = _check(req)
        elif op == "root":
            value = _root(req["toolset_dir"])
        elif op == "inspect":
            value = _static.inspect_bundle(req, _config["toolset_dir"], _tool)
        else:
            return _error("entrypoint", f"unknown request {op!r}")
        text = json.dumps({"status": "ok", "value": value}, allow_nan=False, default=_plain)
        if len(text) > _config.get("return_cap", 16 << 20):
            preview = json.dumps(value, default=_plain)[:200]
            return _error("too_large", f"the return value is {len(text)} bytes of JSON, over the cap of {_config['return_cap']}; it starts {preview}")
        return text
    except _Fail as f:
        if f.exc is not None:
            f.exc.__traceback__ = _user_frames(f.exc)
        return _error(f.kind, f.message, f.exc)
    except BaseException as e:  # noqa: BLE001 - never let the worker die on a request
        return _error("exception", f"{_type_name(type(e))}: {e}", e)
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - a closed stream has nothing to flush
                pass
