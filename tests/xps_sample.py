"""XPS and OpenXPS documents written by hand (no program here writes either): a zip of the content
types, the package relationships, a FixedDocumentSequence, a FixedDocument and one FixedPage per page,
each page a blue Path and a line of Glyphs in DejaVu Sans (subset with fontTools to the glyphs used).
Used by the pages tests and by bench/formats.py's samples."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

__all__ = ["FONT", "xps_document"]

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
_NAMESPACES = {
    "xps": ("http://schemas.microsoft.com/xps/2005/06", "http://schemas.microsoft.com/xps/2005/06"),
    "oxps": ("http://schemas.openxps.org/oxps/v1.0", "http://schemas.openxps.org/oxps/v1.0"),
}
_TYPES = (
    '<?xml version="1.0" encoding="utf-8"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="fdseq" ContentType="application/vnd.ms-package.xps-fixeddocumentsequence+xml"/>'
    '<Default Extension="fdoc" ContentType="application/vnd.ms-package.xps-fixeddocument+xml"/>'
    '<Default Extension="fpage" ContentType="application/vnd.ms-package.xps-fixedpage+xml"/>'
    '<Default Extension="ttf" ContentType="application/vnd.ms-opentype"/>'
    "</Types>"
)


def _font(text: str) -> bytes:
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(str(FONT))
    options = subset.Options()
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=text)
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def _page(namespace: str, text: str, font_uri: str, extra: str) -> str:
    return (
        f'<FixedPage xmlns="{namespace}" xml:lang="en-US" Width="816" Height="528">'
        '<Path Data="M 48,48 L 368,48 368,208 48,208 Z" Fill="#FF1D4ED8"/>'
        f'<Glyphs FontUri="{font_uri}" FontRenderingEmSize="32" OriginX="48" OriginY="300" '
        f'UnicodeString="{text}" Fill="#FF000000"/>{extra}</FixedPage>'
    )


def xps_document(
    texts: list[str], kind: str = "xps", font_uri: str = "/Resources/font.ttf", extra: str = ""
) -> bytes:
    """A ``kind`` (xps or oxps) document of one page per text; ``font_uri`` and ``extra`` (markup added
    to every page) let a test name a resource outside the package."""
    namespace, rels = _NAMESPACES[kind]
    relationship = f"{rels}/fixedrepresentation"
    required = f"{rels}/required-resource"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("[Content_Types].xml", _TYPES)
        package.writestr(
            "_rels/.rels",
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="R0" Type="{relationship}" Target="/FixedDocumentSequence.fdseq"/>'
            "</Relationships>",
        )
        package.writestr(
            "FixedDocumentSequence.fdseq",
            f'<FixedDocumentSequence xmlns="{namespace}">'
            '<DocumentReference Source="/Documents/1/FixedDocument.fdoc"/></FixedDocumentSequence>',
        )
        pages = "".join(f'<PageContent Source="Pages/{n}.fpage"/>' for n in range(1, len(texts) + 1))
        package.writestr(
            "Documents/1/FixedDocument.fdoc", f'<FixedDocument xmlns="{namespace}">{pages}</FixedDocument>'
        )
        for number, text in enumerate(texts, start=1):
            package.writestr(f"Documents/1/Pages/{number}.fpage", _page(namespace, text, font_uri, extra))
            package.writestr(
                f"Documents/1/Pages/_rels/{number}.fpage.rels",
                '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                f'<Relationship Id="F0" Type="{required}" Target="/Resources/font.ttf"/></Relationships>',
            )
        package.writestr("Resources/font.ttf", _font("".join(texts)))
    return out.getvalue()
