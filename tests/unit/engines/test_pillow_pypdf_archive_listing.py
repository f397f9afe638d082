"""The listing of the core engines follows base.py's conventions, and every advertised type runs."""

from __future__ import annotations

import io
import re
import struct
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import py7zr
import pytest
from PIL import Image
from pypdf import PdfReader, PdfWriter

from image_samples import READ_ONLY_SAMPLES
from mcv_pipelines.service.engines import available_engines, find_conversion
from mcv_pipelines.service.engines.archive.archive import ArchiveEngine
from mcv_pipelines.service.engines.archive.repack import write_archive
from mcv_pipelines.service.engines.archive.unpack import READABLE
from mcv_pipelines.service.engines.base import ConversionType, Engine, EngineRequest, InputFile
from mcv_pipelines.service.engines.image.formats import image_format
from mcv_pipelines.service.engines.image.image_io import save_image
from mcv_pipelines.service.engines.image.pillow import PillowEngine
from mcv_pipelines.service.engines.pdf.pypdf_engine import PypdfEngine

MakeRequest = Callable[..., EngineRequest]
# The engines that need no external program; the external ones have their own tests.
ENGINES: list[Engine] = [PillowEngine(), PypdfEngine(), ArchiveEngine()]
LISTED = [(engine, conversion) for engine in ENGINES for conversion in engine.conversion_types()]
SAME_FORMAT_OPERATIONS = ("optimize", "watermark", "metadata/write")
FORMAT_NAME = re.compile(r"^(any|[a-z0-9]+(\.[a-z0-9]+)?)$")


def _id(pair: tuple[Engine, ConversionType]) -> str:
    engine, c = pair
    return f"{engine.name}:{c.operation}:{c.input_format}->{c.output_format}"


def test_the_core_engines_are_registered_and_available() -> None:
    assert {engine.name for engine in available_engines()} >= {"pillow", "pypdf", "archive"}


def test_each_conversion_type_is_listed_once() -> None:
    keys = [(c.operation, c.input_format, c.output_format, c.engine) for _, c in LISTED]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("pair", LISTED, ids=_id)
def test_listing_follows_the_conventions(pair: tuple[Engine, ConversionType]) -> None:
    engine, conversion = pair
    assert conversion.engine == engine.name
    assert conversion.credits >= 1
    assert FORMAT_NAME.match(conversion.input_format)
    assert FORMAT_NAME.match(conversion.output_format)
    assert conversion.input_format not in ("jpeg", "tif")
    assert [v.version for v in conversion.engine_versions] == [engine.version()]
    names = [option.name for option in conversion.options]
    assert len(names) == len(set(names)), f"duplicate option names {names}"
    for option in conversion.options:
        if option.type == "enum":
            assert option.possible_values
            assert option.default is None or option.default in option.possible_values
        else:
            assert option.possible_values is None
    if conversion.operation in SAME_FORMAT_OPERATIONS:
        assert conversion.output_format == conversion.input_format
    if conversion.operation == "metadata":
        assert conversion.output_format == "json"
    if conversion.operation == "merge":
        assert conversion.output_format == "pdf"
    if conversion.operation == "archive":
        assert conversion.input_format == "any"
    if conversion.operation == "thumbnail":
        assert conversion.output_format in ("png", "jpg", "webp")


def test_find_conversion_prefers_the_first_engine_and_honours_engine() -> None:
    found = find_conversion(ENGINES, "convert", "JPEG", "png")
    assert found is not None
    assert found[0].name == "pillow"
    merged = find_conversion(ENGINES, "merge", "png", "pdf")
    assert merged is not None
    assert merged[0].name == "pypdf"
    assert find_conversion(ENGINES, "archive", "mp4", "tar.gz") is not None
    assert find_conversion(ENGINES, "archive", "mp4", "rar") is None
    assert find_conversion(ENGINES, "convert", "png", "jpg", engine="pypdf") is None
    same = find_conversion(ENGINES, "optimize", "pdf", None)
    assert same is not None
    assert same[1].engine == "pypdf"


# --- every advertised conversion runs on a small generated sample -----------------------------


def _zstd(data: bytes) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor().compress(data)


def _lz4(data: bytes) -> bytes:
    import lz4.frame

    return bytes(lz4.frame.compress(data))


def _unzstd(data: bytes) -> bytes:
    import zstandard

    return zstandard.ZstdDecompressor().stream_reader(data).read()


def _unlz4(data: bytes) -> bytes:
    import lz4.frame

    return bytes(lz4.frame.decompress(data))


SINGLE_FILES: dict[str, Callable[[bytes], bytes]] = {"zst": _zstd, "lz4": _lz4}
_UNCOMPRESS: dict[str, Callable[[bytes], bytes]] = {"tar.zst": _unzstd, "tar.lz4": _unlz4}


def _sample(directory: Path, fmt: str, name: str = "sample") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    if fmt == "pdf":
        writer = PdfWriter()
        writer.add_blank_page(200, 100)
        path = directory / f"{name}.pdf"
        with path.open("wb") as handle:
            writer.write(handle)
        return path
    if fmt in SINGLE_FILES:  # one compressed file, by the library the engine reads it with
        path = directory / f"{name}.{fmt}"
        path.write_bytes(SINGLE_FILES[fmt](b"hello"))
        return path
    if fmt in READABLE:
        member = directory / f"{name}-member.txt"
        member.write_text("hello")
        path = directory / f"{name}.{fmt}"
        write_archive(fmt, path, [(member, "notes/hello.txt")])
        return path
    image_fmt = image_format(fmt)
    if image_fmt is None:  # "any": an arbitrary file
        path = directory / f"{name}.txt"
        path.write_text("hello")
        return path
    path = directory / f"{name}.{fmt}"
    if fmt in READ_ONLY_SAMPLES:  # Pillow reads it but has no writer
        path.write_bytes(READ_ONLY_SAMPLES[fmt]())
    else:
        save_image([Image.new("RGB", (48, 32), "teal")], path, image_fmt)
    return path


def _options(conversion: ConversionType) -> dict[str, Any]:
    if conversion.operation == "watermark":
        return {"text": "Sample"}
    if conversion.operation == "metadata/write":
        return {"metadata": {"Title": "Sample"} if conversion.input_format == "pdf" else {"Artist": "Sample"}}
    return {}


def _archive_names(data: bytes, fmt: str) -> list[str]:
    if fmt == "zip":
        return zipfile.ZipFile(io.BytesIO(data)).namelist()
    if fmt == "7z":
        with py7zr.SevenZipFile(io.BytesIO(data)) as sevenzip:
            return list(sevenzip.getnames())
    if fmt in ("tar.zst", "tar.lz4"):
        data = _UNCOMPRESS[fmt](data)
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        return archive.getnames()


def _check_output(path: Path, fmt: str, converted: bool = False) -> None:
    """``converted``: an archive converted from another, which must keep the sample's member path."""
    data = path.read_bytes()
    assert data
    if fmt == "pdf":
        assert len(PdfReader(io.BytesIO(data)).pages) >= 1
    elif fmt in READABLE:
        names = _archive_names(data, fmt)
        assert names
        if converted:
            assert names == ["notes/hello.txt"] or names == ["sample"]  # a zst or lz4 file's one member
    elif fmt == "palm":  # written only: width, height, bytes a row, flags, bits a pixel
        width, height, row_bytes = struct.unpack(">HHH", data[:6])
        assert min(width, height) > 0
        assert row_bytes * 8 >= width * data[8]
    else:
        expected = image_format(fmt)
        assert expected is not None
        with Image.open(io.BytesIO(data)) as image:
            assert image.format == expected.pil
            image.load()


@pytest.mark.parametrize("pair", LISTED, ids=_id)
def test_every_listed_conversion_runs(
    tmp_path: Path, make_request: MakeRequest, pair: tuple[Engine, ConversionType]
) -> None:
    engine, conversion = pair
    inputs = [_sample(tmp_path / "in", conversion.input_format)]
    if conversion.operation == "merge":
        inputs.append(_sample(tmp_path / "in", "pdf", "second"))
    files = [InputFile("import", path) for path in inputs]
    request = make_request(
        conversion.operation, conversion.input_format, conversion.output_format, files, _options(conversion)
    )
    result = engine.run(request)
    if conversion.output_format == "json":
        assert result.files == []
        assert result.extra["metadata"]
        return
    assert len(result.files) == 1
    assert result.files[0].parent == request.output_dir
    _check_output(result.files[0], conversion.output_format, conversion.operation == "convert")
