"""Every skip in the suite goes through tests/engine_needs.py, where MCV_REQUIRE_ENGINES=1 turns it into a
failure: CI (``.ci/run``) sets the switch, so a missing program, server or dependency can never leave
CI green with tests that did not run (issue 30).

Read from the source: any ``pytest.skip(...)``, ``pytest.importorskip(...)``, ``pytest.mark.skip`` or
``pytest.mark.skipif`` (or ``unittest``'s skips) outside engine_needs.py is listed, unless the allow-list
below names it with a reason that is not a missing program.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[2]
SKIPPING = frozenset({"skip", "skipif", "importorskip", "skipIf", "skipUnless", "SkipTest"})
# (path under tests/, what it calls): why the skip is not about something missing from the machine.
ALLOWED: dict[tuple[str, str], str] = {}


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def skips_in(source: str) -> list[tuple[int, str]]:
    """(line, name) of every skip the source asks for: ``pytest.skip``, ``pytest.mark.skipif``, ...

    ``pytest.skip.Exception`` (what a test of the helper itself expects) is a name, not a skip.
    """
    tree = ast.parse(source)
    exception_types = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "Exception"
    }
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in exception_types:
            continue
        if isinstance(node, ast.Attribute) and node.attr in SKIPPING:
            name = _dotted(node)
            if name.split(".")[0] in {"pytest", "unittest", "mark"}:
                found.append((node.lineno, name))
        elif isinstance(node, ast.ImportFrom) and node.module in {"pytest", "unittest"}:
            found.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names
                         if alias.name in SKIPPING)
    return sorted(found)


def test_the_scan_finds_each_kind_of_skip() -> None:
    source = (
        "import pytest\n"
        "from pytest import importorskip\n"
        "pytestmark = pytest.mark.skipif(True, reason='no')\n"
        "@pytest.mark.skip(reason='later')\n"
        "def test_a() -> None:\n"
        "    pytest.skip('no ffmpeg')\n"
        "    with pytest.raises(pytest.skip.Exception):\n"
        "        pass\n"
    )
    assert skips_in(source) == [
        (2, "pytest.importorskip"),
        (3, "pytest.mark.skipif"),
        (4, "pytest.mark.skip"),
        (6, "pytest.skip"),
    ]


def test_no_skip_in_the_suite_bypasses_the_switch() -> None:
    bypassing: list[str] = []
    for path in sorted(TESTS.rglob("*.py")):
        relative = path.relative_to(TESTS).as_posix()
        if relative == "engine_needs.py" or path == Path(__file__).resolve():
            continue
        for line, name in skips_in(path.read_text(encoding="utf-8")):
            if (relative, name) not in ALLOWED:
                bypassing.append(f"tests/{relative}:{line}: {name}")
    assert not bypassing, (
        "these skips bypass MCV_REQUIRE_ENGINES: call engine_needs.unavailable(reason), require_program or "
        "require_engine instead, or allow-list a skip whose reason is not a missing program:\n"
        + "\n".join(bypassing)
    )
