"""A mail written as eml (RFC 5322 with MIME) by the standard library: what an Outlook msg becomes.

The bodies as multipart/alternative (plain, then HTML with the pictures it shows by ``cid:`` as its
related parts), every other attachment after them, each attached message as ``message/rfc822``.
A header the library refuses (an Exchange address that is not one) is carried as unstructured text.
"""

from __future__ import annotations

from email import policy
from email.message import EmailMessage

from mcv_pipelines.service.engines.mail.message import Mail
from mcv_pipelines.service.engines.mail.render import html_text

__all__ = ["eml_bytes", "eml_message"]

_POLICY = policy.default.clone(linesep="\r\n")


def _set(message: EmailMessage, name: str, value: str) -> None:
    if not value:
        return
    try:
        message[name] = value
        str(message[name])  # parsed now: a refusal surfaces here, not when the message is written
    except (ValueError, TypeError, IndexError):
        del message[name]
        message[f"X-Original-{name}" if name in ("From", "To", "Cc") else name] = value.replace("\n", " ")


def eml_message(mail: Mail) -> EmailMessage:
    """The message of ``mail``, its bodies and attachments as MIME parts."""
    message = EmailMessage(policy=_POLICY)
    headers = (
        ("From", mail.sender), ("To", ", ".join(mail.to)), ("Cc", ", ".join(mail.cc)),
        ("Date", mail.date), ("Subject", mail.subject), ("Message-ID", mail.message_id),
    )  # fmt: skip
    for name, value in headers:
        _set(message, name, value)
    message["MIME-Version"] = "1.0"
    plain = mail.text if mail.text is not None else html_text(mail.html) if mail.html is not None else "\n"
    message.set_content(plain)
    pictures = [
        item
        for item in mail.attachments
        if item.content_id and mail.html and f"cid:{item.content_id}" in mail.html
    ]
    if mail.html is not None:
        message.add_alternative(mail.html, subtype="html")
        # get_payload() is typed as any payload; a multipart one is a list, checked just below
        html_part = message.get_payload()[-1] if message.is_multipart() else message  # type: ignore[index]
        assert isinstance(html_part, EmailMessage)
        for picture in pictures:
            kind, _, sub = picture.content_type.partition("/")
            html_part.add_related(
                picture.data, maintype=kind or "application", subtype=sub or "octet-stream",
                cid=f"<{picture.content_id}>", filename=picture.name or None, disposition="inline",
            )  # fmt: skip
    for item in mail.attachments:
        if any(item is picture for picture in pictures):
            continue
        kind, _, sub = item.content_type.partition("/")
        message.add_attachment(item.data, maintype=kind or "application", subtype=sub or "octet-stream",
                               filename=item.name or "attachment")  # fmt: skip
    for inner in mail.embedded:
        message.add_attachment(eml_message(inner))
    return message


def eml_bytes(mail: Mail) -> bytes:
    """``mail`` as the bytes of an eml file."""
    return eml_message(mail).as_bytes(policy=_POLICY)
