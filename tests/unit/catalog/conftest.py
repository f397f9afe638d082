"""Fixtures of the catalog tests: the small listings under data/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.listing import parse_listing

DATA = Path(__file__).parent / "data"


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def catalog() -> Catalog:
    """A fresh catalog (its validator cache empty) of data/listing.json."""
    return parse_listing(json.loads((DATA / "listing.json").read_text()), source="listing.json")
