"""A Microsoft Compiled HTML Help (CHM) file written by hand: no program here compiles one (Free
Pascal's chmcmd would, at ~250 MB of packages). Every file is stored uncompressed in content section 0,
which CHM readers (chmlib, and Calibre through it) accept beside LZX-compressed section 1:

- the ITSF header (version 3) with the header section table and the offset of the content;
- header section 0 (the file's size) and the directory: an ITSP header and one PMGL listing chunk of
  entries (name, section, offset, length as ENCINTs) ending with its entry count;
- the files: ``/#SYSTEM`` (the table of contents and the home page), ``/toc.hhc`` and the pages.

Used by the pages tests and by bench/formats.py's samples.
"""

from __future__ import annotations

import struct
import uuid

__all__ = ["chm_document"]

_CHUNK = 0x1000
_ITSF_GUIDS = (
    uuid.UUID("7C01FD10-7BAA-11D0-9E0C-00A0C922E6EC").bytes_le
    + uuid.UUID("7C01FD11-7BAA-11D0-9E0C-00A0C922E6EC").bytes_le
)
_ITSP_GUID = uuid.UUID("5D02926A-212E-11D0-9DF9-00A0C922E6EC").bytes_le


def _encint(value: int) -> bytes:
    """A CHM ENCINT: big-endian groups of 7 bits, the high bit set on all but the last."""
    groups = [value & 0x7F]
    value >>= 7
    while value:
        groups.append(0x80 | (value & 0x7F))
        value >>= 7
    return bytes(reversed(groups))


def _system(toc: str, home: str, title: str) -> bytes:
    """``#SYSTEM``: a version, then (code, length, NUL-ended value) records."""
    records = b""
    for code, text in ((0, toc), (2, home), (3, title)):
        value = text.encode() + b"\x00"
        records += struct.pack("<HH", code, len(value)) + value
    return struct.pack("<I", 3) + records


def _toc(pages: list[tuple[str, str]]) -> bytes:
    items = "".join(
        f'<LI><OBJECT type="text/sitemap"><param name="Name" value="{title}">'
        f'<param name="Local" value="{name}"></OBJECT>'
        for name, title in pages
    )
    return f"<HTML><BODY><UL>{items}</UL></BODY></HTML>".encode()


def chm_document(pages: list[tuple[str, str, str]], title: str = "Help") -> bytes:
    """A CHM of ``pages`` (file name, title, HTML), the first one its home page."""
    files = {
        "/#SYSTEM": _system("toc.hhc", pages[0][0], title),
        "/toc.hhc": _toc([(name, page_title) for name, page_title, _ in pages]),
        **{f"/{name}": html.encode() for name, _, html in pages},
    }
    content, entries = b"", b""
    for name in sorted(files, key=str.lower):
        encoded = name.encode()
        entries += (
            _encint(len(encoded)) + encoded + _encint(0) + _encint(len(content)) + _encint(len(files[name]))
        )
        content += files[name]
    if 0x14 + len(entries) + 2 > _CHUNK:
        raise ValueError("the sample's directory must fit one listing chunk")
    free = _CHUNK - 0x14 - len(entries)
    listing = b"PMGL" + struct.pack("<IIii", free, 0, -1, -1) + entries
    listing += bytes(_CHUNK - len(listing) - 2) + struct.pack("<H", len(files))
    itsp = b"ITSP" + struct.pack("<IIIIIiiiiiII", 1, 0x54, 0x0A, _CHUNK, 2, 1, -1, 0, 0, -1, 1, 0x409)
    itsp += _ITSP_GUID + struct.pack("<Iiii", 0x54, -1, -1, -1)
    directory = itsp + listing
    section0_offset = 0x60
    directory_offset = section0_offset + 0x18
    content_offset = directory_offset + len(directory)
    total = content_offset + len(content)
    itsf = b"ITSF" + struct.pack("<IIIII", 3, 0x60, 1, 0, 0x409) + _ITSF_GUIDS
    itsf += struct.pack("<QQQQQ", section0_offset, 0x18, directory_offset, len(directory), content_offset)
    section0 = struct.pack("<IIQII", 0x01FE, 0, total, 0, 0)
    return itsf + section0 + directory + content
