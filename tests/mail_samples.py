"""Mails written for the tests and bench/formats.py, by programs other than the mail engine's readers:
eml by the standard library's email package, mbox by its mailbox module, emlx by hand around an eml,
and Outlook msg by hand as MAPI properties in a compound file (ole_writer.py).

Each sample has a multipart/alternative body (text and HTML) that says "Quokka", an inline picture
the HTML shows by ``cid:``, a PDF attachment, and a subject with non-ASCII words (an encoded word).
"""

from __future__ import annotations

import datetime
import io
import mailbox
import plistlib
import struct
import tempfile
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

from PIL import Image
from pypdf import PdfWriter

from ole_writer import compound_file

__all__ = [
    "ATTACHMENT_NAME",
    "PDF_BYTES",
    "PICTURE_BYTES",
    "SUBJECT",
    "WORD",
    "mbox_sample",
    "message_storage",
    "msg_file",
    "sample_eml",
    "sample_emlx",
    "sample_msg",
]

WORD = "Quokka"
SUBJECT = f"{WORD} Grüße — café ☕"
ATTACHMENT_NAME = "quokka-report.pdf"
SENT = datetime.datetime(2026, 3, 14, 9, 26, 53, tzinfo=datetime.UTC)


def _pdf() -> bytes:
    """A one-page PDF written by pypdf: the attachment every sample carries."""
    writer = PdfWriter()
    writer.add_blank_page(200, 100)
    writer.add_metadata({"/Title": "Quokka report"})
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


PDF_BYTES = _pdf()


def _picture() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (24, 16), (29, 78, 216)).save(buffer, "PNG")
    return buffer.getvalue()


PICTURE_BYTES = _picture()


def sample_eml(subject: str = SUBJECT, html_extra: str = "", attachments: bool = True) -> bytes:
    """A mail as Python's email package writes it."""
    message = EmailMessage()
    message["From"] = "Alice Ashby <alice@example.org>"
    message["To"] = "Bob Brook <bob@example.net>, carol@example.net"
    message["Cc"] = "Dora Dune <dora@example.com>"
    message["Date"] = format_datetime(SENT)
    message["Subject"] = subject
    message["Message-ID"] = make_msgid(domain="example.org")
    message.set_content(f"Hello Bob,\n\nThe {WORD} count is 3.\n\nAlice\n")
    cid = make_msgid(domain="example.org")
    message.add_alternative(
        f"<html><body><p>Hello Bob,</p><p>The <b>{WORD}</b> count is 3.</p>"
        f'<img src="cid:{cid[1:-1]}" alt="chart">{html_extra}</body></html>',
        subtype="html",
    )
    html_part = message.get_payload()[1]
    html_part.add_related(PICTURE_BYTES, maintype="image", subtype="png", cid=cid, filename="chart.png")
    if attachments:
        message.add_attachment(PDF_BYTES, maintype="application", subtype="pdf", filename=ATTACHMENT_NAME)
    return message.as_bytes()


def sample_emlx() -> bytes:
    """Apple Mail's emlx: the message's length, the message, a property list."""
    message = sample_eml()
    flags = plistlib.dumps({"flags": 8590195713, "date-received": 1773480413, "remote-id": "42"})
    return f"{len(message)}\n".encode() + message + flags


def mbox_sample() -> bytes:
    """Two messages in an mbox, as the mailbox module writes it (the second without attachments)."""
    with tempfile.TemporaryDirectory() as tmp:
        box = mailbox.mbox(Path(tmp) / "sample.mbox")
        box.add(sample_eml())
        box.add(sample_eml(subject=f"Second {WORD} note", attachments=False))
        box.flush()
        box.close()
        return (Path(tmp) / "sample.mbox").read_bytes()


# --- Outlook msg: MAPI properties ([MS-OXMSG]) --------------------------------------------------------


def _unicode(value: str) -> bytes:
    return value.encode("utf-16-le")


def _properties(
    header: bytes, fixed: dict[tuple[int, int], bytes], strings: dict[tuple[int, int], bytes]
) -> bytes:
    """The ``__properties_version1.0`` stream: its header, then 16 bytes a property."""
    rows = b""
    for (ident, kind), value in sorted(fixed.items()):
        rows += struct.pack("<HHI", kind, ident, 6) + value.ljust(8, b"\x00")
    for (ident, kind), value in sorted(strings.items()):
        size = len(value) + (2 if kind == 0x001F else 0)
        rows += struct.pack("<HHIII", kind, ident, 6, size, 0)
    return header + rows


def _storage(
    header: bytes, fixed: dict[tuple[int, int], bytes], strings: dict[tuple[int, int], bytes]
) -> dict:
    tree: dict = {f"__substg1.0_{ident:04X}{kind:04X}": value for (ident, kind), value in strings.items()}
    tree["__properties_version1.0"] = _properties(header, fixed, strings)
    return tree


def _filetime(moment: datetime.datetime) -> bytes:
    ticks = int((moment - datetime.datetime(1601, 1, 1, tzinfo=datetime.UTC)).total_seconds() * 10_000_000)
    return struct.pack("<Q", ticks)


def message_storage(
    subject: str,
    html: str | None,
    text: str | None,
    attachments: list[dict],
    embedded: dict | None = None,
    top: bool = True,
    rtf: bytes | None = None,
) -> dict:
    """The storage of one message: its properties, a recipient a kind, its attachments."""
    strings = {
        (0x001A, 0x001F): _unicode("IPM.Note"),
        (0x0037, 0x001F): _unicode(subject),
        (0x0C1A, 0x001F): _unicode("Alice Ashby"),
        (0x5D01, 0x001F): _unicode("alice@example.org"),
        (0x0C1F, 0x001F): _unicode("alice@example.org"),
        (0x0C1E, 0x001F): _unicode("SMTP"),
        (0x0E04, 0x001F): _unicode("Bob Brook"),
        (0x0E03, 0x001F): _unicode("Dora Dune"),
    }
    if text is not None:
        strings[(0x1000, 0x001F)] = _unicode(text)
    if html is not None:
        strings[(0x1013, 0x0102)] = html.encode("utf-8")
    if rtf is not None:
        strings[(0x1009, 0x0102)] = rtf
    fixed = {(0x0039, 0x0040): _filetime(SENT), (0x3FDE, 0x0003): struct.pack("<I", 65001)}
    items = list(attachments) + ([{"embedded": embedded}] if embedded else [])
    counts = struct.pack("<IIII", 2, len(items), 2, len(items))
    tree = _storage(b"\x00" * 8 + counts + (b"\x00" * 8 if top else b""), fixed, strings)
    for number, (name, address, kind) in enumerate(
        [("Bob Brook", "bob@example.net", 1), ("Dora Dune", "dora@example.com", 2)]
    ):
        recipient = {(0x3001, 0x001F): _unicode(name), (0x39FE, 0x001F): _unicode(address),
                     (0x3003, 0x001F): _unicode(address)}  # fmt: skip
        tree[f"__recip_version1.0_#{number:08X}"] = _storage(
            b"\x00" * 8, {(0x0C15, 0x0003): struct.pack("<I", kind)}, recipient
        )
    for number, item in enumerate(items):
        if "embedded" in item:
            attachment = _storage(b"\x00" * 8, {(0x3705, 0x0003): struct.pack("<I", 5)},
                                  {(0x3001, 0x001F): _unicode("forwarded")})  # fmt: skip
            attachment["__substg1.0_3701000D"] = item["embedded"]
        else:
            found = {(0x3707, 0x001F): _unicode(item["name"]), (0x3701, 0x0102): item["data"],
                     (0x370E, 0x001F): _unicode(item["mime"])}  # fmt: skip
            if item.get("cid"):
                found[(0x3712, 0x001F)] = _unicode(item["cid"])
            attachment = _storage(b"\x00" * 8, {(0x3705, 0x0003): struct.pack("<I", 1)}, found)
        tree[f"__attach_version1.0_#{number:08X}"] = attachment
    if top:
        tree["__nameid_version1.0"] = {"__substg1.0_00020102": b"", "__substg1.0_00030102": b"",
                                       "__substg1.0_00040102": b""}  # fmt: skip
    return tree


def msg_file(tree: dict) -> bytes:
    return compound_file(tree)


def sample_msg(html_extra: str = "", attachment_name: str = ATTACHMENT_NAME, big: bool = False) -> bytes:
    """An Outlook message: text and HTML bodies, an inline picture, a PDF and an embedded message."""
    html = (
        f"<html><body><p>Hello Bob,</p><p>The <b>{WORD}</b> count is 3.</p>"
        f'<img src="cid:chart@example.org" alt="chart">{html_extra}</body></html>'
    )
    inner = message_storage(f"Forwarded {WORD} note", None, f"The inner {WORD} says hello.\n", [], top=False)
    attachments = [
        {"name": "chart.png", "data": PICTURE_BYTES, "mime": "image/png", "cid": "chart@example.org"},
        {"name": attachment_name, "data": PDF_BYTES + (b"%" + b"x" * 9000 + b"\n" if big else b""),
         "mime": "application/pdf"},
    ]  # fmt: skip
    text = f"Hello Bob,\n\nThe {WORD} count is 3.\n\nAlice\n"
    return msg_file(message_storage(SUBJECT, html, text, attachments, embedded=inner))
