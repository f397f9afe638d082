"""--timeout bounds the whole command and every request has a connect/read timeout (issue 14).

The service here is a real socket on loopback that accepts connections and never answers: the creating
POST gets no answer, so before the fix `mcv run --timeout 10` waited 60 s for it and 60 s for each of
two lookups by tag.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from mcv_pipelines.api.settings import Settings
from mcv_pipelines.cli.main import main
from mcv_pipelines.errors import UsageError
from waiting import wait_until

# Bounds are 10x the time each command should take (issue 30): a loaded machine stays inside them, and
# the bug they guard against (60 s per request) does not.
BOUND_FACTOR = 10


class SilentService(NamedTuple):
    url: str
    connections: list[socket.socket]  # every connection accepted so far


@pytest.fixture
def silent_service(monkeypatch: pytest.MonkeyPatch) -> Iterator[SilentService]:
    """A loopback server that accepts every connection, reads nothing, answers nothing."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.getsockname()[1]}"
    monkeypatch.setenv("MCV_BASE_URL", url)
    monkeypatch.setenv("MCV_API_KEY", "sk-silent-service-0001")
    yield SilentService(url, held)
    stop.set()
    thread.join()
    for connection in held:
        connection.close()
    server.close()


def _pipeline(directory: Path) -> Path:
    path = directory / "fetch.yaml"
    path.write_text(
        "version: 1\nname: fetch\ntasks:\n"
        "  fetch: {operation: import/url, url: 'https://example.com/photo.png'}\n"
        "  publish: {operation: export/url, input: fetch}\n"
    )
    return path


def test_run_timeout_bounds_creation_and_reconciliation(
    isolated: Path, silent_service: SilentService, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    code = main(["run", str(_pipeline(isolated)), "--timeout", "2", "--progress", "none"])
    elapsed = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 3, err
    bound = 2 * BOUND_FACTOR
    assert elapsed < bound, f"mcv run --timeout 2 took {elapsed:.1f} s to give up (bound {bound} s)"
    assert "--timeout 2 s passed while creating the job" in err
    assert f"no answer yet to POST {silent_service.url}/v2/jobs" in err
    assert "mcv jobs list --tag fetch~" in err  # where to look if the creation got through
    assert "--read-timeout" in err  # what to do
    assert "sk-silent-service-0001" not in err
    assert "Traceback" not in err


def test_read_timeout_bounds_each_request_of_mcv_jobs(
    isolated: Path, silent_service: SilentService, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    code = main(["jobs", "list", "--read-timeout", "0.5"])
    elapsed = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 3, err
    # Each try gave up after 0.5 s and the next came on a new connection: five tries, none left waiting.
    # (the accepting thread may lag the client a moment: wait for it, then count)
    wait_until(lambda: len(silent_service.connections) >= 5, what="the server to accept the five tries")
    assert len(silent_service.connections) == 5, silent_service.connections
    bound = 6 * BOUND_FACTOR  # five 0.5 s tries and their backoff take about 6 s; without the limit, 300 s
    assert elapsed < bound, f"mcv jobs list --read-timeout 0.5 took {elapsed:.1f} s to stop (bound {bound} s)"
    assert "GET /v2/jobs: network error: no answer within 0.5 s (--read-timeout, MCV_READ_TIMEOUT)" in err
    assert "check that the service is up and answering, or raise that limit" in err


def test_read_timeout_from_the_environment(
    isolated: Path,
    silent_service: SilentService,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MCV_READ_TIMEOUT", "0.3")
    code = main(["tasks", "list"])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "GET /v2/tasks: network error: no answer within 0.3 s" in err


@pytest.mark.parametrize("command", [["run"], ["jobs", "list"], ["jobs", "wait"], ["batch"]])
def test_help_shows_both_timeouts_with_defaults(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--connect-timeout SECONDS" in out
    assert "(default 10;" in out
    assert "--read-timeout SECONDS" in out
    assert "(default 60 for API requests, 120 for uploads and downloads" in out
    assert "MCV_READ_TIMEOUT" in out


def test_settings_take_timeouts_from_flags_environment_and_profile(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[slow]\nbase_url = "http://127.0.0.1:9"\nconnect_timeout = 4\nread_timeout = 90\n')
    env = {"MCV_CONFIG": str(config)}
    profile = Settings.resolve(profile="slow", env=env)
    assert (profile.connect_timeout, profile.read_timeout) == (4.0, 90.0)
    environment = Settings.resolve(profile="slow", env={**env, "MCV_READ_TIMEOUT": "7.5"})
    assert environment.read_timeout == 7.5
    flag = Settings.resolve(profile="slow", read_timeout=2, env={**env, "MCV_READ_TIMEOUT": "7.5"})
    assert flag.read_timeout == 2.0
    with pytest.raises(UsageError, match=r"MCV_CONNECT_TIMEOUT: expected a positive number of seconds"):
        Settings.resolve(base_url="http://127.0.0.1:9", env={**env, "MCV_CONNECT_TIMEOUT": "soon"})
    with pytest.raises(UsageError, match=r"--read-timeout: expected a positive number"):
        Settings.resolve(base_url="http://127.0.0.1:9", read_timeout=-1, env=env)
