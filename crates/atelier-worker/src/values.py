"""The values a tool returns, as JSON takes them: what json.dumps would
refuse (found before it is tried, with where in the value), what it is
given for the two kinds a typed tool hands back from its own arguments — a
`Path` (its text) and an `Enum` member (its value), since runner.py gives a
tool those for parameters annotated so — and, before either, the records a
function written for other callers returns (`jsonable`: a dataclass, a
pydantic model, a set) as the JSON they stand for.

Loaded by the worker as `_atelier_values`, before runner.py.
"""

import dataclasses
import enum
import json
import math
import os

# The deepest nesting of a return value: the app's JSON reader stops at
# 128 levels, and says only that it could not read the value.
MAX_DEPTH = 100


def type_name(t):
    module = getattr(t, "__module__", "builtins")
    return t.__qualname__ if module in ("builtins", "__main__") else f"{module}.{t.__qualname__}"


def plain(v):
    """json.dumps' `default`: a path as its text, an Enum as its value."""
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    if isinstance(v, enum.Enum):
        return v.value
    raise TypeError(f"Object of type {type_name(type(v))} is not JSON serializable")


def jsonable(value):
    """`value` with the records JSON has no word for but stand for one
    turned into it: a dataclass instance into an object of its fields, a
    pydantic model into what its `model_dump(mode="json")` gives, a tuple
    into a list, a set into a list (sorted when its items sort). What is
    left unchanged is returned as itself (no copy); what JSON cannot hold
    is left for `json_problem` to name, as is a value deeper than
    MAX_DEPTH or one that holds itself."""
    return _jsonable(value, set(), 0)


def _jsonable(v, inside, depth):
    if v is None or isinstance(v, (str, int, float, bool, enum.Enum, os.PathLike)):
        return v
    if depth > MAX_DEPTH or id(v) in inside:
        return v  # json_problem says what it is
    if isinstance(v, type):
        return v
    dump = getattr(type(v), "model_dump", None)
    if dump is not None and callable(dump):
        try:
            return _jsonable(v.model_dump(mode="json"), inside, depth)
        except Exception:  # noqa: BLE001 - not a pydantic v2 model after all
            return v
    if dataclasses.is_dataclass(v):
        inside.add(id(v))
        try:
            return {f.name: _jsonable(getattr(v, f.name), inside, depth + 1) for f in dataclasses.fields(v)}
        finally:
            inside.discard(id(v))
    if isinstance(v, (dict, list, tuple, set, frozenset)):
        inside.add(id(v))
        try:
            if isinstance(v, dict):
                items = {k: _jsonable(x, inside, depth + 1) for k, x in v.items()}
                same = all(items[k] is x for k, x in v.items())
                return v if same else items
            items = [_jsonable(x, inside, depth + 1) for x in v]
            if isinstance(v, (set, frozenset)):
                try:
                    return sorted(items)
                except TypeError:
                    return items
            return v if all(a is b for a, b in zip(items, v)) else items
        finally:
            inside.discard(id(v))
    return v


def json_problem(value, path):
    """The first thing json.dumps(value, allow_nan=False) would refuse, as
    (what, key path), or None: a type JSON has no word for, NaN, a key that
    is not a string or a number, a string JSON readers refuse (a lone
    surrogate: a file name that is not UTF-8), or a value that holds
    itself (json.dumps would refuse it; walking it would never end); and
    what JSON would take but Atelier's reader could not keep as it was: an
    integer past 64 bits (it would come back rounded), two keys that are
    the same text (`1` and `"1"`: one would be lost), nesting deeper than
    MAX_DEPTH levels."""
    stack = [(value, path, False)]
    inside = set()  # the containers on the path being walked
    done = set()  # containers already checked (one shared twice is fine)
    while stack:
        v, p, leaving = stack.pop()
        if leaving:
            inside.discard(id(v))
            done.add(id(v))
            continue
        if v is None or isinstance(v, bool):
            continue
        if isinstance(v, int):
            if not -(1 << 63) <= v < (1 << 64):
                return "an integer past 64 bits (it would be rounded; return it as a string)", p
            continue
        if isinstance(v, os.PathLike):
            continue  # written as its path (see `plain`)
        if isinstance(v, enum.Enum):
            stack.append((v.value, p, False))  # written as its value
            continue
        if isinstance(v, str):
            if not v.isascii():
                try:
                    v.encode("utf-8")
                except UnicodeEncodeError:
                    return "str with a lone surrogate (a name that is not UTF-8?)", p
            continue
        if isinstance(v, float):
            if math.isnan(v) or math.isinf(v):
                return f"float {v!r}", p
            continue
        if isinstance(v, (dict, list, tuple)):
            if id(v) in inside:
                return "a value that holds itself (a circular reference)", p
            if id(v) in done:
                continue
            if len(inside) >= MAX_DEPTH:
                return f"values nested deeper than {MAX_DEPTH} levels", p
            inside.add(id(v))
            stack.append((v, p, True))
            if isinstance(v, dict):
                texts = set()
                for k, item in v.items():
                    if not isinstance(k, (str, int, float, bool)) and k is not None:
                        return f"{type_name(type(k))} key {k!r}", p
                    # The key as JSON writes it (True is "true", None "null").
                    text = k if isinstance(k, str) else json.dumps(k)
                    if text in texts:
                        return f"two keys written {text!r} (one would be lost)", p
                    texts.add(text)
                    stack.append((item, f"{p}.{k}", False))
            else:
                for i, item in enumerate(v):
                    stack.append((item, f"{p}.{i}", False))
            continue
        return type_name(type(v)), p
    return None
