"""The MAT-file header reader that stands in for ImageMagick's ping, on files written by hand."""

from __future__ import annotations

import mmap
import struct
import zlib
from pathlib import Path

import pytest

from mat_samples import mat_bytes
from mcv_pipelines.service.engines.image.mat_header import mat_picture_sizes

_ROWS = [[(x * 20, y * 30, 90) for x in range(7)] for y in range(5)]


@pytest.mark.parametrize("order", ["<", ">"])
@pytest.mark.parametrize("compressed", [False, True])
def test_the_size_is_columns_by_rows_in_either_byte_order(order: str, compressed: bool) -> None:
    assert mat_picture_sizes(mat_bytes(_ROWS, order=order, compressed=compressed)) == [(7, 5)]


def test_a_claimed_size_is_read_without_the_data_that_would_hold_it(tmp_path: Path) -> None:
    path = tmp_path / "huge.mat"
    path.write_bytes(mat_bytes(_ROWS, compressed=True, declared=(90_000, 70_000)))
    with path.open("rb") as source, mmap.mmap(source.fileno(), 0, access=mmap.ACCESS_READ) as data:
        assert mat_picture_sizes(data) == [(90_000, 70_000)]


def test_two_matrices_are_two_pictures() -> None:
    one = mat_bytes(_ROWS)
    assert mat_picture_sizes(one + one[128:]) == [(7, 5), (7, 5)]


@pytest.mark.parametrize(
    ("data", "error", "reason"),
    [
        (b"%PDF-1.4 not a matrix" * 10, ValueError, "no MATLAB 5.0 MAT-file header"),
        (mat_bytes(_ROWS)[:126] + b"XX", ValueError, "byte-order mark"),
        (mat_bytes(_ROWS)[:128], ValueError, "holds no matrix"),
        (mat_bytes(_ROWS)[:150], struct.error, None),
        (mat_bytes(_ROWS)[:128] + struct.pack("<II", 15, 40) + b"\x78\x9c" + b"\xff" * 38, zlib.error, None),
    ],
)
def test_what_is_no_mat_file_is_refused(data: bytes, error: type[Exception], reason: str | None) -> None:
    with pytest.raises(error, match=reason):
        mat_picture_sizes(data)
