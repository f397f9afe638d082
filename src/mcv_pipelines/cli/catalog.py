"""`mcv catalog show|pull|diff`: what the service can do, saving its listing, and what changed.

Only parsing and wiring; the work is in mcv_pipelines.catalog.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from mcv_pipelines.api.settings import Settings
from mcv_pipelines.catalog.diff import diff_catalogs, diff_to_json, diff_to_text
from mcv_pipelines.catalog.formats import normalise_format
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.show import find, show_json, show_text
from mcv_pipelines.catalog.snapshot import default_catalog_path, load_catalog, load_default_catalog
from mcv_pipelines.cli import connection
from mcv_pipelines.errors import ExitCode
from mcv_pipelines.run.live_listing import live_catalog, pull_live

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


def _settings(args: argparse.Namespace) -> Settings | None:
    """The configured service, or None for the embedded local one (``--local``, or none configured)."""
    if args.local:
        return None
    if args.api_key:
        print("mcv: warning: --api-key is visible to other users of this machine; prefer MCV_API_KEY",
              file=sys.stderr)
    settings = Settings.resolve(
        api_key=args.api_key, base_url=args.base_url, sync_url=args.sync_url, region=args.region,
        sandbox=args.sandbox, profile=args.profile,
    )
    return settings if settings.is_configured else None


def _diff(args: argparse.Namespace) -> int:
    old = load_catalog(Path(args.old))
    if args.new is None:
        new = live_catalog(_settings(args), connection.CLIENT_FACTORY)
        new_name = new.source
    else:
        new, new_name = load_catalog(Path(args.new)), args.new
    diff = diff_catalogs(old, new)
    if args.format == "json":
        payload: dict[str, Any] = {"old": args.old, "new": new_name, **diff_to_json(diff)}
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(diff_to_text(diff))
    return int(ExitCode.OK)


def _pull(args: argparse.Namespace) -> int:
    path = Path(args.out) if args.out else default_catalog_path().resolve()
    result, source = pull_live(_settings(args), path, connection.CLIENT_FACTORY)
    count = len(result.catalog)
    if args.format == "json":
        payload: dict[str, Any] = {
            "path": str(path), "source": source, "conversion_types": count,
            "changes": diff_to_json(result.changes) if result.changes is not None else None,
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return int(ExitCode.OK)
    print(f"wrote {count} conversion types from {source} to {path}")
    if result.changes is None:
        print("no earlier snapshot to compare with")
    else:
        sys.stdout.write(diff_to_text(result.changes))
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

    pull = commands.add_parser(
        "pull",
        help="save the service's operations listing as a snapshot",
        description="Read GET /v2/operations?include=options,engine_versions&alternatives=true (every "
        "page) and write it, normalised, to a snapshot (atomically: on any error the old one stays).",
    )
    pull.add_argument("--out", metavar="PATH", help="where to write it (default: the bundled local.json)")
    _add_live_options(pull)
    pull.set_defaults(handler=_pull)

    diff = commands.add_parser(
        "diff",
        help="conversion types and options added, removed or changed",
        description="Compare two snapshots, or with one, the snapshot against the live listing.",
    )
    diff.add_argument("old", metavar="SNAPSHOT", help="the older snapshot")
    diff.add_argument("new", metavar="NEW", nargs="?", help="the newer snapshot (default: the live listing)")
    _add_live_options(diff)
    diff.set_defaults(handler=_diff)


def _add_live_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--local",
        action="store_true",
        help="read the embedded local service's listing (the default when no service is configured)",
    )
    connection.add_connection_options(parser)
