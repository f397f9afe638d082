"""A CHM's unpacked pages as one book: the contents' order, links within the book, nothing outside;
and the member listing's refusals."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import pytest

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.pages.chm import chm_listing
from mcv_pipelines.service.engines.pages.chm_book import page_order, write_htmlz


def _system(**records: str) -> bytes:
    codes = {"contents": 0, "home": 2, "title": 3}
    body = b"".join(
        struct.pack("<HH", codes[key], len(value) + 1) + value.encode() + b"\x00"
        for key, value in records.items()
    )
    return struct.pack("<I", 3) + body


def _unpacked(tmp_path: Path) -> Path:
    root = tmp_path / "files"
    (root / "pics").mkdir(parents=True)
    (root / "#SYSTEM").write_bytes(_system(contents="toc.hhc", home="b.htm", title="Guide"))
    (root / "toc.hhc").write_text(
        '<ul><li><object type="text/sitemap"><param name="Local" value="b.htm"></object>'
        '<li><object type="text/sitemap"><param name="Local" value="sub/a.htm#part"></object>'
        '<li><object type="text/sitemap"><param name="Local" value="../../etc/passwd"></object></ul>'
    )
    (root / "b.htm").write_text(
        '<html><body><a href="sub/a.htm#part">on</a><img src="pics/p.png">'
        '<img src="file:///etc/passwd"><a href="/tmp/secret.txt">x</a><script>alert(1)</script></body></html>'
    )
    (root / "sub").mkdir()
    (root / "sub" / "a.htm").write_text('<body><p id="part">Deep</p><img src="../pics/p.png"></body>')
    (root / "z10.htm").write_text("<body>Ten</body>")
    (root / "z9.htm").write_text("<body>Nine</body>")
    (root / "pics" / "p.png").write_bytes(b"\x89PNG picture")
    return root


def test_pages_follow_the_contents_then_natural_order(tmp_path: Path) -> None:
    assert page_order(_unpacked(tmp_path)) == ["b.htm", "sub/a.htm", "z9.htm", "z10.htm"]


def test_the_book_links_within_itself_and_keeps_nothing_outside(tmp_path: Path) -> None:
    target = tmp_path / "guide.htmlz"
    assert write_htmlz(_unpacked(tmp_path), target, "guide") == 4
    with zipfile.ZipFile(target) as book:
        assert sorted(book.namelist()) == ["index.html", "pics/p.png"]
        index = book.read("index.html").decode()
    assert "<title>Guide</title>" in index
    assert '<a href="#part">on</a>' in index
    assert index.count('<img src="pics/p.png">') == 2  # from the top and from sub/
    assert '<img src="">' in index  # the file: picture, dropped
    assert '<a href="">x</a>' in index  # an absolute path names nothing in the book
    assert "<script" not in index
    assert index.index("Deep") < index.index("Nine") < index.index("Ten")


_LISTING = """/tmp/x/input.chm:
 spc    start   length   type\t\t\tname
 ===    =====   ======   ====\t\t\t====
   0        0       47   special file\t\t/#SYSTEM
   0       47      131   normal file\t\t/index.html
"""


def test_the_listing_is_read_and_refuses_names_that_climb_out() -> None:
    assert chm_listing(_LISTING, "help.chm") == [("/#SYSTEM", 47), ("/index.html", 131)]
    climbing = _LISTING + "   0      178       10   normal file\t\t/../../etc/cron.d/x\n"
    with pytest.raises(EngineError, match="climbs out"):
        chm_listing(climbing, "help.chm")
