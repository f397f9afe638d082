"""The upload form's multipart parser: the same parts however the body is cut, and clear refusals."""

from __future__ import annotations

import random

import pytest

from mcv_pipelines.service.http.form_parser import HEADER_LIMIT, FormParser, MultipartError

BOUNDARY = b"----mcvBoundary7d1f"


class Parts:
    """Records what the parser reports, checking the order of its calls."""

    def __init__(self) -> None:
        self.parts: list[tuple[dict[bytes, bytes], bytes]] = []
        self.open = False
        self.chunks = 0

    def part_begin(self, headers: dict[bytes, bytes]) -> None:
        assert not self.open
        self.open = True
        self.parts.append((headers, b""))

    def part_data(self, data: bytes) -> None:
        assert self.open
        assert data
        headers, body = self.parts[-1]
        self.parts[-1] = (headers, body + data)
        self.chunks += 1

    def part_end(self) -> None:
        assert self.open
        self.open = False


def body(*parts: tuple[bytes, bytes], preamble: bytes = b"", epilogue: bytes = b"") -> bytes:
    out = preamble
    for headers, content in parts:
        out += b"--" + BOUNDARY + b"\r\n" + headers + b"\r\n\r\n" + content + b"\r\n"
    return out + b"--" + BOUNDARY + b"--" + epilogue


def parse(data: bytes, cuts: list[int] | None = None) -> Parts:
    parts = Parts()
    parser = FormParser(BOUNDARY, parts)
    start = 0
    for cut in [*(cuts or []), len(data)]:
        parser.write(data[start:cut])
        start = cut
    parser.finalize()
    return parts


FILE = bytes(range(256)) * 40 + b"\r\n--" + BOUNDARY[:-1] + b"\r\n-\r"  # near-delimiters inside
FORM = body(
    (b'Content-Disposition: form-data; name="expires"', b"1795833225"),
    (b'Content-Disposition: form-data; name="signature"', b""),
    (b'Content-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png', FILE),
    preamble=b"ignored preamble\r\n",
    epilogue=b"\r\nignored epilogue",
)
EXPECTED = [
    ({b"content-disposition": b'form-data; name="expires"'}, b"1795833225"),
    ({b"content-disposition": b'form-data; name="signature"'}, b""),
    (
        {b"content-disposition": b'form-data; name="file"; filename="a.png"', b"content-type": b"image/png"},
        FILE,
    ),
]


def test_a_form_in_one_piece() -> None:
    assert parse(FORM).parts == EXPECTED


def test_a_form_cut_at_every_byte() -> None:
    assert parse(FORM, list(range(1, len(FORM)))).parts == EXPECTED


@pytest.mark.parametrize("seed", range(20))
def test_a_form_cut_anywhere(seed: int) -> None:
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(FORM)), rng.randint(1, 40)))
    assert parse(FORM, cuts).parts == EXPECTED


def test_a_big_file_is_passed_on_as_it_comes_not_held() -> None:
    content = b"x" * (4 * 1024 * 1024)
    data = body((b'Content-Disposition: form-data; name="file"; filename="big"', content))
    parts = Parts()
    parser = FormParser(BOUNDARY, parts)
    for start in range(0, len(data), 65536):
        parser.write(data[start : start + 65536])
        held = len(parser._buffer)
        assert held < 65536 + len(BOUNDARY) + 4  # never more than a piece and a delimiter
    parser.finalize()
    assert parts.parts[0][1] == content
    assert parts.chunks >= 64


def test_padding_after_a_boundary_and_folded_headers_are_read() -> None:
    data = (
        b"--" + BOUNDARY + b"  \t\r\nContent-Disposition: form-data;\r\n name=\"a\"\r\n\r\nvalue\r\n--"
        + BOUNDARY + b"--\r\n"
    )
    assert parse(data).parts == [({b"content-disposition": b'form-data; name="a"'}, b"value")]


def test_a_part_without_headers() -> None:
    data = b"--" + BOUNDARY + b"\r\n\r\nbare\r\n--" + BOUNDARY + b"--"
    assert parse(data).parts == [({}, b"bare")]


def test_writes_after_the_end_are_the_epilogue() -> None:
    parts = Parts()
    parser = FormParser(BOUNDARY, parts)
    parser.write(body((b'Content-Disposition: form-data; name="a"', b"1")))
    assert parser.done
    parser.write(b"--" + BOUNDARY + b"\r\n\r\nnot a part")
    parser.finalize()
    assert len(parts.parts) == 1


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (FORM[:-40], "ended before its closing boundary"),
        (b"no boundary here at all", "ended before its closing boundary"),
        (b"--" + BOUNDARY + b"\r\nno colon line\r\n\r\nx\r\n--" + BOUNDARY + b"--", "not 'name: value'"),
        (b"--" + BOUNDARY + b"X\r\n\r\nx", "inside a part"),
        (b"--" + BOUNDARY + b"\r\nA: " + b"a" * HEADER_LIMIT + b"\r\n\r\n", "headers are longer"),
        (b"--" + BOUNDARY + b" " * 2000, "padding"),
    ],
    ids=["cut-short", "no-boundary", "bad-header", "boundary-in-content", "huge-headers", "padding"],
)
def test_a_malformed_body_is_refused_saying_why(data: bytes, words: str) -> None:
    parser = FormParser(BOUNDARY, Parts())

    def whole_body() -> None:
        parser.write(data)
        parser.finalize()

    with pytest.raises(MultipartError, match=words):
        whole_body()


@pytest.mark.parametrize("boundary", [b"", b"b" * 201])
def test_a_boundary_of_no_or_absurd_length_is_refused(boundary: bytes) -> None:
    with pytest.raises(MultipartError, match="boundary"):
        FormParser(boundary, Parts())
