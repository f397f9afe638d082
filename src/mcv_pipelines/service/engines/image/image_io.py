"""Reading images into frames and writing frames in a target format with Pillow.

``load_image`` copies the frames out of the file (so nothing stays open) and keeps what a conversion
may carry over: EXIF, ICC profile, frame durations. ``save_image`` brings the frames into a mode the
target format can hold (flattening transparency onto ``background`` for JPEG, BMP and PDF) and writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from PIL import Image, ImageSequence, features

from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, library_errors
from mcv_pipelines.service.engines.image.formats import ImageFormat, decoders, image_format

__all__ = [
    "DEFAULT_QUALITY",
    "SourceImage",
    "flatten",
    "load_image",
    "prepare_mode",
    "save_image",
    "save_pdf",
]

DEFAULT_QUALITY = {"jpg": 85, "webp": 80, "avif": 80}
_ORIENTATION = 0x0112
_TRANSPOSE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


# Tags that describe a TIFF file's own layout (strips, tiles, sample format ...). Pillow shows them as
# EXIF of a TIFF; carried into another file they would describe data that is not there.
_TIFF_LAYOUT = frozenset(
    {254, 255, 256, 257, 258, 259, 262, 263, 266, 273, 277, 278, 279, 280, 281, 284, 292, 293, 317, 320}
    | {322, 323, 324, 325, 338, 339, 340, 341, 530, 531, 532, 700, 33723, 34377, 34675}
)


@dataclass(slots=True)
class SourceImage:
    """The frames of an input image and the metadata a conversion may keep."""

    frames: list[Image.Image]
    exif: Image.Exif
    icc_profile: bytes | None
    format: str | None
    durations: list[int] = field(default_factory=list)
    loop: int | None = None


def load_image(
    path: Path, *, all_frames: bool, auto_orient: bool, at_least: int | None = None
) -> SourceImage:
    """Decode ``path``; only the first frame unless ``all_frames``. Raises EngineError on a bad file.

    ``at_least`` lets a JPEG decode at 1/2, 1/4 or 1/8 scale as long as both sides stay at least that
    many pixels: a thumbnail of a 12 MP photo then never holds the full-size pixels.
    """
    action = f"read {path.name!r} as an image (corrupt, or not an image)"
    with library_errors(action, INVALID_INPUT_FILE), Image.open(path, formats=decoders()) as opened:
        exif = opened.getexif()
        icc = opened.info.get("icc_profile")
        if at_least is not None and opened.format == "JPEG":
            opened.draft(None, (at_least, at_least))
        frames: list[Image.Image] = []
        durations: list[int] = []
        # a Photoshop file's "frames" are its layers: the picture is the composite Pillow opens first;
        # an MPO's are a stereo pair's second view or a phone's gain map, never an animation
        if not all_frames or getattr(opened, "n_frames", 1) == 1 or opened.format in ("PSD", "MPO"):
            opened.load()  # the decoded pixels outlive the file; no copy needed for one frame
            # (but a PSD's or MPO's copy: a writer that saves all frames would otherwise walk its
            # layers or views, from a file closed by then)
            frames.append(opened.copy() if opened.format in ("PSD", "MPO") else opened)
            durations.append(int(opened.info.get("duration", 100) or 100))
        else:
            for frame in ImageSequence.Iterator(opened):
                frame.load()
                frames.append(frame.copy())
                durations.append(int(frame.info.get("duration", 100) or 100))
        source = SourceImage(
            frames=frames,
            exif=exif,
            icc_profile=icc if isinstance(icc, bytes) else None,
            format=opened.format,
            durations=durations,
            loop=opened.info.get("loop"),
        )
    if source.format == "SPIDER":
        source.frames = [_stretch(frame) for frame in source.frames]
    if source.format == "TIFF":
        for tag in [tag for tag in exif if tag in _TIFF_LAYOUT]:
            del exif[tag]
    if auto_orient:
        method = _TRANSPOSE.get(int(exif.get(_ORIENTATION, 1) or 1))
        if method is not None:
            source.frames = [frame.transpose(method) for frame in source.frames]
        if _ORIENTATION in exif:
            del exif[_ORIENTATION]
    return source


def _stretch(frame: Image.Image) -> Image.Image:
    """A float image (SPIDER's densities, any range) as 8-bit grey, its lowest value black and its
    highest white, as cryo-EM viewers show it; clipped to 0-255 it would be one flat grey."""
    extrema = frame.getextrema()  # (low, high) for a one-band image
    low, high = float(extrema[0]), float(extrema[1])  # type: ignore[arg-type]  # one band: two numbers
    scale = 255.0 / (high - low) if high > low else 1.0
    return frame.point(lambda value: value * scale - low * scale).convert("L")


def _has_alpha(image: Image.Image) -> bool:
    return image.mode in ("RGBA", "LA", "PA", "RGBa", "La") or "transparency" in image.info


def flatten(image: Image.Image, background: tuple[int, int, int]) -> Image.Image:
    """Drop transparency by painting the image over a solid ``background``."""
    rgba = image.convert("RGBA")
    canvas = Image.new("RGB", rgba.size, background)
    canvas.paste(rgba, mask=rgba.getchannel("A"))
    return canvas


def prepare_mode(image: Image.Image, target: str, background: tuple[int, int, int]) -> Image.Image:
    """``image`` in a mode that ``target`` (a listing format name, or ``pdf``) can store."""
    alpha = _has_alpha(image)
    if alpha and image.mode != "RGBA":
        image = image.convert("RGBA")  # palette transparency would otherwise warn and get lost
    if target in ("jpg", "bmp", "pdf"):
        if alpha:
            return flatten(image, background)
        keep = {"jpg": ("L", "RGB", "CMYK"), "bmp": ("1", "L", "P", "RGB"), "pdf": ("1", "L", "RGB", "CMYK")}
        return image if image.mode in keep[target] else image.convert("RGB")
    if target in ("webp", "avif", "ico"):
        wanted = "RGBA" if alpha or target == "ico" else "RGB"
        return image if image.mode == wanted else image.convert(wanted)
    if target == "png":
        if image.mode == "I":
            return image.convert("I;16")  # PNG stores 16-bit grey, not 32-bit
        ok = ("1", "L", "LA", "I;16", "P", "RGB", "RGBA")
        return image if image.mode in ok else image.convert("RGBA" if alpha else "RGB")
    if target == "gif":
        return image if image.mode in ("1", "L", "P", "RGBA") else image.convert("RGB")
    if target == "tiff" and image.mode in ("P", "I;16B"):
        return image.convert("RGB")
    fmt = image_format(target)
    if fmt is not None and fmt.modes:
        return _into_modes(image, fmt.modes, background)
    return image


def _into_modes(image: Image.Image, modes: tuple[str, ...], background: tuple[int, int, int]) -> Image.Image:
    """``image`` in one of ``modes`` (a writer's), keeping transparency only where one of them can."""
    if image.mode in modes:
        return image
    if _has_alpha(image):
        if "RGBA" in modes:
            return image.convert("RGBA")
        image = flatten(image, background)
    if "RGB" in modes:
        return image.convert("RGB")
    if modes[0] == "P":
        return image.convert("RGB").convert("P", palette=Image.Palette.ADAPTIVE)
    return image.convert(modes[0])


def save_image(
    frames: list[Image.Image],
    path: Path,
    fmt: ImageFormat,
    *,
    quality: int | str | None = None,
    exif: bytes | None = None,
    icc_profile: bytes | None = None,
    background: tuple[int, int, int] = (255, 255, 255),
    optimize: bool = False,
    progressive: bool = False,
    durations: list[int] | None = None,
    loop: int | None = None,
    lossless: bool = False,
) -> None:
    """Write ``frames`` to ``path``; several frames only where ``fmt.frames`` (animation, pages)."""
    frames = [prepare_mode(frame, fmt.name, background) for frame in frames]
    if not fmt.frames:
        frames = frames[:1]
    params: dict[str, Any] = {}
    if exif and fmt.exif:
        params["exif"] = exif
    if icc_profile and fmt.name not in ("gif", "bmp", "ico"):
        params["icc_profile"] = icc_profile
    if fmt.name == "jpg":
        params.update(quality=DEFAULT_QUALITY["jpg"] if quality is None else quality, optimize=optimize)
        params["progressive"] = progressive
    elif fmt.name == "png":
        params["optimize"] = optimize
    elif fmt.name in ("webp", "avif"):
        params["quality"] = quality if isinstance(quality, int) else DEFAULT_QUALITY[fmt.name]
        if fmt.name == "webp":
            params["lossless"] = lossless
            params["method"] = 6 if optimize else 4
    elif fmt.name == "gif":
        params["optimize"] = optimize
    elif fmt.name == "tiff" and features.check("libtiff") and "exif" not in params:
        params["compression"] = "tiff_lzw"
    elif fmt.name == "tiff" and "exif" in params:
        # libtiff cannot write an Exif sub-IFD from Pillow's dictionary; Pillow's own writer (raw) can.
        # Said outright: else a compressed source's own "compression" sends Pillow to libtiff (an
        # LZW TIFF's metadata/write failed with RuntimeError)
        params["compression"] = "raw"
    elif fmt.name == "ico":
        first = frames[0]
        if max(first.size) > 256:
            first = first.copy()
            first.thumbnail((256, 256))
            frames = [first]
    if len(frames) > 1:
        params.update(save_all=True, append_images=frames[1:])
        if fmt.name in ("gif", "webp"):
            params["duration"] = (durations or [100] * len(frames))[: len(frames)]
            params["loop"] = 0 if loop is None else loop
    with library_errors(f"write {path.name!r} as {fmt.name}"):
        frames[0].save(path, fmt.pil, **params)


def save_pdf(frames: list[Image.Image], target: Path | BinaryIO, background: tuple[int, int, int]) -> None:
    """One PDF page per frame, one image pixel per PDF point (72 dpi)."""
    pages = [prepare_mode(frame, "pdf", background) for frame in frames]
    name = target.name if isinstance(target, Path) else "the PDF"
    with library_errors(f"write {name} as pdf"):
        pages[0].save(target, "PDF", save_all=True, append_images=pages[1:], resolution=72.0)
