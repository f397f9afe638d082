"""Task bodies from the operation schemas (schemas/operations/*.schema.json), mostly valid.

A small generator of our own for the subset of JSON Schema those files use (type, const, enum,
pattern, min/max, items, required, oneOf/anyOf/allOf): hypothesis-jsonschema 0.23 does not run on
current Hypothesis. Bodies need not all be valid; they must reach deep into the checks.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import strategies as st
from strategies import json_values, nasty_text

_FILENAME = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,8}\.(png|jpg|webp|pdf|mp4|docx|zip)", fullmatch=True)


def _string(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    pattern = schema.get("pattern")
    low = int(schema.get("minLength", 0))
    high = schema.get("maxLength")
    base: st.SearchStrategy[str] = st.text(min_size=low, max_size=int(high) if high else max(low, 20))
    if isinstance(pattern, str):
        try:
            compiled = re.compile(pattern)
            if "(?!" in pattern or "(?=" in pattern:  # from_regex does not take lookarounds
                base = st.one_of(_FILENAME, base).filter(lambda s: compiled.search(s) is not None)
            else:
                base = st.from_regex(compiled, fullmatch=True).filter(lambda s: len(s) >= low)
        except re.error:
            pass
    return base


def strategy(schema: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values for ``schema``; a sprinkle of anything at all, so that invalid values are tried too."""
    if not isinstance(schema, dict) or depth > 4:
        return json_values
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for combinator in ("oneOf", "anyOf"):
        branches = schema.get(combinator)
        if isinstance(branches, list) and branches:
            base = {k: v for k, v in schema.items() if k != combinator}
            return st.one_of(*[strategy(_merge(base, b), depth + 1) for b in branches])
    if isinstance(schema.get("allOf"), list):
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            merged = _merge(merged, part)
        return strategy(merged, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of(*[strategy({**schema, "type": k}, depth + 1) for k in kind])
    if kind == "string":
        return _string(schema)
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "number":
        return st.floats(schema.get("minimum"), schema.get("maximum"), allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        low = int(schema.get("minItems", 0))
        return st.lists(strategy(schema.get("items", {}), depth + 1), min_size=low, max_size=low + 3)
    if kind == "object" or "properties" in schema:
        return _object(schema, depth)
    return json_values


def _merge(base: dict[str, Any], extra: Any) -> dict[str, Any]:
    if not isinstance(extra, dict):
        return base
    merged = {**base, **extra}
    if "properties" in base and "properties" in extra:
        merged["properties"] = {**base["properties"], **extra["properties"]}
    if "required" in base and "required" in extra:
        merged["required"] = [*base["required"], *extra["required"]]
    return merged


def _object(schema: dict[str, Any], depth: int) -> st.SearchStrategy[dict[str, Any]]:
    properties: dict[str, Any] = schema.get("properties", {})
    required = [k for k in schema.get("required", []) if isinstance(k, str)]

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        chosen = set(required) | set(draw(st.lists(st.sampled_from(sorted(properties)), max_size=6))
                                     if properties else [])
        body = {k: draw(strategy(properties.get(k, {}), depth + 1)) for k in sorted(chosen)}
        if draw(st.integers(0, 9)) == 0:  # now and then a value of the wrong kind, or an unknown key
            body[draw(nasty_text)] = draw(json_values)
        return body

    return build()
