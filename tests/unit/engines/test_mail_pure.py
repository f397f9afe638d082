"""The mail engine's pure parts: the HTML allow-list, attachment names, compressed RTF, mbox splitting,
the msg reader on hand-written compound files, and what the engine lists without a printer."""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from mail_samples import PDF_BYTES, SUBJECT, WORD, message_storage, msg_file, sample_eml, sample_msg
from mcv_pipelines.service.engines.base import EngineError, EngineRequest
from mcv_pipelines.service.engines.mail.eml_reader import read_eml, read_emlx, split_mbox
from mcv_pipelines.service.engines.mail.mail_engine import MailEngine
from mcv_pipelines.service.engines.mail.message import Attachment
from mcv_pipelines.service.engines.mail.msg_reader import read_msg
from mcv_pipelines.service.engines.mail.outputs import UniqueNames
from mcv_pipelines.service.engines.mail.rtf_body import decompress_rtf, rtf_text
from mcv_pipelines.service.engines.mail.sanitize import sanitise_html

PNG = Attachment("dot.png", b"\x89PNG-bytes", "image/png", "dot@x")


def test_the_allow_list_keeps_layout_and_drops_every_way_to_load_or_run() -> None:
    body, css, used = sanitise_html(
        '<!--[if mso]><img src="http://a/x"><![endif]-->'
        '<p style="color:red" onclick="x()">Hi <b>there</b></p>'
        '<img src="cid:dot@x" onerror="x()"><img src="http://evil/p.png"><img src="file:///etc/passwd">'
        '<img src="data:text/html;base64,PHNjcmlwdD4="><img src="data:image/gif;base64,R0lGOD==">'
        '<a href="javascript:x()">j</a><a href="https://example.org/">w</a>'
        '<script>alert(1)</script><iframe src="x"><p>in frame</p></iframe>'
        "<div style=\"background:url('http://evil/bg')\">bg</div><style>p{color:blue}</style>"
        "<style>@import 'http://evil/a.css';</style><style>p{background:u\\72l(http://e)}</style>",
        [PNG],
    )  # fmt: skip
    assert body == (
        '<p style="color:red">Hi <b>there</b></p>'
        f'<img src="data:image/png;base64,{base64.b64encode(PNG.data).decode()}"><img><img><img>'
        '<img src="data:image/gif;base64,R0lGOD=="><a>j</a><a href="https://example.org/">w</a>'
        "<div>bg</div>"
    )
    assert css == "p{color:blue}"
    assert used == {"dot@x"}


def test_escaped_text_and_attributes_cannot_break_out() -> None:
    body, _, _ = sanitise_html('<p title="&quot;><script>x</script>">&lt;script&gt; &amp; 1 < 2</p>', [])
    assert body == '<p title="&quot;&gt;&lt;script&gt;x&lt;/script&gt;">&lt;script&gt; &amp; 1 &lt; 2</p>'


def test_attachment_names_stay_in_the_output_and_never_collide(tmp_path: Path) -> None:
    (tmp_path / "mail.pdf").write_bytes(b"the converted mail")
    names = UniqueNames(tmp_path)
    wanted = ["../../x", "/etc/passwd", "..", "", "mail.pdf", "MAIL.pdf", "a\\b.txt", "x"]
    got = [names.path(name, "attachment-1.bin").name for name in wanted]
    assert got == ["x", "passwd", "attachment-1.bin", "attachment-1-1.bin", "mail-1.pdf", "MAIL-2.pdf",
                   "b.txt", "x-1"]  # fmt: skip


def _lzfu(body: bytes) -> bytes:
    """Compressed RTF written as the format allows: a reference into the preset dictionary ('{\\rtf1'
    at offset 0), the body's bytes as literals, then the end marker; eight items to a control byte."""
    items: list[bytes | int] = [
        struct.pack(">H", 6 - 2),
        *body,
        struct.pack(">H", ((207 + 6 + len(body)) % 4096) << 4),
    ]
    out = bytearray()
    for start in range(0, len(items), 8):
        run = items[start : start + 8]
        out.append(sum(1 << bit for bit, item in enumerate(run) if isinstance(item, bytes)))
        for item in run:
            out += item if isinstance(item, bytes) else bytes([item])
    return struct.pack("<IIII", len(out) + 12, len(body) + 6, 0x75465A4C, zlib.crc32(bytes(out))) + bytes(out)


def test_compressed_rtf_comes_out_as_its_text() -> None:
    rtf = (
        b"\\ansi{\\fonttbl{\\f0 Arial;}}{\\*\\generator x;}Hello \\'e9t\\'e9\\par The "
        + WORD.encode()
        + b" \\u8364?.}"
    )
    assert decompress_rtf(_lzfu(rtf)) == b"{\\rtf1" + rtf
    assert rtf_text(_lzfu(rtf)) == f"Hello été\nThe {WORD} €.\n"
    stored = struct.pack("<IIII", len(rtf) + 12, len(rtf), 0x414C454D, 0) + b"{\\rtf1" + rtf
    assert decompress_rtf(stored).startswith(b"{\\rtf1\\ansi")
    assert rtf_text(b"not compressed rtf at all") == ""


def test_a_msg_with_only_an_rtf_body_reads_as_text() -> None:
    rtf = b"\\ansi Only the " + WORD.encode() + b" in RTF.\\par}"
    mail = read_msg(msg_file(message_storage("RTF only", None, None, [], rtf=_lzfu(rtf))))
    assert mail.text == f"Only the {WORD} in RTF.\n"
    assert mail.html is None
    assert mail.notes == ["the body was RTF only: shown as its plain text"]


def test_the_msg_reader_finds_everything_the_sample_holds() -> None:
    mail = read_msg(sample_msg())
    assert (mail.subject, mail.sender) == (SUBJECT, "Alice Ashby <alice@example.org>")
    assert (mail.to, mail.cc) == (["Bob Brook <bob@example.net>"], ["Dora Dune <dora@example.com>"])
    assert mail.date == "Sat, 14 Mar 2026 09:26:53 +0000"
    assert [(a.name, a.content_id) for a in mail.attachments] == [("chart.png", "chart@example.org"),
                                                                   ("quokka-report.pdf", None)]  # fmt: skip
    assert mail.attachments[1].data == PDF_BYTES
    assert [inner.subject for inner in mail.embedded] == [f"Forwarded {WORD} note"]


def test_mbox_splits_on_from_lines_and_unquotes() -> None:
    box = (
        b"From a@x Sat Jan  1 00:00:00 2026\nSubject: one\n\n>From here on\n\n"
        b"From b@x Sun Jan  2 00:00:00 2026\nSubject: two\n\nx\n"
    )
    assert split_mbox(box) == [b"Subject: one\n\nFrom here on\n\n", b"Subject: two\n\nx\n"]


def test_what_is_not_a_mail_fails_as_the_users_file() -> None:
    for read, data in (
        (read_eml, b""),
        (read_emlx, b"no length\n"),
        (read_msg, b"\xd0\xcf\x11\xe0" + b"\x00" * 600),
    ):
        with pytest.raises(EngineError) as raised:
            read(data)
        assert raised.value.code == "INVALID_INPUT_FILE"


def test_without_a_printer_no_pdf_is_listed_or_written(
    make_request: Callable[..., EngineRequest], tmp_path: Path
) -> None:
    engine = MailEngine()
    pairs = {(pair.input_format, pair.output_format) for pair in engine.conversion_types()}
    assert {("eml", "html"), ("msg", "eml"), ("emlx", "eml"), ("mbox", "md")} <= pairs
    assert not {pair for pair in pairs if "pdf" in pair}
    assert ("eml", "eml") not in pairs
    note = tmp_path / "note.eml"
    note.write_bytes(sample_eml())
    with pytest.raises(EngineError) as raised:
        engine.run(make_request("convert", "eml", "pdf", [note]))
    assert raised.value.code == "UNSUPPORTED_CONVERSION"
    result = engine.run(make_request("convert", "eml", "txt", [note], {"attachments": False}))
    assert [path.name for path in result.files] == ["note.txt"]
