"""Helpers for pipeline tests: write a pipeline from text, and the fixture operation schemas."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from mcv_pipelines.pipeline import Document, OperationSchemas, parse_document

FIXTURE_SCHEMAS = Path(__file__).resolve().parents[2] / "examples" / "operations"


@pytest.fixture
def schemas() -> OperationSchemas:
    return OperationSchemas(FIXTURE_SCHEMAS)


@pytest.fixture
def doc() -> Callable[[str], Document]:
    def parse(text: str) -> Document:
        return parse_document(textwrap.dedent(text).encode(), "p.yaml")

    return parse


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str], Path]:
    def write_file(text: str, name: str = "pipeline.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write_file
