"""Validate one pipeline 10,000 times with different params in one process; print rows per second.

    .venv/bin/python bench/validate.py [PIPELINE] [--rows N] [--catalog PATH | --no-catalog]

The file is parsed once and its templates compiled once; each row resolves and coerces its params,
renders, and runs the graph, operation and catalog checks (the default snapshot unless told
otherwise), as a batch does before its first request. Target (issue 15): >= 5,000 rows/s with the
catalog.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from mcv_pipelines.catalog.snapshot import select_catalog
from mcv_pipelines.pipeline import OperationSchemas, check_document, load_document
from mcv_pipelines.pipeline.params import declared_params

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = (ROOT / "pipelines" / "product-images.yaml", ROOT / "schemas" / "operations")
FIXTURE = (
    ROOT / "tests" / "examples" / "positive" / "product-images" / "pipeline.yaml",
    ROOT / "tests" / "examples" / "operations",
)
# The shipped example and operation schemas when this checkout has them, else the test fixture.
DEFAULT, DEFAULT_SCHEMAS = (
    SHIPPED if SHIPPED[0].exists() and (SHIPPED[1] / "convert.schema.json").exists() else FIXTURE
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("pipeline", nargs="?", default=str(DEFAULT))
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--schemas", default=str(DEFAULT_SCHEMAS), help="operation schema directory")
    parser.add_argument("--catalog", help="catalog snapshot (default: the shipped one)")
    parser.add_argument("--no-catalog", action="store_true", help="leave the catalog checks out")
    args = parser.parse_args()
    schemas = OperationSchemas(Path(args.schemas))
    catalog, problems = select_catalog(args.catalog, enabled=not args.no_catalog)
    if problems:
        print("\n".join(str(p) for p in problems))

    started = time.perf_counter()
    document = load_document(args.pipeline)
    declared = set(declared_params(document))
    parsed = time.perf_counter()
    first = check_document(document, {}, schemas=schemas, catalog=catalog)
    warm = time.perf_counter()
    cpu_start = time.process_time()
    valid = 0
    for i in range(args.rows):
        # like CSV cells: strings, coerced to each param's declared type
        row = {"photo": f"photos/p{i}.jpg", "quality": str(1 + i % 100), "widths": f"{16 + i % 500},640"}
        values = {name: value for name, value in row.items() if name in declared}
        result = check_document(document, values, source=f"row {i + 1}", schemas=schemas, catalog=catalog)
        valid += result.ok
    done = time.perf_counter()
    cpu = time.process_time() - cpu_start

    rate = args.rows / (done - warm)
    where = "none" if catalog is None else (args.catalog or "the default snapshot")
    print(f"pipeline {args.pipeline}\nschemas  {args.schemas}\ncatalog  {where}\n")
    rows = [
        ("parse (once)", f"{(parsed - started) * 1000:.2f} ms", ""),
        (
            "first check (compiles templates, schemas)",
            f"{(warm - parsed) * 1000:.2f} ms",
            f"{len(first.diagnostics)} diagnostics",
        ),
        (f"{args.rows} rows", f"{(done - warm):.3f} s", f"{valid} valid"),
        ("rows per second (wall clock)", f"{rate:,.0f}", "target >= 5,000 on one core"),
        ("rows per second (CPU time)", f"{args.rows / cpu:,.0f}", "the same, unaffected by other processes"),
        ("per row", f"{(done - warm) / args.rows * 1e6:.1f} us", ""),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'stage':<{width}}  {'time':>12}  note")
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>12}  {note}")


if __name__ == "__main__":
    main()
