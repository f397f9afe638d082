"""eml (RFC 5322 with MIME), and the two containers of it: mbox (every message) and Apple Mail's emlx.

Parsed from the task's bytes by the standard library (``email`` with ``policy.default``, which decodes
encoded words, RFC 2231 file names and charsets). The tree is walked by hand, ``MAX_DEPTH`` deep and
``MAX_PARTS`` wide: the first text/plain and text/html that are not attachments are the bodies, a
``message/rfc822`` part is an embedded mail, every other leaf an attachment (inline pictures keep their
Content-ID for the HTML's ``cid:`` references). A mail nested deeper than Python's parser can follow
fails with a clear error rather than a RecursionError.
"""

from __future__ import annotations

import email
import re
from email import policy
from email.message import EmailMessage, Message

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE
from mcv_pipelines.service.engines.mail.message import MAX_DEPTH, MAX_PARTS, Attachment, Mail

__all__ = ["mail_from_message", "read_eml", "read_emlx", "read_mbox", "split_mbox"]

_MBOX_FROM = re.compile(rb"^From .*\r?\n", re.MULTILINE)
_QUOTED_FROM = re.compile(rb"^>(>*From )", re.MULTILINE)


def read_eml(data: bytes, name: str = "the mail") -> Mail:
    """The mail of an eml file's bytes."""
    try:
        message = email.message_from_bytes(data, policy=policy.default)
    except RecursionError as exc:
        raise EngineError(INVALID_INPUT_FILE, f"{name} nests its parts too deeply to be read") from exc
    if not isinstance(message, EmailMessage) or not message.keys():
        # RFC 5322 asks From and Date of every mail: bytes with no header at all are no mail
        problem = f"{name} is not a mail: it has no headers (From, To, Subject ...)"
        raise EngineError(INVALID_INPUT_FILE, problem)
    return mail_from_message(message)


def read_emlx(data: bytes, name: str = "the mail") -> Mail:
    """Apple Mail's emlx: a line with the message's length in bytes, the message, then a plist."""
    return read_eml(emlx_message(data, name), name)


def emlx_message(data: bytes, name: str = "the mail") -> bytes:
    """The RFC 822 message inside an emlx file."""
    first, _, rest = data.partition(b"\n")
    if not first.strip().isdigit():
        raise EngineError(INVALID_INPUT_FILE, f"{name} is not an emlx file: it does not start with a length")
    return rest[: int(first.strip())]


def split_mbox(data: bytes) -> list[bytes]:
    """The messages of an mbox, each without its ``From `` line, ``>From`` quoting undone (mboxrd)."""
    starts = [
        match
        for match in _MBOX_FROM.finditer(data)
        if match.start() == 0 or data[match.start() - 1 : match.start()] == b"\n"
    ]
    bodies = [
        data[match.end() : (starts[i + 1].start() if i + 1 < len(starts) else len(data))]
        for i, match in enumerate(starts)
    ]
    return [_QUOTED_FROM.sub(rb"\1", body) for body in bodies]


def read_mbox(data: bytes, name: str = "the mailbox") -> list[Mail]:
    """Every message of an mbox, in order."""
    messages = split_mbox(data)
    if not messages:
        raise EngineError(INVALID_INPUT_FILE, f"{name} is not an mbox: no line starts a message with 'From '")
    return [
        read_eml(body, f"message {number} of {name}") for number, body in enumerate(messages[:MAX_PARTS], 1)
    ]


def _header(message: Message, name: str) -> str:
    """A header decoded (encoded words, folded lines joined); its raw text where it does not parse."""
    try:
        value = message.get(name)
    except (ValueError, TypeError, IndexError, LookupError):
        value = next((raw for key, raw in message.raw_items() if key.lower() == name.lower()), "")
    return " ".join(str(value or "").split())


def _addresses(message: Message, name: str) -> list[str]:
    value = _header(message, name)
    return [value] if value else []


def _text(part: Message) -> str:
    try:
        content = part.get_content() if isinstance(part, EmailMessage) else None
    except (LookupError, ValueError, AssertionError):
        content = None
    if isinstance(content, str):
        return content
    raw = part.get_payload(decode=True)
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else ""


def mail_from_message(message: Message, depth: int = 0, seen: list[int] | None = None) -> Mail:
    """The ``Mail`` of a parsed message, its bodies and attachments found by walking its tree."""
    mail = Mail(
        subject=_header(message, "subject"),
        sender=_header(message, "from"),
        to=_addresses(message, "to"),
        cc=_addresses(message, "cc"),
        date=_header(message, "date"),
        message_id=_header(message, "message-id"),
    )
    _walk(message, mail, depth, [0] if seen is None else seen)
    return mail


def _walk(part: Message, mail: Mail, depth: int, seen: list[int]) -> None:
    seen[0] += 1
    if depth > MAX_DEPTH or seen[0] > MAX_PARTS:
        if not mail.notes:
            mail.notes.append(f"parts nested deeper than {MAX_DEPTH} or past the {MAX_PARTS}th were left out")
        return
    kind = part.get_content_type()
    disposition = part.get_content_disposition()
    if part.is_multipart() and kind != "message/rfc822":
        for child in part.get_payload():
            if isinstance(child, Message):
                _walk(child, mail, depth + 1, seen)
        return
    if kind == "message/rfc822":
        inner = part.get_payload()
        inner = inner[0] if isinstance(inner, list) and inner else inner
        if isinstance(inner, Message):
            embedded = mail_from_message(inner, depth + 1, seen)
            try:  # its own bytes, written out again; where that fails it is written from the model
                embedded.source = inner.as_bytes()
            except (ValueError, TypeError, LookupError, UnicodeError):
                embedded.source = None
            mail.embedded.append(embedded)
        return
    if disposition != "attachment" and kind == "text/plain" and mail.text is None:
        mail.text = _text(part)
        return
    if disposition != "attachment" and kind == "text/html" and mail.html is None:
        mail.html = _text(part)
        return
    data = part.get_payload(decode=True)
    content_id = part.get("content-id")
    mail.attachments.append(
        Attachment(
            name=_filename(part),
            data=data if isinstance(data, bytes) else b"",
            content_type=kind,
            content_id=str(content_id).strip().strip("<>") if content_id else None,
            inline=disposition == "inline" or (disposition is None and content_id is not None),
        )
    )


def _filename(part: Message) -> str:
    try:
        return part.get_filename() or ""
    except (ValueError, TypeError, LookupError):
        return ""
