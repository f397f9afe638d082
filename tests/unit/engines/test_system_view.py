"""The system view of a sealed program (issue 37): /usr and the few files of /etc programs read, a
passwd of its own, its task's files; not the host's /root, /home, /etc/shadow, /var or another task."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.process import run_program
from mcv_pipelines.service.engines.seal import TaskScope, task_scope

SHELL = "/bin/sh"


@pytest.fixture
def bwrap(monkeypatch: pytest.MonkeyPatch, require_program: Callable[..., str]) -> None:
    require_program("bwrap")
    monkeypatch.setenv(seal.FORCE_VARIABLE, "bwrap")


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside the host's /tmp (which every seal replaced long ago) and outside the task."""
    path = Path(tempfile.mkdtemp(prefix="mcv-view-test-", dir="/var/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _sees(path: str, work: Path, scope: TaskScope) -> bool:
    with task_scope(scope):
        outcome = run_program([SHELL, "-c", f'test -e "{path}" && echo seen || echo hidden'], cwd=work)
    return outcome.output.strip() == "seen"


def test_a_sealed_program_sees_the_system_and_its_task_only(
    bwrap: None, tmp_path: Path, outside: Path
) -> None:
    secret = outside / "secret.txt"
    secret.write_text("planted")
    data = tmp_path / "data"
    work, given, other = (
        data / "work" / "t1",
        data / "tasks" / "t0" / "in.txt",
        data / "tasks" / "t9" / "x.txt",
    )
    for path in (given, other):
        path.parent.mkdir(parents=True)
        path.write_text("a task's file")
    scope = TaskScope(writable=(work,), readable=(given,), hidden=(data,))
    for needed in ("/usr/bin/env", "/bin/sh", "/etc/fonts/fonts.conf", "/etc/ld.so.cache", str(given)):
        assert _sees(needed, work, scope), needed
    for kept_out in (str(secret), str(other), "/root", "/home", "/srv", "/etc/shadow", "/etc/ssl/private"):
        assert not _sees(kept_out, work, scope), kept_out


def test_its_passwd_names_only_the_running_user_and_nobody(bwrap: None, tmp_path: Path) -> None:
    work = tmp_path / "work"
    with task_scope(TaskScope(writable=(work,))):
        outcome = run_program([SHELL, "-c", "cat /etc/passwd; echo; cat /etc/group"], cwd=work)
    passwd, _, group = outcome.output.partition("\n\n")
    user, gid = pwd.getpwuid(os.getuid()).pw_name, os.getgid()
    assert [line.split(":")[0] for line in passwd.splitlines()] == [user, "nobody"]
    assert [line.split(":")[2] for line in group.splitlines()] == [str(gid), "65534"]
    host_lines = set(Path("/etc/passwd").read_text().splitlines())
    assert passwd.splitlines()[0] not in host_lines  # its own line: no home or shell of the host's


def test_a_task_whose_directories_lie_under_var_still_runs(bwrap: None, outside: Path) -> None:
    """A data directory under /var (say /var/lib/mcv): the view's /var is built around it."""
    work = outside / "data" / "work" / "t1"
    with task_scope(TaskScope(writable=(work,), hidden=(outside / "data",))):
        outcome = run_program([SHELL, "-c", "echo made > made.txt && test -d /var/lib && echo ok"], cwd=work)
    assert outcome.output.strip() == "ok", outcome.output
    assert (work / "made.txt").read_text() == "made\n"


def _view_process(tmp: Path, then: str) -> subprocess.Popen[str]:
    """A Python process that makes its system view under ``tmp`` (its TMPDIR), says so, then ``then``."""
    code = (
        "import os, signal, sys\n"
        "from mcv_pipelines.service.engines.system_view import view_args\n"
        "view_args()\n"
        "print('made', flush=True)\n"
        f"{then}\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        env={**os.environ, "TMPDIR": str(tmp)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "made"
    return process


def test_a_killed_process_s_view_is_removed_by_the_next_one_and_a_running_one_s_kept(tmp_path: Path) -> None:
    """A service killed with kill -9 cannot remove its copy of /etc (5 MB): the next process to make
    one does, while a copy whose process still runs, and a directory of another shape, stay."""
    killed = _view_process(tmp_path, "os.kill(os.getpid(), signal.SIGKILL)")
    killed.communicate(timeout=30)
    orphans = sorted(tmp_path.glob("mcv-system-view-*"))
    assert len(orphans) == 1
    assert (orphans[0] / "etc" / "passwd").exists()
    running = _view_process(tmp_path, "sys.stdin.read()")  # runs until its stdin closes
    try:
        views = set(tmp_path.glob("mcv-system-view-*"))
        assert orphans[0] not in views  # removed by the second process
        assert len(views) == 1
        (kept,) = views
        other = tmp_path / "mcv-system-view-notours"  # no lock file: an older version's, say
        other.mkdir()
        third = _view_process(tmp_path, "")
        third.communicate(timeout=30)
        assert kept.exists()
        assert (kept / "etc" / "passwd").exists()
        assert other.exists()
        assert set(tmp_path.glob("mcv-system-view-*")) == {kept, other}  # the third removed its own at exit
    finally:
        running.communicate("", timeout=30)
    assert set(tmp_path.glob("mcv-system-view-*")) == {other}
