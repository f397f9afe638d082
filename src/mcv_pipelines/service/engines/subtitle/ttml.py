"""TTML (and DFXP, its older name) read and written here: pysubs2 reads none of TTML's styling and
no frame or tick times, and writes no colour a cue's markup sets.

Read: ``<p>`` elements with their times (clock ``01:02:03.456`` or ``01:02:03:12`` frames, offsets
``1.5s 1500ms 36f 10000t``; a ``<div>``'s or ``<body>``'s begin is added), text with ``<br/>`` and
``<span>``, and bold, italic, underline, line-through and colour from ``tts:`` attributes and the
styles they name. Written: one ``<p>`` a cue, its look in ``<span tts:...>``. The document is parsed
by ElementTree after the caller refused any DOCTYPE (decode.py): no entity, no file, no URL is read.
"""

from __future__ import annotations

import re
from dataclasses import replace
from xml.etree import ElementTree

from pysubs2 import SSAEvent, SSAFile

from mcv_pipelines.service.engines.subtitle.cues import look_of
from mcv_pipelines.service.engines.subtitle.styled import NAMED_COLOURS, Look, ass_overrides, runs

__all__ = ["read_ttml", "write_ttml"]

_TT = "http://www.w3.org/ns/ttml"
_TTS = "http://www.w3.org/ns/ttml#styling"
_CLOCK = re.compile(r"(\d+):(\d{2}):(\d{2})(?:\.(\d+)|:(\d+(?:\.\d+)?))?")
_OFFSET = re.compile(r"(\d+(?:\.\d+)?)(h|ms|m|s|f|t)")
_UNIT_MS = {"h": 3_600_000.0, "m": 60_000.0, "s": 1000.0, "ms": 1.0}


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _attribute(element: ElementTree.Element, name: str) -> str | None:
    """An attribute by its local name, whatever namespace (TTML, DFXP's, none) it is in."""
    for key, value in element.attrib.items():
        if _local(key) == name:
            return value
    return None


class _Clock:
    def __init__(self, root: ElementTree.Element) -> None:
        rate = float(_attribute(root, "frameRate") or 30)
        multiplier = (_attribute(root, "frameRateMultiplier") or "1 1").split()
        if len(multiplier) == 2 and all(part.isdigit() and int(part) > 0 for part in multiplier):
            rate *= int(multiplier[0]) / int(multiplier[1])
        self.fps = rate
        self.ticks = float(_attribute(root, "tickRate") or rate or 1)

    def ms(self, expression: str) -> float:
        text = expression.strip()
        clock = _CLOCK.fullmatch(text)
        if clock:
            hours, minutes, seconds, fraction, frames = clock.groups()
            total = (int(hours) * 60 + int(minutes)) * 60 + int(seconds)
            extra = float(f"0.{fraction}") if fraction else (float(frames) / self.fps if frames else 0.0)
            return (total + extra) * 1000
        offset = _OFFSET.fullmatch(text)
        if offset is None:
            raise ValueError(f"{expression!r} is no TTML time expression")
        count, unit = float(offset.group(1)), offset.group(2)
        if unit == "f":
            return count / self.fps * 1000
        if unit == "t":
            return count / self.ticks * 1000
        return count * _UNIT_MS[unit]


def _colour(value: str) -> str | None:
    text = value.strip().lower()
    if re.fullmatch(r"#[0-9a-f]{6}([0-9a-f]{2})?", text):
        return text[:7]
    rgb = re.fullmatch(r"rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*\d+\s*)?\)", text)
    if rgb:
        return "#" + "".join(f"{min(255, int(part)):02x}" for part in rgb.groups())
    named = NAMED_COLOURS.get(text)
    return f"#{named}" if named else None


def _styled(look: Look, element: ElementTree.Element, styles: dict[str, ElementTree.Element]) -> Look:
    """``look`` changed by the styles ``element`` names, then by its own ``tts:`` attributes."""
    for name in (_attribute(element, "style") or "").split():
        if name in styles and styles[name] is not element:
            look = _styled(look, styles[name], {})
    weight, style, decoration = (
        _attribute(element, k) for k in ("fontWeight", "fontStyle", "textDecoration")
    )
    if weight:
        look = replace(look, bold=weight.strip() == "bold")
    if style:
        look = replace(look, italic=style.strip() in ("italic", "oblique"))
    if decoration:
        words = decoration.split()
        if "underline" in words or "noUnderline" in words:
            look = replace(look, underline="underline" in words)
        if "lineThrough" in words or "noLineThrough" in words:
            look = replace(look, strike="lineThrough" in words)
    colour = _attribute(element, "color")
    if colour and _colour(colour):
        look = replace(look, color=_colour(colour))
    return look


def _text(
    element: ElementTree.Element, look: Look, styles: dict[str, ElementTree.Element]
) -> list[tuple[str, Look]]:
    pieces: list[tuple[str, Look]] = [(element.text or "", look)]
    for child in element:
        name = _local(child.tag)
        if name == "br":
            pieces.append(("\n", look))
        elif name == "span":
            pieces += _text(child, _styled(look, child, styles), styles)
        pieces.append((child.tail or "", look))
    return pieces


def _cue_text(pieces: list[tuple[str, Look]]) -> str:
    """ASS markup of the pieces: whitespace collapsed as TTML does, overrides where the look changes."""
    out, current = [], Look()
    for text, look in pieces:
        chunk = text if text == "\n" else re.sub(r"\s+", " ", text)
        if not chunk:
            continue
        if look != current:
            out.append(ass_overrides(current, look))
            current = look
        out.append("\\N" if chunk == "\n" else chunk.replace("{", "(").replace("}", ")"))
    text = "".join(out)
    return re.sub(r"\s*\\N\s*", "\\\\N", text).strip()


def read_ttml(text: str) -> SSAFile:
    root = ElementTree.fromstring(text)  # noqa: S314 - DOCTYPE refused before (decode.py): no entities
    if _local(root.tag) != "tt":
        raise ValueError(f"the root element is <{_local(root.tag)}>, not <tt>")
    clock = _Clock(root)
    styles = {_attribute(style, "id") or "": style for style in root.iter() if _local(style.tag) == "style"}
    subs = SSAFile()

    def walk(element: ElementTree.Element, start: float, look: Look) -> None:
        begin = start + clock.ms(_attribute(element, "begin") or "0s")
        look = _styled(look, element, styles)
        if _local(element.tag) == "p":
            end_text, dur = _attribute(element, "end"), _attribute(element, "dur")
            end = begin + clock.ms(dur) if dur else (start + clock.ms(end_text) if end_text else begin)
            subs.append(
                SSAEvent(
                    start=round(begin),
                    end=round(max(begin, end)),
                    text=_cue_text(_text(element, look, styles)),
                )
            )
            return
        for child in element:
            if _local(child.tag) in ("body", "div", "p"):
                walk(child, begin, look)

    for body in (child for child in root if _local(child.tag) == "body"):
        walk(body, 0.0, Look())
    return subs


def _clock_text(ms: int) -> str:
    ms = max(0, ms)
    return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


def _span_attributes(look: Look) -> dict[str, str]:
    attributes = {}
    if look.bold:
        attributes[f"{{{_TTS}}}fontWeight"] = "bold"
    if look.italic:
        attributes[f"{{{_TTS}}}fontStyle"] = "italic"
    decorations = [word for word, on in (("underline", look.underline), ("lineThrough", look.strike)) if on]
    if decorations:
        attributes[f"{{{_TTS}}}textDecoration"] = " ".join(decorations)
    if look.color:
        attributes[f"{{{_TTS}}}color"] = look.color
    return attributes


def _append(parent: ElementTree.Element, text: str) -> None:
    """``text`` at the end of ``parent``, its newlines as ``<br/>``."""
    for index, line in enumerate(text.split("\n")):
        if index:
            ElementTree.SubElement(parent, f"{{{_TT}}}br")
        if not line:
            continue
        last = parent[-1] if len(parent) else None
        if last is None:
            parent.text = (parent.text or "") + line
        else:
            last.tail = (last.tail or "") + line


def write_ttml(subs: SSAFile) -> str:
    ElementTree.register_namespace("", _TT)
    ElementTree.register_namespace("tts", _TTS)
    root = ElementTree.Element(f"{{{_TT}}}tt", {"{http://www.w3.org/XML/1998/namespace}lang": ""})
    div = ElementTree.SubElement(ElementTree.SubElement(root, f"{{{_TT}}}body"), f"{{{_TT}}}div")
    for event in sorted(subs.get_text_events(), key=lambda e: e.start):
        found = runs(event.text, look_of(subs, event))
        if not "".join(run.text for run in found).strip():
            continue
        p = ElementTree.SubElement(
            div, f"{{{_TT}}}p", {"begin": _clock_text(event.start), "end": _clock_text(event.end)}
        )
        for run in found:
            attributes = _span_attributes(run.look)
            if attributes:
                span = ElementTree.SubElement(p, f"{{{_TT}}}span", attributes)
                _append(span, run.text)
            else:
                _append(p, run.text)
        p.tail = "\n"
    div.text = "\n"
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"
