"""Example-driven checks: every positive case is valid, every negative case gives exactly the
diagnostics listed in its expected.json (rule, line, column, a message fragment, maybe a hint).

An expected.json with a ``catalog`` key checks its case against an operations catalog as well:
``"default"`` is the committed schemas/catalog/local.json, anything else a path under this directory
(a fixture catalog). Those cases use the shipped operation schemas, as `mcv validate` does. A case
whose findings are all warnings says ``"valid": true``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.snapshot import load_catalog, load_default_catalog
from mcv_pipelines.pipeline import CheckResult, OperationSchemas, check_pipeline

HERE = Path(__file__).parent
# Minimal operation schemas for these cases (the real ones live in schemas/operations/).
SCHEMAS = OperationSchemas(HERE / "operations")


def _cases(kind: str) -> list[Path]:
    return sorted(p for p in (HERE / kind).iterdir() if (p / "pipeline.yaml").exists())


def _catalog(name: str) -> Catalog:
    return load_default_catalog() if name == "default" else load_catalog(HERE / name)


def _check(case: Path, expected: dict[str, Any]) -> CheckResult:
    params = expected.get("params", {})
    if "catalog" in expected:
        return check_pipeline(
            case / "pipeline.yaml", params, catalog=_catalog(expected["catalog"]), cases=True
        )
    return check_pipeline(case / "pipeline.yaml", params, schemas=SCHEMAS, cases=True)


@pytest.mark.parametrize("case", _cases("positive"), ids=lambda p: p.name)
def test_positive_example_is_valid(case: Path) -> None:
    result = check_pipeline(
        case / "pipeline.yaml", {}, schemas=SCHEMAS, catalog=load_default_catalog(), cases=True
    )
    assert [d for d in result.diagnostics if d.is_error] == []
    assert result.pipeline is not None


@pytest.mark.parametrize("case", _cases("negative"), ids=lambda p: p.name)
def test_negative_example_gives_expected_diagnostics(case: Path) -> None:
    expected: dict[str, Any] = json.loads((case / "expected.json").read_text())
    result = _check(case, expected)
    got = [(d.rule, d.location.line, d.location.column) for d in result.diagnostics if d.location]
    assert got == [(e["rule"], e["line"], e["column"]) for e in expected["diagnostics"]]
    assert len(result.diagnostics) == len(expected["diagnostics"])
    for diagnostic, wanted in zip(result.diagnostics, expected["diagnostics"], strict=True):
        assert wanted["message"] in diagnostic.message
        assert wanted.get("hint", "") in (diagnostic.hint or "")
        assert wanted.get("severity", diagnostic.severity) == diagnostic.severity
        assert diagnostic.location is not None
        assert diagnostic.location.file == str(case / "pipeline.yaml")


def test_every_negative_case_is_invalid_unless_it_says_so() -> None:
    for case in _cases("negative"):
        expected = json.loads((case / "expected.json").read_text())
        result = _check(case, expected)
        assert result.ok is expected.get("valid", False), case.name
