"""A Python function as a tool: the JSON Schema of its arguments, taken
from its type hints and docstring, and the arguments a model sent turned
into what the hints ask for. One derivation for every place that makes a
schema: a `tools_from:` module's tools and an entry point without an
`input_schema`, both at import (runner.py, the functions imported) and at
`validate` (inspect_static.py, the functions read from the source with
types built from it), so the two agree.

Loaded by the worker as `_atelier_schemas`, after `_atelier_values` and
before the others.
"""

import collections.abc
import dataclasses
import enum
import inspect
import os
import re
import typing
from pathlib import Path

from _atelier_values import json_problem

# A default the source gives as an expression that is not a literal.
UNKNOWN = object()

# The most characters of a tool's description taken from its docstring.
DESCRIPTION_CAP = 1000

_SIMPLE = {str: "string", int: "integer", float: "number", bool: "boolean", dict: "object", Path: "string"}
_ARRAYS = (
    list,
    set,
    frozenset,
    collections.abc.Sequence,
    collections.abc.MutableSequence,
    collections.abc.Iterable,
    collections.abc.Collection,
    collections.abc.Set,
    collections.abc.MutableSet,
)
_OBJECTS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)


def nullable(schema):
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


def _is_union(origin):
    return origin is typing.Union or (origin is not None and getattr(origin, "__name__", "") == "UnionType")


def _hints(cls):
    """A class's field types, evaluated (also under postponed
    annotations); {} when they cannot be."""
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception:  # noqa: BLE001 - a name that is not there at runtime
        return dict(getattr(cls, "__annotations__", {}))


def is_typeddict(t):
    is_td = getattr(typing, "is_typeddict", None)
    return bool(is_td and is_td(t))


def is_namedtuple(t):
    """A `typing.NamedTuple` (or `collections.namedtuple`) class."""
    return isinstance(t, type) and issubclass(t, tuple) and isinstance(getattr(t, "_fields", None), tuple)


def _is_model(t):
    """A type whose values JSON gives as an object of its fields."""
    return isinstance(t, type) and (
        dataclasses.is_dataclass(t) or is_typeddict(t) or callable(getattr(t, "model_validate", None))
    )


def _json_literal(v):
    """A Literal's value as JSON gives it (an Enum member: its value), or
    UNKNOWN when JSON has no such value (bytes, ...)."""
    if isinstance(v, enum.Enum):
        v = v.value
    return v if v is None or isinstance(v, (str, int, float, bool)) else UNKNOWN


def _one_of(schemas):
    """What any of `schemas` accepts: the one, or their anyOf ({} when one
    of them accepts anything)."""
    unique = []
    for s in schemas:
        if not s:
            return {}
        if s not in unique:
            unique.append(s)
    return unique[0] if len(unique) == 1 else {"anyOf": unique}


def _with_default(schema, default):
    if default is None:
        schema = nullable(schema)
    if json_problem(default, "") is None:
        schema["default"] = default
    return schema


def _fields_schema(cls, seen):
    """An object schema of a dataclass's or TypedDict's fields."""
    hints = _hints(cls)
    props, required = {}, []
    if dataclasses.is_dataclass(cls):
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            schema = schema_of(hints.get(f.name, inspect.Parameter.empty), seen)
            if f.default is not dataclasses.MISSING:
                schema = _with_default(schema, f.default)
            elif f.default_factory is dataclasses.MISSING:
                required.append(f.name)
            props[f.name] = schema
    elif is_namedtuple(cls):
        defaults = getattr(cls, "_field_defaults", {})
        for name in cls._fields:
            schema = schema_of(hints.get(name, inspect.Parameter.empty), seen)
            if name in defaults:
                schema = _with_default(schema, defaults[name])
            else:
                required.append(name)
            props[name] = schema
    else:
        keys = getattr(cls, "__required_keys__", None)
        for name, hint in hints.items():
            props[name] = schema_of(hint, seen)
            if keys is None or name in keys:
                required.append(name)
    out = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    if dataclasses.is_dataclass(cls) or is_namedtuple(cls):
        # Its constructor takes no other key.
        out["additionalProperties"] = False
    return out


def schema_of(annotation, seen=frozenset()):
    """The JSON Schema of values of `annotation` ({} when it says nothing
    JSON can check). `seen`: the records being described, so a record
    holding its own kind stops at "an object"."""
    if annotation is inspect.Parameter.empty or annotation is typing.Any or annotation is object:
        return {}
    if annotation is None or annotation is type(None):
        return {"type": "null"}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        # Annotated[int, "the count"]: the text is the description.
        schema = schema_of(args[0], seen)
        notes = [a for a in args[1:] if isinstance(a, str)]
        if notes:
            schema["description"] = " ".join(notes)
        return schema
    if _is_union(origin):
        inner = [a for a in args if a is not type(None)]
        schema = schema_of(inner[0], seen) if len(inner) == 1 else {"anyOf": [schema_of(a, seen) for a in inner]}
        return nullable(schema) if len(inner) < len(args) else schema
    if origin is typing.Literal:
        # JSON has no bytes (Literal[b"r"]): such values are left out.
        values = [v for v in map(_json_literal, args) if v is not UNKNOWN]
        return {"enum": values} if values else {}
    if isinstance(annotation, type) and annotation in _SIMPLE:
        return {"type": _SIMPLE[annotation]}
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        # The values are what a model sends (see `convert`).
        values = [m.value for m in annotation]
        if all(isinstance(v, (str, int, float, bool)) for v in values):
            return {"enum": values}
        return {}
    if isinstance(annotation, type) and issubclass(annotation, os.PathLike):
        return {"type": "string"}
    if is_namedtuple(annotation):
        # An object of its fields (a call may also give them as an array).
        if annotation in seen:
            return {"type": "object"}
        return _fields_schema(annotation, seen | {annotation})
    # Every array says its `items` ({}: anything): OpenAI refuses an array
    # schema without it, failing every turn that offers the tool.
    if annotation is tuple or origin is tuple:
        out = {"type": "array", "items": {}}
        if len(args) == 2 and args[1] is Ellipsis:
            out["items"] = schema_of(args[0], seen)
        elif args == ((),):
            out["maxItems"] = 0  # tuple[()]
        elif args:
            prefix = [schema_of(a, seen) for a in args]
            out.update(items=_one_of(prefix), prefixItems=prefix, minItems=len(args), maxItems=len(args))
        return out
    if annotation in _ARRAYS or origin in _ARRAYS:
        out = {"type": "array", "items": schema_of(args[0], seen) if args else {}}
        if annotation in (set, frozenset) or origin in (set, frozenset, collections.abc.Set, collections.abc.MutableSet):
            out["uniqueItems"] = True
        return out
    if annotation in _OBJECTS or origin in _OBJECTS:
        out = {"type": "object"}
        if len(args) == 2:
            values = schema_of(args[1], seen)
            if values:
                out["additionalProperties"] = values
        return out
    if isinstance(annotation, type) and (dataclasses.is_dataclass(annotation) or is_typeddict(annotation)):
        if annotation in seen:
            return {"type": "object"}
        return _fields_schema(annotation, seen | {annotation})
    model_schema = getattr(annotation, "model_json_schema", None)
    if isinstance(annotation, type) and callable(model_schema):
        try:
            schema = model_schema()
        except Exception:  # noqa: BLE001 - a model pydantic cannot describe
            return {"type": "object"}
        # `$defs` and the `$ref`s to them only resolve at a document's root.
        return schema if isinstance(schema, dict) and "$defs" not in schema else {"type": "object"}
    return {}


class Invalid(Exception):
    """An argument the function's annotation cannot take (the message says
    why, after the parameter's name)."""


def _fits(t, keys):
    """Whether the fields of `t` (a dataclass, a TypedDict, a NamedTuple)
    take an object of `keys`: each is a field, and none it needs is
    missing. A pydantic model: None (only validating it tells)."""
    if dataclasses.is_dataclass(t):
        fields = [f for f in dataclasses.fields(t) if f.init]
        names = {f.name for f in fields}
        needed = {f.name for f in fields if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    elif is_namedtuple(t):
        names = set(t._fields)
        needed = names - set(getattr(t, "_field_defaults", {}))
    elif is_typeddict(t):
        names = set(_hints(t))
        needed = set(getattr(t, "__required_keys__", names))
    else:
        return None
    return keys <= names and needed <= keys


def _union_member(members, value):
    """An object given for a Union of records (`Union[A, B]`): the first
    member whose fields take its keys (a pydantic model: that validates
    it), converted; the value as it is when none does. When those that
    fit all refuse it (a `__post_init__` raising), the first one's
    refusal."""
    refused = None
    for t in members:
        if not _is_model(t) and not is_namedtuple(t):
            continue
        fits = _fits(t, set(value))
        if fits is False:
            continue
        try:
            return convert(t, value)
        except Invalid as e:
            refused = refused or e
    if refused is not None:
        raise refused
    return value


def _built(annotation, make):
    """`make()`, a record built from what the model sent; what its
    constructor raises (a `__post_init__`'s ValueError, a pydantic
    ValidationError) is the argument's fault: Invalid, saying it."""
    try:
        return make()
    except Invalid:
        raise
    except Exception as e:  # noqa: BLE001 - whatever the class's own checks raise
        raise Invalid(f"is not a valid {annotation.__name__}: {type(e).__name__}: {e}") from None


def convert(annotation, value):
    """`value`, as JSON gives it, turned into what `annotation` asks for:
    a `Path` for a string, an `Enum`'s member for its value, a dataclass
    or pydantic model for an object, a tuple or a set for an array — inside
    lists, dicts and Optionals too; anything else as it is."""
    if value is None or annotation is inspect.Parameter.empty:
        return value
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return convert(args[0], value)
    if _is_union(origin):
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1:
            return convert(inner[0], value)
        return _union_member(inner, value) if isinstance(value, dict) else value
    if origin is typing.Literal:
        # Literal[Color.RED] is sent as "red"; Literal[b"r"] as "r".
        for a in args:
            if isinstance(a, enum.Enum) and not isinstance(value, enum.Enum) and a.value == value:
                return a
            if isinstance(a, bytes) and isinstance(value, str) and a == value.encode("utf-8", "surrogateescape"):
                return a
        return value
    if isinstance(annotation, type):
        if issubclass(annotation, enum.Enum):
            if isinstance(value, annotation):
                return value
            try:
                return annotation(value)
            except Exception:  # noqa: BLE001 - ValueError, or what a _missing_ raises
                allowed = ", ".join(repr(m.value) for m in annotation)
                raise Invalid(f"must be one of {allowed}, not {value!r}") from None
        if issubclass(annotation, os.PathLike):
            if isinstance(value, str):
                return _built(annotation, lambda: Path(value) if annotation is os.PathLike else annotation(value))
            return value
        if is_namedtuple(annotation) and isinstance(value, (list, dict)):
            # Its schema is an object of its fields; an array of them is taken too.
            hints = _hints(annotation)
            if isinstance(value, dict):
                fields = {k: convert(hints.get(k, inspect.Parameter.empty), v) for k, v in value.items()}
                return _built(annotation, lambda: annotation(**fields))
            items = [convert(hints.get(k, inspect.Parameter.empty), v) for k, v in zip(annotation._fields, value)]
            return _built(annotation, lambda: annotation(*items, *value[len(items) :]))
        if isinstance(value, dict) and dataclasses.is_dataclass(annotation):
            hints = _hints(annotation)
            fields = {k: convert(hints.get(k, inspect.Parameter.empty), v) for k, v in value.items()}
            return _built(annotation, lambda: annotation(**fields))
        if isinstance(value, dict) and is_typeddict(annotation):
            hints = _hints(annotation)
            return {k: convert(hints.get(k, inspect.Parameter.empty), v) for k, v in value.items()}
        validate = getattr(annotation, "model_validate", None)
        if isinstance(value, dict) and callable(validate):
            return _built(annotation, lambda: validate(value))
        if annotation in (tuple, set, frozenset) and isinstance(value, list):
            try:
                return annotation(value)
            except TypeError:
                return value
        return value
    if not isinstance(value, (list, dict)):
        return value
    if origin is tuple and isinstance(value, list):
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(convert(args[0], x) for x in value)
        if len(args) == len(value):
            return tuple(convert(a, x) for a, x in zip(args, value))
        return tuple(value)
    if origin in _ARRAYS and isinstance(value, list):
        items = [convert(args[0], x) for x in value] if args else value
        if origin in (set, frozenset, collections.abc.Set, collections.abc.MutableSet):
            try:
                return (frozenset if origin is frozenset else set)(items)
            except TypeError:
                return items
        return items
    if origin in _OBJECTS and isinstance(value, dict) and len(args) == 2:
        return {k: convert(args[1], v) for k, v in value.items()}
    return value


# Docstring sections: those that describe the parameters (their texts go
# to the schema) and the return value; a tool's description is the rest.
_PARAM_HEADS = ("Args", "Arguments", "Parameters", "Params", "Keyword Args", "Keyword Arguments", "Other Parameters")
_RETURN_HEADS = ("Returns", "Return", "Yields", "Yield")
_REST_FIELD = re.compile(r"^:(param|parameter|arg|argument|key|keyword|kwarg|type|returns?|rtype|yields?|ytype)\b[^:]*:")


def _numpy_head(lines, i):
    """The NumPy section whose title is on line `i` (underlined with
    dashes on the next), or None."""
    if i + 1 < len(lines) and lines[i + 1].strip() and set(lines[i + 1].strip()) == {"-"}:
        return lines[i].strip()
    return None


def _sections(doc):
    """The docstring's lines, each with the kind of section it is in:
    "param", "return", a reST field's "param" / "type" / "return", or
    None (the description). Returns [(kind, line)]."""
    lines = doc.expandtabs().splitlines()
    out, i, kind, indent = [], 0, None, 0
    while i < len(lines):
        line = lines[i]
        text = line.strip()
        depth = len(line) - len(line.lstrip())
        head = _numpy_head(lines, i)
        if head is not None:
            kind = "param" if head in _PARAM_HEADS else "return" if head in _RETURN_HEADS else None
            kind = kind and f"numpy-{kind}"
            out.append((kind, line))
            out.append((kind, lines[i + 1]))
            i += 2
            continue
        if text.endswith(":") and text[:-1] in _PARAM_HEADS + _RETURN_HEADS:
            kind = "google-param" if text[:-1] in _PARAM_HEADS else "google-return"
            indent = depth
            out.append((kind, line))
            i += 1
            continue
        m = _REST_FIELD.match(text)
        if m:
            field = m.group(1)
            kind = "rest-param" if field in ("param", "parameter", "arg", "argument", "key", "keyword", "kwarg") else (
                "rest-type" if field == "type" else "rest-return"
            )
            indent = depth
            out.append((kind, line))
            i += 1
            continue
        if kind and kind.startswith(("google", "rest")) and text and depth <= indent:
            kind = None  # the section ended: back at (or left of) its heading
        out.append((kind, line))
        i += 1
    return out


def _name(key):
    return key.split("(")[0].strip().lstrip("*").strip()


def param_docs(doc):
    """Per-parameter texts of a docstring — Google `Args:`, NumPy
    `Parameters` + dashes, reST `:param name: text` — as {name: text}; and
    the types written there (`name (int)`, `name : int`, `:type name:
    int`) as {name: type text}."""
    texts, types = {}, {}
    current, first_indent = None, None
    for kind, line in _sections(doc):
        text = line.strip()
        depth = len(line) - len(line.lstrip())
        if kind is None or kind.endswith("return"):
            current, first_indent = None, None
            continue
        if not text:
            if kind.startswith("numpy"):
                current = None
            continue
        if kind.startswith("rest"):
            m = re.match(r"^:(\w+)\s*([^:]*):\s*(.*)$", text)
            if m:
                words = m.group(2).split()
                name = _name(words[-1]) if words else ""
                if kind == "rest-type":
                    types[name], current = m.group(3).strip(), None
                else:
                    if len(words) > 1:
                        types.setdefault(name, " ".join(words[:-1]))
                    texts[name], current = m.group(3).strip(), name
            elif current is not None:
                texts[current] = f"{texts[current]} {text}".strip()
            continue
        if kind.startswith("google"):
            if text.endswith(":") and text[:-1] in _PARAM_HEADS:
                first_indent = None
                continue
            if first_indent is None:
                first_indent = depth
            if depth == first_indent:
                key, _, rest = text.partition(":")
                current = _name(key)
                texts[current] = rest.strip()
                if "(" in key and key.rstrip().endswith(")"):
                    types[current] = key[key.index("(") + 1 : key.rstrip().rindex(")")].strip()
            elif current is not None and depth > first_indent:
                texts[current] = f"{texts[current]} {text}".strip()
            continue
        # NumPy: `name : type` at the section's indent, its text below.
        if set(text) == {"-"} or text in _PARAM_HEADS:
            first_indent = None
            continue
        if first_indent is None:
            first_indent = depth
        if depth == first_indent:
            key, _, kind_text = text.partition(":")
            current = _name(key)
            texts.setdefault(current, "")
            if kind_text.strip():
                types[current] = kind_text.strip()
        elif current is not None:
            texts[current] = f"{texts[current]} {text}".strip()
    return {k: v for k, v in texts.items() if k and v}, {k: v for k, v in types.items() if k and v}


def describe(doc):
    """A tool's description: its docstring without the sections about its
    parameters and return value, capped at DESCRIPTION_CAP characters."""
    kept = [line for kind, line in _sections(doc) if kind is None]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(line.rstrip() for line in kept)).strip()
    if len(text) > DESCRIPTION_CAP:
        text = text[: DESCRIPTION_CAP - 1].rstrip() + "…"
    return text


# Types a docstring may name for a parameter without an annotation.
_DOC_TYPES = {
    "str": str,
    "string": str,
    "int": int,
    "integer": int,
    "float": float,
    "number": float,
    "bool": bool,
    "boolean": bool,
    "list": list,
    "dict": dict,
}


def _doc_type(text):
    """The type a docstring names (`int`, `str, optional`), or empty."""
    first = text.split(",")[0].strip().lower()
    return _DOC_TYPES.get(first, inspect.Parameter.empty)


def tool(module_name, name, sig, doc, description=None):
    """A tool of function `name` of `module_name`: its input schema from
    the signature `sig` (an inspect.Signature, or None when there is none)
    and docstring `doc`; `description` when given (a pydantic_ai Tool's),
    else the docstring's."""
    props, required = {}, []
    described, typed = param_docs(doc)
    for p in sig.parameters.values() if sig else []:
        # Given by Atelier, never by the model.
        if p.name in ("workspace", "atelier_config") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        annotation = p.annotation
        if annotation is inspect.Parameter.empty and p.name in typed:
            annotation = _doc_type(typed[p.name])
        schema = schema_of(annotation)
        if p.default is inspect.Parameter.empty:
            required.append(p.name)
        elif p.default is not UNKNOWN:
            # `x: int = None` means "may be left out or null".
            schema = _with_default(schema, p.default)
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
        "description": description if description is not None else describe(doc),
        "input_schema": input_schema,
    }
