"""A subtitle file's bytes as text: the encodings found in the wild, and clear refusals of what is
no text subtitle at all (a VobSub bitmap ``.sub``, a binary file, an XML document type that declares
entities).

Subtitles come in UTF-8 (with or without a BOM), UTF-16 (Windows tools, usually with a BOM) and, for
many older SubRip files, Windows-1252 or Latin-1. Without an ``encoding`` option, UTF-8 is tried
first (a Latin-1 file is almost never valid UTF-8), then Windows-1252, then Latin-1, which reads any
byte; with it, the text must decode as that encoding or the task fails naming it.
"""

from __future__ import annotations

import codecs
import re

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, INVALID_OPTION

__all__ = ["MAX_SUBTITLE_BYTES", "decode_subtitle", "refuse_xml_declarations"]

MAX_SUBTITLE_BYTES = 20_000_000  # a feature film's subtitles are ~100 KB; anything this big is no subtitle
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# MPEG program stream pack / system header: what a VobSub .sub (DVD bitmap subtitles) starts with
_MPEG_PS = (b"\x00\x00\x01\xba", b"\x00\x00\x01\xbb")


def _no_bom_utf16(head: bytes) -> str | None:
    """UTF-16 without a BOM: text whose every other byte is zero."""
    sample = head[: len(head) // 2 * 2][:512]
    if len(sample) < 4:
        return None
    if not any(sample[0::2]) and all(sample[1::2]):
        return "utf-16-be"
    if not any(sample[1::2]) and all(sample[0::2]):
        return "utf-16-le"
    return None


def decode_subtitle(data: bytes, name: str, fmt: str, encoding: str | None = None) -> str:
    """The text of subtitle file ``name`` (format ``fmt``), newlines made ``\\n``."""
    if len(data) > MAX_SUBTITLE_BYTES:
        raise EngineError(
            INVALID_INPUT_FILE, f"{name} is {len(data) // 1_000_000} MB: too large for a text subtitle"
        )
    if data.startswith(_MPEG_PS):
        kind = "a VobSub (DVD bitmap) subtitle" if fmt == "sub" else "an MPEG stream"
        raise EngineError(
            INVALID_INPUT_FILE,
            f"{name} is {kind}, not a text subtitle; only MicroDVD text is read as sub "
            "(bitmap subtitles cannot become text)",
        )
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise EngineError(
                INVALID_OPTION, f"option 'encoding' names no known encoding: {encoding!r}"
            ) from None
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as exc:
            raise EngineError(
                INVALID_INPUT_FILE, f"{name} is not valid {encoding} text (byte {exc.start})"
            ) from None
        return _lines(text.removeprefix("\ufeff"))
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return _lines(data.decode(codec).removeprefix("\ufeff"))
            except UnicodeDecodeError:
                raise EngineError(
                    INVALID_INPUT_FILE, f"{name} starts with a {codec} mark but is not {codec}"
                ) from None
    bomless = _no_bom_utf16(data[:1024])
    if bomless:
        try:
            return _lines(data.decode(bomless))
        except UnicodeDecodeError:
            pass
    if b"\x00" in data[:8192]:
        raise EngineError(INVALID_INPUT_FILE, f"{name} is a binary file, not a text subtitle")
    for codec in ("utf-8", "cp1252"):
        try:
            return _lines(data.decode(codec))
        except UnicodeDecodeError:
            continue
    return _lines(data.decode("latin-1"))  # every byte is a Latin-1 character


def _lines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


_DECLARATION = re.compile(r"<!(DOCTYPE|ENTITY)", re.IGNORECASE)


def refuse_xml_declarations(text: str, name: str) -> None:
    """TTML and SAMI are read without a document type: an entity could name a file or grow huge."""
    if _DECLARATION.search(text):
        raise EngineError(
            INVALID_INPUT_FILE,
            f"{name} declares a document type or entities, which a subtitle has no use for; not read",
        )
