"""The compact catalog index: what a second load reads instead of the snapshot, never a stale answer."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from mcv_pipelines.catalog import compact, snapshot
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.model import ConversionKey, Descriptor
from mcv_pipelines.catalog.snapshot import default_catalog_path, dumps_catalog, load_catalog
from mcv_pipelines.cli.main import main

PIPELINE = Path(__file__).resolve().parents[3] / "pipelines" / "product-images.yaml"
JPG_WEBP = ConversionKey("convert", "jpg", "webp", "pillow")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache directory, and no catalog kept in this process from an earlier test."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("MCV_CACHE_DIR", str(directory))
    monkeypatch.setattr(snapshot, "_cache", {})
    return directory


@pytest.fixture
def snap(tmp_path: Path) -> Path:
    path = tmp_path / "local.json"
    shutil.copyfile(default_catalog_path(), path)
    return path


def _fresh_load(path: Path, monkeypatch: pytest.MonkeyPatch) -> Catalog:
    """Load as a new process would: nothing kept in memory."""
    monkeypatch.setattr(snapshot, "_cache", {})
    return load_catalog(path)


def _refuse_parse(path: Path, raw: bytes) -> Catalog:
    raise AssertionError("the snapshot was parsed although its index is in the cache")


def test_the_index_gives_the_same_catalog_as_the_snapshot(
    cache: Path, snap: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed = load_catalog(snap)
    assert len(list((cache / "catalog").glob("index-v1-*.jsonl"))) == 1
    monkeypatch.setattr(snapshot, "_parse", _refuse_parse)
    indexed = _fresh_load(snap, monkeypatch)
    assert indexed is not parsed
    # every entry of the file, counted from the raw JSON (the count grows as engines are added)
    assert len(indexed) == len(parsed) == len(json.loads(snap.read_text(encoding="utf-8"))["data"])
    assert indexed.descriptors == parsed.descriptors  # every field: options, versions, flags, meta
    assert dumps_catalog(indexed) == snap.read_text(encoding="utf-8")


def test_the_index_makes_only_the_descriptors_a_check_asks_for(
    cache: Path, snap: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_catalog(snap)
    made: list[ConversionKey] = []
    real = compact._descriptor

    def counting(key: ConversionKey, default: bool, blob: bytes) -> Descriptor:
        made.append(key)
        return real(key, default, blob)

    monkeypatch.setattr(compact, "_descriptor", counting)
    indexed = _fresh_load(snap, monkeypatch)
    assert made == []
    desc = indexed.get(JPG_WEBP)
    assert desc is not None
    assert desc.option("quality") is not None
    assert indexed.get(JPG_WEBP) is desc
    assert indexed.default_engine("convert", "jpg", "webp") == "pillow"
    assert indexed.output_formats("convert", "jpg")  # answered from the keys alone
    assert made == [JPG_WEBP]


def test_another_snapshot_gets_its_own_index(
    cache: Path, snap: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_catalog(snap)
    data = json.loads(snap.read_text(encoding="utf-8"))
    data["data"] = [d for d in data["data"] if (d["operation"], d["output_format"]) != ("convert", "webp")]
    other = snap.with_name("other.json")
    other.write_text(json.dumps(data), encoding="utf-8")
    assert _fresh_load(other, monkeypatch).get(JPG_WEBP) is None
    assert _fresh_load(snap, monkeypatch).get(JPG_WEBP) is not None
    assert len(list((cache / "catalog").glob("index-v1-*.jsonl"))) == 2


def test_a_snapshot_edited_in_place_is_read_again(
    cache: Path, snap: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_catalog(snap).get(JPG_WEBP) is not None
    data = json.loads(snap.read_text(encoding="utf-8"))
    data["data"] = [d for d in data["data"] if d["output_format"] != "webp"]
    snap.write_text(json.dumps(data), encoding="utf-8")
    assert _fresh_load(snap, monkeypatch).get(JPG_WEBP) is None


class _NoHashing:
    @staticmethod
    def sha256(data: bytes) -> object:
        raise AssertionError("the snapshot was read and hashed although its stamp matches")


def test_a_later_start_finds_the_index_by_the_stamp_without_reading_the_snapshot(
    cache: Path, snap: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = load_catalog(snap).get(JPG_WEBP)
    assert len(list((cache / "catalog").glob("stamp-*.json"))) == 1
    monkeypatch.setattr(snapshot, "hashlib", _NoHashing)
    monkeypatch.setattr(snapshot, "_parse", _refuse_parse)
    indexed = _fresh_load(snap, monkeypatch)
    assert indexed.get(JPG_WEBP) == expected
    assert indexed.default_engine("convert", "jpg", "webp") == "pillow"


def test_a_snapshot_changed_with_its_size_and_time_kept_is_read_again(
    cache: Path, snap: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the change time tells this edit apart, and it is part of the stamp."""
    assert load_catalog(snap).get(JPG_WEBP) is not None
    before = snap.stat()
    text = snap.read_text(encoding="utf-8")
    edited = text.replace('"output_format": "webp"', '"output_format": "webq"')
    assert len(edited) == len(text)
    assert edited != text
    snap.write_text(edited, encoding="utf-8")
    os.utime(snap, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = snap.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    reloaded = _fresh_load(snap, monkeypatch)
    assert reloaded.get(JPG_WEBP) is None
    assert reloaded.get(ConversionKey("convert", "jpg", "webq", "pillow")) is not None


def test_a_vanished_index_is_replaced_by_the_snapshot_itself(
    cache: Path, snap: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = load_catalog(snap).get(JPG_WEBP)
    indexed = _fresh_load(snap, monkeypatch)  # found by the stamp: details are read on demand
    for index in (cache / "catalog").glob("index-v1-*.jsonl"):
        index.unlink()
    assert indexed.get(JPG_WEBP) == expected


def test_a_damaged_index_falls_back_to_the_snapshot(
    cache: Path, snap: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = load_catalog(snap).get(JPG_WEBP)
    (index,) = (cache / "catalog").glob("index-v1-*.jsonl")
    head, _, details = index.read_bytes().partition(b"\n")
    index.write_bytes(head + b"\n" + b"#" * len(details))  # the details garbled, the lengths kept
    indexed = _fresh_load(snap, monkeypatch)
    assert indexed.get(JPG_WEBP) == expected


@pytest.mark.parametrize(
    "text",
    ["not json at all\n", '{"format": "mcv-catalog-index", "version": 999}\n', '{"types": 5}\n', ""],
    ids=["garbage", "other-version", "wrong-shape", "empty"],
)
def test_an_index_that_is_not_one_is_written_again(
    cache: Path, snap: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    load_catalog(snap)
    (index,) = (cache / "catalog").glob("index-v1-*.jsonl")
    index.write_text(text)
    assert _fresh_load(snap, monkeypatch).get(JPG_WEBP) is not None
    assert index.read_bytes().startswith(b'{"format":"mcv-catalog-index","version":1,')


def test_a_cache_that_cannot_be_written_costs_only_the_speed(
    tmp_path: Path, snap: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("MCV_CACHE_DIR", str(blocker))
    monkeypatch.setattr(snapshot, "_cache", {})
    assert load_catalog(snap).get(JPG_WEBP) is not None


def test_old_indexes_are_pruned(cache: Path, snap: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = load_catalog(snap)
    for i in range(20):
        compact.store_index(catalog, f"{i:064x}")
    assert len(list((cache / "catalog").glob("index-v1-*.jsonl"))) == 16


def test_validate_with_another_catalog_checks_against_that_one(
    cache: Path, snap: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(PIPELINE)]) == 0  # the default snapshot: its index is made
    data = json.loads(snap.read_text(encoding="utf-8"))
    data["data"] = [d for d in data["data"] if d["output_format"] != "webp"]
    snap.write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    assert main(["validate", "--catalog", str(snap), str(PIPELINE)]) == 2
    assert "webp" in capsys.readouterr().out
    assert main(["validate", str(PIPELINE)]) == 0  # the default's own index still answers for it
