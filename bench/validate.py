"""Validate one pipeline 10,000 times with different params in one process; print rows per second.

    .venv/bin/python bench/validate.py [PIPELINE] [--rows N]

The file is parsed once and its templates compiled once; each row resolves and coerces its params,
renders, and runs the graph and operation checks, as a batch does before its first request.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from mcv_pipelines.pipeline import OperationSchemas, check_document, load_document

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parent / "tests" / "examples" / "positive" / "product-images" / "pipeline.yaml"
FIXTURE_SCHEMAS = HERE.parent / "tests" / "examples" / "operations"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("pipeline", nargs="?", default=str(DEFAULT))
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--schemas", default=str(FIXTURE_SCHEMAS), help="operation schema directory")
    args = parser.parse_args()
    schemas = OperationSchemas(Path(args.schemas))

    started = time.perf_counter()
    document = load_document(args.pipeline)
    parsed = time.perf_counter()
    first = check_document(document, {}, schemas=schemas)
    warm = time.perf_counter()
    valid = 0
    for i in range(args.rows):
        # like CSV cells: strings, coerced to each param's declared type
        values = {"photo": f"photos/p{i}.jpg", "quality": str(1 + i % 100), "widths": f"{16 + i % 500},640"}
        result = check_document(document, values, source=f"row {i + 1}", schemas=schemas)
        valid += result.ok
    done = time.perf_counter()

    rate = args.rows / (done - warm)
    rows = [
        ("parse (once)", f"{(parsed - started) * 1000:.2f} ms", ""),
        (
            "first check (compiles templates, schemas)",
            f"{(warm - parsed) * 1000:.2f} ms",
            f"{len(first.diagnostics)} diagnostics",
        ),
        (f"{args.rows} rows", f"{(done - warm):.3f} s", f"{valid} valid"),
        ("rows per second", f"{rate:,.0f}", "target >= 5,000"),
        ("per row", f"{(done - warm) / args.rows * 1e6:.1f} us", ""),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'stage':<{width}}  {'time':>12}  note")
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>12}  {note}")


if __name__ == "__main__":
    main()
