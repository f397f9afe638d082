"""Pillow engine: watermarks land where asked, metadata reads and writes EXIF."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import ExifTags, Image

from mcv_pipelines.service.engines.base import EngineError, EngineRequest, InputFile
from mcv_pipelines.service.engines.image.pillow import PillowEngine

MakeImage = Callable[..., Path]
MakeRequest = Callable[..., EngineRequest]
ENGINE = PillowEngine()


def _white(path: Path, size: tuple[int, int] = (200, 100)) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, "white").save(path)
    return path


def _dark_pixels(image: Image.Image, box: tuple[int, int, int, int]) -> int:
    region = image.convert("L").crop(box)
    return sum(1 for value in region.tobytes() if value < 128)


def test_text_watermark_is_drawn_at_the_top_left(tmp_path: Path, make_request: MakeRequest) -> None:
    source = _white(tmp_path / "page.png")
    options = {
        "text": "DRAFT",
        "font_size": 30,
        "opacity": 100,
        "position_vertical": "top",
        "position_horizontal": "left",
        "margin_vertical": 5,
        "margin_horizontal": 5,
    }
    result = ENGINE.run(make_request("watermark", "png", "png", [source], options))
    with Image.open(result.files[0]) as image:
        assert image.size == (200, 100)
        assert _dark_pixels(image, (0, 0, 100, 50)) > 50
        assert _dark_pixels(image, (100, 50, 200, 100)) == 0


def test_image_watermark_comes_from_the_named_task(tmp_path: Path, make_request: MakeRequest) -> None:
    source = _white(tmp_path / "photo.jpg")
    logo = tmp_path / "logo.png"
    Image.new("RGBA", (20, 20), (255, 0, 0, 255)).save(logo)
    options = {
        "image": "logo-task",
        "opacity": 50,
        "position_vertical": "bottom",
        "position_horizontal": "right",
        "margin_vertical": 0,
        "margin_horizontal": 0,
    }
    inputs = [InputFile("photo-task", source), InputFile("logo-task", logo)]
    result = ENGINE.run(make_request("watermark", "jpg", "jpg", inputs, options))
    assert [path.name for path in result.files] == ["photo.jpg"]
    with Image.open(result.files[0]) as image:
        red, green, _ = image.convert("RGB").getpixel((190, 90))  # type: ignore[misc]  # Pillow types a pixel as a union
        assert red > 230
        assert 100 < green < 160  # half-transparent red over white
        assert image.convert("RGB").getpixel((10, 10)) == pytest.approx((255, 255, 255), abs=3)


def test_image_watermark_task_missing_is_an_option_error(tmp_path: Path, make_request: MakeRequest) -> None:
    source = _white(tmp_path / "photo.png")
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("watermark", "png", "png", [source], {"image": "nowhere"}))
    assert caught.value.code == "INVALID_OPTION"
    assert "nowhere" in caught.value.message


def test_watermark_without_text_or_image_is_refused(tmp_path: Path, make_request: MakeRequest) -> None:
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("watermark", "png", "png", [_white(tmp_path / "a.png")]))
    assert caught.value.code == "INVALID_OPTION"


def test_metadata_reads_size_and_exif(make_image: MakeImage, make_request: MakeRequest) -> None:
    exif = Image.Exif()
    exif[ExifTags.Base.Artist] = "Grace"
    exif[ExifTags.Base.XResolution] = 300.0
    source = make_image("photo.jpg", size=(64, 48), exif=exif)
    result = ENGINE.run(make_request("metadata", "jpg", "json", [source]))
    assert result.files == []
    metadata = result.extra["metadata"]
    assert metadata["FileType"] == "JPEG"
    assert (metadata["ImageWidth"], metadata["ImageHeight"]) == (64, 48)
    assert metadata["Artist"] == "Grace"
    assert metadata["XResolution"] == 300.0


@pytest.mark.parametrize("fmt", ["jpg", "png", "webp", "tiff"])
def test_metadata_write_then_read_back(make_image: MakeImage, make_request: MakeRequest, fmt: str) -> None:
    source = make_image(f"photo.{fmt}", size=(40, 30))
    tags = {"Artist": "Ada Lovelace", "Copyright": "CC-BY", "DateTimeOriginal": "2024:01:02 03:04:05"}
    written = ENGINE.run(make_request("metadata/write", fmt, fmt, [source], {"metadata": tags}))
    back = ENGINE.run(make_request("metadata", fmt, "json", written.files))
    metadata = back.extra["metadata"]
    for key, value in tags.items():
        assert metadata[key] == value
    assert (metadata["ImageWidth"], metadata["ImageHeight"]) == (40, 30)


def test_metadata_write_on_a_compressed_tiff(tmp_path: Path, make_request: MakeRequest) -> None:
    # An LZW TIFF (what the service itself writes) sent Pillow to libtiff, which cannot write EXIF
    source = tmp_path / "scan.tiff"
    Image.new("RGB", (40, 30), "teal").save(source, "TIFF", compression="tiff_lzw")
    tags = {"metadata": {"Artist": "Ada"}}
    written = ENGINE.run(make_request("metadata/write", "tiff", "tiff", [source], tags))
    back = ENGINE.run(make_request("metadata", "tiff", "json", written.files))
    assert back.extra["metadata"]["Artist"] == "Ada"


def test_metadata_write_unknown_key_is_an_option_error(
    make_image: MakeImage, make_request: MakeRequest
) -> None:
    source = make_image("photo.jpg")
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("metadata/write", "jpg", "jpg", [source], {"metadata": {"Colour": "blue"}}))
    assert caught.value.code == "INVALID_OPTION"
    assert "Colour" in caught.value.message
    assert "Artist" in caught.value.message


def test_metadata_of_a_non_image_is_an_input_error(tmp_path: Path, make_request: MakeRequest) -> None:
    text = tmp_path / "notes.png"
    text.write_text("hello")
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("metadata", "png", "json", [text]))
    assert caught.value.code == "INVALID_INPUT_FILE"


def test_metadata_write_on_jpeg_keeps_the_pixels(make_image: MakeImage, make_request: MakeRequest) -> None:
    source = make_image("photo.jpg", size=(64, 48))
    written = ENGINE.run(
        make_request("metadata/write", "jpg", "jpg", [source], {"metadata": {"Artist": "X"}})
    )
    with Image.open(source) as before, Image.open(written.files[0]) as after:
        assert before.tobytes() == after.tobytes()
        assert after.getexif()[ExifTags.Base.Artist] == "X"


def test_watermark_larger_than_the_image_is_clipped(tmp_path: Path, make_request: MakeRequest) -> None:
    source = _white(tmp_path / "tiny.png", (40, 20))
    options = {"text": "MUCH TOO LONG", "font_size": 60, "opacity": 100}
    result = ENGINE.run(make_request("watermark", "png", "png", [source], options))
    with Image.open(result.files[0]) as image:
        assert image.size == (40, 20)
        assert _dark_pixels(image, (0, 0, 40, 20)) > 0


def test_watermark_keeps_transparency_around_the_mark(tmp_path: Path, make_request: MakeRequest) -> None:
    source = tmp_path / "clear.png"
    Image.new("RGBA", (100, 60), (0, 0, 0, 0)).save(source)
    options = {"text": "A", "font_size": 20, "opacity": 100, "position_vertical": "top"}
    options |= {"position_horizontal": "left", "margin_vertical": 0, "margin_horizontal": 0}
    result = ENGINE.run(make_request("watermark", "png", "png", [source], options))
    with Image.open(result.files[0]) as image:
        assert image.mode == "RGBA"
        assert image.getpixel((90, 50)) == (0, 0, 0, 0)
        alpha = image.getchannel("A").crop((0, 0, 20, 25))
        assert max(alpha.tobytes()) == 255


def test_metadata_write_replaces_existing_exif_and_keeps_other_tags(
    make_image: MakeImage, make_request: MakeRequest
) -> None:
    exif = Image.Exif()
    exif[ExifTags.Base.Artist] = "Old"
    exif[ExifTags.Base.Make] = "Camera Co"
    source = make_image("photo.jpg", size=(32, 32), exif=exif)
    written = ENGINE.run(
        make_request("metadata/write", "jpg", "jpg", [source], {"metadata": {"artist": "New"}})
    )
    data = written.files[0].read_bytes()
    assert data.count(b"Exif\x00\x00") == 1
    with Image.open(written.files[0]) as image:
        tags = image.getexif()
    assert tags[ExifTags.Base.Artist] == "New"
    assert tags[ExifTags.Base.Make] == "Camera Co"
