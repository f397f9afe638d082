"""Proof of a GPS output, by readers written here (not GPSBabel's): the points of each format, parsed
from its XML, JSON, csv rows, NMEA sentences (checksums checked) or IGC B records. The output must hold
the seed's waypoint "Quokka" where it was, or the seed's whole track (or route) in order, its first point at
08:00:00 UTC where the format keeps times (coordinates within 1e-4 degrees, about 10 m)."""

from __future__ import annotations

import csv
import json
import re
import struct
from collections.abc import Callable, Iterator
from datetime import datetime
from functools import reduce
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

from defusedxml.ElementTree import parse

from formats_support.samples_gps import FIRST, QUOKKA, TRACK

__all__ = ["gps_checks"]

Point = tuple[float, float, str | None]  # lat, lon, ISO time in UTC (None: the format keeps none)
_NEAR = 1e-4
_FIRST_TIME = "2024-03-01T08:00:00"


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _xml(path: Path, namespace: str) -> Element:
    root = parse(path).getroot()
    if not root.tag.startswith(f"{{{namespace}"):
        raise ValueError(f"the root is {root.tag}, not in {namespace}")
    return root


def _gpx(path: Path) -> list[Point]:
    root = _xml(path, "http://www.topografix.com/GPX/1/")  # 1/0 or 1/1
    points = []
    for node in root.iter():
        if _local(node.tag) in ("wpt", "trkpt", "rtept"):
            when = next((c.text for c in node if _local(c.tag) == "time"), None)
            points.append((float(node.attrib["lat"]), float(node.attrib["lon"]), when))
    return points


def _kml(path: Path) -> list[Point]:
    root = _xml(path, "http://www.opengis.net/kml/2.2}")
    points: list[Point] = []
    for node in root.iter():
        if _local(node.tag) == "coordinates" and node.text:  # lon,lat[,alt] tuples
            for item in node.text.split():
                lon, lat, *_ = item.split(",")
                points.append((float(lat), float(lon), None))
        if _local(node.tag) == "Track":  # gx:Track: <when> then <gx:coord>lon lat alt</gx:coord>
            whens = [c.text for c in node if _local(c.tag) == "when"]
            coords = [(c.text or "").split() for c in node if _local(c.tag) == "coord"]
            whens += [None] * (len(coords) - len(whens))
            points += [(float(c[1]), float(c[0]), w) for c, w in zip(coords, whens, strict=False)]
    return points


def _tcx(path: Path) -> list[Point]:
    root = _xml(path, "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2}")
    points = []
    for node in root.iter():
        if _local(node.tag) == "Trackpoint":
            values = {_local(c.tag): c for c in node.iter()}
            if "LatitudeDegrees" in values:
                lat, lon = values["LatitudeDegrees"].text, values["LongitudeDegrees"].text
                when = values["Time"].text if "Time" in values else None
                points.append((float(lat or "nan"), float(lon or "nan"), when))
    return points


def _geojson(path: Path) -> list[Point]:
    document = json.loads(path.read_text(encoding="utf-8"))
    if document.get("type") != "FeatureCollection":
        raise ValueError("not a FeatureCollection")

    def positions(value: Any) -> Iterator[list[float]]:  # a position is [lon, lat(, alt)]
        if value and isinstance(value[0], int | float):
            yield value
        else:
            for item in value:
                yield from positions(item)

    return [
        (float(lat), float(lon), None)
        for feature in document["features"]
        for lon, lat, *_ in positions(feature["geometry"]["coordinates"])
    ]


def _csv(path: Path) -> list[Point]:
    rows = list(csv.DictReader(path.read_text(encoding="utf-8").splitlines()))
    if not rows or "Latitude" not in rows[0]:
        raise ValueError("no Latitude column")
    points = []
    for row in rows:
        when = None
        if row.get("Date") and row.get("Time"):
            when = datetime.strptime(f"{row['Date']} {row['Time']}", "%Y/%m/%d %H:%M:%S").isoformat()
        points.append((float(row["Latitude"]), float(row["Longitude"]), when))
    return points


def _angle(text: str, hemisphere: str, width: int) -> float:  # NMEA's and SeeYou's dddmm.mmm
    value = int(text[:width]) + float(text[width:]) / 60
    return -value if hemisphere in "SW" else value


def _nmea(path: Path) -> list[Point]:
    points: list[Point] = []
    for line in path.read_text(encoding="ascii").splitlines():
        match = re.fullmatch(r"\$([^*]+)\*([0-9A-F]{2})", line.strip())
        if not match:
            raise ValueError(f"not an NMEA sentence: {line!r}")
        if reduce(lambda acc, ch: acc ^ ord(ch), match[1], 0) != int(match[2], 16):
            raise ValueError(f"bad checksum: {line!r}")
        kind, *fields = match[1].split(",")
        if kind.endswith("RMC") and fields[2]:
            clock, day = fields[0], fields[8]
            when = f"20{day[4:6]}-{day[2:4]}-{day[0:2]}T{clock[0:2]}:{clock[2:4]}:{clock[4:6]}"
            points.append((_angle(fields[2], fields[3], 2), _angle(fields[4], fields[5], 3), when))
        elif kind.endswith("WPL"):
            points.append((_angle(fields[0], fields[1], 2), _angle(fields[2], fields[3], 3), None))
    return points


def _igc(path: Path) -> list[Point]:
    lines = path.read_text(encoding="ascii").splitlines()
    if not lines or not lines[0].startswith("A"):
        raise ValueError("no A record first")
    day = next((m[1] for line in lines if (m := re.match(r"HFDTE(?:DATE:)?(\d{6})", line))), None)
    points: list[Point] = []
    for line in lines:
        record = re.match(r"B(\d\d)(\d\d)(\d\d)(\d{2})(\d{5})([NS])(\d{3})(\d{5})([EW])[AV]", line)
        if record:
            h, m, s, lat_d, lat_m, ns, lon_d, lon_m, ew = record.groups()
            lat = (int(lat_d) + int(lat_m) / 60000) * (-1 if ns == "S" else 1)
            lon = (int(lon_d) + int(lon_m) / 60000) * (-1 if ew == "W" else 1)
            when = f"20{day[4:6]}-{day[2:4]}-{day[0:2]}T{h}:{m}:{s}" if day else None
            points.append((lat, lon, when))
    return points


def _loc(path: Path) -> list[Point]:
    root = parse(path).getroot()
    if root.tag != "loc":
        raise ValueError(f"the root is {root.tag}, not loc")
    return [(float(c.attrib["lat"]), float(c.attrib["lon"]), None) for c in root.iter("coord")]


def _cup(path: Path) -> list[Point]:
    rows = list(csv.reader(path.read_text(encoding="utf-8").splitlines()))
    if not rows or rows[0][:5] != ["name", "code", "country", "lat", "lon"]:
        raise ValueError("no SeeYou header")
    points: list[Point] = []
    for row in rows[1:]:
        if row and row[0].startswith("-----Related Tasks"):
            break
        if len(row) >= 5:
            points.append((_angle(row[3][:-1], row[3][-1], 2), _angle(row[4][:-1], row[4][-1], 3), None))
    return points


def _itn(path: Path) -> list[Point]:
    points: list[Point] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        fields = line.split("|")
        if len(fields) >= 4:  # lon|lat|name|flag| in 1e-5 degrees
            points.append((int(fields[1]) / 100000, int(fields[0]) / 100000, None))
    return points


def _ov2(path: Path) -> list[Point]:
    data, at, points = path.read_bytes(), 0, []
    while at < len(data):
        kind = data[at]
        if kind == 1:  # a skipper record: its size, then a bounding box
            at += 21
            continue
        (size,) = struct.unpack_from("<i", data, at + 1)
        if kind in (2, 3):  # a POI: lon, lat in 1e-5 degrees, then the name
            lon, lat = struct.unpack_from("<ii", data, at + 5)
            points.append((lat / 100000, lon / 100000, None))
        if size <= 0:
            raise ValueError(f"a record of size {size} at {at}")
        at += size
    return points


def _osm(path: Path) -> list[Point]:
    root = parse(path).getroot()
    if root.tag != "osm":
        raise ValueError(f"the root is {root.tag}, not osm")
    return [
        (float(n.attrib["lat"]), float(n.attrib["lon"]), n.attrib.get("timestamp")) for n in root.iter("node")
    ]


_READERS: dict[str, Callable[[Path], list[Point]]] = {
    "gpx": _gpx, "kml": _kml, "tcx": _tcx, "geojson": _geojson, "nmea": _nmea, "igc": _igc, "loc": _loc,
    "cup": _cup, "itn": _itn, "ov2": _ov2, "osm": _osm,
}  # fmt: skip


def _near(point: Point, lat: float, lon: float) -> bool:
    return abs(point[0] - lat) < _NEAR and abs(point[1] - lon) < _NEAR


def _holds_the_seed(points: list[Point]) -> None:
    if any(_near(point, QUOKKA[0], QUOKKA[1]) for point in points):
        return
    at = 0
    for point in points:  # the track's points, in order, among the output's
        if at < len(TRACK) and _near(point, TRACK[at][0], TRACK[at][1]):
            if at == 0 and point[2] is not None and not point[2].startswith(_FIRST_TIME):
                raise ValueError(f"the first point's time is {point[2]}, not {_FIRST_TIME}Z")
            at += 1
    if at < len(TRACK):
        first = f"{FIRST[0]} {FIRST[1]}"
        raise ValueError(f"neither Quokka nor the track from {first} ({at} of {len(TRACK)} points) came out")


def _gps_check(reader: Callable[[Path], list[Point]]) -> Callable[[Path], None]:
    def check(path: Path) -> None:
        _holds_the_seed(reader(path))

    return check


# pictures potrace traces to geojson outlines (the vector family)
_TRACED = {"png", "bmp", "jpg", "gif", "tiff", "webp", "pbm", "pgm", "ppm"}


def gps_checks(path: Path, fmt: str) -> list[Callable[[Path], None]]:
    """The checks of a GPS output; a csv only when it has GPSBabel's columns (else it is a table). A
    geojson traced from a picture (potrace: bench names outputs ``<input>-to-<file>``) is a drawing, which
    the vector family's checker reads: not a track."""
    source = path.name.split("-to-", 1)[0] if "-to-" in path.name else ""
    if fmt == "geojson" and source in _TRACED:
        return []
    if fmt in _READERS:
        return [_gps_check(_READERS[fmt])]
    if fmt == "csv" and path.read_text(encoding="utf-8", errors="replace").startswith("No,Latitude,"):
        return [_gps_check(_csv)]
    return []
