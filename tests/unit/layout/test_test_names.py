"""Test modules are imported by their file name (no packages under tests/): two files of one name
stop the whole suite at collection, so every test file's name is unique across tests/."""

from __future__ import annotations

import collections
from pathlib import Path

TESTS = Path(__file__).resolve().parents[2]


def test_every_test_module_name_is_unique() -> None:
    names = collections.defaultdict(list)
    for path in TESTS.rglob("*.py"):
        if "__pycache__" not in path.parts:
            names[path.name].append(str(path.relative_to(TESTS)))
    clashes = {name: paths for name, paths in names.items() if len(paths) > 1 and name != "conftest.py"}
    assert clashes == {}, f"rename one of each: {clashes}"
