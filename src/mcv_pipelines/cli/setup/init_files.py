"""The files `mcv init` writes: one example pipeline, the schema its modeline names, its assets, a
pre-commit entry and a GitHub workflow, laid out as this repository is (pipelines/, schemas/).

The examples are the repository's own pipelines/ (shipped in the package as ``examples``), each a
test case of its own, so what `mcv init` copies is known to validate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

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
# Checks the pipelines offline on every push and pull request; problems show as annotations on the
# changed lines. Add `sarif: true` (and the security-events permission) for code scanning.
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
"""


def example_files(example: Example) -> dict[str, bytes]:
    """Path (relative to the project) -> content, for every file `mcv init` writes for ``example``."""
    text = example.path.read_text(encoding="utf-8")
    files: dict[str, bytes] = {
        f"pipelines/{example.name}.yaml": _with_modeline(text).encode(),
        "schemas/pipeline.schema.json": SCHEMA.read_bytes(),
    }
    # The assets its params name as examples, so the run line in its header works as it stands.
    for asset in dict.fromkeys(_ASSET.findall(text)):
        source = example.path.parent / "assets" / asset
        if source.is_file():
            files[f"pipelines/assets/{asset}"] = source.read_bytes()
    files[".pre-commit-config.yaml"] = PRE_COMMIT.encode()
    files[".github/workflows/pipelines.yml"] = WORKFLOW.encode()
    return files
