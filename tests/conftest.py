"""Shared fixtures.

``require_engine`` is how a test says it needs a local engine (ffmpeg, LibreOffice, Chromium), or one
conversion of it: the engine registry is asked what runs here, as the service itself does, so a
``convert`` on PATH that is not ImageMagick or a writer-only LibreOffice skips the test instead of
failing it (issue 14). ``require_program`` is for other programs (openssl). Missing locally, the test is
skipped with the reason; with MCV_REQUIRE_ENGINES=1 (set by .ci/run, which installs the programs) it
fails instead, so nothing is skipped in CI.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator

import pytest

import engine_needs
import suite_order
from asyncssh_sftp import AsyncsshSftp
from azurite import Azurite, need_azurite
from mcv_pipelines.service.engines.base import Engine
from seaweed import SeaweedS3, need_weed
from sshd import SftpServer, Sshd, need_sshd, sshd_usable
from swift_server import SwiftServer, need_swift


def pytest_sessionstart(session: pytest.Session) -> None:
    """Give the processes the tests start a SIGINT that stops them.

    Tests stop served processes, `mcv run` and `mcv batch` with SIGINT (Ctrl-C). A suite started in
    the background of a non-interactive shell (``pytest &`` in a CI script: no job control) inherits
    SIGINT ignored; every child would inherit that through exec, and Python keeps an inherited ignore
    instead of raising KeyboardInterrupt: the served process ignored SIGINT for 30 s (issue 30). With
    Python's own handler here, children start with SIGINT at its default, as from a terminal.
    """
    del session
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# What marks a test `engines` (issue 39): it asks for an engine or a program, or lives with the engines'
# tests. .ci/run runs those once more with stand-ins of engines' names first on PATH (`-m engines`).
_ENGINE_FIXTURES = frozenset({"require_engine", "require_conversion", "require_program"})
_ENGINE_FOLDERS = ("integration/engines/", "unit/engines/")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = item.path.as_posix()
        asks = _ENGINE_FIXTURES.intersection(getattr(item, "fixturenames", ()))
        if asks or any(f"/tests/{folder}" in where for folder in _ENGINE_FOLDERS):
            item.add_marker(pytest.mark.engines)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--store-durations",
        nargs="?",
        const=str(suite_order.DURATIONS),
        default=None,
        metavar="PATH",
        help="write each test file's seconds (merged) to PATH, by default tests/durations.json: the order "
        "workers get files in",
    )


def pytest_configure(config: pytest.Config) -> None:
    # Files slowest first, the image's tests last (issue 50): a plugin of its own, so that it sorts
    # after pytest's reordering by fixture, and records the seconds --store-durations writes.
    config.pluginmanager.register(suite_order.Ordering(config), "mcv-suite-order")


@pytest.fixture
def require_program() -> Callable[..., str]:
    return engine_needs.require_program


@pytest.fixture(name="require_conversion")
def require_conversion_fixture() -> Callable[..., Engine]:
    return engine_needs.require_conversion


@pytest.fixture(name="require_engine")
def require_engine_fixture() -> Callable[..., Engine]:
    return engine_needs.require_engine


@pytest.fixture(autouse=True, scope="session")
def private_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Catalog indexes go to a directory of this test session, never the user's cache (subprocesses
    inherit it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCV_CACHE_DIR", str(tmp_path_factory.mktemp("mcv-cache")))
        yield


@pytest.fixture(scope="session")
def seaweed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SeaweedS3]:
    """A real S3 server (SeaweedFS) on loopback for the session: the storage and team tests share it,
    each under a prefix of its own."""
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


def pick_sftp_server() -> SftpServer:
    """OpenSSH's sshd when it can run (root), else asyncssh's server (issue 36). As root under
    MCV_REQUIRE_ENGINES=1 (CI) sshd must be there; MCV_TEST_SFTP=asyncssh picks asyncssh's anyway."""
    if os.environ.get("MCV_TEST_SFTP") == "asyncssh":
        return AsyncsshSftp()
    if sshd_usable():
        return Sshd()
    if os.geteuid() == 0 and engine_needs.ENGINES_REQUIRED:
        need_sshd()  # fails: CI runs as root and installs openssh-server
    return AsyncsshSftp()


@pytest.fixture(scope="session")
def sshd() -> Iterator[SftpServer]:
    """A real SFTP server on loopback for the session, with a user of its own: OpenSSH's sshd as root,
    asyncssh's server otherwise (see pick_sftp_server)."""
    server = pick_sftp_server().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def azurite() -> Iterator[Azurite]:
    """A real Azure Blob server (Azurite, in memory) on loopback for the session; each test its own
    container."""
    server = Azurite(need_azurite()).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def swift() -> Iterator[SwiftServer]:
    """A real OpenStack Swift (proxy, account, container and object servers) on loopback for the
    session: its rings take seconds to build, its four servers as long to start."""
    need_swift()
    with SwiftServer() as server:
        yield server
