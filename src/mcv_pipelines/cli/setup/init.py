"""`mcv init [DIR] [--from EXAMPLE]`: start a project from an example pipeline.

Writes the pipeline (its modeline pointing at the schema written beside it) with its test cases, the
assets its params and cases name, the golden files its cases compare with, a `.pre-commit-config.yaml`
with the mcv-validate hook and a GitHub workflow using the action (validation, then `mcv test`). Asks
nothing unless stdin is a terminal and no ``--from`` was given (then a numbered choice).
Never overwrites: if any of the files exists, nothing is written and the exit code is 2, naming it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from mcv_pipelines.cli.setup.init_files import Example, example_files, examples
from mcv_pipelines.errors import UsageError

__all__ = ["DEFAULT_EXAMPLE", "choose_example", "register"]

DEFAULT_EXAMPLE = "product-images"


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "init",
        help="start a project: a pipeline, its pre-commit hook and CI",
        description="Write an example pipeline into DIR (default: here) with the schema its modeline "
        "names, the assets of its params and test cases, the golden files of its cases, a "
        ".pre-commit-config.yaml entry and a GitHub workflow that validates and tests. On a terminal "
        "without --from, offers a numbered choice of examples; otherwise asks "
        f"nothing (default {DEFAULT_EXAMPLE}). Refuses to overwrite any file (exit 2).",
    )
    parser.add_argument("directory", nargs="?", default=".", metavar="DIR", help="the project (default .)")
    parser.add_argument(
        "--from",
        dest="example",
        metavar="EXAMPLE",
        choices=[example.name for example in examples()],
        help=f"the example pipeline to start from (default {DEFAULT_EXAMPLE})",
    )
    parser.set_defaults(handler=_run)


def choose_example(listed: list[Example], ask: Any = input, say: Any = print) -> Example:
    """A short numbered choice; Enter takes the default. ``ask``/``say`` are the terminal's."""
    default = next(i for i, example in enumerate(listed, 1) if example.name == DEFAULT_EXAMPLE)
    say("Which example should the project start from?")
    for number, example in enumerate(listed, 1):
        say(f"  {number:>2}. {example.name:<22} {example.description}")
    for _ in range(3):
        answer = str(ask(f"number [{default}]: ")).strip()
        if not answer:
            return listed[default - 1]
        if answer.isdigit() and 1 <= int(answer) <= len(listed):
            return listed[int(answer) - 1]
        say(f"  {answer!r} is not one of 1 to {len(listed)}")
    raise UsageError(f"no example chosen; name one with --from (e.g. --from {DEFAULT_EXAMPLE})")


def _run(args: argparse.Namespace) -> int:
    listed = examples()
    if args.example is None and sys.stdin.isatty():
        example = choose_example(listed)
    else:
        name = args.example or DEFAULT_EXAMPLE
        example = next(example for example in listed if example.name == name)
    root = Path(args.directory)
    files = example_files(example)
    for relative in files:
        target = root / relative
        if target.exists() or target.is_symlink():
            raise UsageError(
                f"{target} exists; mcv init overwrites nothing (move it away or pick another DIR)"
            )
    for relative, content in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        # O_EXCL: a file that appeared since the check above is still never overwritten.
        with os.fdopen(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), "wb") as out:
            out.write(content)
        print(f"wrote {target}")
    pipelines = root / "pipelines"
    pipeline = pipelines / f"{example.name}.yaml"
    print(
        f"\nnext:\n  mcv validate {pipelines}\n  mcv test {pipelines}/   (runs the test cases at the end "
        f"of the recipe, golden files included)\n  mcv run {pipeline}   (see its header for the "
        "params)\n  pre-commit install   (runs mcv validate on every commit)"
    )
    return 0
