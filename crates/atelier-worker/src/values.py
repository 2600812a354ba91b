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
    surrogate: a file name that is not UTF-8, as a value or as a key), or a
    value that holds itself (json.dumps would refuse it; walking it would
    never end); and what JSON would take but Atelier's reader could not
    keep as it was: an integer past 64 bits (it would come back rounded),
    two keys that are the same text (`1` and `"1"`: one would be lost),
    nesting deeper than MAX_DEPTH levels. "First" is in the order the JSON
    would be written (a dict's keys as they come, each key before its
    value), so the value named is the one a person reading it meets first;
    a path past a few levels is shortened (see `short_path`)."""
    # Work items, popped last-first, so each container's items are pushed
    # in reverse: ("value", v, path), ("key", (k, seen), path) and
    # ("leave", v, None) when a container's items are all done.
    stack = [("value", value, path)]
    inside = set()  # the containers on the path being walked
    done = set()  # containers already checked (one shared twice is fine)
    while stack:
        what, v, p = stack.pop()
        if what == "leave":
            inside.discard(id(v))
            done.add(id(v))
            continue
        if what == "key":
            problem = _key_problem(*v)
            if problem:
                return problem, short_path(p)
            continue
        if v is None or isinstance(v, bool):
            continue
        if isinstance(v, int):
            if not -(1 << 63) <= v < (1 << 64):
                return "an integer past 64 bits (it would be rounded; return it as a string)", short_path(p)
            continue
        if isinstance(v, os.PathLike):
            continue  # written as its path (see `plain`)
        if isinstance(v, enum.Enum):
            stack.append(("value", v.value, p))  # written as its value
            continue
        if isinstance(v, str):
            if _lone_surrogate(v):
                return "str with a lone surrogate (a name that is not UTF-8?)", short_path(p)
            continue
        if isinstance(v, float):
            if math.isnan(v) or math.isinf(v):
                return f"float {v!r}", short_path(p)
            continue
        if isinstance(v, (dict, list, tuple)):
            if id(v) in inside:
                return "a value that holds itself (a circular reference)", short_path(p)
            if id(v) in done:
                continue
            if len(inside) >= MAX_DEPTH:
                return f"values nested deeper than {MAX_DEPTH} levels", short_path(p)
            inside.add(id(v))
            stack.append(("leave", v, None))
            if isinstance(v, dict):
                seen = set()  # the keys' texts so far, shared by this dict's key items
                for k, item in reversed(list(v.items())):
                    stack.append(("value", item, f"{p}.{k}"))
                    stack.append(("key", (k, seen), p))
            else:
                for i in reversed(range(len(v))):
                    stack.append(("value", v[i], f"{p}.{i}"))
            continue
        return type_name(type(v)), short_path(p)
    return None


def _lone_surrogate(s):
    if s.isascii():
        return False
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _key_problem(k, seen):
    """What is wrong with a dict's key `k` (its dict's other keys' texts so
    far in `seen`, which it joins), or None."""
    if not isinstance(k, (str, int, float, bool)) and k is not None:
        return f"{type_name(type(k))} key {k!r}"
    if isinstance(k, str) and _lone_surrogate(k):
        return f"key {k!r} with a lone surrogate (a name that is not UTF-8?)"
    # The key as JSON writes it (True is "true", None "null").
    text = k if isinstance(k, str) else json.dumps(k)
    if text in seen:
        return f"two keys written {text!r} (one would be lost)"
    seen.add(text)
    return None


# A path longer than this many steps is shown by its ends.
_PATH_ENDS = 4


def short_path(path):
    """`path` (`$return.a.b.0…`) as a person can read it: past a few steps,
    its first and last few with how many are left out between, so a value
    nested 100 levels deep is not named by 100 steps."""
    steps = path.split(".")
    if len(steps) <= 2 * _PATH_ENDS + 1:
        return path
    left = len(steps) - 2 * _PATH_ENDS
    return ".".join(steps[:_PATH_ENDS]) + f".…({left} more)…." + ".".join(steps[-_PATH_ENDS:])
