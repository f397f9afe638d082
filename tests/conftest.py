"""Shared fixtures.

``require_program`` is how a test says it needs an external program (ffmpeg, LibreOffice, Chromium):
missing locally, the test is skipped with that reason; with MCV_REQUIRE_ENGINES=1 (set by .ci/run,
which installs the programs) a missing program fails the test instead, so nothing is skipped in CI.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator

import pytest

ENGINES_REQUIRED = os.environ.get("MCV_REQUIRE_ENGINES") == "1"


def _require_program(*names: str) -> str:
    """Return the path of the first of ``names`` found on PATH, or skip/fail the test."""
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    reason = f"needs {' or '.join(names)} on PATH (install it, or run .ci/run as root)"
    if ENGINES_REQUIRED:
        pytest.fail(f"MCV_REQUIRE_ENGINES=1 but the test {reason}")
    pytest.skip(reason)


@pytest.fixture
def require_program() -> Callable[..., str]:
    return _require_program


@pytest.fixture(autouse=True, scope="session")
def private_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Catalog indexes go to a directory of this test session, never the user's cache (subprocesses
    inherit it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCV_CACHE_DIR", str(tmp_path_factory.mktemp("mcv-cache")))
        yield
