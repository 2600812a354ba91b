"""The Python half of atelier-worker: resolve a tool, check its arguments,
call it, and check what it returned.

The Rust half (main.rs) owns the process: the protocol socket, fd 1/2
capture and the end-of-call markers. Every function here returns the JSON
text of an `Outcome` of the atelier-protocol crate:
{"status": "ok", "value": ...} or
{"status": "error", "kind": ..., "message": ..., "exception_type": ..., "traceback": ...}.
"""

import functools
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

# schemas.py and inspect_static.py, loaded by the worker before this module.
import _atelier_schemas as _schemas
import _atelier_static as _static
from _atelier_values import json_problem as _json_problem
from _atelier_values import jsonable as _jsonable
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


def _human_bytes(n):
    """`n` bytes as the app says a size (`16 MiB`, `20.0 MiB`, `512 bytes`;
    atelier_core::toolsets::bundle::human_bytes)."""
    for size, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= size:
            return f"{n // size} {unit}" if n % size == 0 else f"{n / size:.1f} {unit}"
    return f"{n} bytes"


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


def _missing_hint(e):
    """What a ModuleNotFoundError is told when the module is neither the
    standard library's nor the bundle's: a requirement the manifest does
    not list (a root requirements.txt is read only when it lists none)."""
    if not isinstance(e, ModuleNotFoundError) or not e.name:
        return ""
    top = e.name.split(".")[0]
    if top in getattr(sys, "stdlib_module_names", ()):
        return ""
    root = _config.get("toolset_dir", "")
    for base in (root, os.path.join(root, "tools")):
        if os.path.isfile(os.path.join(base, top + ".py")) or os.path.isdir(os.path.join(base, top)):
            return ""
    return " — list it under python.requirements in toolset.yaml"


def _import(module_name):
    try:
        return importlib.import_module(module_name)
    except Exception as e:  # noqa: BLE001 - any import failure is reported
        raise _Fail("import", f"could not import {module_name}: {_type_name(type(e))}: {e}{_missing_hint(e)}", e) from e


# An `__all__` name the module does not define.
_NOT_DEFINED = object()


def _as_tool(obj):
    """What an explicit export stands for: (function, description or None),
    or (None, why it cannot be a tool). A plain callable is a tool (sync or
    async, with or without `workspace`); so is a pydantic_ai `Tool` (its
    function, name and description) whose function takes no RunContext."""
    if obj is _NOT_DEFINED:
        return None, "not defined in the module"
    if inspect.isclass(obj):
        return None, "a class"
    if inspect.ismodule(obj):
        return None, "a module"
    function = getattr(obj, "function", None)
    if not callable(obj) and callable(function) and isinstance(getattr(obj, "name", None), str):
        if getattr(obj, "takes_ctx", False):
            return None, "a Tool whose function takes a RunContext, which Atelier does not give"
        return function, getattr(obj, "description", None)
    if not callable(obj):
        return None, f"not callable: {_static.kind_of(obj)}"
    return obj, None


def _export_name(obj):
    """The tool name a TOOLS list gives `obj`: its `__name__` (a pydantic_ai
    Tool's `name`), or None when it has none (a `functools.partial`, an
    instance with `__call__`)."""
    name = getattr(obj, "name", None) if not callable(obj) else None
    name = name if isinstance(name, str) else getattr(obj, "__name__", None)
    return name if isinstance(name, str) and name else None


def _unnamed(index, obj):
    """What a TOOLS list entry without a name is told: which it is, and
    how to name it."""
    if isinstance(obj, functools.partial):
        return _static.unnamed_partial(index, getattr(obj.func, "__name__", None))
    kind = type(obj).__name__
    return _static.unnamed(index, f"{_static.kind_of(obj)} instance", kind.lower(), f"{kind}()")


def _exports(module):
    """Seed 002's explicit exports: TOOLS (dict or list) wins, else __all__.
    Returns {name: (function, description or None)}; raises on none, on
    duplicates, and on what cannot be a tool (a class, a module, a value
    that is not callable), naming each."""
    name = module.__name__
    if hasattr(module, "TOOLS"):
        table = module.TOOLS
        if isinstance(table, dict):
            items = list(table.items())
        elif isinstance(table, (list, tuple)):
            items = [(_export_name(f), f) for f in table]
            unnamed = [_unnamed(i, f) for i, (n, f) in enumerate(items) if n is None and _as_tool(f)[0] is not None]
            if unnamed:
                raise _Fail("entrypoint", _static.not_tools(name, "TOOLS", unnamed))
            items = [(n if n is not None else repr(f), f) for n, f in items]
        else:
            raise _Fail("entrypoint", _static.not_a_table(name, _type_name(type(table))))
        source = "TOOLS"
    elif hasattr(module, "__all__"):
        items = [(n, getattr(module, n, _NOT_DEFINED)) for n in module.__all__]
        source = "__all__"
    else:
        raise _Fail("entrypoint", _static.no_exports(name))
    seen, dupes, wrong = {}, [], []
    for tool_name, obj in items:
        if not isinstance(tool_name, str) or not tool_name:
            wrong.append((repr(tool_name), "not a tool name"))
            continue
        if tool_name in seen:
            dupes.append(tool_name)
        fn, said = _as_tool(obj)
        if fn is None:
            wrong.append((tool_name, said))
        seen[tool_name] = (fn, said)
    if dupes:
        raise _Fail("entrypoint", _static.twice(name, source, dupes))
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
        return table[attr][0]
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
    """The call's positional and keyword arguments: a positional-only
    parameter (`def add(a, b, /)`) is given its argument by position."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return [], kwargs  # builtins without a signature: let the call decide
    kwargs = dict(kwargs)
    positional = []
    for p in sig.parameters.values():
        if p.kind != p.POSITIONAL_ONLY or p.name not in kwargs:
            break
        positional.append(kwargs.pop(p.name))
    try:
        sig.bind(*positional, **kwargs)
    except TypeError as e:
        params = ", ".join(p for p in sig.parameters)
        raise _Fail("invalid_args", f"{entrypoint} cannot be called with these arguments: {e} (its parameters: {params})") from None
    return positional, kwargs


def _converted(fn, entrypoint, kwargs):
    """The arguments as the function's annotations ask for them: JSON has
    strings where a parameter says `Path` or an `Enum`, objects where it
    says a dataclass; the tool gets a Path, the Enum's member, the
    dataclass, as a direct call would give it (see `_atelier_schemas`)."""
    sig = _signature(fn)
    if sig is None:
        return kwargs
    out = dict(kwargs)
    for name, value in kwargs.items():
        p = sig.parameters.get(name)
        if p is None or name == "workspace":
            continue
        try:
            out[name] = _schemas.convert(p.annotation, value)
        except _schemas.Invalid as e:
            raise _Fail("invalid_args", f"{entrypoint}: {name} {e}") from None
    return out


def _call(req):
    entrypoint = req["entrypoint"]
    exported = req.get("exported", False)
    fn = _resolve(entrypoint, exported)
    args = req.get("args") or {}
    if "workspace" in args:
        raise _Fail("invalid_args", "'workspace' is given by Atelier and cannot be an argument")
    if "atelier_config" in args:
        raise _Fail("invalid_args", "'atelier_config' is given by Atelier and cannot be an argument")
    workspace = Path(req["workspace"])
    kwargs = dict(args)
    # An entry point's contract is `run(workspace, **kwargs)`; an exported
    # function gets `workspace` only if it names it (a plain function
    # written for other callers is called with its own arguments only).
    if not exported or _declares(fn, "workspace"):
        kwargs["workspace"] = workspace
    if _declares(fn, "atelier_config"):
        kwargs["atelier_config"] = dict(req.get("config") or {})
    kwargs = _converted(fn, entrypoint, kwargs)
    positional, kwargs = _bind(fn, entrypoint, kwargs)
    os.chdir(workspace)
    try:
        value = fn(*positional, **kwargs)
        if inspect.isawaitable(value):
            # An `async def` tool: run to its end on a loop of its own.
            import asyncio

            async def awaited():
                return await value

            value = asyncio.run(awaited())
    except BaseException as e:  # noqa: BLE001 - SystemExit and KeyboardInterrupt are tool failures too
        raise _Fail("exception", f"{_type_name(type(e))}: {e}{_missing_hint(e)}", e) from e
    if exported:
        # Any JSON value: a dataclass or a pydantic model as its fields.
        value = _jsonable(value)
    elif not isinstance(value, dict):
        raise _Fail("bad_return", f"{entrypoint} must return a dict (a JSON object), not {_type_name(type(value))}")
    problem = _json_problem(value, "$return")
    if problem:
        raise _Fail("bad_return", f"{entrypoint} returned a value JSON cannot hold: {problem[0]} at {problem[1]}")
    return value


def _signature(fn):
    """`fn`'s signature with its annotations as types, also in a module with
    `from __future__ import annotations` (where they are strings, a quoted
    one twice); as strings when they cannot be evaluated (a name imported
    only under TYPE_CHECKING); None for a callable without one."""
    try:
        sig = inspect.signature(fn, eval_str=True)
    except (TypeError, ValueError):
        return None
    except Exception:  # noqa: BLE001 - an annotation that fails to evaluate
        try:
            return inspect.signature(fn)
        except (TypeError, ValueError):
            return None
    scope = getattr(inspect.unwrap(_function_of(fn)), "__globals__", None)
    if scope is None or not any(isinstance(p.annotation, str) for p in sig.parameters.values()):
        return sig
    params = []
    for p in sig.parameters.values():
        if isinstance(p.annotation, str):
            try:
                p = p.replace(annotation=eval(p.annotation, scope))  # noqa: S307 - as eval_str does
            except Exception:  # noqa: BLE001 - left as the string
                pass
        params.append(p)
    return sig.replace(parameters=params)


def _function_of(fn):
    """The function that runs when `fn` is called: a partial's function, a
    callable instance's `__call__`."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    if not inspect.isroutine(fn) and callable(getattr(type(fn), "__call__", None)) and not inspect.isclass(fn):
        call = getattr(type(fn), "__call__")
        return call if inspect.isfunction(call) else fn
    return fn


def _doc(fn):
    """A tool's docstring: a partial's is its function's, not partial's own."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    doc = inspect.getdoc(fn)
    if not doc and not inspect.isroutine(fn) and not inspect.isclass(fn):
        doc = inspect.getdoc(getattr(type(fn), "__call__", None))  # an instance: its __call__'s
    return doc or ""


def _describe(req):
    module_name = req["module"]
    module = _import(module_name)
    return [
        _schemas.tool(module_name, name, _signature(fn), _doc(fn), description)
        for name, (fn, description) in _exports(module).items()
    ]


def _check(req):
    """An entry point's parameters, and the tool its signature and
    docstring make (the input schema of an entry without one)."""
    entrypoint = req["entrypoint"]
    fn = _resolve(entrypoint, False)
    sig = _signature(fn)
    if sig is None:
        return {"parameters": None, "var_keyword": True}
    module_name, _, attr = entrypoint.partition(":")
    made = _schemas.tool(module_name, attr, sig, inspect.getdoc(fn) or "")
    return {**_static.parameters(sig), "tool": made}


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
            value = _static.inspect_bundle(req, _config["toolset_dir"])
        else:
            return _error("entrypoint", f"unknown request {op!r}")
        text = json.dumps({"status": "ok", "value": value}, allow_nan=False, default=_plain)
        cap = _config.get("return_cap", 16 << 20)
        if len(text) > cap:
            preview = json.dumps(value, default=_plain)[:200]
            size, cap = _human_bytes(len(text)), _human_bytes(cap)
            return _error("too_large", f"the return value is {size} of JSON, over the {cap} cap; it starts {preview}")
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
