"""Sealed engine programs (issue 24): no network, in a task's scope only its directories writable and
the data directory hidden, resource limits set, a missing program still named as missing."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine_needs import unavailable
from loopback_listener import Tripwire
from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.process import run_program
from mcv_pipelines.service.engines.seal import TaskScope, task_scope

# The interpreter itself, not the venv's link to it: a sealed program sees a private /tmp, and a venv
# made under /tmp (a CI checkout there) would be out of its sight. The scripts use the standard library.
PYTHON = os.path.realpath(sys.executable)


@pytest.fixture
def listener() -> Iterator[Tripwire]:
    with Tripwire() as server:
        yield server


@pytest.fixture(params=["bwrap", "unshare"])
def method(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, require_program: Callable[..., str]
) -> str:
    """Each seal this machine must offer, forced (CI installs bubblewrap and runs as root)."""
    name = str(request.param)
    require_seal(name, require_program)
    monkeypatch.setenv(seal.FORCE_VARIABLE, name)
    return name


def require_seal(name: str, require_program: Callable[..., str]) -> None:
    """The seal's program, and the seal working here: `unshare` is on every Linux, but makes no network
    namespace for a user who is not root where user namespaces are refused (inside a chroot, or a
    kernel that turns them off). Forced there, every sealed program would fail to start, and the
    tests of what a seal keeps out would pass for that reason alone."""
    require_program(name)
    if name == "unshare" and not seal.unshare_prefix():
        unavailable(
            "needs an unshare that works: it makes no network namespace here (not root, no user namespaces)"
        )


def connect(port: int) -> list[str]:
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3); print('reached')"
    return [PYTHON, "-c", code]


def test_a_sealed_program_reaches_no_listener(method: str, listener: Tripwire) -> None:
    outcome = run_program(connect(listener.port), timeout=60)
    assert outcome.returncode != 0
    assert "reached" not in outcome.output
    assert listener.hits == []


def test_the_same_program_unsealed_does_reach_it(monkeypatch: pytest.MonkeyPatch, listener: Tripwire) -> None:
    monkeypatch.setenv(seal.FORCE_VARIABLE, "none")  # proves the test above can fail
    outcome = run_program(connect(listener.port), timeout=60)
    assert "reached" in outcome.output


@pytest.fixture
def bwrap(monkeypatch: pytest.MonkeyPatch, require_program: Callable[..., str]) -> None:
    require_program("bwrap")
    monkeypatch.setenv(seal.FORCE_VARIABLE, "bwrap")


def test_in_a_task_scope_only_the_task_directories_are_writable(bwrap: None, tmp_path: Path) -> None:
    data = tmp_path / "data"
    work, out = data / "work" / "t1", data / "tasks" / "t1"
    other = data / "tasks" / "t0"
    other.mkdir(parents=True)
    given = other / "in.txt"
    given.write_text("input")
    (data / "secret").write_text("signing key")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    script = (
        "import pathlib, sys\n"
        "def attempt(label, action):\n"
        "    try:\n"
        "        action(); print(label, 'ok')\n"
        "    except OSError as exc:\n"
        "        print(label, 'refused', type(exc).__name__)\n"
        f"attempt('work', lambda: pathlib.Path({str(work / 'w')!r}).write_text('x'))\n"
        f"attempt('out', lambda: pathlib.Path({str(out / 'o')!r}).write_text('x'))\n"
        f"attempt('input', lambda: print(pathlib.Path({str(given)!r}).read_text()))\n"
        f"attempt('secret', lambda: print(pathlib.Path({str(data / 'secret')!r}).read_text()))\n"
        f"attempt('outside', lambda: pathlib.Path({str(outside / 'x')!r}).write_text('x'))\n"
        "attempt('usr', lambda: pathlib.Path('/usr/mcv-probe').write_text('x'))\n"
    )
    scope = TaskScope(writable=(work, out), readable=(given,), hidden=(data,))
    with task_scope(scope):
        outcome = run_program([PYTHON, "-c", script], cwd=work, timeout=60)
    lines = outcome.output.splitlines()
    assert "work ok" in lines
    assert "out ok" in lines
    assert "input" in lines
    assert "input ok" in lines
    assert any(line.startswith("secret refused") for line in lines), outcome.output
    assert "signing key" not in outcome.output
    assert any(line.startswith("outside refused") for line in lines), outcome.output
    assert any(line.startswith("usr refused") for line in lines), outcome.output
    assert (work / "w").read_text() == "x"
    assert (out / "o").read_text() == "x"
    assert not (outside / "x").exists()


def test_a_private_tmp_hides_the_machines(bwrap: None, tmp_path: Path) -> None:
    marker = Path("/tmp") / f"mcv-seal-probe-{tmp_path.name}"
    marker.write_text("x")
    try:
        code = f"import os; print('seen' if os.path.exists({str(marker)!r}) else 'hidden')"
        with task_scope(TaskScope(writable=(tmp_path / "work",))):
            outcome = run_program([PYTHON, "-c", code], cwd=tmp_path / "work", timeout=60)
        assert outcome.output.strip() == "hidden"
    finally:
        marker.unlink()


@pytest.mark.parametrize("forced", ["bwrap", "unshare", "none"])
def test_limits_are_set_whatever_the_seal(
    forced: str, monkeypatch: pytest.MonkeyPatch, require_program: Callable[..., str]
) -> None:
    if forced != "none":
        require_seal(forced, require_program)
    monkeypatch.setenv(seal.FORCE_VARIABLE, forced)
    code = (
        "import resource as r\n"
        "print(*(r.getrlimit(k)[0] for k in (r.RLIMIT_AS, r.RLIMIT_CPU, r.RLIMIT_FSIZE, r.RLIMIT_NPROC)))"
    )
    outcome = run_program([PYTHON, "-c", code], timeout=60)
    memory, cpu, size, processes = (int(value) for value in outcome.output.split())
    limits = seal.DEFAULT_LIMITS
    assert (memory, cpu, size) == (limits.memory, limits.cpu_seconds, limits.file_size)
    assert limits.processes < processes < 10_000_000


def test_a_file_larger_than_the_limit_is_not_written(tmp_path: Path) -> None:
    small = seal.Limits(file_size=4096)
    preexec = seal.limits_setter(small)  # the fallback where prlimit is missing
    target = tmp_path / "big.bin"
    done = subprocess.run(
        [PYTHON, "-c", f"open({str(target)!r}, 'wb').write(b'x' * 100_000)"],
        preexec_fn=preexec,
        capture_output=True,
        check=False,
    )
    assert done.returncode != 0
    assert target.stat().st_size <= 4096


def test_a_missing_program_is_still_named(bwrap: None, tmp_path: Path) -> None:
    with pytest.raises(EngineError) as caught:
        run_program([str(tmp_path / "no-such-program")])
    assert caught.value.code == "PROGRAM_NOT_STARTED"
    with pytest.raises(EngineError):
        run_program(["mcv-no-such-program"])


_ENDED_SERVICE = """
import os, sys, time
from mcv_pipelines.service.engines import seal
program = [sys.argv[1], "-c", f"open({sys.argv[2]!r}, 'w').close()"]
argv = seal.sealed_argv(program, None, seal.seal_method(), None)
child = os.fork()
if child == 0:
    time.sleep(1.0)  # the moment between the fork and the program's start, made long
    os.execv(argv[0], argv)
if sys.argv[3] == "wait":
    os.waitpid(child, 0)
os._exit(0)  # killed, as far as the program can tell: nothing of the service runs after this
"""


@pytest.mark.parametrize("service", ["waits", "ends"])
def test_a_program_whose_service_ended_before_it_started_never_runs(
    method: str, service: str, tmp_path: Path, require_program: Callable[..., str]
) -> None:
    """A service killed between forking a program and the program's parent-death signal could not
    send it: the program ran on after the service (CI saw a bwrap left after kill -9). The seal's start
    checks, once the signal is set, that its parent is still the service."""
    require_program("setpriv")
    ran = tmp_path / "ran"
    mode = "wait" if service == "waits" else "end"
    subprocess.run([sys.executable, "-c", _ENDED_SERVICE, PYTHON, str(ran), mode], check=True, timeout=60)
    if service == "waits":
        assert ran.exists()  # the same start runs while its service is there
        return
    time.sleep(3.0)  # the start waits 1 s, the program itself takes a fraction of one
    assert not ran.exists()


_THREADS = """
import sys, threading
threading.stack_size(64 * 1024)
done = threading.Event()
for _ in range(int(sys.argv[1])):
    threading.Thread(target=done.wait, daemon=True).start()
print("up", flush=True)
sys.stdin.read()
"""


def _user_threads() -> int:
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == os.getuid():
                    status = Path(entry.path, "status").read_text()
                    count += int(status.split("\nThreads:", 1)[1].split()[0])
            except (OSError, IndexError, ValueError):
                continue
    return count


def test_the_process_limit_stands_above_the_threads_the_user_runs_already() -> None:
    """RLIMIT_NPROC counts every thread of the user. The limit a sealed program gets was set above
    the user's processes only, so on a busy service of an ordinary user (warm browsers and office
    suites have dozens of threads each) a program's first thread failed: pandoc's "Itimer: Failed to
    spawn thread" under Landlock. Root is not held to the limit, so this is checked on the number."""
    many = 500
    helper = subprocess.Popen(
        [sys.executable, "-c", _THREADS, str(many)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert helper.stdout is not None
        assert helper.stdout.readline().strip() == "up"
        time.sleep(1.1)  # the seal counts at most once a second
        nproc = dict(seal.limit_pairs(seal.DEFAULT_LIMITS))[resource.RLIMIT_NPROC][0]
        running = _user_threads()
    finally:
        helper.communicate("", timeout=30)
    # other tests' threads come and go between the two counts: a margin well under the helper's 500
    wanted = running + seal.DEFAULT_LIMITS.processes - 150
    hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    if hard != resource.RLIM_INFINITY and hard < wanted:
        unavailable(
            f"needs a hard RLIMIT_NPROC above {wanted} (it is {hard} here): the seal caps its limit there"
        )
    assert nproc >= wanted
