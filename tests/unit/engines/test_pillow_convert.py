"""Pillow engine: convert, thumbnail and optimize produce the files a user asked for."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import ExifTags, Image
from pypdf import PdfReader

from mcv_pipelines.service.engines.base import EngineError, EngineRequest
from mcv_pipelines.service.engines.image.pillow import PillowEngine

MakeImage = Callable[..., Path]
MakeRequest = Callable[..., EngineRequest]

ENGINE = PillowEngine()


@pytest.mark.parametrize(
    ("fit", "width", "height", "expected"),
    [
        ("max", 60, 60, (60, 40)),  # fits inside, ratio kept
        ("max", 500, 500, (120, 80)),  # never enlarges
        ("upscale", 240, 240, (240, 160)),  # may enlarge
        ("crop", 50, 50, (50, 50)),  # fills and crops
        ("scale", 30, 70, (30, 70)),  # exact size
        ("max", 60, None, (60, 40)),  # one side: the other follows the ratio
        ("scale", None, 40, (60, 40)),
    ],
)
def test_convert_resizes_as_fit_says(
    make_image: MakeImage,
    make_request: MakeRequest,
    fit: str,
    width: int | None,
    height: int | None,
    expected: tuple[int, int],
) -> None:
    source = make_image("photo.png", size=(120, 80))
    options = {"fit": fit, "width": width, "height": height}
    result = ENGINE.run(make_request("convert", "png", "jpg", [source], options))
    assert [path.name for path in result.files] == ["photo.jpg"]
    with Image.open(result.files[0]) as image:
        assert image.format == "JPEG"
        assert image.size == expected


def test_crop_keeps_the_centre(make_image: MakeImage, make_request: MakeRequest) -> None:
    source = make_image("wide.png", size=(200, 50))
    result = ENGINE.run(
        make_request("convert", "png", "png", [source], {"width": 50, "height": 50, "fit": "crop"})
    )
    with Image.open(result.files[0]) as image:
        red = image.convert("RGB").getpixel((0, 25))
    assert isinstance(red, tuple)
    assert 50 < red[0] < 110  # the gradient's left edge was cut off: the crop starts near x=75 of 200


def test_transparent_png_to_jpg_gets_the_background(tmp_path: Path, make_request: MakeRequest) -> None:
    source = tmp_path / "clear.png"
    Image.new("RGBA", (10, 10), (0, 0, 0, 0)).save(source)
    result = ENGINE.run(make_request("convert", "png", "jpg", [source], {"background": "#ff0000"}))
    with Image.open(result.files[0]) as image:
        pixel = image.getpixel((5, 5))
    assert isinstance(pixel, tuple)
    assert pixel[0] > 240
    assert max(pixel[1], pixel[2]) < 15


def test_quality_changes_the_jpeg_size(make_image: MakeImage, make_request: MakeRequest) -> None:
    source = make_image("photo.png", size=(200, 200))
    low = ENGINE.run(make_request("convert", "png", "jpg", [source], {"quality": 10})).files[0]
    high = ENGINE.run(make_request("convert", "png", "jpg", [source], {"quality": 95})).files[0]
    assert low.stat().st_size < high.stat().st_size


def _oriented_exif() -> Image.Exif:
    exif = Image.Exif()
    exif[ExifTags.Base.Orientation] = 6  # rotate 90 clockwise to display
    exif[ExifTags.Base.Artist] = "Ada"
    return exif


def test_auto_orient_rotates_and_strip_removes_exif(make_image: MakeImage, make_request: MakeRequest) -> None:
    source = make_image("turned.jpg", size=(120, 80), exif=_oriented_exif())
    kept = ENGINE.run(make_request("convert", "jpg", "png", [source])).files[0]
    with Image.open(kept) as image:
        assert image.size == (80, 120)
        exif = image.getexif()
        assert exif.get(ExifTags.Base.Artist) == "Ada"
        assert ExifTags.Base.Orientation not in exif
    stripped = ENGINE.run(make_request("convert", "jpg", "png", [source], {"strip": True})).files[0]
    with Image.open(stripped) as image:
        assert not image.getexif()
    as_is = ENGINE.run(make_request("convert", "jpg", "png", [source], {"auto_orient": False})).files[0]
    with Image.open(as_is) as image:
        assert image.size == (120, 80)


def test_animated_gif_keeps_frames_in_webp_and_gives_first_frame_to_png(
    make_image: MakeImage, make_request: MakeRequest
) -> None:
    source = make_image("anim.gif", size=(20, 20), frames=3)
    webp = ENGINE.run(make_request("convert", "gif", "webp", [source])).files[0]
    with Image.open(webp) as image:
        assert getattr(image, "n_frames", 1) == 3
    png = ENGINE.run(make_request("convert", "gif", "png", [source])).files[0]
    with Image.open(png) as image:
        assert getattr(image, "n_frames", 1) == 1


def test_multipage_tiff_to_pdf_makes_one_page_per_frame(
    make_image: MakeImage, make_request: MakeRequest
) -> None:
    source = make_image("scan.tiff", size=(100, 140), frames=2)
    result = ENGINE.run(make_request("convert", "tiff", "pdf", [source]))
    reader = PdfReader(result.files[0])
    assert len(reader.pages) == 2
    assert (float(reader.pages[0].mediabox.width), float(reader.pages[0].mediabox.height)) == (100, 140)


def test_filename_numbers_several_outputs(make_image: MakeImage, make_request: MakeRequest) -> None:
    first = make_image("a.png")
    second = make_image("b.png")
    result = ENGINE.run(
        make_request("convert", "png", "webp", [first, second], {"filename": "../web-%02d.webp"})
    )
    assert [path.name for path in result.files] == ["web-01.webp", "web-02.webp"]
    assert all(path.parent == result.files[0].parent for path in result.files)
    same = ENGINE.run(make_request("convert", "png", "jpg", [first, first]))
    assert [path.name for path in same.files] == ["a.jpg", "a-1.jpg"]


def test_thumbnail_defaults_to_256_box_and_strips(make_image: MakeImage, make_request: MakeRequest) -> None:
    source = make_image("big.jpg", size=(600, 300), exif=_oriented_exif())
    result = ENGINE.run(make_request("thumbnail", "jpg", "webp", [source], {"auto_orient": False}))
    with Image.open(result.files[0]) as image:
        assert image.format == "WEBP"
        assert image.size == (256, 128)
        assert not image.getexif()


def test_optimize_jpg_is_progressive_and_not_bigger(make_image: MakeImage, make_request: MakeRequest) -> None:
    source = make_image("photo.jpg", size=(300, 200))
    result = ENGINE.run(make_request("optimize", "jpg", "jpg", [source], {"profile": "max"}))
    out = result.files[0]
    assert out.stat().st_size <= source.stat().st_size
    with Image.open(out) as image:
        assert image.format == "JPEG"
        assert image.info.get("progressive") or image.info.get("progression")


def test_optimize_png_is_lossless(make_image: MakeImage, make_request: MakeRequest) -> None:
    source = make_image("photo.png", size=(100, 100))
    out = ENGINE.run(make_request("optimize", "png", "png", [source])).files[0]
    assert out.stat().st_size <= source.stat().st_size
    with Image.open(source) as before, Image.open(out) as after:
        assert before.convert("RGB").tobytes() == after.convert("RGB").tobytes()


def test_corrupt_image_is_an_input_error(tmp_path: Path, make_request: MakeRequest) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n" + b"not really a png")
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("convert", "png", "jpg", [broken]))
    assert caught.value.code == "INVALID_INPUT_FILE"
    assert "broken.png" in caught.value.message


def test_truncated_image_is_an_input_error(make_image: MakeImage, make_request: MakeRequest) -> None:
    source = make_image("photo.jpg", size=(200, 200))
    source.write_bytes(source.read_bytes()[:400])
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("convert", "jpg", "png", [source]))
    assert caught.value.code == "INVALID_INPUT_FILE"


@pytest.mark.parametrize(
    "options",
    [{"fit": "stretch", "width": 10}, {"quality": 0}, {"width": "wide"}, {"background": "not-a-colour"}],
)
def test_bad_option_values_are_option_errors(
    make_image: MakeImage, make_request: MakeRequest, options: dict[str, object]
) -> None:
    source = make_image()
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("convert", "png", "jpg", [source], options))
    assert caught.value.code == "INVALID_OPTION"
    assert next(iter(options)) in caught.value.message


def test_unlisted_conversion_is_refused(make_image: MakeImage, make_request: MakeRequest) -> None:
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("convert", "png", "docx", [make_image()]))
    assert caught.value.code == "UNSUPPORTED_CONVERSION"


def test_tiff_layout_tags_do_not_leak_into_other_formats(make_request: MakeRequest, tmp_path: Path) -> None:
    source = tmp_path / "scan.tiff"
    exif = Image.Exif()
    exif[ExifTags.Base.Artist] = "Scanner"
    Image.new("RGB", (30, 20), "white").save(source, exif=exif.tobytes())
    out = ENGINE.run(make_request("convert", "tiff", "jpg", [source])).files[0]
    with Image.open(out) as image:
        tags = image.getexif()
    assert tags.get(ExifTags.Base.Artist) == "Scanner"
    assert ExifTags.Base.StripOffsets not in tags
    assert ExifTags.Base.ImageWidth not in tags


def test_sixteen_bit_grey_survives_png(make_request: MakeRequest, tmp_path: Path) -> None:
    source = tmp_path / "depth.tiff"
    Image.linear_gradient("L").convert("I").resize((16, 16)).save(source)
    out = ENGINE.run(make_request("convert", "tiff", "png", [source])).files[0]
    with Image.open(out) as image:
        assert image.mode.startswith("I")


def test_formats_outside_the_listing_are_never_decoded(tmp_path: Path, make_request: MakeRequest) -> None:
    # An EPS file renamed .png: Pillow would hand it to Ghostscript if it were allowed to try.
    disguised = tmp_path / "vector.png"
    disguised.write_bytes(b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\nshowpage\n")
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("convert", "png", "jpg", [disguised]))
    assert caught.value.code == "INVALID_INPUT_FILE"
