"""Proof of a converted mail, by readers that share nothing with the mail engine: pdftotext for PDF,
html.parser for the page (its text, and that it loads nothing but data: pictures), the text itself for
txt and md, and the standard library's email parser for an eml (headers, bodies, the attachment's bytes).

bench/formats.py names a downloaded output ``<input format>-to-<file name>``; outputs of a mail input
(eml, msg, mbox, emlx) must carry the sample's sender, its non-ASCII subject and the word.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from email import message_from_bytes, policy
from email.message import EmailMessage
from html.parser import HTMLParser
from pathlib import Path

from mail_samples import ATTACHMENT_NAME, PDF_BYTES, SUBJECT, WORD

__all__ = ["mail_checks"]

Check = Callable[[Path], None]
_MAIL_INPUTS = ("eml", "msg", "mbox", "emlx")
_MUST_SAY = (WORD, "Alice Ashby", "Grüße", "From", "Subject")


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.fetches: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.scripts += tag == "script"
        for name, value in attrs:
            if name in ("src", "background", "poster", "srcset") and not (value or "").startswith("data:"):
                self.fetches.append(f"{tag} {name}={value}")
            if tag == "link" and name == "href" and not (value or "").startswith("data:"):
                self.fetches.append(f"link href={value}")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _text_of(path: Path, fmt: str) -> str:
    if fmt == "pdf":
        return subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True,
                              check=True).stdout  # fmt: skip
    text = path.read_text(encoding="utf-8")
    if fmt != "html":
        return text
    page = _Page()
    page.feed(text)
    if page.scripts or page.fetches:
        raise ValueError(f"the page runs scripts or fetches: {page.fetches[:3]}")
    return "".join(page.text)


def _says_the_mail(fmt: str) -> Check:
    def check(path: Path) -> None:
        text = _text_of(path, fmt)
        missing = [needle for needle in _MUST_SAY if needle not in text]
        if missing:
            raise ValueError(f"the converted mail lacks {missing}")

    return check


def _eml(path: Path) -> None:
    message = message_from_bytes(path.read_bytes(), policy=policy.default)
    assert isinstance(message, EmailMessage)
    if message["subject"] != SUBJECT or "alice@example.org" not in str(message["from"]):
        raise ValueError(f"headers lost: {message['subject']!r} from {message['from']!r}")
    body = message.get_body(("plain",))
    if body is None or WORD not in body.get_content():
        raise ValueError("no plain body saying the word")
    found = {part.get_filename(): part.get_content() for part in message.iter_attachments()}
    if found.get(ATTACHMENT_NAME) != PDF_BYTES:
        raise ValueError(f"the attachment is not the sample's: {sorted(map(str, found))}")


def mail_checks(path: Path, fmt: str) -> list[Check]:
    """The checks of ``path`` when it is a converted mail (by its name), else none."""
    if path.name.split("-to-", 1)[0] not in _MAIL_INPUTS:
        return []
    if fmt == "eml":
        return [_eml]
    return [_says_the_mail(fmt)] if fmt in ("pdf", "html", "txt", "md") else []
