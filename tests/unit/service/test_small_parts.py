"""Paths, signing, the rate limiter, engine choice, output file names."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from mcv_pipelines.service.engines import find_conversion
from mcv_pipelines.service.engines.base import ConversionType, EngineRequest, EngineResult
from mcv_pipelines.service.files.paths import file_format, safe_filename
from mcv_pipelines.service.files.signing import sign, upload_form, valid_signature
from mcv_pipelines.service.http.errors import ApiError
from mcv_pipelines.service.http.ratelimit import RateLimiter
from mcv_pipelines.service.work.operations import _gathered


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("../../etc/passwd", "passwd"),
        ("C:\\x\\y.txt", "y.txt"),
        ("/abs/a.png", "a.png"),
        ("..", "file"),
        (".hidden", "hidden"),
        ("a\x00b.txt", "ab.txt"),
        ("", "file"),
    ],
)
def test_safe_filename(name: str, safe: str) -> None:
    assert safe_filename(name) == safe


def test_file_format() -> None:
    assert file_format("A.JPG") == "jpg"
    assert file_format("x.tar.gz") == "tar.gz"
    assert file_format("README") == ""


def test_signatures() -> None:
    signature = sign(b"k", "a", 1)
    assert valid_signature(b"k", signature, "a", 1)
    assert not valid_signature(b"k", signature, "a", 2)
    assert not valid_signature(b"other", signature, "a", 1)
    form = upload_form(b"k", "http://h", "t1", 60, 100, None)
    assert form["url"] == "http://h/upload/t1"
    parameters = form["parameters"]
    assert isinstance(parameters, dict)
    assert set(parameters) == {"expires", "max_file_count", "max_file_size", "signature"}


def test_rate_limiter_spends_and_refills() -> None:
    now = [1000.0]  # the limiter's clock, moved by the test alone
    limiter = RateLimiter(limit=2, period=60, clock=lambda: now[0])
    limiter.take("k")
    limiter.take("k")
    with pytest.raises(ApiError) as caught:
        limiter.take("k")
    assert caught.value.status == 429
    assert caught.value.headers["Retry-After"] == "30"  # one token of two per 60 s
    assert limiter.remaining("other") == 2
    now[0] += 30
    assert limiter.remaining("k") == 1
    now[0] += 30
    assert limiter.remaining("k") == 2
    now[0] += 600
    assert limiter.remaining("k") == 2  # a bucket never holds more than the limit


class _Engine:
    def __init__(self, name: str, kinds: list[ConversionType]) -> None:
        self.name = name
        self._kinds = kinds

    def version(self) -> str | None:
        return "1"

    def conversion_types(self) -> Iterable[ConversionType]:
        return self._kinds

    def run(self, request: EngineRequest) -> EngineResult:
        raise NotImplementedError


def test_find_conversion_prefers_table_order_and_honours_a_named_engine() -> None:
    first = _Engine("a", [ConversionType("convert", "png", "jpg", "a")])
    second = _Engine(
        "b", [ConversionType("convert", "png", "jpg", "b"), ConversionType("archive", "any", "zip", "b")]
    )
    assert find_conversion([first, second], "convert", "png", "jpg") == (first, first._kinds[0])
    chosen = find_conversion([first, second], "convert", "png", "jpg", "b")
    assert chosen is not None
    assert chosen[0] is second
    assert find_conversion([first, second], "archive", "pdf", "zip") is not None
    assert find_conversion([first, second], "convert", "gif", "jpg") is None


def test_engine_outputs_in_subfolders_are_gathered_at_the_top(tmp_path: Path) -> None:
    (tmp_path / "pages").mkdir()
    inner = tmp_path / "pages" / "p1.png"
    inner.write_text("x")
    assert _gathered([inner], tmp_path) == [tmp_path / "p1.png"]
    assert (tmp_path / "p1.png").read_text() == "x"
