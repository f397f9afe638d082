"""The files `mcv init` writes: one example pipeline, the schema its modeline names, its assets, the
fixtures and golden files of its test cases, a pre-commit entry and a GitHub workflow, laid out as this
repository is (pipelines/, schemas/).

The examples are the repository's own pipelines/ (shipped in the package as ``examples``), each a
test case of its own, so what `mcv init` copies is known to validate, and its `tests:` are known to pass
with the golden files committed beside it (``<name>.golden/``, written by `mcv test --update-golden`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from mcv_pipelines import __version__

__all__ = [
    "ACTION",
    "EXAMPLES_DIR",
    "MODELINE",
    "REPOSITORY",
    "Example",
    "example_files",
    "examples",
]

PACKAGE = Path(__file__).resolve().parents[2]
EXAMPLES_DIR = PACKAGE / "examples"
SCHEMA = PACKAGE / "schemas" / "pipeline.schema.json"
REPOSITORY = "https://github.com/mcv-pipelines/mcv-pipelines"
ACTION = "mcv-pipelines/mcv-pipelines"
# From pipelines/NAME.yaml to schemas/pipeline.schema.json: the same layout as this repository's.
MODELINE = "# yaml-language-server: $schema=../schemas/pipeline.schema.json"

_DESCRIPTION = re.compile(r"^description:\s*(.+)$", re.MULTILINE)
_ASSET = re.compile(r"\bpipelines/assets/([\w.-]+)")
_IN_PIPELINES = "pipelines/"


@dataclass(frozen=True)
class Example:
    """An example pipeline: ``name`` is what ``--from`` takes (the file's stem)."""

    name: str
    description: str
    path: Path


def examples(directory: Path = EXAMPLES_DIR) -> list[Example]:
    """The example pipelines, by name, with the one-line description each declares."""
    found = []
    for path in sorted(directory.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        described = _DESCRIPTION.search(text)
        found.append(Example(path.stem, described.group(1).strip() if described else "", path))
    return found


def _with_modeline(text: str) -> str:
    lines = text.splitlines(keepends=True)
    if lines and lines[0].startswith("# yaml-language-server:"):
        lines = lines[1:]
    return MODELINE + "\n" + "".join(lines)


PRE_COMMIT = f"""\
# pre-commit: `mcv validate` checks the pipelines a commit changes (https://pre-commit.com).
#   pip install pre-commit && pre-commit install
repos:
  - repo: {REPOSITORY}
    rev: v{__version__}
    hooks:
      - id: mcv-validate
        files: ^pipelines/
"""

WORKFLOW = f"""\
# Checks the pipelines offline on every push and pull request, then runs their test cases for real
# on the embedded local service (`mcv test pipelines/`, golden files included); problems and failed
# expectations show as annotations on their lines. Add `sarif: true` (and the security-events
# permission) for code scanning.
name: pipelines
on:
  push:
    paths: ["pipelines/**", "schemas/**", ".github/workflows/pipelines.yml"]
  pull_request:
    paths: ["pipelines/**", "schemas/**", ".github/workflows/pipelines.yml"]
permissions:
  contents: read
jobs:
  validate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: {ACTION}@v{__version__}
        with:
          paths: pipelines/
          test: true
"""


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def _named_files(text: str) -> list[str]:
    """Paths under pipelines/ that the recipe's params (examples, defaults) and test cases' params
    name, and pipelines/assets/ files its comments name (the run line of its header)."""
    named = [f"{_IN_PIPELINES}assets/{asset}" for asset in _ASSET.findall(text)]
    data = yaml.safe_load(text)
    if isinstance(data, dict):
        for spec in (data.get("params") or {}).values():
            if isinstance(spec, dict):
                named.extend(_strings([spec.get("example"), spec.get("default")]))
        for case in data.get("tests") or []:
            if isinstance(case, dict):
                named.extend(_strings(case.get("params")))
    return [path for path in dict.fromkeys(named) if path.startswith(_IN_PIPELINES)]


def _fixtures(example: Example, text: str) -> dict[str, bytes]:
    """The files the recipe's params and cases name, each a file inside the examples' folder (never
    another recipe)."""
    folder = example.path.parent.resolve()
    files: dict[str, bytes] = {}
    for path in _named_files(text):
        source = (folder / path.removeprefix(_IN_PIPELINES)).resolve()
        recipe = source.parent == folder and source.suffix in (".yaml", ".yml")
        if folder in source.parents and source.is_file() and not recipe:
            files[path] = source.read_bytes()
    return files


def _golden_files(example: Example) -> dict[str, bytes]:
    """The golden files of the recipe's cases: its ``<name>.golden/`` folder, as committed."""
    golden = example.path.parent / f"{example.name}.golden"
    return {
        f"pipelines/{path.relative_to(example.path.parent).as_posix()}": path.read_bytes()
        for path in sorted(golden.rglob("*"))
        if path.is_file() and not path.name.startswith(".")  # as `mcv test` ignores them
    }


def example_files(example: Example) -> dict[str, bytes]:
    """Path (relative to the project) -> content, for every file `mcv init` writes for ``example``."""
    text = example.path.read_text(encoding="utf-8")
    files: dict[str, bytes] = {
        f"pipelines/{example.name}.yaml": _with_modeline(text).encode(),
        "schemas/pipeline.schema.json": SCHEMA.read_bytes(),
    }
    # The files its params and cases name, so that the run line in its header and `mcv test` work as
    # they stand; and the golden files its cases compare with.
    files.update(_fixtures(example, text))
    files.update(_golden_files(example))
    files[".pre-commit-config.yaml"] = PRE_COMMIT.encode()
    files[".github/workflows/pipelines.yml"] = WORKFLOW.encode()
    return files
