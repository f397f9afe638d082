"""Manifest throughput and memory: a generated CSV (1,000,000 rows by default) read through the manifest
reader, row keys, shard membership, duplicate-key checks and journal insertion.

    .venv/bin/python bench/manifest.py [--rows N] [--format csv|jsonl|yaml]

Each case runs twice: once plain for rows/s, once under tracemalloc for the peak of Python memory.
SQLite's own page cache (about 2 MiB a connection by default) is outside what tracemalloc sees.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from mcv_pipelines.batch.journal import Journal, NewRow
from mcv_pipelines.batch.keys import KeyRegistry, row_key
from mcv_pipelines.batch.manifest import open_manifest
from mcv_pipelines.batch.meta import BatchMeta
from mcv_pipelines.batch.naming import CollisionFinder
from mcv_pipelines.batch.shard import parse_shard

PARAMS = {"photo", "width", "quality"}


def generate(path: Path, rows: int, format: str) -> None:
    with path.open("w", encoding="utf-8", newline="") as out:
        if format == "csv":
            out.write("id,photo,width,quality,note\n")
        for i in range(rows):
            cells = {"id": f"sku-{i:07d}", "photo": f"photos/p{i:07d}.jpg", "width": str(320 + i % 5 * 160),
                     "quality": str(60 + i % 40), "note": "café, \"quoted\"" if i % 10 == 0 else "plain"}
            if format == "csv":
                note = cells["note"].replace('"', '""')
                out.write(f'{cells["id"]},{cells["photo"]},{cells["width"]},{cells["quality"]},"{note}"\n')
            elif format == "jsonl":
                out.write(json.dumps(cells, ensure_ascii=False) + "\n")
            else:
                out.write("- " + json.dumps(cells, ensure_ascii=False) + "\n")


def cases(path: Path, work: Path) -> dict[str, Callable[[], int]]:
    manifest = open_manifest(path, params=PARAMS)
    shard = parse_shard("1/4")

    def read() -> int:
        return sum(1 for _ in manifest)

    def keyed() -> int:
        return sum(1 for row in manifest if row_key(row))

    def sharded() -> int:
        return sum(1 for row in manifest if row_key(row) in shard)

    def unique() -> int:
        with KeyRegistry(manifest.label) as registry:
            for row in manifest:
                registry.add(row_key(row, "id"), row)
            return len(registry)

    def collisions() -> int:
        with CollisionFinder() as finder:
            for row in manifest:
                photo = Path(row.params["photo"])
                finder.add(row_key(row), row.index, [f"out/{photo.stem}/{photo.stem}.webp"])
            return finder.count

    def journaled() -> int:
        journal_path = work / f"j-{time.monotonic_ns()}.sqlite"
        meta = BatchMeta("p.yaml", "p", manifest.label, "m", shard=str(shard))
        with Journal.open(journal_path, meta) as journal:
            journal.add_rows(
                NewRow(key, row.index, row.params, row.line)
                for row in manifest
                if (key := row_key(row)) in shard
            )
            return journal.counts().total

    return {
        "read rows": read,
        "read + hashed key": keyed,
        "read + key + shard 1/4": sharded,
        "read + --key id + duplicate check": unique,
        "read + key + output collision check": collisions,
        "read + key + shard 1/4 + journal insert": journaled,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--format", choices=["csv", "jsonl", "yaml"], default="csv")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        path = work / f"manifest.{args.format}"
        generate(path, args.rows, args.format)
        size = path.stat().st_size / 1e6
        print(f"{args.rows:,} rows, {args.format}, {size:.1f} MB\n")
        print(f"{'case':<46} {'kept':>10} {'seconds':>8} {'rows/s':>10} {'peak MiB':>9}")
        for name, run in cases(path, work).items():
            start = time.perf_counter()
            count = run()
            seconds = time.perf_counter() - start
            tracemalloc.start()
            run()
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            rate = args.rows / seconds  # rows read per second, kept or not
            print(f"{name:<46} {count:>10,} {seconds:>8.2f} {rate:>10,.0f} {peak:>9.2f}")


if __name__ == "__main__":
    main()
