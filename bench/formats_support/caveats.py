"""What a reader of docs/formats.md should know about some conversions, kept by hand.

One row per behaviour: the engine, the inputs and outputs it concerns (None: all that engine lists;
``but``: outputs it does not concern) and what happens. The page shows a row under each input that has
a listed pair it matches (by its default engine), with the outputs it matches.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CAVEATS", "Caveat", "caveats_for"]


@dataclass(frozen=True)
class Caveat:
    engine: str
    inputs: frozenset[str] | None
    outputs: frozenset[str] | None
    text: str
    but: frozenset[str] = frozenset()

    def matches(self, engine: str, source: str, target: str) -> bool:
        return (
            engine == self.engine
            and (self.inputs is None or source in self.inputs)
            and (self.outputs is None or target in self.outputs)
            and target not in self.but
        )


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_PICTURES = _set("png jpg gif bmp tiff webp svg")
CAVEATS = (
    Caveat("poppler", _set("pdf"), _set("png jpg"), "one file per page (`pages` picks them)"),
    Caveat("pdftocairo", _set("pdf"), _set("svg eps"), "one page (`page` picks it, the first by default)"),
    Caveat("ghostscript-ps", None, _set("png jpg"), "one file per page"),
    Caveat("libreoffice", None, _PICTURES, "a picture per slide or page (`slide_range` picks them)"),
    Caveat("libreoffice", None, _set("csv tsv"), "one sheet (`sheet` picks it, the first by default)"),
    Caveat("pillow", _set("gif apng webp tiff"), None, "the first frame only", but=_set("gif webp tiff pdf")),
    Caveat("pillow", _set("gif apng webp tiff"), _set("gif webp tiff pdf"), "every frame kept"),
    Caveat("ffmpeg", None, _set("gif apng webp"), "an animation that loops forever, without sound"),
    Caveat("potrace", None, _set("svg"), "traced in black and white (grey below `threshold` is black)"),
    Caveat("assimp", None, _set("stl 3mf glb gltf 3ds"), "triangles only: polygons are split"),
    Caveat("pandoc", None, _set("pdf"), "printed from HTML by Chromium (no TeX)"),
    Caveat("fonttools", None, _set("ttf otf"), "ttf holds TrueType outlines, otf CFF: converted"),
    Caveat("fonttools", _set("ttc otc dfont"), None, "a font per member (`font_number` picks one)"),
    Caveat("fontforge", _set("bdf pcf"), _set("ttf"), "the bitmaps only (EBDT/EBLC), no outlines"),
    Caveat("fontforge", None, _set("pfa pfb"), "cubic outlines; TrueType hinting is not kept"),
    Caveat("archive", None, None, "members unpacked under guard and packed again with their paths kept"),
    Caveat("chromium", None, _set("png"), "a screenshot of the page (`full_page` for all of it)"),
)  # fmt: skip


def caveats_for(source: str, pairs: dict[str, str]) -> list[tuple[str, list[str]]]:
    """The caveats of input ``source`` with its pairs (output -> default engine): (text, the outputs it
    concerns) each, in the table's order."""
    found = []
    for caveat in CAVEATS:
        targets = sorted(t for t, engine in pairs.items() if caveat.matches(engine, source, t))
        if targets:
            found.append((caveat.text, targets))
    return found
