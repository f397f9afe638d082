"""Outlook's msg: a compound file (OLE2) of MAPI properties, read with olefile (BSD) from the task's
bytes, never from a path.

The properties taken ([MS-OXMSG]): subject, sender, recipients (To/Cc), the sending date, the plain,
HTML and compressed RTF bodies, and every attachment (its name and data, or the message it embeds,
read the same way). A property lives in a stream ``__substg1.0_IIIITTTT`` (id, type) of its storage,
or, fixed in size (dates, integers), as a 16-byte entry of the storage's ``__properties_version1.0``.
When only the RTF body exists it is decompressed and reduced to its text (rtf_body.py).
"""

from __future__ import annotations

import datetime
import io
import struct
from email.utils import format_datetime
from typing import Any

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE
from mcv_pipelines.service.engines.mail.message import MAX_DEPTH, MAX_PARTS, Attachment, Mail
from mcv_pipelines.service.engines.mail.rtf_body import rtf_text

__all__ = ["read_msg"]

# Property ids
_SUBJECT, _SENDER_NAME, _SENDER_EMAIL, _SENDER_SMTP = 0x0037, 0x0C1A, 0x0C1F, 0x5D01
_REPRESENTING_NAME, _REPRESENTING_EMAIL = 0x0042, 0x0065
_DISPLAY_TO, _DISPLAY_CC, _MESSAGE_ID = 0x0E04, 0x0E03, 0x1035
_BODY, _HTML, _RTF = 0x1000, 0x1013, 0x1009
_SUBMIT_TIME, _DELIVERY_TIME, _INTERNET_CPID, _MESSAGE_CPID = 0x0039, 0x0E06, 0x3FDE, 0x3FFD
_RECIPIENT_TYPE, _DISPLAY_NAME, _EMAIL, _SMTP = 0x0C15, 0x3001, 0x3003, 0x39FE
_ATTACH_DATA, _LONG_NAME, _SHORT_NAME, _MIME, _CONTENT_ID = 0x3701, 0x3707, 0x3704, 0x370E, 0x3712
_METHOD = 0x3705  # 1 the data, 5 an embedded message, 6 an OLE object; by reference (2-4) has no data
# Types
_UNICODE, _STRING8, _BINARY, _OBJECT, _LONG, _SYSTIME = 0x001F, 0x001E, 0x0102, 0x000D, 0x0003, 0x0040
_FILETIME_EPOCH = datetime.datetime(1601, 1, 1, tzinfo=datetime.UTC)
_RECIPIENTS = "__recip_version1.0_#"
_ATTACHMENTS = "__attach_version1.0_#"


class _Storage:
    """One storage of the file (the message, a recipient, an attachment, an embedded message)."""

    def __init__(self, ole: Any, path: list[str], header: int, codepage: str = "cp1252") -> None:
        self.ole, self.path, self.codepage = ole, path, codepage
        self.fixed = self._fixed(header)

    def _stream(self, name: str) -> bytes | None:
        entry = [*self.path, name]
        if not self.ole.exists("/".join(entry)):
            return None
        data: bytes = self.ole.openstream(entry).read()
        return data

    def _fixed(self, header: int) -> dict[int, bytes]:
        data = self._stream("__properties_version1.0") or b""
        found: dict[int, bytes] = {}
        for offset in range(header, len(data) - 15, 16):
            kind, ident = struct.unpack_from("<HH", data, offset)
            found[ident] = bytes([*struct.pack("<H", kind), *data[offset + 8 : offset + 16]])
        return found

    def binary(self, ident: int) -> bytes | None:
        return self._stream(f"__substg1.0_{ident:04X}{_BINARY:04X}")

    def text(self, ident: int) -> str:
        wide = self._stream(f"__substg1.0_{ident:04X}{_UNICODE:04X}")
        if wide is not None:
            return wide.decode("utf-16-le", "replace").rstrip("\x00")
        narrow = self._stream(f"__substg1.0_{ident:04X}{_STRING8:04X}")
        return "" if narrow is None else _decode(narrow, self.codepage).rstrip("\x00")

    def long(self, ident: int) -> int | None:
        value = self.fixed.get(ident)
        if value is None or struct.unpack_from("<H", value)[0] != _LONG:
            return None
        return int(struct.unpack_from("<i", value, 2)[0])

    def time(self, ident: int) -> datetime.datetime | None:
        value = self.fixed.get(ident)
        if value is None or struct.unpack_from("<H", value)[0] != _SYSTIME:
            return None
        ticks = struct.unpack_from("<Q", value, 2)[0]
        try:
            return _FILETIME_EPOCH + datetime.timedelta(microseconds=ticks // 10)
        except OverflowError:
            return None

    def children(self, prefix: str) -> list[str]:
        """The names of the storages directly under this one that start with ``prefix``, in order."""
        names = {
            entry[len(self.path)]
            for entry in self.ole.listdir(streams=False, storages=True)
            if len(entry) == len(self.path) + 1 and entry[: len(self.path)] == self.path
            and entry[-1].startswith(prefix)
        }  # fmt: skip
        return sorted(names)[:MAX_PARTS]


def _decode(data: bytes, codepage: str) -> str:
    try:
        return data.decode(codepage)
    except (LookupError, UnicodeDecodeError):
        return data.decode("cp1252", "replace")


def _codepage(storage: _Storage, ident: int) -> str:
    number = storage.long(ident)
    return {65001: "utf-8", 20127: "ascii", 28591: "latin-1"}.get(
        number or 0, f"cp{number}" if number else ""
    )


def read_msg(data: bytes, name: str = "the message") -> Mail:
    """The mail of an Outlook msg file's bytes."""
    import olefile  # type: ignore[import-untyped]  # imported when a task reads a msg, not when the service starts

    if not olefile.isOleFile(io.BytesIO(data)):
        raise EngineError(INVALID_INPUT_FILE, f"{name} is not an Outlook message (no compound file header)")
    try:
        ole = olefile.OleFileIO(io.BytesIO(data))
    except (OSError, ValueError, struct.error) as exc:
        raise EngineError(
            INVALID_INPUT_FILE, f"{name} is not a compound file olefile can read: {exc}"
        ) from exc
    with ole:
        if not ole.exists("__properties_version1.0"):
            raise EngineError(INVALID_INPUT_FILE, f"{name} is a compound file but not an Outlook message")
        return _message(ole, [], 32, 0)


def _message(ole: Any, path: list[str], header: int, depth: int) -> Mail:
    storage = _Storage(ole, path, header)
    storage.codepage = _codepage(storage, _MESSAGE_CPID) or "cp1252"
    sent = storage.time(_SUBMIT_TIME) or storage.time(_DELIVERY_TIME)
    mail = Mail(
        subject=storage.text(_SUBJECT),
        sender=_person(storage.text(_SENDER_NAME) or storage.text(_REPRESENTING_NAME),
                       storage.text(_SENDER_SMTP) or storage.text(_SENDER_EMAIL)
                       or storage.text(_REPRESENTING_EMAIL)),
        date=format_datetime(sent) if sent else "",
        message_id=storage.text(_MESSAGE_ID),
    )  # fmt: skip
    _recipients(storage, mail)
    body = storage.text(_BODY)
    mail.text = body or None
    html = storage.binary(_HTML)
    if html is not None:
        mail.html = _decode(html, _codepage(storage, _INTERNET_CPID) or "utf-8")
    elif storage.text(_HTML):
        mail.html = storage.text(_HTML)
    rtf = storage.binary(_RTF)
    if mail.text is None and mail.html is None and rtf:
        mail.text = rtf_text(rtf)
        mail.notes.append("the body was RTF only: shown as its plain text")
    for child in storage.children(_ATTACHMENTS):
        _attachment(ole, [*path, child], mail, depth)
    return mail


def _person(name: str, address: str) -> str:
    if name and address and address not in name:
        return f"{name} <{address}>"
    return name or address


def _recipients(storage: _Storage, mail: Mail) -> None:
    for child in storage.children(_RECIPIENTS):
        recipient = _Storage(storage.ole, [*storage.path, child], 8, storage.codepage)
        who = _person(recipient.text(_DISPLAY_NAME), recipient.text(_SMTP) or recipient.text(_EMAIL))
        kind = recipient.long(_RECIPIENT_TYPE)
        if who and kind in (1, None):
            mail.to.append(who)
        elif who and kind == 2:
            mail.cc.append(who)
    if not mail.to and storage.text(_DISPLAY_TO):
        mail.to.append(storage.text(_DISPLAY_TO))
    if not mail.cc and storage.text(_DISPLAY_CC):
        mail.cc.append(storage.text(_DISPLAY_CC))


def _attachment(ole: Any, path: list[str], mail: Mail, depth: int) -> None:
    storage = _Storage(ole, path, 8)
    inner = [*path, f"__substg1.0_{_ATTACH_DATA:04X}{_OBJECT:04X}"]
    if ole.exists("/".join(inner)) and ole.get_type("/".join(inner)) == 1 and storage.long(_METHOD) == 6:
        mail.notes.append("an embedded OLE object (not a file, not a message) was left out")
        return
    if ole.exists("/".join(inner)) and ole.get_type("/".join(inner)) == 1:  # a storage: an embedded msg
        if depth < MAX_DEPTH:
            mail.embedded.append(_message(ole, inner, 24, depth + 1))
        else:
            mail.notes.append(f"messages embedded deeper than {MAX_DEPTH} were left out")
        return
    content_id = storage.text(_CONTENT_ID).strip().strip("<>")
    mail.attachments.append(
        Attachment(
            name=storage.text(_LONG_NAME) or storage.text(_SHORT_NAME) or storage.text(_DISPLAY_NAME),
            data=storage.binary(_ATTACH_DATA) or b"",
            content_type=storage.text(_MIME) or "application/octet-stream",
            content_id=content_id or None,
            inline=bool(content_id),
        )
    )
