"""What sealing an engine program costs per run (issue 24: target at most 10 ms per task).

    .venv/bin/python bench/seal.py [RUNS]

Runs the same programs through ``process.run_program`` with each seal forced in turn
(MCV_ENGINE_SEAL=none|unshare|bwrap), interleaved run by run so a busy machine disturbs all alike,
inside a task scope like the service's (work and output directories writable, the input readable,
a data directory hidden). Programs: ``true`` (the seal's cost alone) and a small real conversion
(ffmpeg: one second of test video to a 64x48 mp4 when ffmpeg is installed). Prints p50 and mean per
seal and the p50 extra over no seal.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.process import run_checked

METHODS = ("none", "unshare", "bwrap")


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
    return method == "none" or shutil.which("bwrap" if method == "bwrap" else "unshare") is not None


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=40, help="runs of each (default 40)")
    runs = parser.parse_args(argv).runs
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
        shutil.rmtree(root, ignore_errors=True)
    print(f"{'program':<18} {'seal':<8} {'runs':>5} {'p50 ms':>8} {'mean ms':>8} {'extra p50 ms':>13}")
    for (name, method), values in times.items():
        p50 = statistics.median(values) * 1000
        base = statistics.median(times[(name, "none")]) * 1000
        extra = "" if method == "none" else f"{p50 - base:+.1f}"
        print(
            f"{name:<18} {method:<8} {len(values):>5} {p50:>8.1f} {statistics.mean(values) * 1000:>8.1f}"
            f" {extra:>13}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
