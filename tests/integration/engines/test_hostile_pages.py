"""Hostile pages and books read nothing outside their task (issue 47), under bubblewrap and Landlock.

A comic archive whose members climb out (``../``), are absolute or are links to the planted secrets;
a zip bomb and a picture that claims billions of pixels; an XPS whose page takes its picture and its
font from a file path or a ``file:`` URI outside the package; a CHM whose page links, shows and styles
itself with files outside; a DjVu that includes files by name (an
indirect document, a page with an INCL chunk). Each converts without the outside content or fails
with a clear error, and neither its output nor its error holds a secret.
"""

from __future__ import annotations

import io
import struct
import subprocess
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from PIL import Image
from planted_secrets import Planted
from test_hostile_files_see_only_their_task import (  # the planted secrets under both seals
    Outcome,
    _book,
    assert_nothing_out,
    convert,
    sealing,
    secrets,
)

from chm_sample import chm_document
from comic_samples import comic_archive, page_picture
from djvu_sample import djvu_document
from mcv_pipelines.service.engines.archive import unpack
from mcv_pipelines.service.engines.base import Engine
from xps_sample import xps_document

__all__ = ["sealing", "secrets"]  # fixtures of the hostile suite, used here by name

RequireEngine = Callable[..., Engine]
# outputs that keep each page's picture as its bytes, so a secret picture taken in would be found
_TO = {"cbz": "epub", "cbt": "cbz"}


def _outside(secrets: Planted) -> list[Path]:
    """The directories the secrets were planted in."""
    return sorted({path.parent for path in [*secrets.text.values(), *secrets.pictures.values()]})


def _hostile_cbz(secrets: Planted) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("page1.png", page_picture(1))
        for place, path in {**secrets.text, **secrets.pictures}.items():
            link = zipfile.ZipInfo(f"page-link-{place}.png")
            link.external_attr = (0o120777 << 16) | 0x20  # a symlink, as Info-ZIP stores one
            archive.writestr(link, str(path))
        for directory in _outside(secrets):
            archive.writestr(f"{'../' * 12}{str(directory).lstrip('/')}/page-escaped.png", page_picture(2))
            archive.writestr(f"{directory}/page-absolute.png", page_picture(2))
    return out.getvalue()


def _hostile_cbt(secrets: Planted) -> bytes:
    import tarfile

    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as archive:
        data = page_picture(1)
        first = tarfile.TarInfo("page1.png")
        first.size = len(data)
        archive.addfile(first, io.BytesIO(data))
        for place, path in secrets.pictures.items():
            for kind, name in ((tarfile.SYMTYPE, "symlink"), (tarfile.LNKTYPE, "hardlink")):
                link = tarfile.TarInfo(f"page-{name}-{place}.png")
                link.type, link.linkname = kind, str(path)
                archive.addfile(link)
    return out.getvalue()


def test_a_comic_neither_reads_nor_writes_outside(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("comics", "convert", "cbt", "cbz")
    before = {place: sorted(path.parent.iterdir()) for place, path in secrets.text.items()}
    outcomes = {
        name: convert(
            client,
            tmp_path / name,
            name,
            data,
            {"operation": "convert", "output_format": _TO[name[-3:]], "engine": "comics"},
        )
        for name, data in (("links.cbz", _hostile_cbz(secrets)), ("links.cbt", _hostile_cbt(secrets)))
    }
    assert_nothing_out(outcomes, secrets)
    assert {place: sorted(path.parent.iterdir()) for place, path in secrets.text.items()} == before
    for outcome in outcomes.values():
        assert outcome.status == "finished", outcome.message
        assert page_picture(1) in outcome.output
    # the climbing and absolute members are pictures of the archive: kept inside, under safe names
    assert outcomes["links.cbz"].output.count(page_picture(2)) == 2 * len(_outside(secrets))


def _huge_png() -> bytes:
    """A PNG whose header claims 100000 x 100000 pixels: a few bytes, a 30 GB picture."""
    small = io.BytesIO()
    Image.new("RGB", (1, 1)).save(small, "PNG")
    data = bytearray(small.getvalue())
    data[16:24] = struct.pack(">II", 100_000, 100_000)
    data[29:33] = struct.pack(">I", zlib.crc32(bytes(data[12:29])))  # the IHDR chunk's CRC
    return bytes(data)


def test_a_comic_bomb_fails_clearly(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_engine("comics", "convert", "cbz", "pdf")
    # the service runs in this process: a small limit makes a 3 MB member a bomb without a huge file
    monkeypatch.setattr(unpack, "MAX_TOTAL_BYTES", 1024 * 1024)
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("page1.png", bytes(3 * 1024 * 1024))
    task = {"operation": "convert", "output_format": "pdf"}
    outcomes = {
        "bomb.cbz": convert(client, tmp_path / "bomb", "bomb.cbz", bomb.getvalue(), task),
        "huge.cbz": convert(client, tmp_path / "huge", "huge.cbz",
                            comic_archive("cbz", [("page1.png", _huge_png())]), task),
    }  # fmt: skip
    assert outcomes["bomb.cbz"].message == "INVALID_INPUT_FILE: bomb.cbz unpacks to more than 1 MB"
    assert outcomes["huge.cbz"].message == (
        "INVALID_INPUT_FILE: could not read the page page1.png: the image has too many pixels"
    )


def _xps_reaching_out(secrets: Planted) -> dict[str, bytes]:
    """One XPS for each way of naming a file (a file: URI, an absolute path, a climb out of the
    package), its page painting every planted picture through an ImageBrush; an OpenXPS for each
    planted text file named as its font."""
    documents = {}
    for how in ("uri", "path", "climb"):
        brushes = ""
        for index, path in enumerate(secrets.pictures.values()):
            uri = {"uri": path.as_uri(), "path": str(path), "climb": f"{'../' * 12}{path}"}[how]
            left = 400 + 110 * index
            brushes += (
                f'<Path Data="M {left},48 L {left + 100},48 {left + 100},148 {left},148 Z"><Path.Fill>'
                f'<ImageBrush ImageSource="{uri}" Viewbox="0,0,48,48" ViewboxUnits="Absolute" '
                f'Viewport="{left},48,100,100" ViewportUnits="Absolute"/></Path.Fill></Path>'
            )
        documents[f"picture-{how}.xps"] = xps_document(["Kept text"], extra=brushes)
    for place, path in secrets.text.items():
        documents[f"font-{place}.oxps"] = xps_document(["Kept text"], "oxps", font_uri=path.as_uri())
    return documents


def _secret_colours(data: bytes) -> set[tuple[int, int, int]]:
    """The planted pictures' colours a PNG output shows (they are (200, 0..20, 190) and (12, 200, 34))."""
    with Image.open(io.BytesIO(data)) as image:
        colours = {colour for _, colour in image.convert("RGB").getcolors(1 << 20) or []}
    return {c for c in colours if (c[0] == 200 and c[2] == 190) or c == (12, 200, 34)}


def test_an_xps_takes_no_picture_or_font_from_outside(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("mupdf", "convert", "xps", "png")
    outcomes: dict[str, Outcome] = {}
    for name, data in _xps_reaching_out(secrets).items():
        task = {"operation": "convert", "output_format": "png", "engine": "mupdf"}
        outcomes[name] = outcome = convert(client, tmp_path / name, name, data, task)
        if outcome.status == "finished":
            png = outcome.output[outcome.output.index(b"\x89PNG") :]
            assert _secret_colours(png) == set(), name
    assert_nothing_out(outcomes, secrets)
    picture = next(o for n, o in outcomes.items() if n.startswith("picture-uri"))
    assert picture.status == "finished", picture.message  # the page itself still renders


def _with_include(page: bytes, names: list[str]) -> bytes:
    """A one-page DjVu with INCL chunks naming ``names`` added to its FORM."""
    chunks = b""
    for name in names:
        data = name.encode()
        chunks += b"INCL" + struct.pack(">I", len(data)) + data + (b"\x00" if len(data) % 2 else b"")
    body = page[12:] + chunks  # after AT&T, FORM and its size
    return b"AT&TFORM" + struct.pack(">I", len(body)) + body


def test_a_djvu_that_names_files_fails_clearly(
    secrets: Planted, require_engine: RequireEngine, require_program: Callable[..., str],
    client: httpx.Client, tmp_path: Path,
) -> None:  # fmt: skip
    require_engine("djvulibre", "convert", "djvu", "png")
    for program in ("cjb2", "c44", "djvm", "djvused", "djvmcvt"):
        require_program(program)
    bundled = djvu_document(tmp_path / "bundled.djvu", ["Quokka", "Wombat"])
    (tmp_path / "pages").mkdir()
    subprocess.run(["djvmcvt", "-i", str(bundled), str(tmp_path / "pages"), "index.djvu"], check=True)
    page = (tmp_path / "pages" / "p1.djvu").read_bytes()
    named = [str(path) for path in [*secrets.text.values(), *secrets.pictures.values()]]
    task = {"operation": "convert", "output_format": "png", "engine": "djvulibre"}
    outcomes = {
        "index.djvu": convert(client, tmp_path / "index", "index.djvu",
                              (tmp_path / "pages" / "index.djvu").read_bytes(), task),
        "includes.djvu": convert(client, tmp_path / "incl", "includes.djvu",
                                 _with_include(page, named), task),
    }  # fmt: skip
    assert_nothing_out(outcomes, secrets)
    assert outcomes["index.djvu"].message.startswith("INVALID_INPUT_FILE: index.djvu is an indirect DjVu")
    assert outcomes["includes.djvu"].message.startswith(
        "INVALID_INPUT_FILE: includes.djvu includes other files (secret.txt, "
    )


def test_a_chm_takes_nothing_its_pages_name_outside(
    secrets: Planted, require_engine: RequireEngine, require_conversion: Callable[..., Engine],
    client: httpx.Client, tmp_path: Path,
) -> None:  # fmt: skip
    require_engine("chmlib", "convert", "chm", "htmlz")
    require_conversion("convert", "chm", "epub")
    page = _book(secrets)  # pictures, styles, frames and links naming the planted files
    data = chm_document([("index.html", "Chapter", page), ("more.html", "More", page)])
    outcomes = {
        f"book.{target}": convert(client, tmp_path / target, "book.chm", data,
                                  {"operation": "convert", "output_format": target, "engine": "chmlib"})
        for target in ("htmlz", "epub")
    }  # fmt: skip
    assert_nothing_out(outcomes, secrets)
    for outcome in outcomes.values():
        assert outcome.status == "finished", outcome.message
        assert b"Text of the chapter." in outcome.output
