"""A quick yes/no validator for the plain JSON Schemas that params and operation options use.

jsonschema builds an evolved validator for every subschema it descends into; checking thousands of
batch rows spent most of its time there. ``compile_predicate`` turns a schema that uses only the
common keywords into a plain function with the same answers (draft 2020-12 semantics); a schema
with anything else (``$ref``, ``patternProperties``, ...) gets None and stays with jsonschema. Only
the yes matters for speed: on a no, jsonschema runs anyway to word the errors.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["Predicate", "compile_predicate"]

Predicate = Callable[[Any], bool]

_ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "title",
        "description",
        "default",
        "examples",
        "example",
        "readOnly",
        "writeOnly",
        "deprecated",
        "format",
        "secret",
    }
)
_SUPPORTED = _ANNOTATIONS | {
    "type",
    "enum",
    "const",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
}


class _Unsupported(Exception):
    pass


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_TYPES: dict[str, Predicate] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "number": _is_number,
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
}


def _equal(one: Any, two: Any) -> bool:
    """JSON equality: 1 == 1.0, but True is not 1 and False is not 0."""
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(_equal(one[k], two[k]) for k in one)
    if _is_number(one) and _is_number(two):
        return bool(one == two)
    return type(one) is type(two) and bool(one == two)


def _compile(schema: Any) -> Predicate:
    if schema is True:
        return lambda v: True
    if schema is False:
        return lambda v: False
    if not isinstance(schema, dict) or not set(schema) <= _SUPPORTED:
        raise _Unsupported
    checks: list[Predicate] = []
    kind = schema.get("type")
    if kind is not None:
        names = [kind] if isinstance(kind, str) else list(kind)
        if not all(n in _TYPES for n in names):
            raise _Unsupported
        tests = [_TYPES[n] for n in names]
        checks.append(tests[0] if len(tests) == 1 else lambda v: any(t(v) for t in tests))
    if "enum" in schema:
        options = list(schema["enum"])
        checks.append(lambda v: any(_equal(v, o) for o in options))
    if "const" in schema:
        constant = schema["const"]
        checks.append(lambda v: _equal(v, constant))
    _strings(schema, checks)
    _numbers(schema, checks)
    _objects(schema, checks)
    _arrays(schema, checks)
    _logic(schema, checks)
    if not checks:
        return lambda v: True
    if len(checks) == 1:
        return checks[0]
    every = tuple(checks)

    def conjunction(v: Any) -> bool:
        # a plain loop: generator expressions cost more than the checks themselves here
        for check in every:  # noqa: SIM110 - see the comment above
            if not check(v):
                return False
        return True

    return conjunction


def _strings(schema: dict[str, Any], checks: list[Predicate]) -> None:
    if "minLength" in schema:
        low = schema["minLength"]
        checks.append(lambda v: not isinstance(v, str) or len(v) >= low)
    if "maxLength" in schema:
        high = schema["maxLength"]
        checks.append(lambda v: not isinstance(v, str) or len(v) <= high)
    if "pattern" in schema:
        pattern = re.compile(schema["pattern"])
        checks.append(lambda v: not isinstance(v, str) or pattern.search(v) is not None)


def _numbers(schema: dict[str, Any], checks: list[Predicate]) -> None:
    bounds: list[tuple[str, Callable[[Any, Any], bool]]] = [
        ("minimum", lambda v, b: v >= b),
        ("maximum", lambda v, b: v <= b),
        ("exclusiveMinimum", lambda v, b: v > b),
        ("exclusiveMaximum", lambda v, b: v < b),
    ]
    for key, compare in bounds:
        if key in schema:
            bound = schema[key]

            def check(v: Any, bound: Any = bound, compare: Callable[[Any, Any], bool] = compare) -> bool:
                return not _is_number(v) or compare(v, bound)

            checks.append(check)


def _objects(schema: dict[str, Any], checks: list[Predicate]) -> None:
    if "required" in schema:
        required = list(schema["required"])
        wanted = frozenset(required)
        checks.append(lambda v: not isinstance(v, dict) or wanted.issubset(v))
    properties = {k: _compile(s) for k, s in schema.get("properties", {}).items()}
    if properties or "additionalProperties" in schema:
        extra = _compile(schema.get("additionalProperties", True))

        def members(v: Any) -> bool:
            # one pass over the instance's keys: bodies have a few, schemas list many
            if not isinstance(v, dict):
                return True
            for key, value in v.items():  # noqa: SIM110 - a loop is faster than all() over a generator
                if not properties.get(key, extra)(value):
                    return False
            return True

        checks.append(members)
    if "propertyNames" in schema:
        # every key of the instance, a string, must match the schema (header names of import/url)
        name = _compile(schema["propertyNames"])
        checks.append(lambda v: not isinstance(v, dict) or all(name(key) for key in v))
    if "minProperties" in schema:
        low = schema["minProperties"]
        checks.append(lambda v: not isinstance(v, dict) or len(v) >= low)
    if "maxProperties" in schema:
        high = schema["maxProperties"]
        checks.append(lambda v: not isinstance(v, dict) or len(v) <= high)


def _arrays(schema: dict[str, Any], checks: list[Predicate]) -> None:
    if "items" in schema:
        item = _compile(schema["items"])
        checks.append(lambda v: not isinstance(v, list) or all(item(x) for x in v))
    if "minItems" in schema:
        low = schema["minItems"]
        checks.append(lambda v: not isinstance(v, list) or len(v) >= low)
    if "maxItems" in schema:
        high = schema["maxItems"]
        checks.append(lambda v: not isinstance(v, list) or len(v) <= high)


def _logic(schema: dict[str, Any], checks: list[Predicate]) -> None:
    if "allOf" in schema:
        every = [_compile(s) for s in schema["allOf"]]
        checks.append(lambda v: all(p(v) for p in every))
    if "anyOf" in schema:
        some = [_compile(s) for s in schema["anyOf"]]
        checks.append(lambda v: any(p(v) for p in some))
    if "oneOf" in schema:
        one = [_compile(s) for s in schema["oneOf"]]
        checks.append(lambda v: sum(1 for p in one if p(v)) == 1)
    if "not" in schema:
        negated = _compile(schema["not"])
        checks.append(lambda v: not negated(v))
    if "if" in schema:
        condition = _compile(schema["if"])
        then = _compile(schema.get("then", True))
        otherwise = _compile(schema.get("else", True))
        checks.append(lambda v: then(v) if condition(v) else otherwise(v))


def compile_predicate(schema: Any) -> Predicate | None:
    """A function giving jsonschema's valid/invalid answer for ``schema``, or None if unsupported.

    >>> compile_predicate({"type": "integer", "minimum": 1})(5)
    True
    """
    try:
        return _compile(schema)
    except (_Unsupported, re.error, TypeError):
        return None
