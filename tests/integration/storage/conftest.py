"""A store of each kind (directory, S3) on demand; the S3 server is the session's (tests/conftest.py)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcv_pipelines.service.files.storage import Storage, open_storage


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
