"""Cue text between ASS override markup (pysubs2's model) and the HTML-like tags of SubRip and WebVTT.

pysubs2 reads ``<b> <i> <u> <s>`` of a SubRip file but drops ``<font color>``, and writes neither
bold nor colour back: a SubRip file that went through it lost them. Here a cue's text is walked as
ASS does (override blocks ``{\\b1}``, ``{\\c&HBBGGRR&}``, ``{\\r}``, starting from the cue's style)
into runs of one look, which SubRip gets as ``<b> <i> <u> <s> <font color>`` and WebVTT as
``<b> <i> <u>`` with its default colour classes (``<c.red>``) where the colour is one of them (any
other needs a style sheet the player may not have).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, replace

__all__ = [
    "NAMED_COLOURS",
    "Look",
    "Run",
    "ass_overrides",
    "html_to_ass",
    "runs",
    "to_srt_text",
    "to_vtt_text",
]


@dataclass(frozen=True, slots=True)
class Look:
    bold: bool = False
    italic: bool = False
    underline: bool = False
    strike: bool = False
    color: str | None = None  # "#rrggbb"; None: the player's default


@dataclass(frozen=True, slots=True)
class Run:
    text: str  # newlines as "\n"
    look: Look


# WebVTT's default text colour classes (the WebVTT spec, "default text color"): players colour
# <c.red> without a style sheet
VTT_COLOUR_CLASSES = {
    "#ffffff": "white", "#00ff00": "lime", "#00ffff": "cyan", "#ff0000": "red", "#ffff00": "yellow",
    "#ff00ff": "magenta", "#0000ff": "blue", "#000000": "black",
}  # fmt: skip
_BLOCK = re.compile(r"\{([^}]*)\}")
_TAG = re.compile(r"\\(?:(1?c)(?:&H([0-9A-Fa-f]{1,8})&?)?|([ibus])(\d+)|r(?=\\|$))")


def _override(look: Look, base: Look, block: str) -> Look:
    for match in _TAG.finditer(block):
        colour_tag, colour, flag, value = match.groups()
        if colour_tag is not None:
            look = replace(look, color=_bgr_to_rgb(colour) if colour else base.color)
        elif flag is not None:
            on = value != "0"
            if flag == "b":
                look = replace(look, bold=on)
            elif flag == "i":
                look = replace(look, italic=on)
            elif flag == "u":
                look = replace(look, underline=on)
            else:
                look = replace(look, strike=on)
        else:
            look = base
    return look


def _bgr_to_rgb(value: str) -> str:
    bgr = int(value, 16) & 0xFFFFFF
    return f"#{bgr & 0xFF:02x}{(bgr >> 8) & 0xFF:02x}{(bgr >> 16) & 0xFF:02x}"


def runs(text: str, base: Look) -> list[Run]:
    """The runs of one look in ASS cue ``text`` (``\\N`` and ``\\n`` as newlines, ``\\h`` a space)."""
    found: list[Run] = []
    look, at = base, 0
    for match in _BLOCK.finditer(text):
        found.append(Run(_plain(text[at : match.start()]), look))
        look = _override(look, base, match.group(1))
        at = match.end()
    found.append(Run(_plain(text[at:]), look))
    return [run for run in found if run.text]


def ass_overrides(before: Look, after: Look) -> str:
    """The ASS override block that turns text looking like ``before`` into ``after``."""
    tags = [f"\\{tag}{int(on)}" for tag, on, was in (
        ("b", after.bold, before.bold), ("i", after.italic, before.italic),
        ("u", after.underline, before.underline), ("s", after.strike, before.strike),
    ) if on != was]  # fmt: skip
    if after.color != before.color:
        rgb = after.color
        tags.append("\\c&H" + (rgb[5:7] + rgb[3:5] + rgb[1:3]).upper() + "&" if rgb else "\\c")
    return "{" + "".join(tags) + "}" if tags else ""


def _plain(text: str) -> str:
    return text.replace("\\N", "\n").replace("\\n", "\n").replace("\\h", "\u00a0")


def _wrap(text: str, look: Look, base: Look, colours: bool) -> str:
    """``text`` in the tags of ``look`` (what differs from ``base``); spaces and line ends at its
    edges stay outside the tags."""
    core = text.strip()
    if not core:
        return text
    lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]
    if look.bold and not base.bold:
        core = f"<b>{core}</b>"
    if look.italic and not base.italic:
        core = f"<i>{core}</i>"
    if look.underline and not base.underline:
        core = f"<u>{core}</u>"
    if look.strike and not base.strike and colours:
        core = f"<s>{core}</s>"
    if look.color and look.color != base.color:
        if colours:
            core = f'<font color="{look.color}">{core}</font>'
        elif look.color in VTT_COLOUR_CLASSES:
            core = f"<c.{VTT_COLOUR_CLASSES[look.color]}>{core}</c>"
    return lead + core + trail


def _one_block(text: str) -> str:
    """No blank line inside a cue: it would end the cue in SubRip and WebVTT."""
    return re.sub(r"\n\s*\n+", "\n", text).strip("\n")


def to_srt_text(text: str, look: Look) -> str:
    """SubRip text of an ASS cue whose style looks like ``look`` (a bold style makes bold text)."""
    plain = Look()
    return _one_block("".join(_wrap(run.text, run.look, plain, True) for run in runs(text, look)))


def to_vtt_text(text: str, look: Look) -> str:
    """WebVTT cue text: ``& < >`` escaped, bold, italic and underline kept."""
    plain = Look()
    parts = [_wrap(html.escape(run.text, quote=False), run.look, plain, False) for run in runs(text, look)]
    return _one_block("".join(parts))


def to_sami_text(text: str, look: Look) -> str:
    """SAMI (HTML) cue text: escaped, ``<b> <i> <u> <s> <font color>``, lines split by ``<br>``."""
    plain = Look()
    parts = [_wrap(html.escape(run.text, quote=False), run.look, plain, True) for run in runs(text, look)]
    return _one_block("".join(parts)).replace("\n", "<br>")


_HTML_TAG = re.compile(r"<\s*(/?)\s*([a-zA-Z][a-zA-Z0-9]*)([^>]*)>")
_COLOUR = re.compile(r"""color\s*=\s*["']?\s*#?([0-9a-fA-F]{6})""", re.IGNORECASE)
NAMED_COLOURS = {
    "white": "ffffff", "black": "000000", "red": "ff0000", "lime": "00ff00", "green": "008000",
    "blue": "0000ff", "yellow": "ffff00", "cyan": "00ffff", "magenta": "ff00ff", "silver": "c0c0c0",
    "gray": "808080", "grey": "808080", "maroon": "800000", "olive": "808000", "purple": "800080",
    "teal": "008080", "navy": "000080", "orange": "ffa500", "aqua": "00ffff", "fuchsia": "ff00ff",
}  # fmt: skip


def _font_colour(attributes: str) -> str | None:
    match = _COLOUR.search(attributes)
    if match:
        return match.group(1).lower()
    named = re.search(r"""color\s*=\s*["']?([a-zA-Z]+)""", attributes, re.IGNORECASE)
    return NAMED_COLOURS.get(named.group(1).lower()) if named else None


def _class_colour(classes: str) -> str | None:
    """The colour of a WebVTT ``<c.red.loud>`` (its classes as the tag's attributes ``.red.loud``)."""
    for name in classes.strip().split("."):
        for rgb, known in VTT_COLOUR_CLASSES.items():
            if name == known:
                return rgb[1:]
    return None


def html_to_ass(text: str, unescape: bool) -> str:
    """SubRip or WebVTT cue text as ASS markup: b, i, u, s and font colours kept, other tags dropped
    (WebVTT's ``<v Speaker>``, ``<c.class>``, ``<ruby>``), newlines as ``\\N``; literal braces,
    which ASS would take for markup, become parentheses."""
    text = text.replace("{", "(").replace("}", ")")
    colours: list[str | None] = []

    def tag(match: re.Match[str]) -> str:
        closing, name, attributes = match.group(1) == "/", match.group(2).lower(), match.group(3)
        if name in ("b", "i", "u", "s"):
            return f"{{\\{name}{0 if closing else 1}}}"
        if name in ("font", "c"):
            if closing:
                previous = colours.pop() if colours else None
                return "{\\c}" if previous is not None else ""
            colour = _font_colour(attributes) if name == "font" else _class_colour(attributes)
            colours.append(colour)
            if colour is None:
                return ""
            return "{\\c&H" + (colour[4:6] + colour[2:4] + colour[0:2]).upper() + "&}"
        return ""

    text = _HTML_TAG.sub(tag, text)
    if unescape:
        text = html.unescape(text)
    return "\\N".join(line.strip() for line in text.strip().split("\n"))
