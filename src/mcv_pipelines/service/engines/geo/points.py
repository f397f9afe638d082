"""Looking at a GPS file before and after GPSBabel reads it.

Before: GPSBabel's line readers (NMEA, IGC, csv, ...) open their input through zlib, so a gzip stream
named ``input.nmea`` is inflated as it is read: a kilobyte that inflates to gigabytes of points. A
compressed input is refused, as is an XML input that declares entities (Qt's reader expands internal
ones; nothing a GPS file needs). After: GPSBabel's GPX of what it read, counted, so a conversion that
would write an empty file says what the input lacked instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE

__all__ = ["PointCounts", "check_input", "count_points"]

_COMPRESSED = {b"\x1f\x8b": "gzip", b"BZ": "bzip2", b"PK": "zip", b"\xfd7": "xz"}
_CHUNK = 1 << 20
_ENTITY = b"<!ENTITY"


@dataclass(frozen=True, slots=True)
class PointCounts:
    waypoints: int = 0
    track_points: int = 0
    route_points: int = 0

    @property
    def total(self) -> int:
        return self.waypoints + self.track_points + self.route_points


def check_input(path: Path, fmt: str, xml: bool, shown: str) -> None:
    """Refuse a compressed input, and an XML one that declares entities, before GPSBabel opens it."""
    with path.open("rb") as stream:
        head = stream.read(4)
        kind = next((name for magic, name in _COMPRESSED.items() if head.startswith(magic)), None)
        if kind is not None:
            raise EngineError(
                INVALID_INPUT_FILE, f"{shown} is compressed with {kind}, not a {fmt} file: unpack it first"
            )
        if xml and _declares_entities(head, stream.read):
            raise EngineError(
                INVALID_INPUT_FILE,
                f"{shown} declares XML entities, which a {fmt} file does not need: refused",
            )


def _declares_entities(head: bytes, read: Callable[[int], bytes]) -> bool:
    """Whether ``<!ENTITY`` comes anywhere in the file (a declaration may follow megabytes of comment),
    read a chunk at a time."""
    tail = head
    while True:
        chunk = read(_CHUNK)
        window = tail + chunk
        if _ENTITY in window:
            return True
        if not chunk:
            return False
        tail = window[-len(_ENTITY) :]


def count_points(gpx: Path) -> PointCounts:
    """Waypoints, track points and route points in a GPX that GPSBabel wrote (read by defusedxml all
    the same, streaming: a track of millions of points is never held whole)."""
    from defusedxml.ElementTree import iterparse  # imported by a GPS task, not at start

    counts = {"wpt": 0, "trkpt": 0, "rtept": 0}
    for _, element in iterparse(gpx, events=("end",)):
        local = element.tag.rpartition("}")[2]
        if local in counts:
            counts[local] += 1
            element.clear()
    return PointCounts(counts["wpt"], counts["trkpt"], counts["rtept"])
