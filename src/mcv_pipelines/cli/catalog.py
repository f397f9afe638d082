"""`mcv catalog show` and `mcv catalog diff`: what the service can do, and what changed.

Only parsing and wiring; the work is in mcv_pipelines.catalog.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from mcv_pipelines.catalog.diff import diff_catalogs, diff_to_json, diff_to_text
from mcv_pipelines.catalog.formats import normalise_format
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.show import find, show_json, show_text
from mcv_pipelines.catalog.snapshot import load_catalog, load_default_catalog
from mcv_pipelines.errors import ExitCode, UsageError

__all__ = ["register"]


def _catalog(path: str | None) -> Catalog:
    return load_catalog(Path(path)) if path else load_default_catalog()


def _show(args: argparse.Namespace) -> int:
    catalog = _catalog(args.catalog)
    fin = normalise_format(args.input_format) if args.input_format else None
    fout = normalise_format(args.output_format) if args.output_format else None
    result = find(catalog, operation=args.operation, input_format=fin, output_format=fout,
                  engine=args.engine)
    if args.format == "json":
        print(json.dumps(show_json(result), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(show_text(result))
    return int(ExitCode.OK if result.matches else ExitCode.FAILED)


def _diff(args: argparse.Namespace) -> int:
    if args.new is None:
        raise UsageError(
            "comparing a snapshot with the live listing is not available yet; "
            "give two snapshot files: mcv catalog diff OLD NEW"
        )
    old, new = load_catalog(Path(args.old)), load_catalog(Path(args.new))
    diff = diff_catalogs(old, new)
    if args.format == "json":
        payload: dict[str, Any] = {"old": args.old, "new": args.new, **diff_to_json(diff)}
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(diff_to_text(diff))
    return int(ExitCode.OK)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("catalog", help="show the operations catalog or what changed in it")
    commands = parser.add_subparsers(dest="catalog_command", metavar="SUBCOMMAND", required=True)

    show = commands.add_parser("show", help="can it do X, and with which options")
    show.add_argument("--catalog", metavar="PATH", help="a catalog snapshot (default: the bundled one)")
    show.add_argument("--operation", help="e.g. convert, thumbnail, optimize")
    show.add_argument("--input-format", metavar="FMT")
    show.add_argument("--output-format", metavar="FMT")
    show.add_argument("--engine")
    show.add_argument("--format", choices=("text", "json"), default="text")
    show.set_defaults(handler=_show)

    diff = commands.add_parser("diff", help="conversion types and options added, removed or changed")
    diff.add_argument("old", metavar="OLD", help="the older snapshot")
    diff.add_argument("new", metavar="NEW", nargs="?", help="the newer snapshot")
    diff.add_argument("--format", choices=("text", "json"), default="text")
    diff.set_defaults(handler=_diff)
