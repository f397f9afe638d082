"""Issue 40: SQL statements and transactions per tiny row, on the service's side, by statement.

    .venv/bin/python bench/statements.py [--rows 100] [--team] [--against SRC]

Runs bench/photos.py's tiny rows (16x16 PNG -> webp, --concurrency 8) through `mcv batch` against
one fresh `mcv serve` (embedded SQLite), or with --team against 1 API + 2 workers on PostgreSQL and S3,
and counts every statement the service processes run while the batch runs: sqlite3's trace callback,
or each psycopg ``Connection.execute``, installed by a ``sitecustomize`` this script writes into a
temporary directory put first on the services' PYTHONPATH (the client is not traced). Prints
statements and transactions (BEGIN) per row, then each statement (values folded to ? and N) with
its count per row. A claim loop's idle polls count too: they are work the rows cause.
With --against SRC the services run another source tree (a whole checkout's src/), for a before/after.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
import photos  # its service and batch helpers, beside this file

# Written as the services' sitecustomize: counts statements, dumps them to $MCV_BENCH_SQL.<pid>.
TRACER = r'''
import collections, json, os, re, threading, time

_out = os.environ.get("MCV_BENCH_SQL")
if _out:
    _counts = collections.Counter()
    _lock = threading.Lock()
    _file = f"{_out}.{os.getpid()}"

    def _trace(sql):
        text = " ".join(str(sql).split())
        text = re.sub(r"'(?:[^']|'')*'", "?", text)
        text = re.sub(r"\b\d+(\.\d+)?\b", "N", text)[:110]
        with _lock:
            _counts[text] += 1

    def _dump():
        with _lock:
            data = dict(_counts)
        with open(_file + ".tmp", "w") as f:
            json.dump(data, f)
        os.replace(_file + ".tmp", _file)

    def _loop():
        while True:
            time.sleep(0.3)
            _dump()

    import sqlite3
    _connect = sqlite3.connect

    def _traced_connect(*args, **kwargs):
        connection = _connect(*args, **kwargs)
        connection.set_trace_callback(_trace)
        return connection

    sqlite3.connect = _traced_connect
    try:
        import psycopg
    except ImportError:
        pass
    else:
        _execute = psycopg.Connection.execute

        def _traced_execute(self, query, params=None, **kwargs):
            _trace(query)
            return _execute(self, query, params, **kwargs)

        psycopg.Connection.execute = _traced_execute
    threading.Thread(target=_loop, daemon=True).start()
'''


def _snapshot(prefix: Path) -> dict[str, dict[str, int]]:
    found = {}
    for path in prefix.parent.glob(prefix.name + ".*"):
        if not path.name.endswith(".tmp"):
            found[path.name] = json.loads(path.read_text())
    return found


def _difference(before: dict[str, dict[str, int]], after: dict[str, dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for name, counts in after.items():
        for sql, count in counts.items():
            total[sql] = total.get(sql, 0) + count - before.get(name, {}).get(sql, 0)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=100, help="tiny rows (default 100)")
    parser.add_argument("--team", action="store_true", help="1 API + 2 workers on PostgreSQL + S3")
    parser.add_argument("--against", type=Path, default=None, metavar="SRC", help="run the services from SRC")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcv-bench-sql-") as tmp:
        root = Path(tmp)
        (root / "trace").mkdir()
        (root / "trace" / "sitecustomize.py").write_text(TRACER)
        images = []
        for i in range(args.rows):
            path = root / f"t{i:04d}.png"
            Image.new("RGB", (16, 16), (i % 256, (i * 7) % 256, 90)).save(path)
            images.append(str(path))
        prefix = root / "counts"
        path = [str(root / "trace"), *([str(args.against)] if args.against else [])]
        # the services inherit this environment; run_batch keeps the client's own (untraced)
        os.environ.update(PYTHONPATH=os.pathsep.join(path), MCV_BENCH_SQL=str(prefix))
        code = {"PYTHONPATH": str(args.against)} if args.against else {}
        if args.team:
            with photos.team(root / "team") as (base, pids, _servers):
                time.sleep(1.5)
                before = _snapshot(prefix)
                run = photos.run_batch(root / "rows", photos.TINY_PIPELINE, images, base, 8, pids, code)
                time.sleep(1.5)
                after = _snapshot(prefix)
        else:
            key = {"MCV_SERVE_API_KEY": photos.KEY}
            served = photos.Serve(["--data-dir", str(root / "service")], root / "serve.log", key)
            try:
                time.sleep(1.5)
                before = _snapshot(prefix)
                base, pids = served.base, [served.process.pid]
                run = photos.run_batch(root / "rows", photos.TINY_PIPELINE, images, base, 8, pids, code)
                time.sleep(1.5)
                after = _snapshot(prefix)
            finally:
                served.stop()
    counts = _difference(before, after)
    rows = args.rows
    begins = sum(count for sql, count in counts.items() if sql.upper().startswith("BEGIN"))
    print(f"{'team (1 API + 2 workers, PostgreSQL)' if args.team else 'mcv serve (SQLite)'}, {rows} rows in "
          f"{run.seconds:.1f} s: {sum(counts.values()) / rows:.1f} statements and {begins / rows:.2f} "
          "transactions per row")  # fmt: skip
    for sql, count in sorted(counts.items(), key=lambda pair: -pair[1]):
        if count / rows >= 0.05:
            print(f"{count / rows:7.2f}  {sql}")


if __name__ == "__main__":
    main()
