"""Schemas that accept a template wherever they expect a typed value.

A pipeline's string values are rendered before anything checks them, so ``width: "{{ item }}"`` is an
integer by the time it is sent; a schema of the file as written cannot know that. ``tolerant`` turns
a schema of a task body into one where every value position (a property, an array item, a map value)
also takes a string holding a template, and keeps the value's description, default and examples on
the outside, where editors look for them on hover and completion.

>>> tolerant({"properties": {"width": {"type": "integer", "description": "Width."}}})["properties"]["width"]
{'description': 'Width.', 'anyOf': [{'type': 'integer'}, {'$ref': '#/$defs/template'}]}
"""

from __future__ import annotations

from typing import Any

__all__ = ["ANNOTATIONS", "TEMPLATE_REF", "tolerant", "tolerant_value"]

TEMPLATE_REF = "#/$defs/template"
# Kept on the outer schema of a value: what editors show on hover and offer on completion.
ANNOTATIONS = (
    "title", "description", "markdownDescription", "default", "examples", "deprecated", "writeOnly"
)
# Keywords about the same instance: their subschemas are made tolerant in place.
_SAME_INSTANCE_LISTS = ("allOf", "anyOf", "oneOf")
_SAME_INSTANCE = ("then", "else")


def _takes_any_string(schema: Any) -> bool:
    if schema is True:
        return True
    if not isinstance(schema, dict):
        return False
    rest = {k: v for k, v in schema.items() if k not in ANNOTATIONS and k != "$comment"}
    if not rest:
        return True
    if set(rest) == {"anyOf"} and isinstance(rest["anyOf"], list):
        return any(_takes_any_string(branch) for branch in rest["anyOf"])
    kind = rest.get("type")
    kinds = [kind] if isinstance(kind, str) else list(kind or ())
    return set(rest) == {"type"} and "string" in kinds


def tolerant(schema: Any) -> Any:
    """``schema`` (of an object or any instance) with every value inside it open to templates.

    ``if`` and ``not`` are left as written: a template must not switch a condition on, nor make a
    forbidden shape look allowed.
    """
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if isinstance(out.get("properties"), dict):
        out["properties"] = {name: tolerant_value(sub) for name, sub in out["properties"].items()}
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = tolerant_value(out["additionalProperties"])
    if isinstance(out.get("items"), dict):
        out["items"] = tolerant_value(out["items"])
    for key in _SAME_INSTANCE_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [tolerant(sub) for sub in out[key]]
    for key in _SAME_INSTANCE:
        if key in out:
            out[key] = tolerant(out[key])
    return out


def tolerant_value(schema: Any) -> Any:
    """The schema of one value, also taking a template (unless it takes every string already)."""
    inner = tolerant(schema)
    if _takes_any_string(inner) or not isinstance(inner, dict):
        return inner
    outer = {key: inner.pop(key) for key in ANNOTATIONS if key in inner}
    outer["anyOf"] = [inner, {"$ref": TEMPLATE_REF}]
    return outer
