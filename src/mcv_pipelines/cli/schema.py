"""`mcv schema [--catalog PATH] [-o FILE]`: print the pipeline schema editors use.

Only parsing and wiring; the schema is made by mcv_pipelines.pipeline.editor_schema.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from mcv_pipelines.catalog.snapshot import load_catalog, load_default_catalog
from mcv_pipelines.cli.options import operation_schemas
from mcv_pipelines.errors import ExitCode, UsageError
from mcv_pipelines.pipeline.editor_schema import build_editor_schema, dumps_editor_schema

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "schema",
        help="print the pipeline schema editors use (options, formats, docs)",
        description="Make the JSON Schema of pipeline files that editors use through the "
        "yaml-language-server modeline: every operation's options with their types, values, defaults "
        "and docs, from the operation schemas and an operations catalog. The committed "
        "schemas/pipeline.schema.json is `mcv schema -o schemas/pipeline.schema.json`; for another "
        "service, `mcv catalog pull --out my.json` then `mcv schema --catalog my.json > my.schema.json`.",
    )
    parser.add_argument(
        "--catalog",
        metavar="PATH",
        help="operations catalog snapshot to take formats, engines and options from "
        "(default: the bundled schemas/catalog/local.json)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write the schema to FILE (default: stdout)")
    parser.add_argument(
        "--operation-schemas",
        metavar="DIR",
        help="operation schemas to make it from (default: the shipped schemas/operations/)",
    )
    parser.set_defaults(handler=run)


def _write(path: Path, text: str) -> None:
    """Replace ``path`` atomically: an editor never reads half a schema."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise UsageError(f"--output {path}: cannot write there: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def run(args: argparse.Namespace) -> int:
    catalog = load_catalog(Path(args.catalog)) if args.catalog else load_default_catalog()
    text = dumps_editor_schema(build_editor_schema(catalog, operation_schemas(args)))
    if args.output:
        _write(Path(args.output), text)
        print(f"wrote the pipeline schema for {catalog.source} to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return int(ExitCode.OK)
