"""Pulling a listing into a snapshot: all pages or nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcv_pipelines.catalog.pull import pull_catalog
from mcv_pipelines.catalog.snapshot import load_catalog
from mcv_pipelines.errors import InvalidInput, ServiceTrouble


def pages(data_dir: Path) -> list[Any]:
    return [json.loads((data_dir / n).read_text()) for n in ("page1.json", "page2.json")]


def test_pull_writes_the_snapshot_and_reports_changes(data_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "catalog" / "local.json"
    first = pull_catalog(pages(data_dir), path, source="http://127.0.0.1/v2/operations")
    assert first.changes is None
    assert len(load_catalog(path)) == 20
    newer = json.loads((data_dir / "listing-new.json").read_text())
    second = pull_catalog([newer], path, source="live")
    assert second.changes is not None
    assert (len(second.changes.added), len(second.changes.removed)) == (1, 1)


@pytest.mark.parametrize(
    "broken", [ServiceTrouble("connection reset on page 2"), InvalidInput("page 2 is not a listing")]
)
def test_a_listing_failing_half_way_leaves_the_old_snapshot(
    data_dir: Path, tmp_path: Path, broken: Exception
) -> None:
    path = tmp_path / "local.json"
    pull_catalog(pages(data_dir), path, source="live")
    before = path.read_bytes()

    def failing() -> Iterator[Any]:
        yield pages(data_dir)[0]
        raise broken

    with pytest.raises(type(broken)):
        pull_catalog(failing(), path, source="live")
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["local.json"]
