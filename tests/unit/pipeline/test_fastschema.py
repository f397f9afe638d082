"""The quick predicate must give jsonschema's answer for every schema it accepts."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mcv_pipelines.pipeline.fastschema import compile_predicate

VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    1.0,
    2.5,
    16,
    100,
    101,
    "",
    "a",
    "abc",
    "ABC",
    "007",
    "a/b",
    "..",
    [],
    [1],
    [1, 2],
    ["a"],
    ["a", 1],
    {},
    {"a": 1},
    {"key": "k"},
    {"key_prefix": "p"},
    {"key": "k", "key_prefix": "p"},
    {"operation": "convert", "input": "in", "output_format": "webp"},
    {"operation": "convert", "input": ["a", "b"], "output_format": "pdf", "width": 3},
    {"operation": "convert", "input": [], "output_format": "pdf", "extra": True},
]
SCHEMAS: list[Any] = [
    True,
    False,
    {},
    {"type": "integer"},
    {"type": "number", "minimum": 1, "exclusiveMaximum": 100},
    {"type": ["string", "null"], "minLength": 1, "maxLength": 2},
    {"pattern": "^[a-z]+$"},
    {"enum": [1, "a", None]},
    {"const": True},
    {"const": 1},
    {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 1},
    {
        "type": "object",
        "required": ["key"],
        "properties": {"key": {"type": "string"}},
        "additionalProperties": False,
    },
    {"oneOf": [{"required": ["key"]}, {"required": ["key_prefix"]}]},
    {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
    {"allOf": [{"minimum": 0}, {"maximum": 10}]},
    {"not": {"type": "string"}},
    {"type": "object", "propertyNames": {"pattern": "^[a-z_]+$", "maxLength": 3}},
    {
        "if": {"type": "object", "required": ["key"]},
        "then": {"required": ["key_prefix"]},
        "else": {"minProperties": 1},
    },
]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "operations"
SHIPPED = Path(__file__).resolve().parents[3] / "schemas" / "operations"
FILES = sorted(EXAMPLES.glob("*.json")) + sorted(SHIPPED.glob("*.json"))


@pytest.mark.parametrize("schema", SCHEMAS + [json.loads(f.read_text()) for f in FILES])
def test_same_answers_as_jsonschema(schema: Any) -> None:
    predicate = compile_predicate(schema)
    assert predicate is not None
    validator = Draft202012Validator(schema)
    for value in VALUES:
        assert predicate(value) == validator.is_valid(value), value
    for a, b in itertools.product(VALUES[:12], repeat=2):
        assert predicate({"key": a, "input": b}) == validator.is_valid({"key": a, "input": b})


@pytest.mark.parametrize(
    "schema", [{"$ref": "#/x"}, {"patternProperties": {"a": {}}}, {"type": "bogus"}, {"pattern": "("}]
)
def test_what_it_does_not_know_stays_with_jsonschema(schema: Any) -> None:
    assert compile_predicate(schema) is None
