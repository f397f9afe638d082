"""JSON Schema ``pattern`` read as the standard reads it (ECMA-262), not as Python's ``re`` would.

The operation schemas are the one definition of what a body may hold: the OpenAPI document publishes
them and the service checks bodies against them. JSON Schema patterns are ECMA-262 regular
expressions, and a few escapes mean something else to Python: ``\\s`` also matches U+001C..U+001F and
U+0085 but not U+FEFF, ``\\d`` and ``\\w`` match any script's digits and letters, ``$`` also matches
before a final newline, ``.`` matches U+2028/U+2029 and ``\\r``. A URL holding U+001C passed the
published schema and was refused by the service (issue 29). :func:`to_python` rewrites those tokens
so that Python matches exactly the strings an ECMA-262 engine matches; the rest of the syntax the
schemas use (classes, groups, lookahead, quantifiers, ``\\uXXXX``) means the same in both.

    >>> import re
    >>> bool(re.search(to_python(r"^https?://[^\\s]+$"), "http://a\\x1cb"))
    True
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any, cast

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError

__all__ = ["ecma_search", "to_python", "validator_for"]

# ECMA-262 WhiteSpace and LineTerminator: what its \s matches.
_SPACE = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_DIGIT = "0-9"
_WORD = "A-Za-z0-9_"
_IN_CLASS = {"s": _SPACE, "d": _DIGIT, "w": _WORD}
_OUTSIDE = {
    "s": f"[{_SPACE}]",
    "S": f"[^{_SPACE}]",
    "d": f"[{_DIGIT}]",
    "D": f"[^{_DIGIT}]",
    "w": f"[{_WORD}]",
    "W": f"[^{_WORD}]",
}
_ANY = "[^\\n\\r\\u2028\\u2029]"  # ECMA's "." (no s flag): anything but a line terminator
_END = "\\Z"  # ECMA's "$" (no m flag): the end of the string only


@cache
def to_python(pattern: str) -> str:
    """The Python ``re`` pattern that matches what the ECMA-262 ``pattern`` matches.

    Raises ValueError for a negated class escape inside a class (``[\\S]``), which needs a rewrite
    by hand; none of the schemas holds one.
    """
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            escaped = pattern[i + 1]
            i += 2
            if in_class and escaped in _IN_CLASS:
                out.append(_IN_CLASS[escaped])
            elif in_class and escaped in _OUTSIDE:
                raise ValueError(f"pattern {pattern!r}: \\{escaped} inside a class is not supported")
            elif not in_class and escaped in _OUTSIDE:
                out.append(_OUTSIDE[escaped])
            else:
                out.append(char + escaped)
            continue
        i += 1
        if in_class:
            if char == "]" and out[-1] in ("[", "[^"):  # ECMA: [] matches nothing, [^] anything
                raise ValueError(f"pattern {pattern!r}: an empty class is not supported")
            in_class = char != "]"
            out.append(char)
        elif char == "[":
            in_class = True
            if pattern.startswith("^", i):
                out.append("[^")
                i += 1
            else:
                out.append("[")
        elif char == "$":
            out.append(_END)
        elif char == ".":
            out.append(_ANY)
        else:
            out.append(char)
    return "".join(out)


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(to_python(pattern))


def ecma_search(pattern: str, text: str) -> bool:
    """Whether ``text`` matches the ECMA-262 ``pattern`` somewhere, as JSON Schema's ``pattern`` asks."""
    return _compiled(pattern).search(text) is not None


def _pattern(
    validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not ecma_search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, properties: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in properties.items():
        for name, value in instance.items():
            if ecma_search(pattern, name):
                yield from validator.descend(value, subschema, path=name, schema_path=pattern)


_EcmaValidator: Any = validators.extend(  # type: ignore[no-untyped-call]  # untyped in jsonschema
    Draft202012Validator, {"pattern": _pattern, "patternProperties": _pattern_properties}
)


def validator_for(schema: Mapping[str, Any]) -> Draft202012Validator:
    """A Draft 2020-12 validator of ``schema`` whose patterns are read as ECMA-262 ones."""
    return cast(Draft202012Validator, _EcmaValidator(schema))
