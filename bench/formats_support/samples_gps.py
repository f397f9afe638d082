"""Seeds of the GPS formats, written by hand (none by GPSBabel, the engine under test).

Every seed holds the same ride of five points on Rottnest Island, the first at 08:00:00 UTC on
2024-03-01, -31.995 115.54, 5 m up, and, where the format holds waypoints, a waypoint named "Quokka".
The NMEA sentences carry checksums computed here; the IGC file is a flight recorder's B records. The
csv seed (``csv:points``, used only where a GPS format comes out) has a latitude and a longitude column,
which GPSBabel's unicsv needs; the plain csv seed of the data family stays a table.
"""

from __future__ import annotations

import calendar
import json
import struct
from functools import reduce
from pathlib import Path

__all__ = ["FIRST", "GPS_FORMATS", "QUOKKA", "TRACK", "fit_crc", "gps_pair_sample", "gps_seeds"]

GPS_FORMATS = frozenset(
    {"gpx", "kml", "tcx", "geojson", "nmea", "igc", "loc", "fit", "cup", "itn", "ov2", "osm"}
)
# lat, lon, elevation (m), seconds after 08:00:00 UTC on 2024-03-01
TRACK = [(-31.995, 115.54, 5.0, 0), (-31.996, 115.5415, 7.5, 30), (-31.997, 115.543, 10.0, 60),
         (-31.998, 115.5445, 9.0, 90), (-31.999, 115.546, 6.0, 120)]  # fmt: skip
FIRST = TRACK[0]
QUOKKA = (-31.9912, 115.5432, 12.0)
_DAY = "2024-03-01"


def _iso(seconds: int) -> str:
    return f"{_DAY}T08:{seconds // 60:02d}:{seconds % 60:02d}Z"


def _gpx() -> str:
    points = "\n".join(
        f'      <trkpt lat="{lat}" lon="{lon}"><ele>{ele}</ele><time>{_iso(t)}</time></trkpt>'
        for lat, lon, ele, t in TRACK
    )
    route = "\n".join(
        f'    <rtept lat="{lat}" lon="{lon}"><name>R{n}</name></rtept>'
        for n, (lat, lon, *_) in enumerate(TRACK)
    )
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="written by hand" xmlns="http://www.topografix.com/GPX/1/1">
  <wpt lat="{QUOKKA[0]}" lon="{QUOKKA[1]}"><ele>{QUOKKA[2]}</ele><name>Quokka</name></wpt>
  <rte><name>Plan</name>
{route}
  </rte>
  <trk><name>Ride</name><trkseg>
{points}
  </trkseg></trk>
</gpx>
"""


def _kml() -> str:
    whens = "\n".join(f"        <when>{_iso(t)}</when>" for *_, t in TRACK)
    coords = "\n".join(f"        <gx:coord>{lon} {lat} {ele}</gx:coord>" for lat, lon, ele, _ in TRACK)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">
  <Document>
    <Placemark><name>Quokka</name><Point><coordinates>{QUOKKA[1]},{QUOKKA[0]},{QUOKKA[2]}</coordinates></Point></Placemark>
    <Placemark><name>Ride</name>
      <gx:Track>
{whens}
{coords}
      </gx:Track>
    </Placemark>
  </Document>
</kml>
"""


def _tcx() -> str:
    points = "\n".join(
        f"""          <Trackpoint><Time>{_iso(t)}</Time><Position><LatitudeDegrees>{lat}</LatitudeDegrees>\
<LongitudeDegrees>{lon}</LongitudeDegrees></Position><AltitudeMeters>{ele}</AltitudeMeters></Trackpoint>"""
        for lat, lon, ele, t in TRACK
    )
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
  <Activities>
    <Activity Sport="Biking">
      <Id>{_iso(0)}</Id>
      <Lap StartTime="{_iso(0)}">
        <TotalTimeSeconds>120</TotalTimeSeconds><DistanceMeters>720</DistanceMeters>
        <Intensity>Active</Intensity><TriggerMethod>Manual</TriggerMethod>
        <Track>
{points}
        </Track>
      </Lap>
    </Activity>
  </Activities>
</TrainingCenterDatabase>
"""


def _geojson() -> str:
    quokka = {"type": "Feature", "properties": {"name": "Quokka"},
              "geometry": {"type": "Point", "coordinates": [QUOKKA[1], QUOKKA[0], QUOKKA[2]]}}  # fmt: skip
    line = [[lon, lat, ele] for lat, lon, ele, _ in TRACK]
    ride = {"type": "Feature", "properties": {"name": "Ride"},
            "geometry": {"type": "LineString", "coordinates": line}}  # fmt: skip
    return json.dumps({"type": "FeatureCollection", "features": [quokka, ride]}, indent=1) + "\n"


def _nmea_angle(value: float, width: int, signs: str) -> str:
    degrees = int(abs(value))
    return f"{degrees:0{width}d}{(abs(value) - degrees) * 60:07.4f},{signs[value < 0]}"


def _sentence(body: str) -> str:
    checksum = reduce(lambda acc, ch: acc ^ ord(ch), body, 0)
    return f"${body}*{checksum:02X}\r\n"


def _nmea() -> str:
    lines = []
    for lat, lon, ele, t in TRACK:
        clock = f"08{t // 60:02d}{t % 60:02d}.00"
        where = f"{_nmea_angle(lat, 2, 'NS')},{_nmea_angle(lon, 3, 'EW')}"
        lines.append(_sentence(f"GPGGA,{clock},{where},1,08,0.9,{ele:.1f},M,-30.0,M,,"))
        lines.append(_sentence(f"GPRMC,{clock},A,{where},0.0,0.0,010324,,,A"))
    return "".join(lines)


def _igc_angle(value: float, width: int, signs: str) -> str:
    degrees = int(abs(value))
    return f"{degrees:0{width}d}{round((abs(value) - degrees) * 60000):05d}{signs[value < 0]}"


def _igc() -> str:
    records = ["AXXX001 written by hand", "HFDTE010324", "HFPLTPILOTINCHARGE:Quokka"]
    for lat, lon, ele, t in TRACK:
        alt, where = f"{round(ele):05d}", _igc_angle(lat, 2, "NS") + _igc_angle(lon, 3, "EW")
        records.append(f"B08{t // 60:02d}{t % 60:02d}{where}A{alt}{alt}")
    return "\r\n".join(records) + "\r\n"


def _loc() -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<loc version="1.0" src="Groundspeak">
<waypoint>
  <name id="GCQUOK"><![CDATA[Quokka by the lighthouse]]></name>
  <coord lat="{QUOKKA[0]}" lon="{QUOKKA[1]}"/>
  <type>Geocache</type>
</waypoint>
</loc>
"""


def _csv_points() -> str:
    rows = [f"Quokka,{QUOKKA[0]},{QUOKKA[1]},{QUOKKA[2]}"]
    rows += [f"Ride {n},{lat},{lon},{ele}" for n, (lat, lon, ele, _) in enumerate(TRACK, 1)]
    return "Name,Latitude,Longitude,Altitude\n" + "\n".join(rows) + "\n"


# FIT's CRC-16 (the FIT protocol's own, a nibble at a time), over the header and over the whole file
_FIT_CRC = (0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
            0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400)  # fmt: skip
_FIT_EPOCH = 631065600  # 1989-12-31T00:00:00Z, where FIT's clock starts


def fit_crc(data: bytes) -> int:
    crc = 0
    for byte in data:
        for nibble in (byte & 0xF, byte >> 4):
            crc = ((crc >> 4) & 0x0FFF) ^ _FIT_CRC[crc & 0xF] ^ _FIT_CRC[nibble]
    return crc


def _fit() -> bytes:
    """An activity as a watch writes it, cut to a file_id message and a record message per point:
    timestamp, position in semicircles, altitude as (metres + 500) * 5."""
    start = calendar.timegm((2024, 3, 1, 8, 0, 0)) - _FIT_EPOCH
    semicircles = 2**31 / 180
    body = bytes([0x40, 0, 0]) + struct.pack("<HB", 0, 3) + bytes([0, 1, 0x00, 1, 2, 0x84, 4, 4, 0x86])
    body += bytes([0x00]) + struct.pack("<BHI", 4, 255, start)  # file_id: an activity, time_created
    body += bytes([0x41, 0, 0]) + struct.pack("<HB", 20, 4)  # record: timestamp, lat, long, altitude
    body += bytes([253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85, 2, 2, 0x84])
    for lat, lon, ele, t in TRACK:
        where = (round(lat * semicircles), round(lon * semicircles))
        body += bytes([0x01]) + struct.pack("<IiiH", start + t, *where, round((ele + 500) * 5))
    head = struct.pack("<BBHI4s", 14, 0x20, 2093, len(body), b".FIT")
    data = head + struct.pack("<H", fit_crc(head)) + body
    return data + struct.pack("<H", fit_crc(data))


def _nmea_minutes(value: float, width: int, signs: str) -> str:
    degrees = int(abs(value))
    return f"{degrees:0{width}d}{(abs(value) - degrees) * 60:06.3f}{signs[value < 0]}"


def _cup() -> str:
    lat, lon = _nmea_minutes(QUOKKA[0], 2, "NS"), _nmea_minutes(QUOKKA[1], 3, "EW")
    return ("name,code,country,lat,lon,elev,style,rwdir,rwlen,freq,desc\r\n"
            f'"Quokka","QUOKKA",AU,{lat},{lon},{QUOKKA[2]}m,1,,,,"Rottnest Island"\r\n')  # fmt: skip


def _itn() -> str:
    flags = ["4"] + ["0"] * (len(TRACK) - 2) + ["2"]  # departure, stops, destination
    return "".join(
        f"{round(lon * 100000)}|{round(lat * 100000)}|Ride {n}|{flag}|\r\n"
        for n, ((lat, lon, *_), flag) in enumerate(zip(TRACK, flags, strict=True), 1)
    )


def _ov2() -> bytes:
    name = b"Quokka\x00"  # a POI record: type 2, its length, lon and lat in 1e-5 degrees, the name
    return (
        struct.pack("<Biii", 2, 13 + len(name), round(QUOKKA[1] * 100000), round(QUOKKA[0] * 100000)) + name
    )


def _osm() -> str:
    nodes = "\n".join(
        f'  <node id="-{n}" lat="{lat}" lon="{lon}" version="1"/>'
        for n, (lat, lon, *_) in enumerate(TRACK, 2)
    )
    refs = "".join(f'<nd ref="-{n}"/>' for n in range(2, len(TRACK) + 2))
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6" generator="written by hand">
  <node id="-1" lat="{QUOKKA[0]}" lon="{QUOKKA[1]}" version="1"><tag k="name" v="Quokka"/></node>
{nodes}
  <way id="-100" version="1">{refs}<tag k="name" v="Ride"/><tag k="highway" v="path"/></way>
</osm>
"""


_SEEDS = {
    "gpx": _gpx,
    "kml": _kml,
    "tcx": _tcx,
    "geojson": _geojson,
    "nmea": _nmea,
    "igc": _igc,
    "loc": _loc,
    "fit": _fit,
    "cup": _cup,
    "itn": _itn,
    "ov2": _ov2,
    "osm": _osm,
}


def gps_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """The seed of every GPS format in ``wanted``, and ``csv:points`` when csv is wanted."""
    seeds: dict[str, Path] = {}
    for fmt, make in _SEEDS.items():
        if fmt in wanted:
            seeds[fmt] = directory / f"sample.{fmt}"
            made = make()
            seeds[fmt].write_bytes(made if isinstance(made, bytes) else made.encode())
    if "csv" in wanted:
        seeds["csv:points"] = directory / "points.csv"
        seeds["csv:points"].write_text(_csv_points(), encoding="utf-8")
    return seeds


def gps_pair_sample(samples: dict[str, Path], source: str, target: str) -> Path | None:
    """The csv of points where a GPS format comes out of csv; None for every other pair."""
    if source == "csv" and target in GPS_FORMATS:
        return samples.get("csv:points")
    return None
