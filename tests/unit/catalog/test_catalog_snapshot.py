"""Parsing, normalising, writing and loading catalog snapshots."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mcv_pipelines.catalog import snapshot
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.listing import parse_listing, parse_pages
from mcv_pipelines.catalog.model import ConversionKey
from mcv_pipelines.catalog.snapshot import (
    dumps_catalog,
    load_catalog,
    load_default_catalog,
    write_catalog,
)
from mcv_pipelines.errors import InvalidInput, UsageError


def test_envelope_bare_list_and_pages_give_the_same_catalog(data_dir: Path) -> None:
    pages = [json.loads((data_dir / n).read_text()) for n in ("page1.json", "page2.json")]
    from_pages = parse_pages(pages)
    bare = parse_listing(json.loads((data_dir / "listing.json").read_text()))
    envelope = parse_listing({"data": json.loads((data_dir / "listing.json").read_text()), "links": {}})
    assert dumps_catalog(from_pages) == dumps_catalog(bare) == dumps_catalog(envelope)
    assert len(bare) == 20


def test_normalised_snapshot_is_sorted_and_stable(catalog: Catalog, tmp_path: Path) -> None:
    text = dumps_catalog(catalog)
    keys = [
        tuple(d[k] for k in ("operation", "input_format", "output_format", "engine"))
        for d in json.loads(text)["data"]
    ]
    assert keys == sorted(keys)
    # Options sorted by name, formats lowercased ("TAR.GZ" in the listing).
    webp = next(
        d for d in json.loads(text)["data"] if d["output_format"] == "webp" and d["input_format"] == "jpg"
    )
    assert [o["name"] for o in webp["options"]] == ["height", "lossless", "quality", "width"]
    assert ("archive", "any", "tar.gz", "stdlib") in keys
    # Writing and reading back gives byte-identical text: diffs in git show only real changes.
    path = tmp_path / "snap.json"
    write_catalog(catalog, path)
    assert path.read_text() == text
    assert dumps_catalog(load_catalog(path)) == text


def test_default_engine_is_the_first_listed_non_deprecated_and_survives_sorting(
    catalog: Catalog, tmp_path: Path
) -> None:
    assert catalog.default_engine("convert", "jpg", "png") == "imagemagick"  # listed before vips
    assert catalog.default_engine("convert", "gif", "webp") == "imagemagick"  # oldgif is deprecated
    path = tmp_path / "snap.json"
    write_catalog(catalog, path)
    again = load_catalog(path)
    assert again.default_engine("convert", "gif", "webp") == "imagemagick"
    assert again.default_engine("convert", "jpg", "png") == "imagemagick"


def test_options_absent_and_options_empty_are_kept_apart(catalog: Catalog) -> None:
    merge = catalog.get(ConversionKey("merge", "pdf", "pdf", "pypdf"))
    command = catalog.get(ConversionKey("command", "any", "any", "ffmpeg"))
    assert merge is not None
    assert command is not None
    assert merge.options is None
    assert command.options == ()


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("bad-not-json.json", "bad-not-json.json:2:27: not an operations listing: not JSON"),
        ("bad-not-a-list.json", "expected a list of descriptors, got dict"),
        ("bad-scalar.json", "expected a list of descriptors, got int"),
        ("bad-no-data.json", "an object without 'data'"),
        ("bad-missing-engine.json", "page 1, descriptor 1: descriptor without engine"),
        ("bad-option-type.json", "option 'tint': unknown option type 'color' (known: string, boolean"),
        ("bad-enum-without-values.json", "option 'fit': an enum option needs a 'possible_values' list"),
        ("bad-duplicate.json", "conversion type listed twice"),
        ("bad-duplicate-option.json", "(convert jpg -> png), option 'width': option listed twice"),
    ],
)
def test_a_snapshot_that_is_not_a_listing_is_a_clear_error(data_dir: Path, name: str, fragment: str) -> None:
    with pytest.raises(InvalidInput) as err:
        load_catalog(data_dir / name)
    assert fragment in str(err.value)
    assert str(err.value).startswith(str(data_dir / name))


def test_missing_snapshot_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such catalog snapshot"):
        load_catalog(tmp_path / "nope.json")


def test_a_failing_write_leaves_the_old_snapshot_byte_identical(
    catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "snap.json"
    path.write_bytes(b'{"data": []}\n  old bytes')
    before = path.read_bytes()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        write_catalog(catalog, path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snap.json"]  # no temporary file left


def test_a_listing_that_fails_half_way_writes_nothing(data_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "snap.json"
    path.write_text("old")

    def pages() -> object:
        yield json.loads((data_dir / "page1.json").read_text())
        yield {"data": [{"operation": "convert"}]}

    with pytest.raises(InvalidInput, match="page 2, descriptor 1"):
        write_catalog(parse_pages(pages()), path)  # type: ignore[arg-type]  # a bad page on purpose
    assert path.read_text() == "old"


def test_load_is_cached_until_the_file_changes(catalog: Catalog, tmp_path: Path) -> None:
    path = tmp_path / "snap.json"
    write_catalog(catalog, path)
    first = load_catalog(path)
    assert load_catalog(path) is first
    write_catalog(Catalog([]), path)
    assert len(load_catalog(path)) == 0


def test_missing_default_snapshot_says_how_to_give_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshot, "default_catalog_path", lambda: tmp_path / "local.json")
    expected = r"default catalog snapshot .*local.json is missing; give one with --catalog"
    with pytest.raises(UsageError, match=expected):
        load_default_catalog()


def test_default_catalog_path_is_inside_the_package() -> None:
    path = snapshot.default_catalog_path()
    assert path.parts[-3:] == ("schemas", "catalog", "local.json")


def test_a_written_snapshot_is_readable_like_the_one_it_replaces(catalog: Catalog, tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.json"
    write_catalog(catalog, fresh)
    assert fresh.stat().st_mode & 0o777 == 0o644
    kept = tmp_path / "kept.json"
    kept.write_text("{}")
    kept.chmod(0o664)
    write_catalog(catalog, kept)
    assert kept.stat().st_mode & 0o777 == 0o664
