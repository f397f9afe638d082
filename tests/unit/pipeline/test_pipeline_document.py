from __future__ import annotations

from collections.abc import Callable

import pytest

from mcv_pipelines.diagnostics import Location
from mcv_pipelines.errors import InvalidInput
from mcv_pipelines.pipeline import Document, parse_document

Doc = Callable[[str], Document]


def test_every_value_keeps_its_line_and_column(doc: Doc) -> None:
    document = doc("""\
        version: 1
        tasks:
          web:
            width: 320
            input: [a, b]
        """)
    assert document.locate(("tasks", "web", "width")) == Location("p.yaml", 4, 12)
    assert document.locate(("tasks", "web", "input", 1)) == Location("p.yaml", 5, 16)
    assert document.locate_key(("tasks", "web")) == Location("p.yaml", 3, 3)
    # a path that is not in the file falls back to its nearest ancestor
    assert document.locate(("tasks", "web", "nothing", 3)) == Location("p.yaml", 4, 5)


def test_anchors_and_merge_keys_with_explicit_keys_winning(doc: Doc) -> None:
    document = doc("""\
        base: &b {quality: 80, output_format: webp}
        small:
          <<: *b
          quality: 60
        """)
    assert document.data["small"] == {"output_format": "webp", "quality": 60}


def test_duplicate_key_is_reported_at_the_second_key(doc: Doc) -> None:
    document = doc("a: 1\nb: 2\na: 3\n")
    [problem] = document.diagnostics
    assert problem.rule == "yaml-duplicate-key"
    assert problem.location == Location("p.yaml", 3, 1)
    assert problem.related == (Location("p.yaml", 1, 1),)


def test_yaml11_booleans_are_remembered_and_keys_stay_strings(doc: Doc) -> None:
    document = doc("on: no\nquoted: 'no'\nreal: true\n")
    assert document.data == {"on": False, "quoted": "no", "real": True}
    assert document.yaml11_bools == {("on",): "no"}


def test_dates_stay_text(doc: Doc) -> None:
    assert doc("d: 2024-01-31\n").data == {"d": "2024-01-31"}


@pytest.mark.parametrize(
    ("raw", "rule", "line", "column"),
    [
        (b"", "yaml-empty", 1, 1),
        (b"# only a comment\n", "yaml-empty", 1, 1),
        (b"a: 1\nb: [1, 2\n", "yaml-syntax", 3, 1),
        (b"a: 1\n\xff\n", "yaml-encoding", 2, 1),
        (b"a: !!python/object:os.system x\n", "yaml-syntax", 1, 4),
        (b"a: 1\n---\nb: 2\n", "yaml-syntax", 2, 1),
        (b"[a, b]: 1\n", "yaml-syntax", 1, 1),
    ],
)
def test_unloadable_files_raise_invalid_input_with_a_location(
    raw: bytes, rule: str, line: int, column: int
) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_document(raw, "x.yaml")
    [problem] = caught.value.diagnostics
    assert (problem.rule, problem.location) == (rule, Location("x.yaml", line, column))


@pytest.mark.parametrize(
    "raw",
    [
        b"a: &a [*a]\n",  # an alias inside its own anchor
        b"a: " + b"[" * 500 + b"]" * 500 + b"\n",
        b"a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + b"".join(
            b"%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n" % ((98 + i,) * 2 + (97 + i,) * 10)
            for i in range(8)
        ),  # a billion laughs
        b"a: &a {x: 1, b: {<<: *a}}\n",
    ],
    ids=["recursive-alias", "deep-nesting", "alias-bomb", "merged-into-itself"],
)
def test_alias_bombs_and_deep_nesting_are_refused_quickly(raw: bytes) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_document(raw, "x.yaml")
    assert [d.rule for d in caught.value.diagnostics] == ["yaml-syntax"]


def test_earlier_merge_sources_win(doc: Doc) -> None:
    document = doc("a: &a {x: 1, w: 0}\nb: &b {<<: *a, x: 2}\nc: {<<: [*b, *a], z: 3}\n")
    assert document.data["c"] == {"x": 2, "w": 0, "z": 3}
