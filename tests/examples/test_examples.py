"""Example-driven checks: every positive case is valid, every negative case gives exactly the
diagnostics listed in its expected.json (rule, line, column, a message fragment, maybe a hint)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcv_pipelines.pipeline import OperationSchemas, check_pipeline

HERE = Path(__file__).parent
# Minimal operation schemas for these cases (the real ones live in schemas/operations/).
SCHEMAS = OperationSchemas(HERE / "operations")


def _cases(kind: str) -> list[Path]:
    return sorted(p for p in (HERE / kind).iterdir() if (p / "pipeline.yaml").exists())


@pytest.mark.parametrize("case", _cases("positive"), ids=lambda p: p.name)
def test_positive_example_is_valid(case: Path) -> None:
    result = check_pipeline(case / "pipeline.yaml", {}, schemas=SCHEMAS)
    assert [d for d in result.diagnostics if d.is_error] == []
    assert result.pipeline is not None


@pytest.mark.parametrize("case", _cases("negative"), ids=lambda p: p.name)
def test_negative_example_gives_expected_diagnostics(case: Path) -> None:
    expected: dict[str, Any] = json.loads((case / "expected.json").read_text())
    result = check_pipeline(case / "pipeline.yaml", expected.get("params", {}), schemas=SCHEMAS)
    got = [(d.rule, d.location.line, d.location.column) for d in result.diagnostics if d.location]
    assert got == [(e["rule"], e["line"], e["column"]) for e in expected["diagnostics"]]
    assert len(result.diagnostics) == len(expected["diagnostics"])
    for diagnostic, wanted in zip(result.diagnostics, expected["diagnostics"], strict=True):
        assert wanted["message"] in diagnostic.message
        assert wanted.get("hint", "") in (diagnostic.hint or "")
        assert diagnostic.location is not None
        assert diagnostic.location.file == str(case / "pipeline.yaml")


def test_every_negative_case_is_invalid() -> None:
    for case in _cases("negative"):
        expected = json.loads((case / "expected.json").read_text())
        result = check_pipeline(case / "pipeline.yaml", expected.get("params", {}), schemas=SCHEMAS)
        assert not result.ok, case.name
