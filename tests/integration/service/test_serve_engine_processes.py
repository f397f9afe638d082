"""Engine processes of `mcv serve` hold none of its secrets and end with it (issue 37).

A served process with secret variables runs a mixed load (LibreOffice, Chromium, FFmpeg, Pandoc,
ImageMagick); every process below it is read while they run. Then the service is stopped by
SIGTERM, or killed by SIGKILL, at a random moment of concurrent office and web jobs: no process of
it may be left, and a killed service's profiles go at its next start."""

from __future__ import annotations

import random
import re
import signal
import time
from pathlib import Path

import pytest
from served_tree import CANARIES, TreeWatch, mixed_tasks, require_families, serve, slow_sound_tasks

from engine_needs import require_engine, unavailable
from mcv_pipelines.service.engines.landlock import rules as landlock_rules
from mcv_pipelines.service.engines.office.pool import _pipe_files  # the sockets of a profile
from mcv_pipelines.service.engines.seal import FORCE_VARIABLE

_FAMILIES = ("office", "web", "ffmpeg", "pandoc", "imagemagick")
_GONE_SECONDS = 10.0  # a parent-death signal acts at once; this bounds a slow machine


def test_no_engine_process_holds_a_variable_of_the_service(tmp_path: Path) -> None:
    require_families()
    served = serve(tmp_path / "data")
    try:
        with served.client() as client, TreeWatch(served.process.pid) as watch:
            jobs = [served.submit(client, mixed_tasks(index, _FAMILIES)) for index in range(3)]
            for job in jobs:
                ended = client.get(f"/sync/v2/jobs/{job}").json()["data"]
                failed = [(t["name"], t.get("message")) for t in ended["tasks"] if t["status"] != "finished"]
                assert not failed, failed
        seen = watch.snapshot()
        names = {seen[key] for key in set(watch.read) if key in seen}
    finally:
        served.stop()
    # The warm engines and programs of each per-task family were read while they ran.
    assert "soffice.bin" in names
    assert any("chrom" in name or "headless" in name for name in names), names
    assert names & {"ffmpeg", "pandoc", "magick", "convert", "bwrap", "setpriv", "prlimit"}, names
    assert not watch.leaks, f"engine processes holding a secret of the service: {watch.leaks}"
    assert all(secret not in str(watch.leaks) for secret in CANARIES.values())


def _profiles(commands: list[str]) -> set[Path]:
    """The profile directories named in the command lines of LibreOffice and Chromium."""
    found = set()
    for command in commands:
        for match in re.finditer(r"UserInstallation=file://(/\S+?)/profile|--user-data-dir=(/\S+)", command):
            found.add(Path(match.group(1) or match.group(2)))
    return found


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL], ids=lambda s: s.name)
def test_no_engine_process_outlives_the_service(tmp_path: Path, stop: signal.Signals) -> None:
    require_families()
    served = serve(tmp_path / "data")
    commands: list[str] = []
    try:
        with served.client() as client, TreeWatch(served.process.pid) as watch:
            for index in range(4):  # four office jobs at once (the reported case), two web ones
                served.submit(client, mixed_tasks(index, ("office",)))
            for index in range(2):
                served.submit(client, mixed_tasks(10 + index, ("web",)))
            deadline = time.monotonic() + 60
            while "soffice.bin" not in watch.snapshot().values() and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(random.uniform(0.0, 3.0))  # a random moment of the load
            commands = [_command(pid) for pid, _ in watch.snapshot()]
            served.stop(stop)
            commands += [_command(pid) for pid, _ in watch.snapshot()]
    finally:
        served.stop(signal.SIGKILL)
    assert "soffice.bin" in watch.snapshot().values(), "no LibreOffice started before the stop"
    deadline = time.monotonic() + _GONE_SECONDS
    while watch.left() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not watch.left(), f"left running after {stop.name}: {watch.left()}"
    # Profiles and sockets: removed on the way out, or by the next start after a kill.
    profiles = _profiles(commands)
    assert profiles
    again = serve(tmp_path / "data")
    try:
        with again.client() as client:
            job = again.submit(client, mixed_tasks(99, ("office", "web")))
            ended = client.get(f"/sync/v2/jobs/{job}").json()["data"]
            assert ended["status"] == "finished", ended
    finally:
        again.stop()
    assert not [path for path in profiles if path.exists()]
    offices = [root for root in profiles if root.name.startswith("mcv-office-")]
    assert not [found for root in offices for found in _pipe_files(root)]


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM], ids=lambda s: s.name)
def test_no_landlocked_program_outlives_the_service(tmp_path: Path, stop: signal.Signals) -> None:
    """Under the landlock seal a program is made by the starter (engines/landlock/starter.py), not
    forked by the thread that waits for it: it must still die with the service, killed or stopped."""
    if not landlock_rules.available():
        unavailable("Landlock or seccomp cannot be set on this machine")
    require_engine("ffmpeg")
    served = serve(tmp_path / "data", **{FORCE_VARIABLE: "landlock"})
    try:
        with served.client() as client, TreeWatch(served.process.pid) as watch:
            for index in range(2):
                served.submit(client, slow_sound_tasks(index))
            deadline = time.monotonic() + 60
            while list(watch.left().values()).count("ffmpeg") < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert list(watch.left().values()).count("ffmpeg") == 2, watch.snapshot()
            served.stop(stop)
    finally:
        served.stop(signal.SIGKILL)
    deadline = time.monotonic() + _GONE_SECONDS  # each ffmpeg had some 20 s left to run
    while watch.left() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not watch.left(), f"left running after {stop.name}: {watch.left()}"
