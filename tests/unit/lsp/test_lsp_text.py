"""The text-level pieces of the language server: how far an underline reaches, and what the cursor is
on in a half-typed file (no YAML parser could read these buffers)."""

from __future__ import annotations

import pytest

from mcv_pipelines.lsp.context import context_at
from mcv_pipelines.lsp.outline import read_outline
from mcv_pipelines.lsp.ranges import token_end


@pytest.mark.parametrize(
    ("line", "column", "end"),
    [
        ("    qualty: 80", 4, 10),  # a key ends at its colon
        ("    input: orignal  # typo", 11, 18),  # a plain value ends before a comment
        ("    input: [web, orignal]", 16, 24),  # a flow item ends at the separator
        ("    tag: 'it''s here' # x", 9, 21),  # '' is a quote inside single quotes
        ('    tag: "a \\" b"', 9, 17),  # \" is a quote inside double quotes
        ("    url: http://a.example/x:y", 9, 29),  # a colon not followed by a space is text
        ("tasks:", 6, 6),  # at the end of a line: an empty range, which editors mark as a spot
    ],
)
def test_underline_covers_the_token(line: str, column: int, end: int) -> None:
    assert token_end([line], 0, column) == (0, end)


HALF_TYPED = """\
version: 1
params:
  photo: {type: string}
tasks:
  original:
    operation: import/upload
  web:
    operation: conv
    input: [orig
    qu
  publish:
    operation: export/url
    input:
      - we
"""


def test_outline_of_a_half_typed_file() -> None:
    outline = read_outline(HALF_TYPED)
    assert list(outline.tasks) == ["original", "web", "publish"]
    assert list(outline.params) == ["photo"]
    web = outline.tasks["web"]
    assert (web.header.line, web.end, web.indent) == (6, 10, 4)
    assert web.option("operation") == "conv"


@pytest.mark.parametrize(
    ("line", "column", "kind", "start", "key"),
    [
        (7, 19, "option-value", 15, "operation"),
        (8, 16, "input", 12, "input"),
        (9, 6, "option-name", 4, None),
        (13, 10, "input", 8, "input"),
        (6, 4, "none", 2, None),  # a task's own name: nothing to offer
        (2, 10, "none", 10, None),  # inside params, not a task
    ],
)
def test_what_the_cursor_is_on(line: int, column: int, kind: str, start: int, key: str | None) -> None:
    found = context_at(read_outline(HALF_TYPED), line, column)
    assert (found.kind, found.start, found.key) == (kind, start, key)


def test_params_dot_inside_a_template_only() -> None:
    text = 'version: 1\ntasks:\n  a:\n    tag: "{{ params.ph\n    name: "{{ params.x }} params.y"\n'
    outline = read_outline(text)
    inside = context_at(outline, 3, 22)
    assert (inside.kind, inside.start) == ("param", 20)
    assert context_at(outline, 4, 35).kind != "param"  # after the closing }}
