"""A test that needs an engine asks the engine (require_engine, require_conversion), never whether a
program of its name is on PATH: users' machines have a `convert` that is GraphicsMagick's or Windows',
a `soffice` launcher, an ImageMagick 7 with only `magick`. Such a check ran the test there, and it failed
instead of skipping (issue 39, twice before it).

Read from the source: ``require_program("convert")``, ``shutil.which("ffmpeg")`` or an argv that starts
with an engine's program by name (``["ffmpeg", ...]``) anywhere in tests/ is listed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import engine_needs

TESTS = Path(__file__).resolve().parents[2]
_CHECKS = frozenset({"require_program", "which", "find_program"})
# (path under tests/, what it does): why it is not deciding whether an engine runs here.
ALLOWED: dict[tuple[str, str], str] = {
    ("integration/console/conftest.py", "which('chromium')"): "Playwright's browser, not the web engine; "
    "kept only when it answers --version as Chromium",
    ("integration/console/conftest.py", "which('chromium-browser')"): "the same, under Ubuntu's name",
}


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def by_name(source: str, programs: frozenset[str]) -> list[tuple[int, str]]:
    """(line, what) of each place the source looks for, or runs, one of ``programs`` by its name."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and _name(node.func) in _CHECKS:
            for arg in node.args:
                if isinstance(arg, ast.Constant) and arg.value in programs:
                    found.append((node.lineno, f"{_name(node.func)}({arg.value!r})"))
        elif isinstance(node, ast.List) and len(node.elts) > 1:
            # an argv: the program by name, then an option (["convert", "png"] is a list of words)
            first, second = node.elts[:2]
            if (
                isinstance(first, ast.Constant)
                and first.value in programs
                and isinstance(second, ast.Constant)
                and str(second.value).startswith("-")
            ):
                found.append((node.lineno, f"[{first.value!r}, ...] run by name"))
    return sorted(found)


def test_the_scan_finds_each_way_of_asking_by_name() -> None:
    source = (
        "import shutil\n"
        "def test_a(require_program) -> None:\n"
        "    require_program('convert')\n"
        "    shutil.which('ffmpeg')\n"
        "    subprocess.run(['soffice', '--version'])\n"
        "    require_program('openssl')\n"
        "    names = ['convert']\n"
        "    operations = ['convert', 'thumbnail']\n"
    )
    assert by_name(source, frozenset({"convert", "ffmpeg", "soffice"})) == [
        (3, "require_program('convert')"),
        (4, "which('ffmpeg')"),
        (5, "['soffice', ...] run by name"),
    ]


def test_no_test_decides_an_engine_is_here_by_a_program_name() -> None:
    programs = engine_needs.ENGINE_PROGRAMS
    assert {"convert", "soffice", "ffmpeg", "chromium"} <= programs
    by_file = []
    for path in sorted(TESTS.rglob("*.py")):
        if path == Path(__file__).resolve():
            continue
        relative = path.relative_to(TESTS).as_posix()
        by_file += [
            f"tests/{relative}:{line}: {what}"
            for line, what in by_name(path.read_text(), programs)
            if (relative, what) not in ALLOWED
        ]
    assert not by_file, (
        "these look for an engine's program by name, which may be another program of that name: ask "
        "require_engine(NAME) (and use the path it found) or require_conversion(...) instead:\n"
        + "\n".join(by_file)
    )


def test_require_program_refuses_an_engine_program() -> None:
    with pytest.raises(pytest.fail.Exception, match=r"convert is an engine's program.*require_engine"):
        engine_needs.require_program("convert")
