"""Issue 50: the test suite's wall time by number of workers, and where each run's time goes.

    .venv/bin/python bench/suite.py [--workers 0,4] [--top 15] [PYTEST ARGS...]

Runs pytest once per worker count (0: one process, one test at a time, as the suite ran before issue
50; N: N pytest-xdist workers, each file on one worker, slowest files first, as scripts/test.sh runs
it), with the given pytest arguments (default: the whole suite), and prints one row a run: wall
seconds, the CPU seconds of pytest and everything it started, the load that makes (CPU / wall, out of
the machine's cores), and the tests passed, failed and skipped. With ``--top N`` it then prints the N
files that took longest in the last run (setup, call and teardown together, as ``--store-durations``
writes them): the first candidates for a shared server or a wait on a condition instead of a sleep.

Set MCV_REQUIRE_ENGINES=1 and HYPOTHESIS_PROFILE=long for CI's suite. Nothing is asserted: read the
table, and compare runs made back to back on one machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_COUNT = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected)")


def _counts(output: str) -> dict[str, int]:
    lines = [
        line for line in output.splitlines() if " in " in line and ("passed" in line or "failed" in line)
    ]
    found: dict[str, int] = defaultdict(int)
    for number, word in _COUNT.findall(lines[-1] if lines else ""):
        found[word.rstrip("s") if word.startswith("error") else word] += int(number)
    return found


def run(workers: int, args: list[str], seconds: Path) -> tuple[float, float, dict[str, int]]:
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--store-durations={seconds}"]
    argv += ["-n", str(workers)]
    if workers:
        argv += ["--dist", "loadfile", "--no-loadscope-reorder"]
    before = os.times()
    started = time.monotonic()
    done = subprocess.run([*argv, *args], cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.monotonic() - started
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    counts = _counts(done.stdout)
    if done.returncode not in (0, 1):
        print(done.stdout[-2000:], done.stderr[-2000:], sep="\n", file=sys.stderr)
    return wall, cpu, counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="0,4", help="worker counts to run, comma-separated (0: none)")
    parser.add_argument("--top", type=int, default=0, help="print the N slowest files of the last run")
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER, help="pytest's arguments (default: all)")
    options = parser.parse_args()
    counts = [int(word) for word in options.workers.split(",")]
    cores = os.cpu_count() or 1
    print(f"{'workers':>7} {'wall s':>8} {'cpu s':>8} {'load':>6} {'passed':>7} {'failed':>7} {'skipped':>8}")
    with tempfile.TemporaryDirectory() as scratch:
        seconds = Path(scratch) / "durations.json"
        for workers in counts:
            wall, cpu, found = run(workers, options.pytest_args, seconds)
            print(
                f"{workers:>7} {wall:8.1f} {cpu:8.1f} {cpu / wall:6.2f} {found['passed']:>7} "
                f"{found['failed'] + found['error']:>7} {found['skipped']:>8}   (of {cores} cores)",
                flush=True,
            )
        if options.top and seconds.exists():
            print("\nslowest files of the last run (seconds):")
            files = sorted(json.loads(seconds.read_text()).items(), key=lambda item: -item[1])
            for file, took in files[: options.top]:
                print(f"{took:8.1f}  {file}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
