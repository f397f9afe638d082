"""Every example recipe in the repository's pipelines/ directory validates with exit 0, against the
committed catalog too."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcv_pipelines.catalog.snapshot import load_default_catalog
from mcv_pipelines.cli.main import main
from mcv_pipelines.pipeline import check_pipeline
from mcv_pipelines.pipeline.discover import find_pipelines

PIPELINES = Path(__file__).resolve().parents[2] / "pipelines"


def _pipelines() -> list[str]:
    files, _ = find_pipelines([str(PIPELINES)])
    return files


def test_pipelines_directory_validates_with_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert _pipelines(), "pipelines/ holds YAML files but none was recognised as a pipeline"
    code = main(["validate", str(PIPELINES)])
    assert code == 0, capsys.readouterr().out


def test_the_examples_are_all_there() -> None:
    names = {Path(p).name for p in _pipelines()}
    assert {"product-images.yaml", "thumbnails.yaml", "s3-roundtrip.yaml"} <= names, names


@pytest.mark.parametrize("pipeline", _pipelines())
def test_each_repo_pipeline_is_valid(pipeline: str) -> None:
    result = check_pipeline(pipeline, {}, catalog=load_default_catalog())
    assert [d for d in result.diagnostics if d.is_error] == []
