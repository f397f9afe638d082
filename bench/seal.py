"""What sealing an engine program costs per run (issue 24: target at most 10 ms per task).

    .venv/bin/python bench/seal.py [RUNS] [--heap MB]

Runs the same programs through ``process.run_program`` with each seal forced in turn
(MCV_ENGINE_SEAL=none|unshare|bwrap|landlock), interleaved run by run so a busy machine disturbs all alike,
inside a task scope like the service's (work and output directories writable, the input readable,
a data directory hidden). Programs: ``true`` (the seal's cost alone) and a small real conversion
(ffmpeg: one second of test video to a 64x48 mp4 when ffmpeg is installed). Prints p50 and mean per
seal and the p50 extra over no seal.

A second table takes the bubblewrap seal apart, ``true`` started bare (subprocess.run, no
run_program around it), each way interleaved: no seal; util-linux ``prlimit`` alone; bwrap with
prlimit(2) from the service (sealed_start.py, what runs); bwrap with ``prlimit`` run inside it (as
before); bwrap showing the whole system read-only instead of the system view (before issue 37); bwrap
without its network, pid or IPC namespace, without its /proc, or only ``--bind / /``.
The child CPU column is user+system time of the processes started, per run.

A third table starts ``true`` under the landlock seal (issue 37) through its starter and through
``preexec_fn``; ``--heap MB`` makes this process hold that much first, as a service does, which only
the ``preexec_fn`` way pays for (a fork of it all).
A fourth table prices the parent-death signal of the unshare/none seals (issue 37): ``true`` bare,
under util-linux ``setpriv --pdeathsig KILL`` (what runs), and with the signal set in Python's
``preexec_fn`` (which makes subprocess fork instead of vfork), with a 200 MB heap held like the service's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.landlock import rules as landlock_rules
from mcv_pipelines.service.engines.landlock import starter
from mcv_pipelines.service.engines.launcher import die_with_parent
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.sealed_start import sealed_start

METHODS = ("none", "unshare", "bwrap", "landlock")


def programs(work: Path) -> dict[str, list[str]]:
    found = {"true": [shutil.which("true") or "/bin/true"]}
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg:
        found["ffmpeg 1 s clip"] = [
            ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
            "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1", str(work / "out.mp4"),
        ]  # fmt: skip
    return found


def usable(method: str) -> bool:
    if method == "landlock":
        return landlock_rules.available()
    return method == "none" or shutil.which("bwrap" if method == "bwrap" else "unshare") is not None


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=40, help="runs of each (default 40)")
    parser.add_argument("--heap", type=int, default=0, metavar="MB",
                        help="hold this much memory first, as a service does")  # fmt: skip
    options = parser.parse_args(argv)
    runs = options.runs
    # Many small objects, like a service's heap: the landlock seal's preexec_fn makes subprocess fork
    # this process instead of vfork-ing it, and a fork copies the page tables of all of it.
    ballast = [bytes(1000) + bytes([i % 256]) for i in range(options.heap * 1000)]
    root = Path(tempfile.mkdtemp(prefix="mcv-bench-seal-"))
    data = root / "data"
    work, out = data / "work" / "t", data / "tasks" / "t"
    work.mkdir(parents=True)
    out.mkdir(parents=True)
    scope = seal.TaskScope(writable=(work, out), hidden=(data,))
    methods = [m for m in METHODS if usable(m)]
    times: dict[tuple[str, str], list[float]] = {}
    try:
        with seal.task_scope(scope):
            for name, command in programs(work).items():
                for _ in range(runs):
                    for method in methods:
                        os.environ[seal.FORCE_VARIABLE] = method
                        started = time.perf_counter()
                        run_checked(command, what=name, cwd=work, timeout=120)
                        times.setdefault((name, method), []).append(time.perf_counter() - started)
    finally:
        os.environ.pop(seal.FORCE_VARIABLE, None)
    print(f"{'program':<18} {'seal':<8} {'runs':>5} {'p50 ms':>8} {'mean ms':>8} {'extra p50 ms':>13}")
    for (name, method), values in times.items():
        p50 = statistics.median(values) * 1000
        base = statistics.median(times[(name, "none")]) * 1000
        extra = "" if method == "none" else f"{p50 - base:+.1f}"
        print(
            f"{name:<18} {method:<8} {len(values):>5} {p50:>8.1f} {statistics.mean(values) * 1000:>8.1f}"
            f" {extra:>13}"
        )
    if "bwrap" in methods:
        with seal.task_scope(scope):
            parts(work, runs * 2)
    if "landlock" in methods:
        landlock_ways(work, runs * 2)
    deaths(runs * 2)
    shutil.rmtree(root, ignore_errors=True)
    del ballast
    return 0


def landlock_ways(work: Path, runs: int) -> None:
    """The landlock seal's two ways of starting ``true``: through the starter (what runs) and through
    Popen's ``preexec_fn``, which forks this whole process (see --heap)."""
    true = [shutil.which("true") or "/bin/true"]
    rules = landlock_rules.task_rules(true, (), (work,))
    limits = seal.limit_pairs(seal.DEFAULT_LIMITS)
    setter = seal.limits_setter(seal.DEFAULT_LIMITS)
    shape = {"stdin": subprocess.DEVNULL, "stdout": subprocess.PIPE, "stderr": subprocess.STDOUT,
             "start_new_session": True, "cwd": work}  # fmt: skip
    starter.warm()
    ways: dict[str, Callable[[], subprocess.Popen[bytes]]] = {
        "no seal": lambda: subprocess.Popen(true, **shape),  # type: ignore[call-overload]  # shape: a dict of Popen keywords
        "landlock, starter (now)": lambda: starter.start(true, rules, limits, **shape),
        "landlock, preexec_fn": lambda: subprocess.Popen(  # type: ignore[call-overload]  # the same keywords
            true, preexec_fn=landlock_rules.prepare(true, (), (work,), setter), **shape
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(runs):
        for name, make in ways.items():
            started = time.perf_counter()
            process = make()
            process.communicate()
            times[name].append(time.perf_counter() - started)
    base = statistics.median(times["no seal"]) * 1000
    print()
    print(f"{'true under landlock, started bare':<34} {'runs':>5} {'p50 ms':>8} {'extra p50 ms':>13}")
    for name, values in times.items():
        p50 = statistics.median(values) * 1000
        print(f"{name:<34} {len(values):>5} {p50:>8.1f} {p50 - base:>+13.1f}")


def _without(options: Sequence[str], name: str, arity: int) -> list[str]:
    kept, skip = [], 0
    for option in options:
        if skip:
            skip -= 1
        elif option == name:
            skip = arity
        else:
            kept.append(option)
    return kept


def parts(work: Path, runs: int) -> None:
    """Where the bubblewrap seal's time goes: ``true`` started bare in each variant."""
    true = [shutil.which("true") or "/bin/true"]
    scope = seal.current_scope()
    wrapper = seal.bwrap_wrapper(work, scope, ())
    limits = seal.limit_argv(seal.DEFAULT_LIMITS) or []
    # The seal as it was before the system view (issue 37): the whole host read-only, data hidden.
    hidden = [item for path in (scope.hidden if scope else ()) for item in ("--tmpfs", str(path))]
    base = wrapper.index("--unshare-net")
    end = base + len(seal._BWRAP_BASE)
    whole = [wrapper[0], "--ro-bind", "/", "/", *wrapper[base:end], *hidden, *wrapper[end:]]
    variants: dict[str, list[str] | None] = {
        "no seal": true,
        "prlimit program alone": [*limits, *true],
        "bwrap, prlimit(2) (now)": None,
        "bwrap + prlimit program (before)": [*wrapper, "--", *limits, *true],
        "bwrap, no limits": [*wrapper, "--", *true],
        "bwrap, no limits, whole system (before)": [*whole, "--", *true],
        "bwrap without --unshare-net": [*_without(wrapper, "--unshare-net", 0), "--", *true],
        "bwrap without --unshare-pid": [*_without(wrapper, "--unshare-pid", 0), "--", *true],
        "bwrap without --unshare-ipc": [*_without(wrapper, "--unshare-ipc", 0), "--", *true],
        "bwrap without --proc": [*_without(wrapper, "--proc", 1), "--", *true],
        "bwrap --bind / / only": [wrapper[0], "--bind", "/", "/", "--", *true],
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(runs):
        for name, argv in variants.items():
            before = os.times()
            started = time.perf_counter()
            if argv is None:
                start = sealed_start(true, work, "bwrap", scope)
                process = subprocess.Popen(start.argv, pass_fds=start.pass_fds, start_new_session=True)
                start.started(process)
                process.wait()
            else:
                subprocess.run(argv, check=True, start_new_session=True)
            times[name].append(time.perf_counter() - started)
            after = os.times()
            cpu[name].append(
                after.children_user + after.children_system - before.children_user - before.children_system
            )
    base = statistics.median(times["no seal"]) * 1000
    print()
    print(f"{'true, started bare':<40} {'runs':>5} {'p50 ms':>8} {'extra p50 ms':>13} {'child CPU ms':>13}")
    for name, values in times.items():
        p50 = statistics.median(values) * 1000
        print(f"{name:<40} {len(values):>5} {p50:>8.1f} {p50 - base:>+13.1f} "
              f"{statistics.mean(cpu[name]) * 1000:>13.1f}")  # fmt: skip


def deaths(runs: int) -> None:
    """What the parent-death signal costs per start: setpriv against ``preexec_fn``."""
    heap = bytearray(b"\x01") * (200 * 1024**2)  # touched pages: a fork copies their tables
    true = [shutil.which("true") or "/bin/true"]
    setpriv = seal.death_argv()
    preexec = die_with_parent()
    variants: dict[str, tuple[list[str], Callable[[], None] | None]] = {"no signal": (true, None)}
    if setpriv:
        variants["setpriv --pdeathsig (now)"] = ([*setpriv, *true], None)
    if preexec is not None:
        variants["preexec_fn prctl"] = (true, preexec)
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(runs):
        for name, (argv, function) in variants.items():
            started = time.perf_counter()
            subprocess.run(argv, check=True, start_new_session=True, preexec_fn=function)
            times[name].append(time.perf_counter() - started)
    base = statistics.median(times["no signal"]) * 1000
    print()
    print(f"{'true, 200 MB heap':<34} {'runs':>5} {'p50 ms':>8} {'extra p50 ms':>13}")
    for name, values in times.items():
        p50 = statistics.median(values) * 1000
        print(f"{name:<34} {len(values):>5} {p50:>8.1f} {p50 - base:>+13.1f}")
    del heap


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
