"""Rendering: deterministic, a param value never changes the document's structure, and a secret never
shows in any output format (library reporters and the CLI's render and validate)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from helpers import run_cli
from hypothesis import example, given
from hypothesis import strategies as st
from strategies import EXAMPLES, dump, nasty_text

from mcv_pipelines.pipeline.check import check_document
from mcv_pipelines.pipeline.document import parse_document
from mcv_pipelines.pipeline.expand import render_pipeline
from mcv_pipelines.pipeline.params import resolve_params
from mcv_pipelines.redact import MASK
from mcv_pipelines.reporters import REPORTER_NAMES, render_report

SHAPE = {
    "version": 1,
    "name": "shape",
    "params": {
        "x": {"type": "string"},
        "n": {"type": "integer", "default": 2},
        "names": {"type": "array", "items": {"type": "string"}, "default": ["a", "b"]},
    },
    "job": {"tag": "shape-{{ params.x | slug }}"},
    "tasks": {
        "source": {
            "operation": "import/url",
            "url": "https://example.com/{{ params.x }}",
            "filename": "{{ params.x }}",
        },
        "each": {
            "for_each": "{{ params.names }}",
            "operation": "convert",
            "input": "source",
            "output_format": "png",
            "filename": "{{ item }}-{{ params.x }}",
            "width": "{{ params.n }}",
        },
        "publish": {"operation": "export/url", "input": ["each"], "download_to": "out/{{ params.x }}/"},
    },
}


def _shape(value: Any) -> Any:
    """The structure of a value: mapping keys and list lengths, leaves replaced by their type."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return type(value).__name__


def _render(raw: bytes, values: dict[str, Any]) -> dict[str, Any] | None:
    document = parse_document(raw, "shape.yaml")
    params, _ = resolve_params(document, values, source="command line")
    if params is None:
        return None
    pipeline, _ = render_pipeline(document, params)
    return None if pipeline is None else pipeline.job_body()


RAW = dump(SHAPE)
BASELINE = _render(RAW, {"x": "plain"})


def test_the_baseline_renders() -> None:
    assert BASELINE is not None
    assert set(BASELINE["tasks"]) == {"source", "each-a", "each-b", "publish"}


@given(x=nasty_text, items=st.lists(st.from_regex(r"[a-z]{1,6}", fullmatch=True), min_size=1, max_size=3,
                                    unique=True))
@example(x="{{ params.n }}", items=["a"])
@example(x="\n  evil: {operation: convert}\n", items=["a"])
@example(x="]} , {", items=["a"])
def test_a_param_value_never_changes_the_structure(x: str, items: list[str]) -> None:
    first = _render(RAW, {"x": x, "names": items})
    assert first == _render(RAW, {"x": x, "names": items}), "render is deterministic"
    if first is None:
        return  # refused with diagnostics (a value the param's schema does not take)
    expected = _render(RAW, {"x": "plain", "names": items})
    assert expected is not None
    assert _shape(first) == _shape(expected)
    assert first["tasks"]["source"]["filename"] == x  # verbatim: never rendered a second time
    assert first["tasks"][f"each-{items[0]}"]["width"] == 2  # types survive


@given(path=st.sampled_from(EXAMPLES))
def test_rendering_the_examples_twice_gives_the_same_body(path: Path) -> None:
    raw = path.read_bytes()
    environ = {"AWS_ACCESS_KEY_ID": "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "example-secret-value"}
    bodies = []
    for _ in range(2):
        document = parse_document(raw, str(path))
        result = check_document(document, {}, use_examples=True, environ=environ)
        bodies.append(None if result.pipeline is None else json.dumps(result.pipeline.job_body()))
    assert bodies[0] == bodies[1]


SECRET_PIPELINE = {
    "version": 1,
    "params": {"w": {"type": "string", "default": "wide"}},
    "tasks": {
        "source": {
            "operation": "import/url",
            "url": "{{ secret('MCV_PROPERTY_SECRET') }}",
            "headers": {"Authorization": "Bearer {{ secret('MCV_PROPERTY_SECRET') }}"},
            "filename": "{{ secret('MCV_PROPERTY_SECRET') }}.png",
        },
        "size": {
            "operation": "convert",
            "input": "source",
            "output_format": "png",
            "width": "{{ secret('MCV_PROPERTY_SECRET') }}",
        },
        "publish": {"operation": "export/url", "input": "size"},
    },
}

secrets_ = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), min_size=3, max_size=60
).filter(lambda s: s.strip() == s and s not in MASK)


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


@pytest.fixture(scope="module")
def secret_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("secrets") / "secret.yaml"
    path.write_bytes(dump(SECRET_PIPELINE))
    return path


@given(secret=secrets_)
@example(secret='a"b\\c')
@example(secret="line\nbreak")
@example(secret="x" * 60)
@example(secret="https://user:pw@example.com/a.png")
def test_a_secret_never_shows_in_any_output(secret_file: Path, secret: str) -> None:
    with mock.patch.dict(os.environ, {"MCV_PROPERTY_SECRET": secret}):
        document = parse_document(secret_file.read_bytes(), str(secret_file))
        result = check_document(document, {}, use_examples=False)
        outputs = [render_report(fmt, result.diagnostics, [str(secret_file)]) for fmt in REPORTER_NAMES]
        outputs += run_cli(["render", str(secret_file)])[1:]
        outputs += run_cli(["validate", "--format", "json", str(secret_file)])[1:]
        outputs += run_cli(["run", "--dry-run", str(secret_file)])[1:]
    for text in outputs:
        assert secret not in text
        try:
            decoded = json.loads(text)
        except ValueError:
            continue
        assert not any(secret in s for s in _strings(decoded)), "an escaped secret is still the secret"
