"""Whatever a pipeline file holds, checking it gives diagnostics or a clean error: never a traceback.

Inputs: arbitrary bytes, the example pipelines with random edits, task bodies made from the operation
schemas, and arbitrary template text, through the library (check_pipeline) and the CLI's main().
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli
from hypothesis import example, given
from hypothesis import strategies as st
from schema_bodies import strategy
from strategies import NASTY, OPERATION_SCHEMAS, dump, mutated_pipeline, nasty_text

from mcv_pipelines.diagnostics import Diagnostic
from mcv_pipelines.pipeline.check import check_pipeline
from mcv_pipelines.reporters import REPORTER_NAMES

RULE = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("property-pipelines")


def _write(workdir: Path, raw: bytes) -> Path:
    path = workdir / "pipeline.yaml"
    path.write_bytes(raw)
    return path


def _well_formed(diagnostics: tuple[Diagnostic, ...], path: Path) -> None:
    for d in diagnostics:
        assert RULE.fullmatch(d.rule), d
        assert d.message, d
        if d.location is not None:
            assert d.location.line >= 1
            assert d.location.column >= 1


@given(raw=st.one_of(st.binary(max_size=300), nasty_text.map(lambda t: t.encode("utf-8", "surrogatepass"))))
@example(raw=b"version: 1\ntasks: {a: {operation: convert, input: a}}\n")
@example(raw=b"\xff\xfe v\x00")
@example(raw=b"version: 1\ntasks:\n  a: &x {operation: convert, input: *x}\n")
def test_any_bytes_give_diagnostics(workdir: Path, raw: bytes) -> None:
    path = _write(workdir, raw)
    result = check_pipeline(path, {})
    _well_formed(result.diagnostics, path)


@given(data=mutated_pipeline(), fmt=st.sampled_from(REPORTER_NAMES))
def test_mutated_examples_validate_cleanly_in_every_format(workdir: Path, data: Any, fmt: str) -> None:
    path = _write(workdir, dump(data))
    result = check_pipeline(path, {})
    _well_formed(result.diagnostics, path)
    code, out, _ = run_cli(["validate", "--format", fmt, str(path)])
    assert code in (0, 2)
    if fmt in ("json", "sarif"):
        json.loads(out)


@given(template=st.one_of(nasty_text, st.lists(st.sampled_from(NASTY), max_size=6).map(" ".join)))
@example(template="{{ params.x | basename | stem | suffix | dirname | slug }}")
@example(template="{{ range(10**9) | list }}")
@example(template="{% set x = 'a' %}{{ x * 10**8 }}")
def test_any_template_text_renders_or_gives_template_diagnostics(workdir: Path, template: str) -> None:
    data = {
        "version": 1,
        "params": {"x": {"type": "string", "default": "a/b.png"}},
        "tasks": {
            "source": {"operation": "import/url", "url": "https://example.com/a.png", "filename": template},
            "publish": {"operation": "export/url", "input": "source"},
        },
    }
    path = _write(workdir, dump(data))
    _well_formed(check_pipeline(path, {}).diagnostics, path)
    run_cli(["render", str(path)])


def _schema_bodies() -> list[tuple[str, Any]]:
    """(operation, schema) of every operation schema."""
    found = []
    for path in OPERATION_SCHEMAS:
        schema = json.loads(path.read_text(encoding="utf-8"))
        operation = schema.get("properties", {}).get("operation", {}).get("const")
        if isinstance(operation, str):
            found.append((operation, schema))
    return found


SCHEMAS = _schema_bodies()


def test_every_operation_has_a_schema_here() -> None:
    assert len(SCHEMAS) >= 20


@given(data=st.data(), chosen=st.sampled_from(SCHEMAS))
def test_bodies_made_from_the_operation_schemas_check_cleanly(
    workdir: Path, data: st.DataObject, chosen: tuple[str, Any]
) -> None:
    operation, schema = chosen
    body = data.draw(strategy(schema), label="body")
    tasks: dict[str, Any] = {"source": {"operation": "import/url", "url": "https://example.com/a.png"}}
    task = dict(body)
    if not operation.startswith("import/"):
        task.setdefault("input", "source")
    tasks["subject"] = task
    path = _write(workdir, dump({"version": 1, "tasks": tasks}))
    result = check_pipeline(path, {})
    _well_formed(result.diagnostics, path)
