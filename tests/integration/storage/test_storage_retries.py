"""Issue 25: a storage call rides through a short outage of the S3 server (tried again with growing
waits for a bounded time), and fails with a clear StorageError once the bound has passed."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from mcv_pipelines.service.files.storage import StorageError, open_storage
from seaweed import SeaweedS3, need_weed


def test_a_write_waits_for_the_store_to_come_back_and_gives_up_after_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = SeaweedS3(need_weed(), tmp_path / "own", bucket="retry-test").start()
    try:
        for name, value in server.env.items():
            monkeypatch.setenv(name, value)
        patient = open_storage("s3://retry-test", tmp_path / "data", retry_for=120)
        hasty = open_storage("s3://retry-test", tmp_path / "data", retry_for=1)
        server.stop()
        with pytest.raises(StorageError) as raised:  # away longer than its bound
            hasty.put_stream("t0", "x.txt", [b"x"])
        assert raised.value.transient
        assert "s3://retry-test/tasks/t0/x.txt" in raised.value.message
        assert server.secret_key not in raised.value.message

        back = threading.Timer(3.0, server.start)  # the store is away for 3 s, then back
        back.start()
        try:  # called while the server is down: it succeeds only by waiting for it
            patient.put_stream("t1", "x.txt", [b"written once the store was back"])
        finally:
            back.join()
        assert b"".join(patient.read("t1", "x.txt")) == b"written once the store was back"
        patient.close()
        hasty.close()
    finally:
        server.stop()
