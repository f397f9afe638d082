"""Output names and page selections shared by the core engines."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.files import OutputNames, apply_counter, safe_filename
from mcv_pipelines.service.engines.pdf.page_ranges import parse_pages


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("../../etc/passwd", "passwd"),
        ("C:\\Users\\me\\report.pdf", "report.pdf"),
        ("/abs/path/photo.jpg", "photo.jpg"),
        ("..", "file"),
        ("", "file"),
        ("in\x00va:lid?.txt", "in_va_lid_.txt"),
        (".hidden", "hidden"),
        ("фото.jpg", "фото.jpg"),
    ],
)
def test_safe_filename_never_leaves_the_directory(name: str, expected: str) -> None:
    assert safe_filename(name) == expected


def test_safe_filename_shortens_long_names_but_keeps_the_extension() -> None:
    name = safe_filename("x" * 500 + ".tar.gz")
    assert len(name) <= 200
    assert name.endswith(".tar.gz")


def test_apply_counter_follows_printf() -> None:
    assert apply_counter("page-%d.png", 3) == "page-3.png"
    assert apply_counter("page-%03d.png", 7) == "page-007.png"
    assert apply_counter("100%%-%d.txt", 2) == "100%-2.txt"


def test_output_names_number_and_deduplicate(tmp_path: Path) -> None:
    (tmp_path / "out-1.png").write_bytes(b"already there")
    names = OutputNames(tmp_path, "out.png", count=2)
    assert [names.next("ignored", "png").name for _ in range(2)] == ["out-1-1.png", "out-2.png"]
    defaults = OutputNames(tmp_path, None, count=2)
    assert [defaults.next("photo", "webp").name for _ in range(2)] == ["photo.webp", "photo-1.webp"]
    single = OutputNames(tmp_path, "sub/dir/final-%d.pdf", count=1)
    path = single.next("x", "pdf")
    assert path == tmp_path / "final-1.pdf"


@pytest.mark.parametrize(
    ("spec", "count", "expected"),
    [
        (None, 3, [0, 1, 2]),
        ("all", 2, [0, 1]),
        ("1-3,5", 10, [0, 1, 2, 4]),
        ("4-", 6, [3, 4, 5]),
        ("-2", 6, [0, 1]),
        ("2, 2, 1", 3, [0, 1]),
        ("2-99", 3, [1, 2]),
        (2, 3, [1]),
    ],
)
def test_parse_pages(spec: object, count: int, expected: list[int]) -> None:
    assert parse_pages(spec, count) == expected


@pytest.mark.parametrize("spec", ["0", "a-b", "5-2", "7", "1;2", ["1"]])
def test_parse_pages_rejects_what_selects_nothing_or_is_not_a_range(spec: object) -> None:
    with pytest.raises(EngineError) as caught:
        parse_pages(spec, 5)
    assert caught.value.code == "INVALID_OPTION"
