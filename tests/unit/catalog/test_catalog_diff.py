"""What changed between two listings, as text and as JSON."""

from __future__ import annotations

import json
from pathlib import Path

from mcv_pipelines.catalog.diff import diff_catalogs, diff_to_json, diff_to_text
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.listing import parse_listing


def newer(data_dir: Path) -> Catalog:
    return parse_listing(json.loads((data_dir / "listing-new.json").read_text()))


def test_diff_text(catalog: Catalog, data_dir: Path) -> None:
    assert diff_to_text(diff_catalogs(catalog, newer(data_dir))) == (
        "+ convert jpg -> avif (imagemagick)\n"
        "- convert heic -> jpg (libheif)\n"
        "~ convert jpg -> webp (imagemagick)\n"
        "    + option method\n"
        "    - option lossless\n"
        "    - engine_version 6.9\n"
        "    - engine_version 7.2-beta\n"
        "~ optimize pdf -> pdf (qpdf)\n"
        "    credits: 2 -> 3\n"
        "    ~ option profile possible_values: ['web', 'print', 'archive', 'mrc', 'max'] -> "
        "['web', 'print', 'archive', 'mrc', 'max', 'screen']\n"
        "1 added, 1 removed, 2 changed\n"
    )


def test_diff_json(catalog: Catalog, data_dir: Path) -> None:
    payload = diff_to_json(diff_catalogs(catalog, newer(data_dir)))
    assert payload["added"] == [
        {"operation": "convert", "input_format": "jpg", "output_format": "avif", "engine": "imagemagick"}
    ]
    assert payload["removed"][0]["input_format"] == "heic"
    optimize = payload["changed"][1]
    assert optimize["fields"] == {"credits": {"old": 2, "new": 3}}
    assert optimize["options_changed"][0]["new"][-1] == "screen"
    json.dumps(payload)  # printable as JSON


def test_same_catalog_has_no_differences(catalog: Catalog) -> None:
    diff = diff_catalogs(catalog, catalog)
    assert diff.empty
    assert diff_to_text(diff) == "no differences\n"
