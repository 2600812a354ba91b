"""What can be checked of a toolset's Python without running any of it:
the `inspect` request of `toolset validate` and of an import before its
requirements are installed (a module that imports `requests` cannot be
imported yet, but it can be read).

Every `.py` file is compiled (a syntax error with its file, line and
column); each `entrypoint:` function is looked up among the module's
top-level definitions (its signature read from the source); each
`tools_from:` module's literal `TOOLS` / `__all__` is read and its tools'
input schemas derived as the import would (annotations evaluated with only
`typing` and the builtins in scope; one that names anything else gives no
type rather than a wrong one). What cannot be known without running the
module (a name bound by an import, `from x import *`, a computed `TOOLS`)
is "unknown": the check at import decides.

Loaded by atelier-worker as the module `_atelier_static`, before
`runner.py`, which passes it the function that builds a tool's schema.
"""

import ast
import inspect
import os
import typing
from pathlib import Path

# A default the source gives as an expression that is not a literal.
UNKNOWN = object()


def _module_file(root, module):
    base = os.path.join(root, *module.split("."))
    # A package wins over a module of the same name, as in Python's import.
    for candidate in (os.path.join(base, "__init__.py"), base + ".py"):
        if os.path.isfile(candidate):
            return candidate
    return None


def _parse(root, rel):
    path = os.path.join(root, rel)
    with open(path, "rb") as f:
        source = f.read()
    return ast.parse(source, filename=rel)


def _syntax_error(rel, e):
    return {
        "file": rel,
        "line": e.lineno,
        "column": e.offset,
        "message": f"{type(e).__name__}: {e.msg}",
        "text": (e.text or "").rstrip("\n"),
    }


def _top_level(tree):
    """(functions {name: node}, other bound names, whether `import *` is used).
    A decorated function, or one whose name is bound again, is not known
    from its `def`: a decorator may give it another signature."""
    functions, bound, star = {}, set(), False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    star = True
                else:
                    bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        bound.add(n.id)
        else:
            # if/try blocks may define anything: treat their names as bound.
            for n in ast.walk(node):
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    bound.add(n.name)
                elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    bound.add(n.id)
                elif isinstance(n, ast.alias):
                    bound.add((n.asname or n.name).split(".")[0])
    known = {n: f for n, f in functions.items() if not f.decorator_list and n not in bound}
    return known, bound | (set(functions) - set(known)), star


# The names an annotation may use: the builtin types, typing's public names
# and Path. Nothing else is looked up, called or imported.
_SCOPE = {name: getattr(typing, name) for name in dir(typing) if not name.startswith("_")}
_SCOPE.update({
    t.__name__: t for t in (int, float, str, bool, bytes, dict, list, tuple, set, frozenset, object, type)
})
_SCOPE.update({"Path": Path, "None": None})
_MODULES = {"typing": typing, "pathlib": __import__("pathlib")}


class _Unknown(Exception):
    """An annotation that names something outside the scope above."""


def _type_of(node):
    """The type an annotation's AST stands for, built without evaluating the
    bundle's code: only names of the scope above, `typing.X` / `pathlib.X`
    attributes, subscripts, `|` unions and constants (Literal values,
    Annotated texts). Anything else (a call, a name from an import) is
    unknown."""
    if isinstance(node, ast.Name):
        if node.id in _SCOPE:
            return _SCOPE[node.id]
        raise _Unknown(node.id)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in _MODULES:
        if node.attr.startswith("_"):
            raise _Unknown(node.attr)
        return getattr(_MODULES[node.value.id], node.attr)
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool, type(None))):
        return node.value
    if isinstance(node, ast.Subscript):
        base = _type_of(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else None
        args = tuple(_type_of(e) for e in items) if items is not None else _type_of(node.slice)
        return base[args]
    if isinstance(node, ast.List):
        return [_type_of(e) for e in node.elts]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _type_of(node.left), _type_of(node.right)
        return typing.Optional[left] if right is None else typing.Union[left, right]
    raise _Unknown(type(node).__name__)


def _annotation(node):
    if node is None:
        return inspect.Parameter.empty
    try:
        kind = _type_of(node)
    except Exception:  # noqa: BLE001 - a type from elsewhere: no type
        return inspect.Parameter.empty
    # A string annotation ("int") is a forward reference: not followed.
    return inspect.Parameter.empty if isinstance(kind, str) else kind


def _default(node):
    try:
        return ast.literal_eval(node)
    except Exception:  # noqa: BLE001 - an expression: a default, value unknown
        return UNKNOWN


def _signature(fn):
    """An inspect.Signature read from a FunctionDef (defaults evaluated as
    literals, annotations with typing names only)."""
    a = fn.args
    params = []
    positional = [*a.posonlyargs, *a.args]
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for i, (arg, d) in enumerate(zip(positional, defaults)):
        kind = inspect.Parameter.POSITIONAL_ONLY if i < len(a.posonlyargs) else inspect.Parameter.POSITIONAL_OR_KEYWORD
        default = inspect.Parameter.empty if d is None else _default(d)
        params.append(inspect.Parameter(arg.arg, kind, default=default, annotation=_annotation(arg.annotation)))
    if a.vararg:
        params.append(inspect.Parameter(a.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        default = inspect.Parameter.empty if d is None else _default(d)
        params.append(inspect.Parameter(arg.arg, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=_annotation(arg.annotation)))
    if a.kwarg:
        params.append(inspect.Parameter(a.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(params, __validate_parameters__=False)


def parameters(sig):
    """The shape the `check` request answers with (the import check in
    runner.py answers with it too)."""
    params = sig.parameters.values()
    return {
        "parameters": [
            {"name": p.name, "required": p.default is inspect.Parameter.empty}
            for p in params
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ],
        "var_keyword": any(p.kind == p.VAR_KEYWORD for p in params),
    }


def not_tools(module, source, wrong):
    """What a `tools_from:` module whose explicit exports name things that
    cannot be tools is told (seed 002: wrong kinds fail clearly, naming
    them), the same at `validate` (read from the source) and at import
    (the module imported). `wrong`: [(name, why)]."""
    listed = ", ".join(f"{name} ({why})" for name, why in wrong)
    hint = (
        ""
        if source == "TOOLS"
        else "; if __all__ is the module's public API, list its tools in TOOLS instead (TOOLS wins over __all__)"
    )
    return f"{module}.{source} names what cannot be a tool (a function that takes `workspace`): {listed}{hint}"


def takes_workspace(sig):
    """Whether every call can give the function `workspace`."""
    return any(p.name == "workspace" or p.kind == p.VAR_KEYWORD for p in sig.parameters.values())


def _exported_names(tree):
    """The literal `TOOLS` (list of names or dict of name → function) or
    `__all__` of a module: [(tool name, function name)], or None when it is
    not written as a literal, or absent."""
    # Changed after it is written (`+=`, `.append(…)`, assigned again): what
    # the import sees is not known from the source.
    assigned = {"TOOLS": 0, "__all__": 0}
    for n in ast.walk(tree):
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id in assigned:
            return None
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name)
            and n.func.value.id in assigned
        ):
            return None
        if isinstance(n, (ast.Assign, ast.AnnAssign)):
            for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                if isinstance(t, ast.Name) and t.id in assigned:
                    assigned[t.id] += 1
    if any(count > 1 for count in assigned.values()):
        return None
    tools, all_ = None, None
    for node in tree.body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        name, value = node.targets[0].id, node.value
        if name == "TOOLS":
            if isinstance(value, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Name) for e in value.elts):
                tools = [(e.id, e.id) for e in value.elts]
            elif isinstance(value, ast.Dict) and all(
                isinstance(k, ast.Constant) and isinstance(k.value, str) and isinstance(v, ast.Name)
                for k, v in zip(value.keys, value.values)
            ):
                tools = [(k.value, v.id) for k, v in zip(value.keys, value.values)]
            else:
                tools = False
        elif name == "__all__":
            try:
                names = ast.literal_eval(value)
                all_ = [(n, n) for n in names] if all(isinstance(n, str) for n in names) else False
            except Exception:  # noqa: BLE001 - computed: unknown
                all_ = False
    chosen = tools if tools is not None else all_
    if not chosen:
        return None
    return chosen, ("TOOLS" if tools is not None else "__all__")


def inspect_bundle(req, root, make_tool):
    """Answers `inspect`: {"syntax": [...], "entrypoints": {ep: ...},
    "tools_from": {module: [...] | None}}."""
    trees, syntax = {}, []
    for rel in req.get("files", []):
        try:
            trees[rel] = _parse(root, rel)
        except SyntaxError as e:
            syntax.append(_syntax_error(rel, e))
        except (OSError, ValueError, RecursionError, MemoryError) as e:
            syntax.append({"file": rel, "line": None, "column": None, "message": str(e), "text": ""})

    def tree_of(module):
        path = _module_file(root, module)
        return None if path is None else trees.get(os.path.relpath(path, root).replace(os.sep, "/"))

    entrypoints = {}
    for ep in req.get("entrypoints", []):
        module, _, name = ep.partition(":")
        tree = tree_of(module)
        if tree is None:
            entrypoints[ep] = {"found": "unknown"}
            continue
        functions, bound, star = _top_level(tree)
        if name in functions:
            try:
                entrypoints[ep] = {"found": "def", **parameters(_signature(functions[name]))}
            except Exception:  # noqa: BLE001 - an odd signature: the import decides
                entrypoints[ep] = {"found": "unknown"}
        elif name in bound or star:
            entrypoints[ep] = {"found": "unknown"}
        else:
            entrypoints[ep] = {"found": "missing", "functions": sorted(functions)}

    tools_from, wrong_kinds = {}, {}
    for module in req.get("tools_from", []):
        tree = tree_of(module)
        exported = None if tree is None else _exported_names(tree)
        if exported is None:
            tools_from[module] = None
            continue
        names, source = exported
        functions, _, _ = _top_level(tree)
        classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
        wrong = []
        for tool_name, fn_name in names:
            if fn_name in classes and fn_name not in functions:
                wrong.append((tool_name, "a class"))
            elif fn_name in functions:
                try:
                    if not takes_workspace(_signature(functions[fn_name])):
                        wrong.append((tool_name, "a function without a `workspace` parameter"))
                except Exception:  # noqa: BLE001 - an odd signature: the import decides
                    pass
        if wrong:
            wrong_kinds[module] = not_tools(module, source, wrong)
            tools_from[module] = None
            continue
        tools = []
        for tool_name, fn_name in names:
            fn = functions.get(fn_name)
            if fn is None:
                # Bound by an import or an assignment: known at import only.
                tools = None
                break
            try:
                tools.append(make_tool(module, tool_name, _signature(fn), ast.get_docstring(fn) or ""))
            except Exception:  # noqa: BLE001 - an odd signature: the import decides
                tools = None
                break
        tools_from[module] = tools
    return {"syntax": syntax, "entrypoints": entrypoints, "tools_from": tools_from, "not_tools": wrong_kinds}
