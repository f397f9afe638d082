"""How long `mcv test` takes over the recipes, by number of cases at once, and what one golden
comparison of pictures costs.

    .venv/bin/python bench/recipe_tests.py [--jobs 1,4,8] [--rounds 3] [PATHS...]

Each row runs `mcv test PATHS` (default pipelines/) as a user would, in a fresh process on the embedded
service with a new data directory, and prints its wall time (the embedded service's start included),
the CPU seconds of mcv and everything it started, and the cases passed, failed and skipped. A second
table times ``image_similarity`` on a 6-megapixel photo against a re-encoding of it, as JPEG (Pillow
decodes a JPEG at an eighth of its size) and as PNG (decoded whole). Nothing is asserted: read the
tables, and compare runs made back to back on one machine.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

from mcv_pipelines.testing.similarity import image_similarity

ROOT = Path(__file__).resolve().parents[1]
_COUNT = re.compile(r"(\d+) (passed|failed|skipped|invalid|error)")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(paths: list[str], jobs: int) -> tuple[float, float, dict[str, int]]:
    with tempfile.TemporaryDirectory(prefix="mcv-bench-") as scratch:
        env = {
            **os.environ,
            "MCV_DATA_DIR": str(Path(scratch) / "data"),
            "MCV_CONFIG": str(Path(scratch) / "none"),
        }
        for name in ("MCV_API_KEY", "MCV_BASE_URL"):
            env.pop(name, None)
        cpu = _children_cpu()
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "mcv_pipelines", "test", "-j", str(jobs), *paths],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        wall = time.monotonic() - started
        last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()
        counts = {word: int(number) for number, word in _COUNT.findall(last)}
        if done.returncode not in (0, 1):
            print(f"mcv test exited {done.returncode}: {done.stderr.strip()[-400:]}", file=sys.stderr)
        return wall, _children_cpu() - cpu, counts


def similarity_rows(rounds: int) -> list[tuple[str, float]]:
    rows: list[tuple[str, float]] = []
    with (
        tempfile.TemporaryDirectory(prefix="mcv-bench-") as scratch,
        Image.open(ROOT / "pipelines" / "assets" / "photo.jpg") as photo,
    ):
        large = photo.convert("RGB").resize((3000, 2000), Image.Resampling.BICUBIC)
        for fmt, suffix, options in (("JPEG", "jpg", {"quality": 85}), ("PNG", "png", {})):
            a, b = Path(scratch) / f"a.{suffix}", Path(scratch) / f"b.{suffix}"
            large.save(a, fmt, **options)
            large.rotate(0.5).save(b, fmt, **options)
            times = []
            for _ in range(rounds):
                started = time.perf_counter()
                image_similarity(a, b)
                times.append(time.perf_counter() - started)
            rows.append((fmt, statistics.median(times) * 1000))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", default="1,4,8", help="cases at once, comma-separated (default 1,4,8)")
    parser.add_argument("--rounds", type=int, default=3, help="runs per row; the median is shown")
    parser.add_argument("paths", nargs="*", default=["pipelines/"])
    args = parser.parse_args()
    print(f"mcv test {' '.join(args.paths)}  (median of {args.rounds}; {os.cpu_count()} cores)")
    print(f"{'jobs':>4}  {'wall s':>7}  {'cpu s':>6}  {'passed':>6}  {'failed':>6}  {'skipped':>7}")
    for jobs in (int(j) for j in args.jobs.split(",")):
        runs = [run_once(args.paths, jobs) for _ in range(args.rounds)]
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        counts = runs[-1][2]
        print(
            f"{jobs:>4}  {wall:>7.1f}  {cpu:>6.1f}  {counts.get('passed', 0):>6}  "
            f"{counts.get('failed', 0):>6}  {counts.get('skipped', 0):>7}"
        )
    print()
    print("image_similarity, 3000x2000 photo against a re-encoding (median of 5)")
    for fmt, ms in similarity_rows(5):
        print(f"  {fmt:<5} {ms:>7.1f} ms")


if __name__ == "__main__":
    main()
