"""Issue 25: a storage call rides through a short outage of the S3 server (tried again with growing
waits for a bounded time), and fails with a clear StorageError once the bound has passed.

The outage is a relay in front of the session's SeaweedFS whose port refuses connections until it
serves: what a client sees of a store that is away. Restarting weed itself raced its own start-up (its
S3 port answered 404 for the bucket before the filer had loaded it, seen in CI), which no store owes us.
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from flaky_tcp import FlakyRelay
from mcv_pipelines.service.files.storage import StorageError, open_storage
from seaweed import SeaweedS3


def test_a_write_waits_for_the_store_to_come_back_and_gives_up_after_the_bound(
    tmp_path: Path, s3_env: SeaweedS3, monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream = urlsplit(s3_env.endpoint)
    relay = FlakyRelay((upstream.hostname or "127.0.0.1", upstream.port or 80))  # refusing until served
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{relay.port}")
    where = f"s3://{s3_env.bucket}/retry-{uuid.uuid4().hex[:8]}"
    patient = open_storage(where, tmp_path / "data", retry_for=120)
    hasty = open_storage(where, tmp_path / "data", retry_for=1)
    try:
        with pytest.raises(StorageError) as raised:  # away longer than its bound
            hasty.put_stream("t0", "x.txt", [b"x"])
        assert raised.value.transient
        assert f"{where}/tasks/t0/x.txt" in raised.value.message
        assert s3_env.secret_key not in raised.value.message

        back = threading.Timer(3.0, relay.serve)  # the store is away for 3 s, then back
        back.start()
        try:  # called while the store is away: it succeeds only by waiting for it
            patient.put_stream("t1", "x.txt", [b"written once the store was back"])
        finally:
            back.join()
        assert relay.accepted >= 1  # it went through the relay, not around it
        assert b"".join(patient.read("t1", "x.txt")) == b"written once the store was back"
    finally:
        patient.close()
        hasty.close()
        relay.close()
