"""import/sftp and export/sftp ride through transient faults within the service's caller_storage_retry,
as the other kinds do: a server whose port refuses at first and is served a moment later, and a
connection cut mid-transfer (the file goes on where the server had got to). A refused login or a
missing path fails at once with its code. The real server (sshd, or asyncssh's where not root) sits
behind a relay on loopback that refuses or cuts (tests/flaky_tcp.py)."""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asyncssh_sftp import AsyncsshSftp
from caller_jobs import run_job
from flaky_tcp import FlakyRelay
from mcv_pipelines.service.server import LocalService
from sshd import SftpServer

BIG = 3 * 1024 * 1024 + 12345  # a few of the service's 1 MiB chunks, and a bit


def start(tmp_path: Path, retry_for: float) -> LocalService:
    data = tmp_path / f"data-{secrets.token_hex(3)}"
    return LocalService(data_dir=data, engines=[], settings={"caller_storage_retry": retry_for})


@pytest.fixture
def folder(sshd: SftpServer) -> str:
    name = f"r-{secrets.token_hex(3)}"
    (sshd.home / name).mkdir()
    sshd.give_home()
    return name


@pytest.fixture
def relays() -> Iterator[list[FlakyRelay]]:
    made: list[FlakyRelay] = []
    yield made
    for relay in made:
        relay.close()


def login(sshd: SftpServer, port: int, **extra: Any) -> dict[str, Any]:
    return {"host": "127.0.0.1", "port": port, "username": sshd.user, "password": sshd.password, **extra}


def relay(relays: list[FlakyRelay], sshd: SftpServer, **options: int) -> FlakyRelay:
    made = FlakyRelay(("127.0.0.1", sshd.port), **options)
    relays.append(made)
    return made


def test_a_port_that_refuses_at_first_is_tried_again_until_served(
    sshd: SftpServer, folder: str, tmp_path: Path, relays: list[FlakyRelay]
) -> None:
    (sshd.home / folder / "a.txt").write_bytes(b"alpha")
    sshd.give_home()
    task = {"operation": "import/sftp", "file": f"{folder}/a.txt"}
    hasty_relay = relay(relays, sshd)  # never served
    with start(tmp_path, retry_for=1.0) as hasty:
        began = time.monotonic()
        gave_up = run_job(hasty, {"t": {**task, **login(sshd, hasty_relay.port)}})["t"]
    assert gave_up["code"] == "STORAGE_UNREACHABLE", gave_up
    assert f"127.0.0.1:{hasty_relay.port}" in gave_up["message"]
    assert time.monotonic() - began < 30

    late = relay(relays, sshd)
    served = threading.Timer(2.5, late.serve)  # refused for 2.5 s, then served
    with start(tmp_path, retry_for=30.0) as patient:
        served.start()
        try:
            ended = run_job(patient, {"t": {**task, **login(sshd, late.port)}})["t"]
        finally:
            served.join()
    assert ended["status"] == "finished", ended["message"]
    assert ended["result"]["files"][0]["md5"] == hashlib.md5(b"alpha", usedforsecurity=False).hexdigest()
    assert late.accepted >= 1


def test_a_connection_cut_mid_transfer_goes_on_both_ways(
    sshd: SftpServer, folder: str, tmp_path: Path, relays: list[FlakyRelay]
) -> None:
    body = os.urandom(BIG)
    (sshd.home / folder / "in").mkdir()
    (sshd.home / folder / "in" / "big.bin").write_bytes(body)
    (sshd.home / folder / "in" / "small.txt").write_bytes(b"small")
    sshd.give_home()
    # Each relay cuts its first connection once a megabyte and a half went through it.
    cut_in = relay(relays, sshd, cut_after=1_500_000, cuts=1).serve()
    cut_out = relay(relays, sshd, cut_after=1_500_000, cuts=1).serve()
    with start(tmp_path, retry_for=30.0) as svc:
        tasks = run_job(
            svc,
            {
                "in": {"operation": "import/sftp", **login(sshd, cut_in.port), "path": f"{folder}/in"},
                "out": {
                    "operation": "export/sftp",
                    "input": "in",
                    **login(sshd, cut_out.port),
                    "path": f"{folder}/out",
                },
            },
        )
    for name in ("in", "out"):
        assert tasks[name]["status"] == "finished", tasks[name]["message"]
        assert tasks[name]["result"]["host_key"] == sshd.fingerprint
    assert (cut_in.cuts, cut_out.cuts) == (1, 1)  # both were cut, and went on on a new connection
    assert cut_in.accepted >= 2
    assert cut_out.accepted >= 2
    imported = {f["filename"]: f for f in tasks["in"]["result"]["files"]}
    assert imported["big.bin"]["md5"] == hashlib.md5(body, usedforsecurity=False).hexdigest()
    assert imported["big.bin"]["size"] == BIG
    assert (sshd.home / folder / "out" / "big.bin").read_bytes() == body
    assert (sshd.home / folder / "out" / "small.txt").read_bytes() == b"small"
    assert sorted(p.name for p in (sshd.home / folder / "out").iterdir()) == ["big.bin", "small.txt"]


def test_a_connection_made_again_must_show_the_host_key_of_the_first(
    sshd: SftpServer, folder: str, tmp_path: Path, relays: list[FlakyRelay]
) -> None:
    body = os.urandom(BIG)
    (sshd.home / folder / "big.bin").write_bytes(body)
    sshd.give_home()
    # Another server with the same user and file but a host key of its own: where the relay sends the
    # connection made again after the cut, as someone in the middle would.
    impostor = AsyncsshSftp()
    impostor.user, impostor.password = sshd.user, sshd.password
    impostor.start()
    try:
        (impostor.home / folder).mkdir()
        (impostor.home / folder / "big.bin").write_bytes(body)
        cut = FlakyRelay(
            ("127.0.0.1", sshd.port), cut_after=1_500_000, cuts=1, then=("127.0.0.1", impostor.port)
        )
        relays.append(cut.serve())
        with start(tmp_path, retry_for=30.0) as svc:
            ended = run_job(
                svc, {"t": {"operation": "import/sftp", **login(sshd, cut.port), "file": f"{folder}/big.bin"}}
            )["t"]
    finally:
        impostor.stop()
    assert cut.accepted == 2  # the impostor was reached
    assert ended["code"] == "STORAGE_HOST_KEY_REJECTED", ended
    assert "another host key than at first" in ended["message"]


def test_a_refused_login_or_a_missing_path_is_not_tried_again(
    sshd: SftpServer, folder: str, tmp_path: Path
) -> None:
    with start(tmp_path, retry_for=60.0) as svc:
        began = time.monotonic()
        wrong = run_job(
            svc, {"t": {"operation": "import/sftp", **login(sshd, sshd.port, password="wrong"), "file": "x"}}
        )["t"]
        missing = run_job(
            svc, {"t": {"operation": "import/sftp", **login(sshd, sshd.port), "file": f"{folder}/none.txt"}}
        )["t"]
        took = time.monotonic() - began
    assert wrong["code"] == "STORAGE_ACCESS_DENIED", wrong
    assert missing["code"] == "STORAGE_FILE_NOT_FOUND", missing
    assert took < 15, f"{took:.1f} s: tried again within the 60 s of retries"


def test_a_file_that_changed_while_the_connection_was_lost_is_not_resumed(
    sshd: SftpServer, folder: str, tmp_path: Path, relays: list[FlakyRelay]
) -> None:
    """The file is written anew on the server as the connection is cut: going on from the offset
    reached would join the first version's head to the second's tail, so the import fails instead."""
    path = sshd.home / folder / "moving.bin"
    path.write_bytes(os.urandom(BIG))
    sshd.give_home()

    def rewrite() -> None:
        path.write_bytes(os.urandom(BIG + 1))
        os.utime(path, (time.time() + 5, time.time() + 5))

    cut = FlakyRelay(("127.0.0.1", sshd.port), cut_after=1_500_000, cuts=1, on_cut=rewrite).serve()
    relays.append(cut)
    with start(tmp_path, retry_for=30.0) as svc:
        ended = run_job(
            svc, {"t": {"operation": "import/sftp", **login(sshd, cut.port), "file": f"{folder}/moving.bin"}}
        )["t"]
    assert cut.cuts == 1
    assert ended["status"] == "error"
    assert ended["code"] == "STORAGE_FAILED", ended
    assert "changed on the SFTP server" in ended["message"]
