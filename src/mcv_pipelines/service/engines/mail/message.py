"""What a mail is once read, whatever it was read from: its headers, bodies, attachments, and the
mails it carries inside it.

Readers (eml_reader.py, msg_reader.py) fill a ``Mail``; writers (render.py, eml_writer.py) read one.
Limits on what a reader takes keep a hostile file from costing more than a mail may: how deep
multiparts nest, how many parts and attachments are kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["MAX_DEPTH", "MAX_PARTS", "Attachment", "Mail"]

MAX_DEPTH = 40  # nested multiparts or embedded messages taken; deeper parts are left out
MAX_PARTS = 2000  # parts of one mail (mbox: of every message together) taken; the rest are left out


@dataclass(slots=True)
class Attachment:
    """One attached file, or a picture the HTML body shows (``content_id``, without angle brackets)."""

    name: str
    data: bytes
    content_type: str = "application/octet-stream"
    content_id: str | None = None
    inline: bool = False  # shown in the body rather than attached (Content-Disposition: inline)


@dataclass(slots=True)
class Mail:
    """One message. Addresses are as a reader shows them (``Name <user@host>``), ``date`` as sent."""

    subject: str = ""
    sender: str = ""
    to: list[str] = field(default_factory=list)
    cc: list[str] = field(default_factory=list)
    date: str = ""
    message_id: str = ""
    text: str | None = None  # the plain body
    html: str | None = None  # the HTML body, as sent (render.py sanitises it)
    attachments: list[Attachment] = field(default_factory=list)
    embedded: list[Mail] = field(default_factory=list)  # attached messages (message/rfc822, msg in msg)
    notes: list[str] = field(default_factory=list)  # what the reader left out, and why
    source: bytes | None = None  # the message's own RFC 822 bytes, where it was read from them

    def header_rows(self) -> list[tuple[str, str]]:
        """The headers a reader is shown, in order, those present only."""
        rows = [
            ("From", self.sender),
            ("To", ", ".join(self.to)),
            ("Cc", ", ".join(self.cc)),
            ("Date", self.date),
            ("Subject", self.subject),
        ]
        return [(name, value) for name, value in rows if value]
