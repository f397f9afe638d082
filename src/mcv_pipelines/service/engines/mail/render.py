"""A mail written for a reader: an html page, plain text or Markdown, each the headers (From, To, Cc,
Date, Subject) then the body, the list of attachments, and the messages attached to it in turn.

The page's HTML body is the sanitised one (sanitize.py); the page also carries a Content-Security-
Policy that lets it load nothing but its own ``data:`` pictures, for whoever opens it later. Text and
Markdown take the plain body, or the HTML body's text where the mail has no plain one.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from mcv_pipelines.service.engines.mail.message import Mail
from mcv_pipelines.service.engines.mail.sanitize import sanitise_html

__all__ = ["html_page", "html_text", "markdown", "plain_text"]

_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
_CSS = (
    "body{font-family:sans-serif;margin:2em;color:#111}"
    "table.mail-headers{border-collapse:collapse;margin-bottom:1em}"
    "table.mail-headers th{text-align:right;padding:2px 12px 2px 0;color:#555;vertical-align:top}"
    "table.mail-headers td{padding:2px 0}"
    "pre.mail-text{white-space:pre-wrap;font-family:inherit}"
    "section.mail-embedded{border-left:3px solid #ccc;padding-left:1em;margin-top:2em}"
)
_BLOCKS = frozenset(
    [
        "p",
        "div",
        "br",
        "tr",
        "li",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "table",
        "blockquote",
        "pre",
        "hr",
        "section",
        "article",
        "ul",
        "ol",
        "dl",
        "dt",
        "dd",
    ]
)


def _size(count: int) -> str:
    return f"{count} bytes" if count < 1024 else f"{count / 1024:.1f} KB"


def _section(mail: Mail, level: int) -> tuple[str, str]:
    """A mail's headers table and body as html, and the CSS its body brings."""
    rows = "".join(
        f"<tr><th>{name}:</th><td>{html.escape(value)}</td></tr>" for name, value in mail.header_rows()
    )
    css, used = "", set[str]()
    if mail.html is not None:
        body, css, used = sanitise_html(mail.html, mail.attachments)
    else:
        body = f'<pre class="mail-text">{html.escape(mail.text or "")}</pre>'
    parts = [f'<table class="mail-headers">{rows}</table><hr>', f'<div class="mail-body">{body}</div>']
    listed = [item for item in mail.attachments if item.content_id not in used or not item.content_id]
    if listed:
        items = "".join(
            f"<li>{html.escape(item.name or 'unnamed')} ({_size(len(item.data))})</li>" for item in listed
        )
        parts.append(f'<hr><p class="mail-attachments">Attachments:</p><ul>{items}</ul>')
    parts += [f"<p><em>{html.escape(note)}</em></p>" for note in mail.notes]
    for inner in mail.embedded:
        inner_html, inner_css = _section(inner, level + 1)
        heading = f"h{min(level + 1, 6)}"
        parts.append(
            f'<section class="mail-embedded"><{heading}>Attached message</{heading}>{inner_html}</section>'
        )
        css += "\n" + inner_css
    return "".join(parts), css


def html_page(mails: list[Mail]) -> str:
    """A self-contained page of the mails (one, or an mbox's every message), fetching nothing."""
    sections, styles = [], []
    for mail in mails:
        body, css = _section(mail, 1)
        sections.append(f'<article class="mail">{body}</article>')
        styles.append(css)
    title = html.escape(mails[0].subject if mails and mails[0].subject else "Mail")
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">'
        f'<link rel="icon" href="data:,"><title>{title}</title>'
        f"<style>{_CSS}</style><style>{''.join(styles)}</style></head><body>"
        + "<hr>".join(sections)
        + "</body></html>\n"
    )


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "head", "title"):
            self.hidden += 1
        elif tag in _BLOCKS:
            self.out.append("\n- " if tag == "li" else "\n")
        elif tag in ("td", "th"):
            self.out.append("\t")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head", "title"):
            self.hidden = max(0, self.hidden - 1)
        elif tag in _BLOCKS:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.out.append(re.sub(r"\s+", " ", data))


def html_text(body: str) -> str:
    """The text an HTML body shows, paragraphs on lines of their own."""
    parser = _Text()
    parser.feed(body)
    parser.close()
    lines = [line.strip() for line in "".join(parser.out).splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


def _body_text(mail: Mail) -> str:
    if mail.text is not None:
        return mail.text
    return html_text(mail.html) if mail.html is not None else ""


def plain_text(mails: list[Mail]) -> str:
    """Headers, a blank line, the body, then the attachments and attached messages; mails apart."""
    return ("\n" + "=" * 72 + "\n\n").join(_plain(mail) for mail in mails)


def _plain(mail: Mail) -> str:
    lines = [f"{name}: {value}" for name, value in mail.header_rows()]
    text = "\n".join(lines) + "\n\n" + _body_text(mail).rstrip("\n") + "\n"
    if mail.attachments:
        text += "\nAttachments:\n" + "".join(
            f"- {a.name or 'unnamed'} ({_size(len(a.data))})\n" for a in mail.attachments
        )
    text += "".join(f"\n[{note}]\n" for note in mail.notes)
    for inner in mail.embedded:
        text += "\n----- Attached message -----\n" + _plain(inner)
    return text


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|!])")


def markdown(mails: list[Mail]) -> str:
    """Headers as a table, then the body as text; mails apart by a rule."""
    return "\n---\n\n".join(_markdown(mail, 1) for mail in mails)


def _escape(value: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", value)


def _markdown(mail: Mail, level: int) -> str:
    title = _escape(mail.subject or "Mail")
    rows = "".join(f"| {name} | {_escape(value)} |\n" for name, value in mail.header_rows())
    body = _body_text(mail).rstrip("\n")
    text = f"{'#' * min(level, 6)} {title}\n\n| Header | Value |\n|---|---|\n{rows}\n{body}\n"
    if mail.attachments:
        text += "\n**Attachments:**\n\n" + "".join(
            f"- {_escape(a.name or 'unnamed')} ({_size(len(a.data))})\n" for a in mail.attachments
        )
    for inner in mail.embedded:
        text += "\n" + _markdown(inner, level + 1)
    return text
