"""The shell examples of the README and of the documentation site, as the tests run them.

A fenced block whose language is ``sh``, ``bash``, ``shell`` or ``console`` is a shell example, and every
one is run by tests/integration/docs. HTML comments right above a block (invisible on the site) say what
it needs; without any, it runs in a fresh project directory (a copy of pipelines/ and schemas/) with
`mcv` on PATH and no service configured, and must exit 0:

    <!-- docs-test: service -->            a `mcv serve` runs; MCV_BASE_URL and MCV_API_KEY point at it
    <!-- docs-test: postgres -->           a PostgreSQL server runs; DB is the URL of a fresh database
    <!-- docs-test: engines=all -->        every engine must run here (the block checks every example
                                           pipeline against the live listing): a missing one skips it,
                                           or fails it under MCV_REQUIRE_ENGINES=1
    <!-- docs-test: serve-port=8080 -->    the block serves on 8080 until stopped: it is started, must
                                           answer GET /healthz there (on a free port put in place of
                                           8080), and is then stopped with Ctrl-C
    <!-- docs-test: install -->            the block installs the project: it runs in a copy of the
                                           repository's tracked files
    <!-- docs-test: exit=2 -->             the exit code the example shows (an invalid pipeline)
    <!-- docs-test: needs=curl -->         programs the block calls beyond Python and `mcv`: a missing
                                           one skips it with the reason, or fails it under
                                           MCV_REQUIRE_ENGINES=1 (a machine with only Python has no curl)
    <!-- docs-test: not-run="reason" -->   never run (only the README's test command: it runs this suite)
    <!-- docs-test-setup: COMMAND -->      run before the block, in the same shell (files it reads)
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["SHELL_LANGUAGES", "DocBlock", "doc_blocks", "documents"]

ROOT = Path(__file__).resolve().parents[3]
SHELL_LANGUAGES = frozenset({"sh", "bash", "shell", "console"})
_FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)")
_TEST = re.compile(r"^<!-- docs-test: (.*) -->$")
_SETUP = re.compile(r"^<!-- docs-test-setup: (.*) -->$")


@dataclass
class DocBlock:
    """One shell example: where it is, its text, and what the comments above it ask for."""

    path: Path
    line: int
    text: str
    options: dict[str, str] = field(default_factory=dict)
    setup: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def documents() -> list[Path]:
    """The README and every hand-written page of the site (reference pages are generated)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _options(text: str) -> dict[str, str]:
    options: dict[str, str] = {}
    for word in shlex.split(text):
        key, _, value = word.partition("=")
        options[key] = value
    return options


def doc_blocks(path: Path) -> list[DocBlock]:
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[DocBlock] = []
    index = 0
    while index < len(lines):
        match = _FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        fence, language = match.groups()
        end = index + 1
        while end < len(lines) and not lines[end].startswith(fence):
            end += 1
        if language in SHELL_LANGUAGES:
            block = DocBlock(path, index + 1, "\n".join(lines[index + 1 : end]) + "\n")
            above = index - 1
            while above >= 0 and lines[above].startswith("<!-- docs-test"):
                if test := _TEST.match(lines[above]):
                    block.options.update(_options(test.group(1)))
                elif setup := _SETUP.match(lines[above]):
                    block.setup.insert(0, setup.group(1))
                above -= 1
            blocks.append(block)
        index = end + 1
    return blocks
