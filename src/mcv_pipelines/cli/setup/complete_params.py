"""`mcv __complete-params FILE` (hidden): the params FILE declares, one ``NAME=`` a line.

The shell completion scripts (cli/setup/completion.py) run it on every TAB after ``-p``, so it is quick and
quiet: it reads the YAML with the C loader where there is one and nothing else of the checker, prints
nothing for a file that is missing, unreadable or not a pipeline, and always exits 0.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["declared_params", "register"]

NAME = "__complete-params"


def register(subparsers: Any) -> None:
    # No help=: argparse then leaves the command out of `mcv --help`'s list (it is for the scripts).
    parser: argparse.ArgumentParser = subparsers.add_parser(NAME)
    parser.add_argument("file")
    parser.set_defaults(handler=_run)


def declared_params(text: str) -> list[str]:
    """Names under the top-level ``params`` mapping of a pipeline's text, in their order.

    >>> declared_params("version: 1\\nparams:\\n  photo: {type: string}\\n  quality: {type: integer}\\n")
    ['photo', 'quality']
    """
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        document = yaml.load(text, Loader=loader)  # noqa: S506  # a safe loader, C or Python
    except yaml.YAMLError:
        return []
    params = document.get("params") if isinstance(document, dict) else None
    if not isinstance(params, dict):
        return []
    return [name for name in params if isinstance(name, str)]


def _run(args: argparse.Namespace) -> int:
    try:
        with open(args.file, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return 0
    sys.stdout.write("".join(f"{name}=\n" for name in declared_params(text)))
    return 0
