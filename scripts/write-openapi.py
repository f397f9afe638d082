#!/usr/bin/env python3
"""Write the service's OpenAPI document to schemas/openapi.json (or check that it is current).

The document is built by mcv_pipelines.service.http.openapi.document, the same code that serves
``GET /openapi.json``; run this after changing a route, an operation schema or the document's code::

    .venv/bin/python scripts/write-openapi.py            # rewrite schemas/openapi.json
    .venv/bin/python scripts/write-openapi.py --check    # exit 1 when the committed file is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcv_pipelines.service.http.openapi.document import document_text

DEFAULT = Path(__file__).resolve().parent.parent / "schemas" / "openapi.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--output", type=Path, default=DEFAULT, help="where to write (default: %(default)s)")
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 when it differs")
    args = parser.parse_args(argv)
    text = document_text()
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            print(f"{args.output}: stale; run scripts/write-openapi.py to regenerate it", file=sys.stderr)
            return 1
        print(f"{args.output}: current")
        return 0
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
