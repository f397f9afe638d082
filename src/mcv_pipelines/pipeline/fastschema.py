"""A quick yes/no validator for the plain JSON Schemas that params and operation options use.

jsonschema builds an evolved validator for every subschema it descends into; checking thousands of
batch rows spent most of its time there. ``compile_predicate`` turns a schema that uses only the
common keywords into a plain function with the same answers (draft 2020-12 semantics); a schema
with anything else (``patternProperties``, a ``$ref`` that is not to the schema's own ``$defs``, ...)
gets None and stays with jsonschema. Only the yes matters for speed: on a no, jsonschema runs anyway
to word the errors. A clean `mcv` run (the pipeline file's own schema included) then never imports
jsonschema at all: its import is a fifth of a batch's start-up.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["Predicate", "compile_predicate", "plainly_valid_schema"]

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
    "$defs",  # read through $ref, not a check in itself
    "$ref",
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


class _Compiler:
    """Compiles one schema; ``$ref`` to ``#/$defs/NAME`` of its root is followed (each once)."""

    def __init__(self, root: Any, translate: Callable[[str], str] | None) -> None:
        self.root = root
        self.refs: dict[str, Predicate] = {}
        self.translate = translate

    def ref(self, pointer: Any) -> Predicate:
        if pointer in self.refs:
            return self.refs[pointer]
        prefix = "#/$defs/"
        if not isinstance(pointer, str) or not pointer.startswith(prefix):
            raise _Unsupported
        name = pointer[len(prefix) :]
        defs = self.root.get("$defs") if isinstance(self.root, dict) else None
        if "/" in name or "~" in name or not isinstance(defs, dict) or name not in defs:
            raise _Unsupported
        made: list[Predicate] = []
        self.refs[pointer] = lambda v: made[0](v)  # a definition may refer to itself
        made.append(self.compile(defs[name]))
        return self.refs[pointer]

    def compile(self, schema: Any) -> Predicate:
        if schema is True:
            return lambda v: True
        if schema is False:
            return lambda v: False
        if not isinstance(schema, dict) or not set(schema) <= _SUPPORTED:
            raise _Unsupported
        checks: list[Predicate] = []
        if "$ref" in schema:
            checks.append(self.ref(schema["$ref"]))
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
        _strings(schema, checks, self.translate)
        _numbers(schema, checks)
        _objects(schema, checks, self.compile)
        _arrays(schema, checks, self.compile)
        _logic(schema, checks, self.compile)
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


def _strings(schema: dict[str, Any], checks: list[Predicate], translate: Callable[[str], str] | None) -> None:
    if "minLength" in schema:
        low = schema["minLength"]
        checks.append(lambda v: not isinstance(v, str) or len(v) >= low)
    if "maxLength" in schema:
        high = schema["maxLength"]
        checks.append(lambda v: not isinstance(v, str) or len(v) <= high)
    if "pattern" in schema:
        source = schema["pattern"]
        pattern = re.compile(translate(source) if translate is not None else source)
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


def _objects(schema: dict[str, Any], checks: list[Predicate], sub: Callable[[Any], Predicate]) -> None:
    if "required" in schema:
        required = list(schema["required"])
        wanted = frozenset(required)
        checks.append(lambda v: not isinstance(v, dict) or wanted.issubset(v))
    properties = {k: sub(s) for k, s in schema.get("properties", {}).items()}
    if properties or "additionalProperties" in schema:
        extra = sub(schema.get("additionalProperties", True))

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
        name = sub(schema["propertyNames"])
        checks.append(lambda v: not isinstance(v, dict) or all(name(key) for key in v))
    if "minProperties" in schema:
        low = schema["minProperties"]
        checks.append(lambda v: not isinstance(v, dict) or len(v) >= low)
    if "maxProperties" in schema:
        high = schema["maxProperties"]
        checks.append(lambda v: not isinstance(v, dict) or len(v) <= high)


def _arrays(schema: dict[str, Any], checks: list[Predicate], sub: Callable[[Any], Predicate]) -> None:
    if "items" in schema:
        item = sub(schema["items"])
        checks.append(lambda v: not isinstance(v, list) or all(item(x) for x in v))
    if "minItems" in schema:
        low = schema["minItems"]
        checks.append(lambda v: not isinstance(v, list) or len(v) >= low)
    if "maxItems" in schema:
        high = schema["maxItems"]
        checks.append(lambda v: not isinstance(v, list) or len(v) <= high)


def _logic(schema: dict[str, Any], checks: list[Predicate], sub: Callable[[Any], Predicate]) -> None:
    if "allOf" in schema:
        every = [sub(s) for s in schema["allOf"]]
        checks.append(lambda v: all(p(v) for p in every))
    if "anyOf" in schema:
        some = [sub(s) for s in schema["anyOf"]]
        checks.append(lambda v: any(p(v) for p in some))
    if "oneOf" in schema:
        one = [sub(s) for s in schema["oneOf"]]
        checks.append(lambda v: sum(1 for p in one if p(v)) == 1)
    if "not" in schema:
        negated = sub(schema["not"])
        checks.append(lambda v: not negated(v))
    if "if" in schema:
        condition = sub(schema["if"])
        then = sub(schema.get("then", True))
        otherwise = sub(schema.get("else", True))
        checks.append(lambda v: then(v) if condition(v) else otherwise(v))


def compile_predicate(schema: Any, translate: Callable[[str], str] | None = None) -> Predicate | None:
    """A function giving jsonschema's valid/invalid answer for ``schema``, or None if unsupported.
    ``translate``: a ``pattern`` to the Python one that means the same (the service reads patterns
    as ECMA-262 ones); one it refuses (ValueError) leaves the schema to jsonschema.

    >>> compile_predicate({"type": "integer", "minimum": 1})(5)
    True
    """
    try:
        return _Compiler(schema, translate).compile(schema)
    except (_Unsupported, re.error, TypeError, ValueError):
        return None


_COUNTS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")
_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_TEXTS = ("title", "description", "$comment", "format")
_FLAGS = ("deprecated", "readOnly", "writeOnly")
_ANY = ("default", "const", "example", "secret")  # any value: ``example`` and ``secret`` are ours


def plainly_valid_schema(schema: Any) -> bool:
    """True when ``schema`` is surely a valid draft 2020-12 schema, judged without the metaschema:
    only the keywords params use, each with a value of the metaschema's type. False means "ask
    jsonschema" (``check_schema``), not "invalid".

    >>> plainly_valid_schema({"type": "integer", "minimum": 1}), plainly_valid_schema({"type": "int"})
    (True, False)
    """
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict):
        return False
    for key, value in schema.items():
        if key == "type":
            names = [value] if isinstance(value, str) else value
            if not (isinstance(names, list) and names and len(set(map(str, names))) == len(names)):
                return False
            if not all(isinstance(n, str) and n in _TYPES for n in names):
                return False
        elif key in _COUNTS:
            if not (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
                return False
        elif key in _BOUNDS:
            if not _is_number(value):
                return False
        elif key in _TEXTS:
            if not isinstance(value, str):
                return False
        elif key in _FLAGS:
            if not isinstance(value, bool):
                return False
        elif key in ("enum", "examples"):
            if not isinstance(value, list):
                return False
        elif key == "pattern":
            try:
                re.compile(value)
            except (re.error, TypeError):
                return False
        elif key == "required":
            if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                return False
            if len(set(value)) != len(value):
                return False
        elif key == "properties":
            if not (isinstance(value, dict) and all(plainly_valid_schema(v) for v in value.values())):
                return False
        elif key in ("items", "additionalProperties"):
            if not plainly_valid_schema(value):
                return False
        elif key not in _ANY:
            return False
    return True
