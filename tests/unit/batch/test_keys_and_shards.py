"""Row keys and shards: stable across runs, machines and hash seeds; duplicates and bad --shard named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mcv_pipelines.batch.errors import DuplicateKey, ManifestError
from mcv_pipelines.batch.keys import KeyRegistry, attempt_tag, params_hash, row_key
from mcv_pipelines.batch.manifest import ManifestRow, open_manifest
from mcv_pipelines.batch.shard import Shard, parse_shard, shard_of
from mcv_pipelines.errors import UsageError


def row(index: int, params: dict[str, object], extra: dict[str, object] | None = None) -> ManifestRow:
    return ManifestRow(index, "m.csv", index + 1, params, extra or {})


def test_hashed_key_ignores_column_order_and_extra_columns() -> None:
    first = row(1, {"photo": "a.jpg", "width": 320}, {"note": "x"})
    second = row(2, {"width": 320, "photo": "a.jpg"}, {"note": "y"})
    assert row_key(first) == row_key(second) == params_hash({"photo": "a.jpg", "width": 320})
    assert row_key(row(3, {"photo": "a.jpg", "width": "320"})) != row_key(first)  # types count


def test_hashed_key_format_is_fixed() -> None:
    # Journals and shard assignments written by earlier versions depend on this exact value.
    assert params_hash({"photo": "a.jpg", "width": 320}) == "896456b685884bae"


def test_key_column_from_params_or_extra() -> None:
    assert row_key(row(1, {"photo": "a.jpg"}, {"id": "sku-1"}), "id") == "sku-1"
    assert row_key(row(1, {"id": 42}), "id") == "42"


@pytest.mark.parametrize("value", ["", None, [1], {"a": 1}])
def test_empty_or_structured_key_cell_is_an_error(value: object) -> None:
    with pytest.raises(ManifestError, match=r"m\.csv:4: row 3: has an empty or non-scalar --key cell 'id'"):
        row_key(row(3, {"id": value}), "id")


def test_missing_key_column_is_an_error() -> None:
    with pytest.raises(ManifestError, match="has no 'sku' column for --key"):
        row_key(row(1, {"photo": "a"}), "sku")


def test_duplicate_keys_name_both_rows(tmp_path: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text("id,photo\na,1.jpg\nb,2.jpg\na,3.jpg\n")
    def register_all() -> None:
        with KeyRegistry(str(path)) as registry:
            for manifest_row in open_manifest(path):
                registry.add(row_key(manifest_row, "id"), manifest_row)

    with pytest.raises(DuplicateKey) as caught:
        register_all()
    message = str(caught.value)
    assert "row 3 (line 4) has the key 'a', already used by row 1 (line 2)" in message
    assert (caught.value.first_index, caught.value.second_index) == (1, 3)
    assert caught.value.diagnostics[0].rule == "manifest-duplicate-key"


def test_identical_rows_without_key_column_are_duplicates(tmp_path: Path) -> None:
    with KeyRegistry("m.csv") as registry:
        registry.add(row_key(row(1, {"photo": "a"})), row(1, {"photo": "a"}))
        registry.add(row_key(row(1, {"photo": "a"})), row(1, {"photo": "a"}))  # the same row again is fine
        registry.add(row_key(row(2, {"photo": "b"})), row(2, {"photo": "b"}))
        assert len(registry) == 2
        with pytest.raises(DuplicateKey, match=r"row 3 .* already used by row 1"):
            registry.add(row_key(row(3, {"photo": "a"})), row(3, {"photo": "a"}))


def test_attempt_tags_differ_per_attempt_and_key() -> None:
    tags = {attempt_tag("b1", key, attempt) for key in ("k1", "k2") for attempt in (1, 2)}
    assert len(tags) == 4
    assert all(tag.startswith("mcv-b1-") for tag in tags)


# -- shards ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "index", "count"), [("1/1", 1, 1), ("2/4", 2, 4), (" 4 / 4 ", 4, 4)])
def test_parse_shard(text: str, index: int, count: int) -> None:
    assert parse_shard(text) == Shard(index, count)
    assert str(parse_shard(text)) == f"{index}/{count}"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("0/4", "shards count from 1"),
        ("5/4", "does not exist: use 1/4 .. 4/4"),
        ("1/0", "N must be at least 1"),
        ("2", "expected I/N"),
        ("a/b", "expected I/N"),
        ("-1/4", "expected I/N"),
        ("1/4/2", "expected I/N"),
        ("", "expected I/N"),
    ],
)
def test_bad_shard_is_a_usage_error(text: str, words: str) -> None:
    with pytest.raises(UsageError, match=words):
        parse_shard(text)


@pytest.mark.parametrize("count", [1, 2, 3, 7, 16])
def test_every_key_is_in_exactly_one_shard(count: int) -> None:
    keys = [f"row-{i}" for i in range(2000)] + [params_hash({"photo": f"{i}.jpg"}) for i in range(2000)]
    shards = [parse_shard(f"{i}/{count}") for i in range(1, count + 1)]
    members = [[key for key in keys if key in shard] for shard in shards]
    assert sorted(key for member in members for key in member) == sorted(keys)
    if count > 1:  # and the split is roughly even
        assert all(len(member) > len(keys) / count / 2 for member in members)


def test_shards_are_the_same_under_any_hash_seed() -> None:
    keys = [f"k{i}" for i in range(50)] + ["é写真", ""]
    script = (
        "import json, sys; from mcv_pipelines.batch.shard import shard_of; "
        "from mcv_pipelines.batch.keys import params_hash; keys = json.loads(sys.argv[1]); "
        "print(json.dumps([[shard_of(k, 5) for k in keys], [params_hash({'p': k}) for k in keys]]))"
    )
    here = [[shard_of(k, 5) for k in keys], [params_hash({"p": k}) for k in keys]]
    for seed in ("0", "1", "12345"):
        done = subprocess.run(
            [sys.executable, "-c", script, json.dumps(keys)], capture_output=True, text=True, check=True,
            env={"PYTHONHASHSEED": seed},
        )
        assert json.loads(done.stdout) == here
