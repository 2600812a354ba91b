"""The values a tool returns, as JSON takes them: what json.dumps would
refuse (found before it is tried, with where in the value), and what it
is given for the two kinds a typed tool hands back from its own
arguments — a `Path` (its text) and an `Enum` member (its value), since
runner.py gives a tool those for parameters annotated so.

Loaded by the worker as `_atelier_values`, before runner.py.
"""

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
