from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from mcv_pipelines.diagnostics import Location
from mcv_pipelines.pipeline import Document, coerce, resolve_params
from mcv_pipelines.redact import redact

Doc = Callable[[str], Document]

PARAMS = """\
    version: 1
    params:
      code: {type: string, example: "A1"}
      width: {type: integer, minimum: 16, default: 320}
      ratio: {type: number, default: 1.5}
      sheet: {type: boolean, default: true}
      widths: {type: array, items: {type: integer}, default: [320]}
      extra: {type: object, default: {}}
    tasks: {}
    """


@pytest.mark.parametrize(
    ("raw", "schema", "value"),
    [
        ("320", {"type": "integer"}, 320),
        ("007", {"type": "string"}, "007"),
        ("007", {"type": "integer"}, 7),
        ("-3", {"type": "number"}, -3),
        ("2.5", {"type": "number"}, 2.5),
        ("yes", {"type": "boolean"}, True),
        ("False", {"type": "boolean"}, False),
        ("320,640", {"type": "array", "items": {"type": "integer"}}, [320, 640]),
        ('["a", "b"]', {"type": "array"}, ["a", "b"]),
        ('{"k": 1}', {"type": "object"}, {"k": 1}),
        ("12", {"type": ["integer", "string"]}, "12"),  # a string is allowed: no guessing
        ("x", {"enum": ["x", "y"]}, "x"),
        (320, {"type": "string"}, 320),  # typed values are never coerced; validation says no
    ],
)
def test_coerce_turns_strings_into_the_declared_type_once(
    raw: Any, schema: dict[str, Any], value: Any
) -> None:
    assert coerce(raw, schema) == value
    assert type(coerce(raw, schema)) is type(value)


@pytest.mark.parametrize(
    ("raw", "schema"),
    [
        ("3.5", {"type": "integer"}),
        ("maybe", {"type": "boolean"}),
        ("nan", {"type": "number"}),
        ("[1", {"type": "array"}),
    ],
)
def test_coerce_refuses_what_is_not_that_type(raw: str, schema: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(raw))):
        coerce(raw, schema)


def test_defaults_and_examples_fill_missing_values(doc: Doc) -> None:
    params, problems = resolve_params(doc(PARAMS), {"width": "640"}, source="command line", use_examples=True)
    assert problems == []
    assert params is not None
    assert dict(params.values) == {
        "code": "A1",
        "width": 640,
        "ratio": 1.5,
        "sheet": True,
        "widths": [320],
        "extra": {},
    }


def test_a_param_without_default_needs_a_value_unless_examples_are_used(doc: Doc) -> None:
    params, problems = resolve_params(doc(PARAMS), {}, source="command line", use_examples=False)
    assert params is None
    [problem] = problems
    assert problem.rule == "param-missing"
    assert problem.location == Location("p.yaml", 3, 3)


def test_wrong_type_unknown_name_and_constraint_are_all_reported(doc: Doc) -> None:
    params, problems = resolve_params(
        doc(PARAMS), {"ratio": "wide", "ratoi": "2", "width": "8"}, source="row 4", use_examples=True
    )
    assert params is None
    assert [(p.rule, p.location.line if p.location else 0) for p in problems] == [
        ("param-type", 5),
        ("param-unknown", 2),
        ("param-invalid", 4),
    ]
    assert all("row 4" in p.message for p in problems)
    unknown = next(p for p in problems if p.rule == "param-unknown")
    assert unknown.hint == "did you mean 'ratio'?"


def test_a_bad_default_is_caught_with_a_quote_hint_for_yaml11_booleans(doc: Doc) -> None:
    document = doc("version: 1\nparams:\n  answer: {type: string, default: no}\ntasks: {}\n")
    params, problems = resolve_params(document, {}, source="command line", use_examples=True)
    assert params is None
    [problem] = problems
    assert problem.rule == "param-type"
    assert problem.location == Location("p.yaml", 3, 35)
    assert "quote it" in (problem.hint or "")


def test_a_param_declared_secret_is_masked_everywhere(doc: Doc) -> None:
    document = doc("version: 1\nparams:\n  token: {type: string, secret: true}\ntasks: {}\n")
    params, problems = resolve_params(document, {"token": "tok-5551234-abc"}, source="command line")
    assert problems == []
    assert params is not None
    assert params["token"] == "tok-5551234-abc"
    assert redact("token=tok-5551234-abc") == "token=***"


def test_a_boolean_from_a_params_file_gets_a_quote_hint(doc: Doc) -> None:
    document = doc("version: 1\nparams:\n  answer: {type: string}\ntasks: {}\n")
    _, [problem] = resolve_params(document, {"answer": False}, source="values.yaml")
    assert problem.rule == "param-type"
    assert "quote" in (problem.hint or "")
