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


def _pipeline_documents() -> list[Any]:
    import yaml

    root = Path(__file__).resolve().parents[3]
    files = sorted((root / "pipelines").glob("*.yaml")) + sorted(
        (root / "tests" / "examples").rglob("*.yaml")
    )
    documents = []
    for path in files:
        try:
            documents.append(yaml.safe_load(path.read_text(encoding="utf-8")))
        except (yaml.YAMLError, UnicodeDecodeError):
            continue  # a negative example that is not YAML (or not text) at all: no schema question
    return documents


def test_the_pipeline_file_schema_gets_jsonschemas_answer_for_every_example() -> None:
    """The file schema's $ref to its own $defs is followed, so a clean pipeline needs no jsonschema;
    every shipped and test pipeline, valid or not, gets the same verdict from both."""
    from mcv_pipelines.pipeline.fileschema import file_schema

    schema = file_schema()
    predicate = compile_predicate(schema)
    assert predicate is not None
    validator = Draft202012Validator(schema)
    documents = _pipeline_documents()
    base = next(d for d in documents if isinstance(d, dict) and d.get("params") and validator.is_valid(d))
    some_task = next(iter(base["tasks"]))
    for change in [
        {"colour": "blue"},
        {"version": "1"},
        {"tasks": []},
        {"tasks": {}},
        {"tasks": {some_task: {"input": "x"}}},
        {"tasks": {"bad name!": {"operation": "convert"}}},
        {"params": {"p": 3}},
        {"params": {"1x": {"type": "string"}}},
        {"job": {"tag": ["a"]}},
        {"name": None},
    ]:
        documents.append({**base, **change})
    verdicts = [predicate(d) for d in documents]
    assert verdicts == [validator.is_valid(d) for d in documents]
    assert True in verdicts
    assert False in verdicts


def test_a_recursive_definition_is_followed() -> None:
    schema = {
        "$defs": {
            "tree": {
                "type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}},
            }
        },
        "$ref": "#/$defs/tree",
    }
    predicate = compile_predicate(schema)
    assert predicate is not None
    validator = Draft202012Validator(schema)
    for value in [{}, {"kids": [{}]}, {"kids": [{"kids": [1]}]}, {"kids": "x"}, 3]:
        assert predicate(value) == validator.is_valid(value), value


PARAM_SCHEMAS: list[Any] = [
    {"type": "string"},
    {"type": "integer", "minimum": 1, "maximum": 100, "default": 80, "description": "quality"},
    {"type": ["string", "null"], "enum": ["a", None], "secret": True},
    {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}, "minItems": 1},
    {
        "type": "object",
        "properties": {"a": {"type": "number"}},
        "required": ["a"],
        "additionalProperties": False,
    },
    {"type": "strng"},
    {"type": ["string", "string"]},
    {"type": []},
    {"minimum": "1"},
    {"minLength": -1},
    {"minLength": True},
    {"pattern": "("},
    {"required": ["a", "a"]},
    {"required": "a"},
    {"enum": "a"},
    {"properties": {"a": {"type": 3}}},
    {"items": {"maximum": None}},
    {"description": 3},
    {"readOnly": "yes"},
    "string",
    3,
]


@pytest.mark.parametrize("schema", PARAM_SCHEMAS)
def test_a_schema_called_plainly_valid_is_valid_to_the_metaschema(schema: Any) -> None:
    from jsonschema.exceptions import SchemaError

    from mcv_pipelines.pipeline.fastschema import plainly_valid_schema

    try:
        Draft202012Validator.check_schema(schema)
        valid = True
    except SchemaError:
        valid = False
    if plainly_valid_schema(schema):
        assert valid  # a no only sends the schema to jsonschema; a wrong yes would let a bad one through


def test_the_usual_param_schemas_are_judged_without_jsonschema() -> None:
    from mcv_pipelines.pipeline.fastschema import plainly_valid_schema

    assert all(plainly_valid_schema(s) for s in PARAM_SCHEMAS[:5])
    assert not any(plainly_valid_schema(s) for s in PARAM_SCHEMAS[5:])


ECMA_VALUES: list[Any] = [
    "https://example.com/a.png",
    "https://example.com/a.png\n",  # Python's $ matches before a final newline; ECMA's does not
    "http://a\x1cb",  # Python's \s matches U+001C; ECMA's does not
    "a\u2028b",
    "٣",  # a digit to Python's \d, not to ECMA's
    "x" * 3,
]


@pytest.mark.parametrize("path", sorted(SHIPPED.glob("*.json")), ids=lambda p: p.name)
def test_with_ecma_patterns_the_service_predicate_agrees_with_its_validator(path: Path) -> None:
    """The service reads patterns as ECMA-262 ones; its quick predicate must too."""
    from mcv_pipelines.pipeline.opcheck import KNOWN_OPERATIONS
    from mcv_pipelines.service.http.body_schema import _predicate, _validator, operation_file

    operation = next(op for op in KNOWN_OPERATIONS if operation_file(op) == path.name)
    predicate, validator = _predicate(operation), _validator(operation)
    assert validator is not None
    if predicate is None:
        return  # what the predicate does not know stays with jsonschema: nothing to compare
    schema = json.loads(path.read_text())
    for name, rule in schema.get("properties", {}).items():
        if not isinstance(rule, dict):
            continue
        for value in [*VALUES, *ECMA_VALUES]:
            body = {"operation": operation, name: value}
            assert predicate(body) == validator.is_valid(body), (name, value)

