"""What ImageMagick converts is read from its own coder list, and never what Pillow already does."""

from __future__ import annotations

from mcv_pipelines.service.engines.image.magick_formats import (
    magick_decodes,
    magick_encodes,
    supported_coders,
)

_LISTING = """   Format  Module    Mode  Description
-------------------------------------------------------------------------------
      CUR* ICON      rw-   Microsoft icon
      MAC* MAC       r--   MAC Paint
     PICT* PICT      rw-   Apple Macintosh QuickDraw/PICT
      PSD* PSD       rw+   Adobe Photoshop bitmap
      SUN* SUN       rw+   SUN Rasterfile
      XWD* XWD       rw-   X Windows system window dump (color)
"""


def test_the_coder_list_gives_each_coder_its_mode() -> None:
    coders = supported_coders(_LISTING)
    assert coders["MAC"] == "r-"
    assert coders["PICT"] == "rw"
    assert "Format" not in coders


def test_only_what_this_build_has_and_pillow_lacks_is_listed() -> None:
    coders = supported_coders(_LISTING)
    decodes = magick_decodes(coders, pillow_reads={"psd", "ras"})
    encodes = magick_encodes(coders, pillow_writes={"png"})
    assert set(decodes) == {"mac", "pict", "xwd"}  # psd and ras are Pillow's; miff is not in this build
    assert set(encodes) == {"pict", "psd", "ras", "xwd"}  # mac is read only; cur writes an icon
