"""What can be checked of a toolset's Python without running any of it:
the `inspect` request of `toolset validate` and of an import before its
requirements are installed (a module that imports `requests` cannot be
imported yet, but it can be read).

Every `.py` file is compiled (a syntax error with its file, line and
column); each `entrypoint:` function is looked up (its signature read from
the source, and the tool it makes when its entry gives no `input_schema`);
each `tools_from:` module's `TOOLS` / `__all__` is read and its tools'
input schemas derived as the import derives them (`_atelier_schemas`).
A name is followed to what it names inside the bundle — a `def`, a class,
a module, an assignment — through `from tools.impl import add`,
`from .impl import add`, `import tools.impl as impl` + `impl.add`, and a
class the source defines (an Enum, a dataclass, a TypedDict) becomes a
type built from its source for the annotations that name it. Nothing of
the bundle is imported, called or evaluated: literals are read with
`ast.literal_eval`, and only the standard library's typing modules are
looked into. What cannot be known without running the module (a name
bound by a decorator, an `if`, a call, an import from outside the bundle,
a computed `TOOLS`) is said as such: the import decides.

Loaded by atelier-worker as the module `_atelier_static`, after
`_atelier_schemas` and before `runner.py`, whose messages about exports are
made here so the two say the same.
"""

import ast
import builtins
import collections.abc
import dataclasses
import enum
import inspect
import os
import pathlib
import sys
import types
import typing

import _atelier_schemas as _schemas
from _atelier_schemas import UNKNOWN

# --- What is said about exports (the import says the same) ------------


def kind_of(value):
    """What a value that is not callable is, with its article: `an int`."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def not_a_table(module, type_name):
    return f"{module}.TOOLS must be a dict or a list, not {type_name}"


def no_exports(module):
    return f"{module} exports no tools: define TOOLS (a dict or list) or __all__"


def twice(module, source, names):
    return f"{module}.{source} names these tools twice: {', '.join(sorted(set(names)))}"


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
    return f"{module}.{source} names what cannot be a tool: {listed} (a tool is a function, sync or async){hint}"


def unnamed(index, what, name, example):
    """A TOOLS list entry without a `__name__` (its tool's name): which
    entry, and how to name it. As not_tools lists it: (entry, why)."""
    return (f"TOOLS[{index}]", f'{what}, which has no name: give it a name: use a TOOLS dict ({{"{name}": {example}}})')


def unnamed_partial(index, function):
    function = function or "f"
    return unnamed(index, "a functools.partial", function, f"partial({function}, ...)")


def takes_workspace(sig):
    """Whether every call can give the function `workspace`."""
    return any(p.name == "workspace" or p.kind == p.VAR_KEYWORD for p in sig.parameters.values())


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


# --- Reading modules ---------------------------------------------------


def _syntax_error(rel, e):
    return {
        "file": rel,
        "line": e.lineno,
        "column": e.offset,
        "message": f"{type(e).__name__}: {e.msg}",
        "text": (e.text or "").rstrip("\n"),
    }


class _Module:
    """The names a module's top level binds, by how: a `def` (undecorated,
    bound once), a class, an import, one assignment; and the names bound
    where only running it tells (a decorator, an `if`/`try` block, a loop,
    a second binding)."""

    def __init__(self, name, tree, is_package):
        self.name, self.tree = name, tree
        self.package = name if is_package else name.rpartition(".")[0]
        self.functions, self.classes, self.imports, self.assigns = {}, {}, {}, {}
        self.decorated, self.unsure, self.star = set(), set(), False
        # Names (and modules) it may bind as it runs: a module `__getattr__`,
        # `globals()`, `exec`, `sys.modules[…]` or a `__dict__` written to, an
        # importer put on `sys.meta_path`, a decorator like `enum.global_enum`.
        walked = list(ast.walk(tree)) if tree is not None else []
        self.dynamic = any(
            (isinstance(n, ast.Name) and n.id in ("globals", "vars", "exec", "setattr"))
            or (isinstance(n, ast.Attribute) and n.attr in ("modules", "meta_path", "path_hooks", "__dict__", "global_enum"))
            or (isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__getattr__")
            for n in walked
        )
        bound = {}

        def bind(n, table, value):
            bound[n] = bound.get(n, 0) + 1
            table[n] = value

        for node in tree.body if tree is not None else []:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.decorator_list:
                    bind(node.name, {}, None)
                    self.decorated.add(node.name)
                else:
                    bind(node.name, self.functions, node)
            elif isinstance(node, ast.ClassDef):
                bind(node.name, self.classes, node)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        bind(a.asname, self.imports, ("module", a.name))
                    else:
                        top = a.name.split(".")[0]
                        bind(top, self.imports, ("module", top))
            elif isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if a.name == "*":
                        self.star = True
                    else:
                        bind(a.asname or a.name, self.imports, ("from", self._absolute(node), a.name))
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                bind(node.targets[0].id, self.assigns, node.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if node.value is not None:
                    bind(node.target.id, self.assigns, node.value)
            elif type(node).__name__ == "TypeAlias":  # `type X = ...` (3.12)
                bind(node.name.id, self.assigns, node.value)
            else:
                for n in ast.walk(node):
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        self.unsure.add(n.name)
                    elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        self.unsure.add(n.id)
                    elif isinstance(n, ast.alias) and n.name == "*":
                        self.star = True  # `try: from _x import *`
                    elif isinstance(n, ast.alias):
                        self.unsure.add((n.asname or n.name).split(".")[0])
        # A function's `global x` binds x when it runs.
        self.unsure |= {name for n in walked if isinstance(n, ast.Global) for name in n.names}
        # Bound twice (or also where only running tells): not known.
        self.unsure |= {n for n, count in bound.items() if count > 1}
        for table in (self.functions, self.classes, self.imports, self.assigns):
            for n in list(table):
                if n in self.unsure:
                    del table[n]
        self.decorated -= self.unsure

    def _absolute(self, node):
        """The module a `from … import` names, absolute (None: a relative
        import reaching above the top)."""
        if not node.level:
            return node.module
        parts = self.package.split(".") if self.package else []
        if node.level - 1 > len(parts):
            return None
        base = parts[: len(parts) - (node.level - 1)]
        return ".".join([*base, node.module] if node.module else base) or None


# The standard library's typing modules: an annotation may name what they
# define. Nothing else outside the bundle is looked into.
_SAFE = {
    "typing": typing,
    "typing_extensions": typing,
    "pathlib": pathlib,
    "collections.abc": collections.abc,
    "enum": enum,
    "dataclasses": dataclasses,
    "builtins": builtins,
}

# The names an annotation may use without importing them: the builtins'
# types, typing's public names and Path (as before the source was followed).
_SCOPE = {name: getattr(typing, name) for name in dir(typing) if not name.startswith("_")}
_SCOPE.update({
    t.__name__: t for t in (int, float, str, bool, bytes, dict, list, tuple, set, frozenset, object, type)
})
_SCOPE.update({"Path": pathlib.Path, "None": None})


def _outside(module, attr):
    """What `module.attr` is, when `module` is one of the typing modules
    above (`collections` + `abc.Sequence` too); else None."""
    full = f"{module}.{attr}" if attr else module
    for safe in sorted(_SAFE, key=len, reverse=True):
        if full.startswith(safe + "."):
            rest = full[len(safe) + 1 :].split(".")
            if any(p.startswith("_") for p in rest):
                return None
            value = _SAFE[safe]
            for part in rest:
                value = getattr(value, part, None)
            return value
    return None


class _Unknown(Exception):
    """What the source alone cannot tell (the message says why)."""


class _Bundle:
    """The bundle's modules, read (never imported), and what their names
    stand for."""

    def __init__(self, root, trees):
        self.root, self.trees = root, trees
        self.modules = {}
        self.classes = {}  # (module, class) → the type built from it, or None while it is built

    def _path(self, name):
        """The file (or folder) of module `name` in the bundle, or None; a
        compiled module (`x.cpython-311-….so`, `x.pyc`) is found, not read."""
        base = os.path.join(self.root, *name.split("."))
        # As Python's import finds them: a package, then a compiled module,
        # then a module's source, then a folder without `__init__.py`.
        if os.path.isfile(os.path.join(base, "__init__.py")):
            return os.path.join(base, "__init__.py")
        folder, stem = os.path.split(base)
        try:
            compiled = [f for f in os.listdir(folder) if f.startswith(stem + ".") and f.endswith((".so", ".pyd"))]
        except OSError:
            return None
        if compiled:
            return os.path.join(folder, compiled[0])
        if os.path.isfile(base + ".py"):
            return base + ".py"
        if os.path.isfile(base + ".pyc"):
            return base + ".pyc"
        return base if os.path.isdir(base) else None

    def locate(self, name):
        """The name the bundle's module `name` (as an import names it) is
        read by, or None when it is not the bundle's: the toolset folder
        comes first on sys.path, then the standard library, then `tools/`
        (a sibling imported by its bare name)."""
        if not name:
            return None
        if self._path(name):
            return name
        if "." not in name and name in getattr(sys, "stdlib_module_names", ()):
            return None
        return f"tools.{name}" if self._path(f"tools.{name}") else None

    def module(self, name):
        """The _Module of the bundle's module `name`, or None (not the
        bundle's, or not readable: a syntax error is said on its own). A
        folder without `__init__.py` is a module that defines nothing."""
        if name not in self.modules:
            path = self._path(name)
            if path is None:
                mod = None
            elif path.endswith(".py"):
                tree = self.trees.get(os.path.relpath(path, self.root).replace(os.sep, "/"))
                mod = None if tree is None else _Module(name, tree, path.endswith("__init__.py"))
            elif os.path.isdir(path):
                mod = _Module(name, None, True)
            else:
                mod = None  # compiled: not read
            self.modules[name] = mod
        return self.modules[name]

    def resolve(self, mod, name, depth=0):
        """What `name` stands for in `mod`: ("def", module, node),
        ("class", module, node), ("module", name), ("value", module, node),
        ("outside", module name, attribute path), ("unknown", why) or
        ("missing", why)."""
        if depth > 30:
            return ("unknown", f"`{name}` is bound through too many imports")
        if name in mod.unsure:
            return ("unknown", f"{mod.name} binds `{name}` where only running it tells")
        if name in mod.functions:
            return ("def", mod, mod.functions[name])
        if name in mod.decorated:
            return ("unknown", f"`{name}` is decorated, which may change what it is")
        if name in mod.classes:
            return ("class", mod, mod.classes[name])
        if name in mod.imports:
            how = mod.imports[name]
            if how[0] == "module":
                located = self.locate(how[1])
                return ("module", located) if located else ("outside", how[1], "")
            _, source, attr = how
            located = self.locate(source) if source else None
            if not located:
                return ("outside", source or "?", attr)
            return self.member(located, attr, depth + 1)
        if name in mod.assigns:
            return self.resolve_expr(mod, mod.assigns[name], depth + 1)
        if mod.star or mod.dynamic or (name.startswith("__") and name.endswith("__")):
            return ("unknown", f"{mod.name} may bind `{name}` as it runs (`import *`, `globals()`, `__getattr__`)")
        if hasattr(builtins, name):
            return ("outside", "builtins", name)
        return ("missing", f"{mod.name} does not define `{name}`")

    def member(self, module_name, attr, depth):
        """What `module_name.attr` stands for (a submodule too)."""
        target = self.module(module_name)
        if target is not None:
            found = self.resolve(target, attr, depth)
            if found[0] != "missing":
                return found
        sub = self.locate(f"{module_name}.{attr}")
        if sub:
            return ("module", sub)
        if target is None:
            return ("unknown", f"{module_name} cannot be read")
        return found

    def resolve_expr(self, mod, node, depth=0):
        if isinstance(node, ast.Name):
            return self.resolve(mod, node.id, depth)
        if isinstance(node, ast.Attribute):
            base = self.resolve_expr(mod, node.value, depth + 1)
            if base[0] == "module":
                return self.member(base[1], node.attr, depth + 1)
            if base[0] == "outside":
                return ("outside", base[1], f"{base[2]}.{node.attr}".lstrip("."))
            if base[0] in ("unknown", "missing"):
                return base
            return ("unknown", f"`{ast.unparse(node)}` is an attribute of a {base[0]}")
        if isinstance(node, ast.Lambda):
            return ("unknown", "a lambda")
        if isinstance(node, ast.Call):
            return ("unknown", f"`{ast.unparse(node)[:60]}` is made by a call")
        return ("value", mod, node)

    # --- Types of annotations, built from the source -------------------

    def type_of(self, mod, node, literal=False):
        """The type an annotation's AST stands for in `mod`. Raises
        _Unknown for what the source cannot tell."""
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str) and not literal:
                # A forward reference: read as the annotation it spells.
                try:
                    return self.type_of(mod, ast.parse(node.value, mode="eval").body)
                except SyntaxError:
                    raise _Unknown(node.value) from None
            if node.value is Ellipsis or isinstance(node.value, (str, int, float, bool, type(None), bytes)):
                return node.value
            raise _Unknown(repr(node.value))
        if isinstance(node, ast.Subscript):
            base = self.type_of(mod, node.value)
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if base is typing.Literal:
                args = tuple(self._literal_arg(mod, e) for e in elts)
            elif base is typing.Annotated:
                args = (self.type_of(mod, elts[0]), *(self._literal(e, strict=False) for e in elts[1:]))
            else:
                args = tuple(self.type_of(mod, e) for e in elts)
            return base[args if isinstance(node.slice, ast.Tuple) or base is typing.Annotated else args[0]]
        if isinstance(node, ast.List):
            return [self.type_of(mod, e) for e in node.elts]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            left, right = self.type_of(mod, node.left), self.type_of(mod, node.right)
            return typing.Optional[left] if right is None else typing.Union[left, right]
        if not isinstance(node, (ast.Name, ast.Attribute)):
            raise _Unknown(type(node).__name__)
        found = self.resolve_expr(mod, node)
        if found[0] == "class":
            return self.class_type(found[1], found[2])
        if found[0] == "value":
            return self.type_of(found[1], found[2])
        if found[0] == "outside":
            value = _outside(found[1], found[2])
            if value is not None:
                return value
        if found[0] == "missing" and isinstance(node, ast.Name) and node.id in _SCOPE:
            return _SCOPE[node.id]
        raise _Unknown(ast.unparse(node))

    def _literal_arg(self, mod, node):
        """A Literal's value: a literal, or a member of an Enum the source
        defines (`Literal[Color.RED]`)."""
        if isinstance(node, ast.Attribute):
            try:
                owner = self.type_of(mod, node.value)
            except Exception:  # noqa: BLE001 - not an Enum of the bundle
                owner = None
            if isinstance(owner, type) and issubclass(owner, enum.Enum) and node.attr in owner.__members__:
                return owner[node.attr]
        return self._literal(node)

    @staticmethod
    def _literal(node, strict=True):
        try:
            return ast.literal_eval(node)
        except Exception:  # noqa: BLE001 - not a literal
            if strict:
                raise _Unknown(ast.unparse(node)) from None
            return None

    def annotation(self, mod, node):
        if node is None:
            return inspect.Parameter.empty
        try:
            return self.type_of(mod, node)
        except Exception:  # noqa: BLE001 - a type from elsewhere: no type
            return inspect.Parameter.empty

    def default(self, mod, node):
        """A default's value: a literal, a module constant, an Enum member
        the source defines; else UNKNOWN (there is one, value unknown)."""
        try:
            return ast.literal_eval(node)
        except Exception:  # noqa: BLE001 - an expression
            pass
        try:
            if isinstance(node, ast.Attribute):
                owner = self.type_of(mod, node.value)
                if isinstance(owner, type) and issubclass(owner, enum.Enum):
                    return owner[node.attr]
            elif isinstance(node, ast.Name):
                found = self.resolve(mod, node.id)
                if found[0] == "value":
                    return ast.literal_eval(found[2])
        except Exception:  # noqa: BLE001 - not known
            pass
        return UNKNOWN

    def class_type(self, mod, node):
        """The type a class of the source stands for in annotations: an
        Enum (members with literal values, or `auto()`), a dataclass or a
        TypedDict built from its fields. Any other class raises _Unknown
        (the import describes it: a plain class says nothing JSON checks)."""
        key = (mod.name, node.name)
        if key in self.classes:
            # A record that holds its own kind: "an object", as the
            # import's schema says of it.
            return dict if self.classes[key] is None else self.classes[key]
        self.classes[key] = None
        try:
            made = self._build(mod, node)
        except Exception:
            del self.classes[key]
            raise
        self.classes[key] = made
        return made

    def _build(self, mod, node):
        bases = [self.type_of(mod, b) for b in node.bases]
        enums = [b for b in bases if isinstance(b, type) and issubclass(b, enum.Enum)]
        if enums:
            members = []
            for stmt in node.body:
                if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
                    continue
                name = stmt.targets[0].id
                if name.startswith("_"):
                    continue
                v = stmt.value
                is_auto = isinstance(v, ast.Call) and not v.args and ast.unparse(v.func) in ("auto", "enum.auto")
                members.append((name, enum.auto() if is_auto else ast.literal_eval(v)))
            mixin = next((b for b in bases if b in (str, int, float)), None)
            return enums[0](node.name, members, **({"type": mixin} if mixin else {}))
        fields = []
        for stmt in node.body:
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                continue
            text = ast.unparse(stmt.annotation)
            if text.split("[")[0].split(".")[-1] in ("ClassVar", "InitVar"):
                continue
            fields.append((stmt.target.id, self.annotation(mod, stmt.annotation), stmt.value))
        if any(b is typing.TypedDict or _schemas.is_typeddict(b) for b in bases):
            total = next((k.value for k in node.keywords if k.arg == "total"), None)
            total = True if total is None else ast.literal_eval(total)
            hints = {name: typing.Any if t is inspect.Parameter.empty else t for name, t, _ in fields}
            parents = tuple(b for b in bases if b is not typing.TypedDict) or (typing.TypedDict,)
            return types.new_class(node.name, parents, {"total": total}, lambda ns: ns.update(__annotations__=hints))
        if any(b is typing.NamedTuple for b in bases):
            hints = {name: typing.Any if t is inspect.Parameter.empty else t for name, t, _ in fields}
            defaults = {name: self.default(mod, value) for name, _, value in fields if value is not None}
            body = {"__annotations__": hints, "__module__": mod.name, **defaults}
            return types.new_class(node.name, (typing.NamedTuple,), {}, lambda ns: ns.update(body))
        if any(self._is_dataclass_decorator(mod, d) for d in node.decorator_list):
            if any(not dataclasses.is_dataclass(b) for b in bases):
                raise _Unknown(f"{node.name}'s bases")
            spec = []
            for name, t, value in fields:
                t = typing.Any if t is inspect.Parameter.empty else t
                if value is None:
                    spec.append((name, t))
                else:
                    spec.append((name, t, self._field(mod, value)))
            return dataclasses.make_dataclass(node.name, spec, bases=tuple(bases), kw_only=True)
        raise _Unknown(node.name)

    def _is_dataclass_decorator(self, mod, d):
        target = d.func if isinstance(d, ast.Call) else d
        try:
            return self.type_of(mod, target) is dataclasses.dataclass
        except Exception:  # noqa: BLE001 - another decorator
            return False

    def _field(self, mod, value):
        """A dataclass field's default as `dataclasses.field` gives it."""
        if isinstance(value, ast.Call) and ast.unparse(value.func) in ("field", "dataclasses.field"):
            for k in value.keywords:
                if k.arg == "default":
                    return dataclasses.field(default=self.default(mod, k.value))
                if k.arg == "default_factory":
                    return dataclasses.field(default_factory=lambda: UNKNOWN)
            return dataclasses.field()
        return dataclasses.field(default=self.default(mod, value))

    def signature(self, mod, fn):
        """An inspect.Signature read from a FunctionDef of `mod`."""
        a = fn.args
        params = []
        positional = [*a.posonlyargs, *a.args]
        defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        for i, (arg, d) in enumerate(zip(positional, defaults)):
            kind = inspect.Parameter.POSITIONAL_ONLY if i < len(a.posonlyargs) else inspect.Parameter.POSITIONAL_OR_KEYWORD
            default = inspect.Parameter.empty if d is None else self.default(mod, d)
            params.append(inspect.Parameter(arg.arg, kind, default=default, annotation=self.annotation(mod, arg.annotation)))
        if a.vararg:
            params.append(inspect.Parameter(a.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
        for arg, d in zip(a.kwonlyargs, a.kw_defaults):
            default = inspect.Parameter.empty if d is None else self.default(mod, d)
            params.append(
                inspect.Parameter(arg.arg, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=self.annotation(mod, arg.annotation))
            )
        if a.kwarg:
            params.append(inspect.Parameter(a.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
        return inspect.Signature(params, __validate_parameters__=False)

    def tool(self, module_name, name, mod, fn):
        return _schemas.tool(module_name, name, self.signature(mod, fn), ast.get_docstring(fn) or "")


# --- tools_from modules ------------------------------------------------


def _table(mod):
    """The module's `TOOLS` or `__all__` as written: ("TOOLS" | "__all__",
    the value's node), ("computed", why) when it is changed after it is
    written or bound where only running tells, or None when there is none."""
    changed = set()
    for n in ast.walk(mod.tree):
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            changed.add(n.target.id)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name):
            if n.func.attr in ("append", "extend", "update", "insert", "pop", "remove", "clear", "setdefault", "__setitem__"):
                changed.add(n.func.value.id)
        elif isinstance(n, (ast.Subscript,)) and isinstance(n.ctx, (ast.Store, ast.Del)) and isinstance(n.value, ast.Name):
            changed.add(n.value.id)
    for source in ("TOOLS", "__all__"):
        if source in mod.unsure or source in changed:
            return ("computed", source)
        if source in mod.assigns:
            return (source, mod.assigns[source])
        if source in mod.imports or source in mod.functions or source in mod.classes or source in mod.decorated:
            return ("computed", source)
    if mod.star:
        return ("computed", "TOOLS")
    return None


def _exports(bundle, module):
    """What the static reading knows of a `tools_from:` module: {"tools":
    [tool] when every export is known, else None; "error": what the import
    would refuse, or None; "unknown": why some cannot be known, or None}."""
    mod = bundle.module(module)
    out = {"tools": None, "error": None, "unknown": None}
    if mod is None or mod.tree is None:
        return out  # not readable: a syntax error is said on its own
    table = _table(mod)
    if table is None:
        out["error"] = no_exports(module)
        return out
    source, node = table
    # `TOOLS = ALL` with `ALL = [...]` (here or in a module it imports).
    if source == "TOOLS" and isinstance(node, (ast.Name, ast.Attribute)):
        found = bundle.resolve_expr(mod, node)
        if found[0] == "value" and isinstance(found[2], (ast.List, ast.Tuple, ast.Dict)):
            mod, node = found[1], found[2]
    if source == "computed":
        out["unknown"] = f"{module}.{node} is computed: its tools are checked when the toolset is imported"
        return out
    if source == "TOOLS":
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):  # {**other}
                out["unknown"] = f"{module}.TOOLS is computed: its tools are checked when the toolset is imported"
                return out
            entries = [(k, v) for k, v in zip(node.keys, node.values)]
        elif isinstance(node, (ast.List, ast.Tuple)):
            if any(isinstance(e, ast.Starred) for e in node.elts):
                out["unknown"] = f"{module}.TOOLS is computed: its tools are checked when the toolset is imported"
                return out
            entries = [(None, e) for e in node.elts]
        else:
            found = bundle.resolve_expr(mod, node)
            if found[0] == "value" and isinstance(found[2], (ast.Constant, ast.Set, ast.JoinedStr)):
                out["error"] = not_a_table(module, type(_example(found[2])).__name__)
            else:
                out["unknown"] = f"{module}.TOOLS is computed: its tools are checked when the toolset is imported"
            return out
    else:
        try:
            names = ast.literal_eval(node)
            if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
                raise ValueError
        except Exception:  # noqa: BLE001 - computed
            out["unknown"] = f"{module}.__all__ is computed: its tools are checked when the toolset is imported"
            return out
        entries = [(ast.Constant(n), ast.Name(n, ast.Load())) for n in names]
    tools, wrong, unknown, names = [], [], [], []
    unknown_import = False
    for index, (key, value) in enumerate(entries):
        if key is None and isinstance(value, ast.Call) and value.args:
            # `TOOLS = [partial(scale, factor=3)]`: a partial has no name.
            made_by = bundle.resolve_expr(mod, value.func)
            if made_by == ("outside", "functools", "partial"):
                first = value.args[0]
                fname = first.id if isinstance(first, ast.Name) else first.attr if isinstance(first, ast.Attribute) else None
                wrong.append(unnamed_partial(index, fname))
                continue
        found = bundle.resolve_expr(mod, value)
        if key is not None:
            name = key.value if isinstance(key, ast.Constant) else None
            if not isinstance(name, str) or not name:
                wrong.append((ast.unparse(key), "not a tool name"))
                continue
        elif found[0] == "def":
            name = found[2].name
        else:
            name = ast.unparse(value)
        names.append(name)
        kind = found[0]
        if kind == "def":
            try:
                tools.append(bundle.tool(module, name, found[1], found[2]))
            except Exception as e:  # noqa: BLE001 - an odd signature: the import decides
                unknown.append(f"{name}: {e}")
        elif kind == "class":
            wrong.append((name, "a class"))
        elif kind == "module":
            wrong.append((name, "a module"))
        elif kind == "value" and _is_literal(found[2]):
            wrong.append((name, f"not callable: {kind_of(_example(found[2]))}"))
        elif kind == "missing" and source == "__all__":
            wrong.append((name, "not defined in the module"))
        elif kind == "missing" and isinstance(value, ast.Name) and value.id in mod.imports:
            unknown_import = True  # the failing import is said on its own
        elif kind == "missing":
            out["error"] = f"{module}.TOOLS names `{ast.unparse(value)}`, but {found[1]}: importing {module} fails"
        elif kind == "outside" and not found[2]:
            wrong.append((name, "a module"))  # `import json`
        elif kind == "outside":
            unknown.append(f"`{ast.unparse(value)}` comes from {found[1]}, outside the bundle")
        else:
            unknown.append(found[1] if kind == "unknown" else f"`{ast.unparse(value)}` is computed")
    dupes = sorted({n for n in names if names.count(n) > 1})
    keyed = source == "TOOLS" and isinstance(node, ast.Dict)  # a dict's keys are one each
    if out["error"] is None and dupes and not keyed:
        out["error"] = twice(module, source, dupes)
    elif out["error"] is None and wrong:
        out["error"] = not_tools(module, source, wrong)
    if unknown:
        out["unknown"] = (
            f"{module}.{source} names tools the source alone does not tell ({'; '.join(unknown)}): "
            "they are checked when the toolset is imported"
        )
    elif out["error"] is None and not unknown_import:
        out["tools"] = tools
    return out


def _is_literal(node):
    return isinstance(node, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.JoinedStr, ast.ListComp, ast.DictComp, ast.SetComp))


def _example(node):
    """A value of the kind a literal node makes (for what it is called)."""
    if isinstance(node, ast.Constant):
        return node.value
    return {ast.List: [], ast.ListComp: [], ast.Tuple: (), ast.Dict: {}, ast.DictComp: {}, ast.Set: set(), ast.SetComp: set()}.get(
        type(node), ""
    )


# --- Imports that fail --------------------------------------------------


def _broken_imports(bundle, modules):
    """The top-level imports that fail, of the modules an import runs
    (`modules`, their packages, and what they import from the bundle): a
    name a bundle module does not define, a module of a bundle package that
    is not there. As syntax errors are said: {file, line, column, message,
    text}. An import inside a function, an `if` or a `try` may be guarded:
    not looked at."""
    out, seen = [], set()
    stack = []
    for name in modules:
        parts = name.split(".")
        stack.extend(".".join(parts[: i + 1]) for i in range(len(parts)))
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        mod = bundle.module(name)
        if mod is None or mod.tree is None:
            continue
        path = os.path.relpath(bundle._path(name), bundle.root).replace(os.sep, "/")

        def broken(node, message):
            out.append({"file": path, "line": node.lineno, "column": node.col_offset + 1, "message": message, "text": ast.unparse(node)})

        for node in mod.tree.body:
            if isinstance(node, ast.Import):
                for a in node.names:
                    located = bundle.locate(a.name)
                    if located:
                        stack.append(located)
                    elif _inside_bundle_package(bundle, a.name):
                        broken(node, f"ModuleNotFoundError: No module named '{a.name}' (it is not in the bundle)")
            elif isinstance(node, ast.ImportFrom):
                source = mod._absolute(node)
                located = bundle.locate(source) if source else None
                if not located:
                    if source and _inside_bundle_package(bundle, source):
                        broken(node, f"ModuleNotFoundError: No module named '{source}' (it is not in the bundle)")
                    continue
                stack.append(located)
                target = bundle.module(located)
                if target is None or target.star or target.dynamic:
                    continue
                for a in node.names:
                    if a.name == "*":
                        continue
                    found = bundle.member(located, a.name, 0)
                    if found[0] == "module":
                        stack.append(found[1])
                    elif found[0] == "missing" and a.name not in target.imports and a.name not in target.assigns:
                        broken(node, f"ImportError: cannot import name '{a.name}' from '{located}' (it does not define it)")
    return out


def _inside_bundle_package(bundle, name):
    """Whether `name`'s package is a regular package of the bundle (a
    folder with `__init__.py`), so a module missing from it is missing."""
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        package = ".".join(parts[:i])
        path = bundle._path(package)
        if path:
            # One that may install an importer of its own is not judged.
            mod = bundle.module(package)
            return path.endswith("__init__.py") and mod is not None and not mod.dynamic
    return False


# --- The request -------------------------------------------------------


def _entrypoint(bundle, ep):
    """What the source says of entry point `ep`: {"found": "def", its
    parameters, "tool": the tool its signature makes} / {"found":
    "missing", "functions": [...]} / {"found": "unknown"}."""
    module, _, name = ep.partition(":")
    mod = bundle.module(module)
    if mod is None or mod.tree is None:
        return {"found": "unknown"}
    found = bundle.resolve(mod, name)
    if found[0] == "def":
        try:
            sig = bundle.signature(found[1], found[2])
            made = _schemas.tool(module, name, sig, ast.get_docstring(found[2]) or "")
            return {"found": "def", **parameters(sig), "tool": made}
        except Exception:  # noqa: BLE001 - an odd signature: the import decides
            return {"found": "unknown"}
    if found[0] == "missing" and name not in mod.imports and name not in mod.assigns:
        return {"found": "missing", "functions": sorted(mod.functions)}
    return {"found": "unknown"}


def inspect_bundle(req, root):
    """Answers `inspect`: {"syntax": [...], "entrypoints": {ep: ...},
    "tools_from": {module: [...] | None}, "not_tools": {module: error},
    "computed": {module: why its tools are known at import only}}."""
    trees, syntax = {}, []
    for rel in req.get("files", []):
        try:
            with open(os.path.join(root, rel), "rb") as f:
                trees[rel] = ast.parse(f.read(), filename=rel)
        except SyntaxError as e:
            syntax.append(_syntax_error(rel, e))
        except (OSError, ValueError, RecursionError, MemoryError) as e:
            syntax.append({"file": rel, "line": None, "column": None, "message": str(e), "text": ""})
    bundle = _Bundle(root, trees)
    imported = {ep.partition(":")[0] for ep in req.get("entrypoints", [])} | set(req.get("tools_from", []))
    syntax.extend(_broken_imports(bundle, sorted(imported)))
    entrypoints = {ep: _entrypoint(bundle, ep) for ep in req.get("entrypoints", [])}
    tools_from, errors, computed = {}, {}, {}
    for module in req.get("tools_from", []):
        found = _exports(bundle, module)
        tools_from[module] = found["tools"]
        if found["error"]:
            errors[module] = found["error"]
        if found["unknown"]:
            computed[module] = found["unknown"]
    return {"syntax": syntax, "entrypoints": entrypoints, "tools_from": tools_from, "not_tools": errors, "computed": computed}
