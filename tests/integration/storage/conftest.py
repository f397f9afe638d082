"""A SeaweedFS S3 server for the session, and a store of each kind (directory, S3) on demand."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from seaweed import SeaweedS3, need_weed

from mcv_pipelines.local_service.storage import Storage, open_storage


@pytest.fixture(scope="session")
def seaweed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SeaweedS3]:
    server = SeaweedS3(need_weed(), tmp_path_factory.mktemp("seaweed"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def s3_env(seaweed: SeaweedS3, monkeypatch: pytest.MonkeyPatch) -> SeaweedS3:
    """The session's S3 server, its endpoint and credentials in the AWS_* variables."""
    for name, value in seaweed.env.items():
        monkeypatch.setenv(name, value)
    return seaweed


@pytest.fixture(params=["directory", "s3"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    """A store of each kind; the S3 one under a prefix of its own, so tests never see each other."""
    if request.param == "directory":
        store = open_storage(f"file://{tmp_path / 'store'}", tmp_path / "data")
    else:
        request.getfixturevalue("s3_env")
        store = open_storage(f"s3://mcv-test/t-{secrets.token_hex(4)}", tmp_path / "data")
    try:
        yield store
    finally:
        store.close()
