"""GPSBabel through the service: a ride's times and places come through each format, read back here by
parsers of our own; GeoJSON keeps lon,lat order; simplify_points thins a track; what a target cannot
hold is a clear error; csv goes to GPS formats here and to tables still by the table engines; a FIT
activity (written here) keeps its times; a waypoint file gets no track point."""

from __future__ import annotations

import csv
import json
import re
import struct
from collections.abc import Callable
from pathlib import Path
from xml.etree.ElementTree import Element

import httpx
from defusedxml.ElementTree import parse
from engine_job_helpers import b64_import, download_all, run_job, task_named

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]

TCX = "{http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2}"
GPX = "{http://www.topografix.com/GPX/1/1}"
KML = "{http://www.opengis.net/kml/2.2}"


def _ride(points: int = 5, waypoint: bool = True, track: bool = True) -> str:
    trkpts = "".join(
        f'<trkpt lat="{-31.995 - i * 0.001:.4f}" lon="{115.54 + i * 0.0015:.4f}"><ele>{5 + i}</ele>'
        f"<time>2024-03-01T08:{i // 2:02d}:{30 * (i % 2):02d}Z</time></trkpt>"
        for i in range(points)
    )
    return (
        '<?xml version="1.0"?><gpx version="1.1" creator="hand" xmlns="http://www.topografix.com/GPX/1/1">'
        + ('<wpt lat="-31.9912" lon="115.5432"><name>Quokka</name></wpt>' if waypoint else "")
        + (f"<trk><name>Ride</name><trkseg>{trkpts}</trkseg></trk>" if track else "")
        + "</gpx>"
    )


def _convert(target: str, **options: object) -> dict[str, object]:
    return {"operation": "convert", "input": "in", "output_format": target, **options}


def _root(path: Path) -> Element:
    root: Element = parse(path).getroot()
    return root


def test_a_ride_keeps_its_times_and_places(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("gpsbabel", "convert", "gpx", "tcx")
    (tmp_path / "ride.gpx").write_text(_ride())
    targets = ("tcx", "kml", "csv", "igc", "loc", "nmea")
    job = run_job(
        client,
        {"in": b64_import(tmp_path / "ride.gpx"), **{t: _convert(t) for t in targets},
         "export": {"operation": "export/url", "input": list(targets)}},
    )  # fmt: skip
    assert task_named(job, "tcx")["engine"] == "gpsbabel"
    files = download_all(job, tmp_path / "out")
    points = list(_root(files["ride.tcx"]).iter(f"{TCX}Trackpoint"))
    assert len(points) == 5
    assert points[0].findtext(f"{TCX}Time") == "2024-03-01T08:00:00Z"
    assert float(points[0].findtext(f".//{TCX}LatitudeDegrees") or 0) == -31.995
    kml = _root(files["ride.kml"])
    assert "Quokka" in [p.findtext(f"{KML}name") for p in kml.iter(f"{KML}Placemark")]
    rows = list(csv.DictReader(files["ride.csv"].read_text().splitlines()))
    assert [(r["Date"], r["Time"]) for r in rows[:2]] == [
        ("2024/03/01", "08:00:00"),
        ("2024/03/01", "08:00:30"),
    ]
    assert (float(rows[0]["Latitude"]), float(rows[0]["Longitude"])) == (-31.995, 115.54)
    b_records = [line for line in files["ride.igc"].read_text().splitlines() if line.startswith("B")]
    assert len(b_records) == 5
    assert b_records[0].startswith("B0800003159700S11532400E")
    coord = _root(files["ride.loc"]).find(".//coord")
    assert coord is not None
    assert coord.attrib == {"lat": "-31.991200", "lon": "115.543200"}
    sentences = files["ride.nmea"].read_text().splitlines()
    assert sentences[0].startswith("$GPWPL,3159.472,S,11532.592,E,Quokka*")
    assert any(line.startswith("$GPRMC,080000") for line in sentences)


def test_nmea_log_to_geojson_in_lon_lat_order_and_to_gpx(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("gpsbabel", "convert", "nmea", "geojson")
    body = "GPRMC,080000.00,A,3159.7000,S,11532.4000,E,0.0,0.0,010324,,,A"
    checksum = 0
    for ch in body:
        checksum ^= ord(ch)
    (tmp_path / "log.nmea").write_text(f"${body}*{checksum:02X}\r\n")
    job = run_job(
        client,
        {"in": b64_import(tmp_path / "log.nmea"), "geojson": _convert("geojson"), "gpx": _convert("gpx"),
         "export": {"operation": "export/url", "input": ["geojson", "gpx"]}},
    )  # fmt: skip
    files = download_all(job, tmp_path / "out")
    feature = json.loads(files["log.geojson"].read_text())["features"][0]
    lon, lat = feature["geometry"]["coordinates"][0][:2]
    assert (round(lon, 6), round(lat, 6)) == (115.54, -31.995)  # lon first, as GeoJSON wants
    gpx = _root(files["log.gpx"])
    assert gpx.tag == f"{GPX}gpx"
    assert gpx.findtext(f".//{GPX}trkpt/{GPX}time") == "2024-03-01T08:00:00Z"


def test_simplify_points_thins_a_track(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("gpsbabel", "convert", "gpx", "kml")
    (tmp_path / "long.gpx").write_text(_ride(points=40, waypoint=False))
    job = run_job(
        client,
        {"in": b64_import(tmp_path / "long.gpx"), "out": _convert("geojson", simplify_points=8),
         "export": {"operation": "export/url", "input": ["out"]}},
    )  # fmt: skip
    line = json.loads(download_all(job, tmp_path / "out")["long.geojson"].read_text())["features"][0]
    assert len(line["geometry"]["coordinates"]) == 8


def test_what_a_target_cannot_hold_is_a_clear_error(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("gpsbabel", "convert", "gpx", "igc")
    (tmp_path / "places.gpx").write_text(_ride(track=False))
    job = run_job(client, {"in": b64_import(tmp_path / "places.gpx"), "igc": _convert("igc")})
    failed = task_named(job, "igc")
    assert failed["code"] == "INVALID_INPUT_FILE"
    assert re.search(r"places\.gpx holds only waypoints, and a igc file only tracks", failed["message"])


def test_csv_of_points_goes_to_gps_formats_and_tables_stay_with_their_engines(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("gpsbabel", "convert", "csv", "kml")
    (tmp_path / "places.csv").write_text("Name,Latitude,Longitude\nQuokka,-31.9912,115.5432\n")
    tasks = {"in": b64_import(tmp_path / "places.csv"), "kml": _convert("kml"), "json": _convert("json"),
             "export": {"operation": "export/url", "input": ["kml"]}}  # fmt: skip
    job = run_job(client, tasks)
    assert task_named(job, "kml")["engine"] == "gpsbabel"
    assert task_named(job, "json")["engine"] != "gpsbabel"
    kml = _root(download_all(job, tmp_path / "out")["places.kml"])
    coordinates = kml.findtext(f".//{KML}Point/{KML}coordinates") or ""
    assert coordinates.strip().startswith("115.543200,-31.991200")


_CRC = (0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
        0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400)  # fmt: skip


def _fit_crc(data: bytes) -> int:
    crc = 0
    for byte in data:
        for nibble in (byte & 0xF, byte >> 4):
            crc = ((crc >> 4) & 0x0FFF) ^ _CRC[crc & 0xF] ^ _CRC[nibble]
    return crc


def _fit_activity(points: list[tuple[float, float, int]]) -> bytes:
    """A FIT activity as a watch writes it, cut to record messages: timestamp, lat and long in semicircles."""
    start = 1_709_280_000 - 631_065_600  # 2024-03-01T08:00:00Z on FIT's clock
    body = bytes([0x40, 0, 0]) + struct.pack("<HB", 20, 3) + bytes([253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85])
    for lat, lon, seconds in points:
        body += b"\x00" + struct.pack(
            "<Iii", start + seconds, round(lat * 2**31 / 180), round(lon * 2**31 / 180)
        )
    head = struct.pack("<BBHI4s", 14, 0x20, 2093, len(body), b".FIT")
    data = head + struct.pack("<H", _fit_crc(head)) + body
    return data + struct.pack("<H", _fit_crc(data))


def test_a_fit_activity_becomes_a_tcx_and_waypoint_files_keep_only_waypoints(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("gpsbabel", "convert", "fit", "tcx")
    (tmp_path / "run.fit").write_bytes(_fit_activity([(-31.995, 115.54, 0), (-31.996, 115.5415, 30)]))
    (tmp_path / "ride.gpx").write_text(_ride())
    job = run_job(
        client,
        {"fit": b64_import(tmp_path / "run.fit"), "gpx": b64_import(tmp_path / "ride.gpx"),
         "tcx": {**_convert("tcx"), "input": "fit"}, "cup": {**_convert("cup"), "input": "gpx"},
         "export": {"operation": "export/url", "input": ["tcx", "cup"]}},
    )  # fmt: skip
    files = download_all(job, tmp_path / "out")
    times = [p.findtext(f"{TCX}Time") for p in _root(files["run.tcx"]).iter(f"{TCX}Trackpoint")]
    assert times == ["2024-03-01T08:00:00Z", "2024-03-01T08:00:30Z"]
    rows = files["ride.cup"].read_text().splitlines()
    assert rows[1].startswith('"Quokka",')
    assert len([row for row in rows[1:] if not row.startswith("-----")]) == 1  # no track point as a turnpoint
