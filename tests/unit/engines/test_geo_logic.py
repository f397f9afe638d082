"""The GPS family's pure logic: which pairs mean something, what is refused before GPSBabel opens a
file, the points counted in GPSBabel's GPX, and the error when a target cannot hold the input."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import pytest

from mcv_pipelines.service.engines.base import Engine, EngineError
from mcv_pipelines.service.engines.geo.formats import GPS_FORMATS, gps_pairs
from mcv_pipelines.service.engines.geo.gpsbabel import _check_holds, _keep_only, _one_kind
from mcv_pipelines.service.engines.geo.points import PointCounts, check_input, count_points


def test_pairs_go_only_where_the_target_holds_what_the_source_has() -> None:
    pairs = set(gps_pairs())
    assert len(pairs) == 105
    assert {("gpx", "kml"), ("igc", "gpx"), ("nmea", "tcx"), ("csv", "gpx"), ("loc", "nmea")} <= pairs
    assert {("fit", "tcx"), ("itn", "geojson"), ("osm", "itn"), ("cup", "ov2")} <= pairs
    # a flight log has no waypoint for a .loc, a .loc no track for a flight log or a Training Center file
    assert not {("igc", "loc"), ("loc", "igc"), ("loc", "tcx"), ("tcx", "loc"), ("nmea", "loc")} & pairs
    # GeoJSON lines are routes: no timed fix for an IGC or TCX log; csv is read as waypoints; a track
    # is no itinerary; FIT is read only
    assert (
        not {("geojson", "igc"), ("geojson", "tcx"), ("csv", "tcx"), ("csv", "igc"), ("igc", "itn")} & pairs
    )
    assert not {target for _, target in pairs} & {"fit"}
    assert all(source != target for source, target in pairs)
    assert {target for _, target in pairs} <= set(GPS_FORMATS)  # csv only to GPS formats, never to tables


def test_simplify_points_is_listed_only_where_a_line_comes_through(
    require_engine: Callable[..., Engine],
) -> None:
    engine = require_engine("gpsbabel", "convert", "gpx", "kml")
    options = {
        (c.input_format, c.output_format): {o.name for o in c.options} for c in engine.conversion_types()
    }
    assert "simplify_points" in options[("gpx", "kml")]
    assert "simplify_points" not in options[("gpx", "loc")]
    assert "simplify_points" not in options[("csv", "gpx")]


def test_compressed_inputs_and_xml_entities_are_refused(tmp_path: Path) -> None:
    packed = tmp_path / "input.nmea"
    packed.write_bytes(gzip.compress(b"$GPGGA,...\r\n"))
    with pytest.raises(EngineError, match=r"log\.nmea is compressed with gzip, not a nmea file") as caught:
        check_input(packed, "nmea", False, "log.nmea")
    assert caught.value.code == "INVALID_INPUT_FILE"
    declared = tmp_path / "input.gpx"
    declared.write_text('<?xml version="1.0"?><!DOCTYPE gpx [<!ENTITY x SYSTEM "file:///etc/passwd">]><gpx/>')
    with pytest.raises(EngineError, match=r"ride\.gpx declares XML entities"):
        check_input(declared, "gpx", True, "ride.gpx")
    late = tmp_path / "late.gpx"  # the declaration after 2 MB of comment, across a chunk's end
    late.write_text(f'<?xml version="1.0"?><!--{"x" * (2**21 - 42)}--><!DOCTYPE gpx [<!ENTITY x "y">]><gpx/>')
    with pytest.raises(EngineError, match=r"late\.gpx declares XML entities"):
        check_input(late, "gpx", True, "late.gpx")
    plain = tmp_path / "plain.gpx"
    plain.write_text('<?xml version="1.0"?><gpx version="1.1"><wpt lat="1" lon="2"/></gpx>')
    check_input(plain, "gpx", True, "plain.gpx")


def test_points_are_counted_by_kind(tmp_path: Path) -> None:
    gpx = tmp_path / "counted.gpx"
    gpx.write_text(
        '<gpx xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="1" lon="2"/>'
        '<rte><rtept lat="1" lon="2"/><rtept lat="1" lon="3"/></rte>'
        '<trk><trkseg><trkpt lat="1" lon="2"/><trkpt lat="1" lon="3"/><trkpt lat="1" lon="4"/></trkseg>'
        "</trk></gpx>"
    )
    assert count_points(gpx) == PointCounts(waypoints=1, track_points=3, route_points=2)


def test_a_target_that_cannot_hold_the_input_says_why() -> None:
    with pytest.raises(
        EngineError, match=r"a\.gpx holds only waypoints, and a igc file only tracks: nothing"
    ):
        _check_holds(PointCounts(waypoints=2), GPS_FORMATS["igc"].writes, "a.gpx", "igc")
    with pytest.raises(EngineError, match="holds no waypoint, track or route"):
        _check_holds(PointCounts(), GPS_FORMATS["gpx"].writes, "a.gpx", "gpx")
    _check_holds(PointCounts(route_points=3), GPS_FORMATS["geojson"].writes, "a.kml", "geojson")


def test_csv_rows_are_the_track_then_the_route_then_the_waypoints() -> None:
    assert _one_kind(PointCounts(waypoints=1, track_points=5, route_points=2)) == "-t"
    assert _one_kind(PointCounts(waypoints=1, route_points=2)) == "-r"
    assert _one_kind(PointCounts(waypoints=1)) == "-w"


def test_a_target_of_one_kind_gets_only_that_kind() -> None:
    assert _keep_only(GPS_FORMATS["cup"].writes) == ["-x", "nuketypes,tracks,routes"]
    assert _keep_only(GPS_FORMATS["itn"].writes) == ["-x", "nuketypes,waypoints,tracks"]
    assert _keep_only(GPS_FORMATS["gpx"].writes) == []
