"""The landlock seal (issue 37): where namespaces are refused, Landlock and a seccomp filter set on each
program keep it to its task's files and off the network. Each probe runs once sealed and once with the
seal off (``none``), which proves the probe can fail."""

from __future__ import annotations

import concurrent.futures
import errno
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine_needs import unavailable
from loopback_listener import Tripwire
from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.landlock import rules as landlock_rules
from mcv_pipelines.service.engines.landlock import ruleset, seccomp
from mcv_pipelines.service.engines.process import run_program
from mcv_pipelines.service.engines.seal import TaskScope, task_scope

PYTHON = os.path.realpath(sys.executable)
ALLOW, DENY = 0x7FFF0000, 0x00050000 | errno.EPERM
AF_INET, AF_UNIX, AF_NETLINK = 2, 1, 16
STREAM, DGRAM, SEQPACKET, CLOEXEC = 1, 2, 5, 0x80000


@pytest.fixture
def landlocked(monkeypatch: pytest.MonkeyPatch) -> None:
    if not landlock_rules.available():
        unavailable(f"Landlock (ABI {ruleset.abi()}) or seccomp cannot be set on this machine")
    monkeypatch.setenv(seal.FORCE_VARIABLE, "landlock")


@pytest.fixture(params=["landlock", "none"])
def method(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    name = str(request.param)
    if name == "landlock" and not landlock_rules.available():
        unavailable(f"Landlock (ABI {ruleset.abi()}) or seccomp cannot be set on this machine")
    monkeypatch.setenv(seal.FORCE_VARIABLE, name)
    return name


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHES))
def test_the_filter_refuses_every_socket_but_a_unix_stream(machine: str) -> None:
    program = seccomp.filter_program(machine)
    assert program is not None
    arch = seccomp.ARCHES[machine]
    audit = arch.audit

    def say(nr: int, *args: int, on: int = audit) -> int:
        return seccomp.verdict(program, nr, on, args)

    assert say(arch.socket, AF_INET, STREAM) == DENY
    assert say(arch.socket, 10, DGRAM) == DENY  # AF_INET6, UDP
    assert say(arch.socket, AF_NETLINK, 3) == DENY
    assert say(arch.socket, AF_UNIX, STREAM | CLOEXEC) == ALLOW
    assert say(arch.socket, AF_UNIX, SEQPACKET) == ALLOW
    assert say(arch.socket, AF_UNIX, DGRAM) == DENY  # could send to any socket path unconnected
    assert say(arch.socket, AF_UNIX | (1 << 32), STREAM) == ALLOW  # the family is an int
    assert say(arch.socketpair, AF_UNIX, STREAM) == ALLOW
    assert say(arch.socketpair, AF_INET, STREAM) == DENY
    assert say(arch.connect, 3, 0, 16) == DENY
    assert all(say(number) == DENY for number in arch.io_uring)
    assert say(0) == ALLOW
    assert say(59) == ALLOW
    assert say(arch.socket, AF_UNIX, STREAM, on=0x40000003) == DENY  # i386 on x86_64: socketcall
    if arch.x32:
        assert say(0x40000000 | arch.socket, AF_UNIX, STREAM) == DENY


def test_an_unknown_architecture_gets_no_filter() -> None:
    assert seccomp.filter_program("riscv64") is None


@pytest.fixture
def task(tmp_path: Path) -> Iterator[tuple[Path, Path, Path]]:
    """A task's work and output directories inside a data directory, and an input of it."""
    data = tmp_path / "data"
    work, out = data / "work" / "t1", data / "tasks" / "t1"
    given = data / "tasks" / "t0" / "in.txt"
    for directory in (work, out, given.parent):
        directory.mkdir(parents=True)
    given.write_text("input text")
    scope = TaskScope(writable=(work, out), readable=(given,), hidden=(data,))
    with task_scope(scope):
        yield work, out, given


def probe(lines: list[tuple[str, str]], work: Path) -> dict[str, str]:
    """Run ``lines`` (label, Python expression) in a sealed program; label -> "ok ..." or "refused"."""
    script = "import os, pathlib, socket\n" + "".join(
        f"try:\n    print({label!r}, 'ok', repr({expression})[:60])\n"
        f"except OSError as exc:\n    print({label!r}, 'refused', exc.errno)\n"
        for label, expression in lines
    )
    outcome = run_program([PYTHON, "-c", script], cwd=work, timeout=60)
    found = {}
    for line in outcome.output.splitlines():
        label, _, rest = line.partition(" ")
        found[label] = rest
    assert len(found) == len(lines), outcome.output
    return found


def test_a_program_reads_and_writes_only_its_task(
    method: str, task: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    work, out, given = task
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.txt").write_text("outside secret")
    (tmp_path / "data" / "signing.key").write_text("service secret")
    root_secret = Path("/root") / f"mcv-landlock-{tmp_path.name}"
    planted = os.geteuid() == 0 and Path("/root").is_dir()
    if planted:
        root_secret.write_text("root secret")
    try:
        seen = probe(
            [
                ("input", f"pathlib.Path({str(given)!r}).read_text()"),
                ("work", f"pathlib.Path({str(work / 'w')!r}).write_text('x')"),
                ("out", f"pathlib.Path({str(out / 'o')!r}).write_text('x')"),
                ("system", "pathlib.Path('/usr/share').is_dir() and os.listdir('/usr/share')[:1]"),
                ("outside", f"pathlib.Path({str(outside / 'secret.txt')!r}).read_text()"),
                ("data", f"pathlib.Path({str(tmp_path / 'data' / 'signing.key')!r}).read_text()"),
                ("shadow", "open('/etc/shadow').read(1)"),
                ("passwd", "open('/etc/passwd').read(1)"),
                ("environ", f"open('/proc/{os.getpid()}/environ').read(1)"),
                ("root", f"pathlib.Path({str(root_secret)!r}).read_text()" if planted else "open('/')"),
                ("tmp", "os.listdir('/tmp')"),
                ("write_outside", f"pathlib.Path({str(outside / 'w')!r}).write_text('x')"),
            ],
            work,
        )
    finally:
        if planted:
            root_secret.unlink()
    assert seen["input"].startswith("ok")
    assert "input text" in seen["input"]
    assert seen["work"].startswith("ok")
    assert seen["out"].startswith("ok")
    assert seen["system"].startswith("ok")
    sealed = method == "landlock"
    for label in (
        "outside",
        "data",
        "shadow",
        "passwd",
        "environ",
        "tmp",
        "write_outside",
        *(["root"] if planted else []),
    ):
        # Unsealed, only root reads /etc/shadow: another user is refused by the file's own mode.
        refused = sealed or (label == "shadow" and os.geteuid() != 0)
        assert seen[label].startswith("refused") is refused, (label, seen[label])
    assert (work / "w").read_text() == "x"
    assert (outside / "w").exists() is not sealed


@pytest.fixture
def udp_listener() -> Iterator[socket.socket]:
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.settimeout(0.5)
    with listener:
        yield listener


def test_a_program_reaches_no_tcp_or_udp_listener(
    method: str, task: tuple[Path, Path, Path], udp_listener: socket.socket
) -> None:
    work = task[0]
    udp_port = udp_listener.getsockname()[1]
    with Tripwire() as tcp:
        seen = probe(
            [
                ("tcp", f"socket.create_connection(('127.0.0.1', {tcp.port}), timeout=3).send(b'hello')"),
                (
                    "udp",
                    "socket.socket(socket.AF_INET, socket.SOCK_DGRAM)"
                    f".sendto(b'hi', ('127.0.0.1', {udp_port}))",
                ),
                ("raw_unix_dgram", "socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)"),
                ("pair", "len(socket.socketpair())"),
            ],
            work,
        )
        hits = list(tcp.hits)
    try:
        udp_got: bytes | None = udp_listener.recv(100)
    except TimeoutError:
        udp_got = None
    assert seen["pair"].startswith("ok")  # programs talk to their own children over Unix pairs
    if method == "landlock":
        assert seen["tcp"].startswith("refused")
        assert seen["udp"].startswith("refused")
        assert seen["raw_unix_dgram"].startswith("refused")
        assert hits == []
        assert udp_got is None
    else:
        assert hits
        assert udp_got == b"hi"


def test_a_program_outside_a_task_is_kept_off_the_network_only(landlocked: None) -> None:
    with Tripwire() as tcp:
        code = (
            "import socket, pathlib\n"
            "print(len(pathlib.Path('/etc/hostname').read_text()) > 0)\n"
            f"socket.create_connection(('127.0.0.1', {tcp.port}), timeout=3)\n"
        )
        outcome = run_program([PYTHON, "-c", code], timeout=60)
        assert tcp.hits == []
    assert "True" in outcome.output.splitlines()  # its stdout comes after the traceback: no longer
    assert outcome.returncode != 0  # unbuffered, as the service's PYTHONUNBUFFERED stays the service's


def test_limits_hold_under_landlock(landlocked: None) -> None:
    code = "import resource as r\nprint(r.getrlimit(r.RLIMIT_FSIZE)[0], r.getrlimit(r.RLIMIT_CPU)[0])"
    outcome = run_program([PYTHON, "-c", code], timeout=60)
    limits = seal.DEFAULT_LIMITS
    assert outcome.output.split() == [str(limits.file_size), str(limits.cpu_seconds)]


def test_a_program_gets_default_signal_dispositions(landlocked: None) -> None:
    """As subprocess gives them (restore_signals): the starter is Python, which ignores SIGPIPE and
    SIGXFSZ, and an ignored signal stays ignored across exec."""
    outcome = run_program(["grep", "SigIgn", "/proc/self/status"], timeout=60)
    ignored = int(outcome.output.split()[1], 16)
    assert ignored & (1 << (signal.SIGPIPE - 1) | 1 << (signal.SIGXFSZ - 1)) == 0, outcome.output


def test_the_preexec_fallback_seals_alike(landlocked: None, tmp_path: Path) -> None:
    """What a start that a starter cannot make (descriptors to pass) gets: the same seal, forked."""
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    work = tmp_path / "work"
    work.mkdir()
    preexec = landlock_rules.prepare([PYTHON], (), (work,))
    code = f"open({str(outside)!r}).read()"
    done = subprocess.run(
        [PYTHON, "-c", code], preexec_fn=preexec, capture_output=True, text=True, check=False
    )
    assert done.returncode != 0
    assert "PermissionError" in done.stderr


def test_the_banner_line_names_the_layers(landlocked: None) -> None:
    line = seal.describe()
    assert line.startswith(f"Landlock ABI {ruleset.abi()}")
    assert "seccomp" in line
    assert "bubblewrap" in line  # why not bubblewrap: missing, blocked, or not chosen


def test_a_missing_program_is_still_named(landlocked: None, tmp_path: Path) -> None:
    with pytest.raises(EngineError) as caught:
        run_program([str(tmp_path / "no-such-program")], cwd=tmp_path)
    assert caught.value.code == "PROGRAM_NOT_STARTED"


def test_a_program_the_starter_made_is_stopped_on_timeout(landlocked: None, tmp_path: Path) -> None:
    """The program is the service's own child: its group is killed, its end is seen at once."""
    code = "import os, time; os.fork(); print('started', flush=True); time.sleep(60)"
    started = time.monotonic()
    outcome = run_program([PYTHON, "-c", code], cwd=tmp_path, timeout=2)
    assert outcome.timed_out
    assert "started" in outcome.output
    assert time.monotonic() - started < 20


def test_a_program_holds_only_its_standard_descriptors(landlocked: None, tmp_path: Path) -> None:
    """Not the error pipe its start was told on, which kept a run open as long as the program lived."""
    code = "import os; print(sorted(int(fd) for fd in os.listdir('/proc/self/fd')))"
    outcome = run_program([PYTHON, "-c", code], cwd=tmp_path, timeout=60)
    assert outcome.output.strip() == "[0, 1, 2, 3]"  # 3: the listing's own


def test_programs_started_at_once_each_get_their_own_output(landlocked: None, tmp_path: Path) -> None:
    def one(number: int) -> str:
        work = tmp_path / str(number)
        with task_scope(TaskScope(writable=(work,))):
            return run_program(["/bin/sh", "-c", f"echo {number}; pwd"], cwd=work, timeout=60).output

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        outputs = list(pool.map(one, range(16)))
    assert outputs == [f"{number}\n{tmp_path / str(number)}\n" for number in range(16)]


def test_a_start_with_descriptors_to_pass_is_sealed_alike(landlocked: None, tmp_path: Path) -> None:
    """The starter takes no extra descriptor: such a start falls back to preexec_fn, sealed the same."""
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    work = tmp_path / "work"
    read, write = os.pipe()
    try:
        os.write(write, b"given")
        os.close(write)
        code = (
            f"import os\nprint(os.read({read}, 10).decode())\n"
            f"try:\n    open({str(outside)!r}).read(); print('read')\nexcept OSError:\n    print('refused')"
        )
        with task_scope(TaskScope(writable=(work,))):
            outcome = run_program([PYTHON, "-c", code], cwd=work, pass_fds=(read,), timeout=60)
    finally:
        os.close(read)
    assert outcome.output.split() == ["given", "refused"]


@pytest.mark.parametrize("version", [1, 3, 4, 6])
def test_an_older_abi_seals_with_the_rights_it_knows(landlocked: None, version: int, tmp_path: Path) -> None:
    """A kernel of ABI ``version`` gets a ruleset of only its rights (asked with more, it refuses it)."""
    (tmp_path / "secret.txt").write_text("secret")
    work = tmp_path / "work"
    work.mkdir()
    rules = landlock_rules.rules_for([PYTHON], (), (work,))
    restrict = ruleset.Ruleset(rules).restrictor(version)
    with Tripwire() as tcp:
        code = (
            f"import pathlib, socket\npathlib.Path({str(work / 'w')!r}).write_text('x')\n"
            f"try:\n    open({str(tmp_path / 'secret.txt')!r}).read(); print('read')\n"
            "except OSError:\n    print('refused')\n"
            f"try:\n    socket.create_connection(('127.0.0.1', {tcp.port}), timeout=3); print('connected')\n"
            "except OSError:\n    print('no-tcp')\n"
        )
        done = subprocess.run(
            [PYTHON, "-c", code], preexec_fn=restrict, capture_output=True, text=True, check=False
        )
    assert done.stdout.split() == ["refused", "no-tcp" if version >= 4 else "connected"], done.stderr
    assert (work / "w").read_text() == "x"
