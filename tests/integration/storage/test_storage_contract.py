"""What every store does, run against both kinds: a directory and a real S3 server (SeaweedFS)."""

from __future__ import annotations

import hashlib
import os
import secrets
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcv_pipelines.redact import redact
from mcv_pipelines.service.files.storage import Storage, StorageError, open_storage
from mcv_pipelines.service.files.storage.s3 import PART_SIZE
from seaweed import SeaweedS3, need_weed

MIB = 1024 * 1024


def pattern_chunks(total: int, chunk: int = MIB) -> Iterator[bytes]:
    """``total`` bytes of a repeatable, not trivially compressible pattern, ``chunk`` at a time."""
    block = hashlib.sha256(b"mcv").digest() * (chunk // 32)
    sent = 0
    while sent < total:
        piece = block[: min(chunk, total - sent)]
        sent += len(piece)
        yield bytes([sent % 251]) + piece[1:]


def digest(chunks: Iterator[bytes]) -> str:
    h = hashlib.sha256()
    for chunk in chunks:
        h.update(chunk)
    return h.hexdigest()


def test_a_stream_larger_than_a_part_is_stored_with_bounded_memory(storage: Storage) -> None:
    total = 10 * PART_SIZE + 123_457  # eleven parts, the last a short one
    tracemalloc.start()
    try:
        size = storage.put_stream("t1", "big.bin", pattern_chunks(total))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert size == total
    # one part filling, one in flight, and the client's own buffers: never the file
    assert peak < 4 * PART_SIZE, f"{peak / MIB:.1f} MiB held to store {total / MIB:.1f} MiB"
    assert storage.size("t1", "big.bin") == total
    assert digest(storage.read("t1", "big.bin")) == digest(pattern_chunks(total))


def test_ranged_reads_return_exactly_the_bytes_asked_for(storage: Storage) -> None:
    data = bytes(range(256)) * 40
    storage.put_stream("t1", "r.bin", [data[:1000], data[1000:]])
    assert b"".join(storage.read("t1", "r.bin", 10, 19)) == data[10:20]
    assert b"".join(storage.read("t1", "r.bin", 10_000)) == data[10_000:]
    assert b"".join(storage.read("t1", "r.bin", 0, len(data) + 50)) == data
    assert b"".join(storage.read("t1", "r.bin")) == data


def test_missing_files_have_no_size_and_reading_them_says_so(storage: Storage) -> None:
    assert storage.size("t1", "nothing.bin") is None
    assert not storage.exists("t1", "nothing.bin")
    with pytest.raises(FileNotFoundError):
        b"".join(storage.read("t1", "nothing.bin"))


def test_deleting_a_task_removes_its_files_and_only_its_files(storage: Storage, tmp_path: Path) -> None:
    storage.put_stream("task-a", "one.txt", [b"one"])
    source = tmp_path / "two.txt"
    source.write_bytes(b"two")
    storage.put_file("task-a", "two.txt", source)
    storage.put_stream("task-ab", "other.txt", [b"other"])  # a longer id sharing the prefix
    storage.delete_task("task-a")
    assert storage.size("task-a", "one.txt") is None
    assert storage.size("task-a", "two.txt") is None
    assert b"".join(storage.read("task-ab", "other.txt")) == b"other"
    storage.delete_task("task-a")  # nothing left to delete: no error


def test_a_copy_inside_the_store_leaves_the_source_alone(storage: Storage) -> None:
    storage.put_stream("src", "a.bin", [b"copied bytes"])
    storage.copy("src", "a.bin", "dst", "b.bin")
    assert b"".join(storage.read("dst", "b.bin")) == b"copied bytes"
    storage.delete_task("src")
    assert b"".join(storage.read("dst", "b.bin")) == b"copied bytes"
    with pytest.raises(FileNotFoundError):
        storage.copy("src", "a.bin", "dst", "c.bin")


def test_a_copy_told_the_size_copies_the_same_bytes_and_still_says_when_the_source_is_missing(
    storage: Storage,
) -> None:
    # export/url passes the size its input task recorded: on S3 that is one CopyObject, no HEAD
    data = bytes(range(256)) * 300
    storage.put_stream("src", "sized.bin", [data])
    storage.copy("src", "sized.bin", "dst", "sized-copy.bin", len(data))
    assert b"".join(storage.read("dst", "sized-copy.bin")) == data
    assert storage.size("dst", "sized-copy.bin") == len(data)
    with pytest.raises(FileNotFoundError):
        storage.copy("src", "gone.bin", "dst", "never.bin", 10)
    assert storage.size("dst", "never.bin") is None


def test_an_aborted_write_leaves_nothing_behind(storage: Storage) -> None:
    writer = storage.writer("t1", "half.bin")
    for chunk in pattern_chunks(PART_SIZE + MIB):  # past the first part: a multipart upload started
        writer.write(chunk)
    writer.abort()
    assert storage.size("t1", "half.bin") is None


def test_an_aborted_s3_write_leaves_no_multipart_upload_behind(s3_env: SeaweedS3, tmp_path: Path) -> None:
    # An unfinished multipart upload is never visible as an object: only listing the uploads shows it.
    prefix = f"t-{secrets.token_hex(4)}"
    store = open_storage(f"s3://{s3_env.bucket}/{prefix}", tmp_path / "data")
    try:
        writer = store.writer("t1", "half.bin")
        for chunk in pattern_chunks(PART_SIZE + MIB):  # past the first part: a multipart upload started
            writer.write(chunk)
        assert s3_env.multipart_uploads(prefix) == [f"{prefix}/tasks/t1/half.bin"]  # seen while open
        writer.abort()
        assert s3_env.multipart_uploads(prefix) == []
        assert store.size("t1", "half.bin") is None
    finally:
        store.close()


def test_an_engine_gets_a_local_file_with_the_stored_bytes(storage: Storage, tmp_path: Path) -> None:
    storage.put_stream("t1", "in.txt", [b"engine input"])
    local = storage.fetch("t1", "in.txt", tmp_path / "work")
    assert local is not None
    assert local.read_bytes() == b"engine input"
    in_place = storage.local_path("t1", "in.txt")
    if in_place is not None:  # a directory store hands out the stored file itself: no copy
        assert local == in_place
        assert not (tmp_path / "work").exists()
    assert storage.fetch("t1", "missing.txt", tmp_path / "work") is None


def test_a_reachable_store_pings_true(storage: Storage) -> None:
    assert storage.ping() is True


def test_ping_turns_false_when_the_s3_server_stops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = SeaweedS3(need_weed(), tmp_path / "own", bucket="ping-test").start()
    try:
        for name, value in server.env.items():
            monkeypatch.setenv(name, value)
        store = open_storage("s3://ping-test", tmp_path / "data")
        assert store.ping() is True
    finally:
        server.stop()
    assert store.ping() is False
    with pytest.raises(StorageError) as raised:
        store.put_stream("t1", "x.txt", [b"x"])
    assert "s3://ping-test/tasks/t1/x.txt" in raised.value.message
    assert server.secret_key not in raised.value.message


def test_wrong_credentials_fail_without_showing_them(
    s3_env: SeaweedS3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = "wrong-" + s3_env.secret_key[::-1]
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", wrong)
    store = open_storage("s3://mcv-test/wrong", tmp_path / "data")
    assert store.ping() is False
    with pytest.raises(StorageError) as raised:
        store.put_stream("t1", "x.txt", [b"x"])
    shown = f"{raised.value.message} {raised.value!r} {raised.value.__cause__!r}"
    assert "S3 refused to write s3://mcv-test/wrong/tasks/t1/x.txt" in shown
    assert wrong not in shown
    assert redact(wrong) == "***"


def test_a_directory_store_is_the_data_directory_by_default(tmp_path: Path) -> None:
    store = open_storage(None, tmp_path)
    store.put_stream("t1", "a.txt", [b"a"])
    assert (tmp_path / "tasks" / "t1" / "a.txt").read_bytes() == b"a"
    assert os.listdir(tmp_path / "tasks" / "t1") == ["a.txt"]  # no partial file left over
