"""Universal Subtitle Format (USF) read here: the XML subtitles of Matroska's early days, still read
and written by Subtitle Edit and Aegisub-era tools.

``<USFSubtitles><subtitles><subtitle start= stop=>`` (or ``duration=``) holding ``<text>`` with
``<br/>`` and markup (``<font>``, ``<b>``, ``<i>`` ...), whose words are kept and styles dropped;
``<image>``, ``<shape>`` and ``<karaoke>`` timing are not drawn. Times are ``HH:MM:SS.mmm`` (hours
and minutes may be left out). Parsed by ElementTree after the caller refused any DOCTYPE: no entity,
no file, no URL (an ``<image src>``) is read.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree

from pysubs2 import SSAEvent, SSAFile

__all__ = ["read_usf"]

_TIME = re.compile(r"(?:(?:(\d+):)?(\d{1,2}):)?(\d{1,2}(?:\.\d+)?)")
_SKIPPED = {"image", "shape"}


def _ms(value: str) -> int:
    match = _TIME.fullmatch(value.strip())
    if match is None:
        raise ValueError(f"{value!r} is no USF time")
    hours, minutes, seconds = match.groups()
    return round(((int(hours or 0) * 60 + int(minutes or 0)) * 60 + float(seconds)) * 1000)


def _text(element: ElementTree.Element) -> str:
    """The words of ``element``, ``<br/>`` as a new line, pictures and shapes left out."""
    pieces = [element.text or ""]
    for child in element:
        tag = child.tag.rsplit("}", 1)[-1].lower()
        if tag == "br":
            pieces.append("\n")
        elif tag not in _SKIPPED:
            pieces.append(_text(child))
        pieces.append(child.tail or "")
    return "".join(pieces)


def read_usf(text: str) -> SSAFile:
    root = ElementTree.fromstring(text)  # noqa: S314 - DOCTYPE refused before (decode.py): no entities
    if root.tag.rsplit("}", 1)[-1] != "USFSubtitles":
        raise ValueError(f"the root element is <{root.tag}>, not <USFSubtitles>")
    subs = SSAFile()
    for cue in root.iter():
        if cue.tag.rsplit("}", 1)[-1] != "subtitle" or "start" not in cue.attrib:
            continue
        start = _ms(cue.attrib["start"])
        if "stop" in cue.attrib:
            end = _ms(cue.attrib["stop"])
        else:
            end = start + _ms(cue.attrib.get("duration", "5"))
        words = "\n".join(_text(t) for t in cue if t.tag.rsplit("}", 1)[-1] == "text")
        lines = [" ".join(line.split()) for line in words.split("\n") if line.strip()]
        plain = "\\N".join(lines).replace("{", "(").replace("}", ")")
        subs.append(SSAEvent(start=start, end=max(start, end), text=plain))
    return subs
