"""Warm engines' profile directories: held while their service runs, swept once it is gone (issue 37)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from mcv_pipelines.service.engines.environment import program_environment
from mcv_pipelines.service.engines.leftovers import HeldDirectory, sweep

_HOLDER = textwrap.dedent("""
    import sys
    from mcv_pipelines.service.engines.leftovers import HeldDirectory
    held = HeldDirectory.make(sys.argv[1])
    print(held.path, flush=True)
    sys.stdin.read()
""")


def test_a_directory_is_swept_only_once_its_service_is_gone() -> None:
    prefix = "mcv-test-leftover-"
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, prefix], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert holder.stdout is not None
    assert holder.stdin is not None
    path = holder.stdout.readline().strip()
    try:
        assert sweep(prefix) == []  # its service runs: kept
        holder.kill()  # killed outright: nothing removed it
        holder.wait()
        assert [str(p) for p in sweep(prefix)] == [path]
    finally:
        holder.stdin.close()
        holder.stdout.close()
        if holder.poll() is None:
            holder.kill()
            holder.wait()


def test_this_process_keeps_its_own_and_removes_it() -> None:
    held = HeldDirectory.make("mcv-test-own-")
    assert held.path.is_dir()
    assert sweep("mcv-test-own-") == []
    held.remove()
    assert not held.path.exists()


def test_a_program_gets_no_variable_of_the_service(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "canary")
    monkeypatch.setenv("LC_TIME", "de_DE.UTF-8")
    env = program_environment({"HOME": "/work/task", "MAGICK_TEMPORARY_PATH": "/work/task/tmp"})
    assert "AWS_SECRET_ACCESS_KEY" not in env
    assert env["LC_TIME"] == "de_DE.UTF-8"
    assert env["HOME"] == "/work/task"
    assert env["MAGICK_TEMPORARY_PATH"] == "/work/task/tmp"
    allowed = {"PATH", "HOME", "MAGICK_TEMPORARY_PATH", "LANG", "LANGUAGE", "TZ"}
    # the locale, whichever of its LC_* variables the service was started with (a login sets LC_CTYPE)
    assert {name for name in env if not name.startswith("LC_")} <= allowed
