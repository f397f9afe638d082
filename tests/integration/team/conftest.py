"""A real PostgreSQL server for the session (tests/pg_server.py) and a fresh database per test."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_server import PgServer, find_bin_dir

from engine_needs import unavailable


@pytest.fixture(scope="session")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        unavailable("needs PostgreSQL's initdb and pg_ctl (apt-get install postgresql, or run .ci/run)")
    # Not under pytest's own temporary directory: as root that one is closed to the postgres user.
    root = Path(tempfile.mkdtemp(prefix="mcv-pg-"))
    try:
        server = PgServer(bin_dir, root)
        server.start()
        try:
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_url(postgres: PgServer) -> str:
    """The URL of a fresh, empty database."""
    return postgres.url(postgres.new_database())
