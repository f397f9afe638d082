"""The GPS formats GPSBabel converts here, what each holds, and the pairs that mean something.

A GPS file holds waypoints (named places), tracks (the timed points of a recorded trip) and routes
(points to follow). Most formats hold only some of them: IGC, NMEA and FIT logs are tracks, a
Geocaching .loc, a SeeYou .cup and a TomTom .ov2 are waypoints, a TomTom .itn is a route, a Training
Center file is activities and courses (tracks), and GPSBabel reads a GeoJSON LineString as a route.
A pair is listed only when the target holds something the source does:
an IGC flight log has nothing to put in a .loc, a GeoJSON route no timed fix for an IGC log.

csv is GPSBabel's ``unicsv`` (a header row naming the columns, latitude and longitude among them): a
point per row, read as waypoints. As an input it is listed only towards the GPS formats, which the data
family does not write; csv to the other tables stays with the data and office engines.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GPS_FORMATS", "GpsFormat", "Holds", "gps_pairs"]


@dataclass(frozen=True, slots=True)
class Holds:
    waypoints: bool = False
    tracks: bool = False
    routes: bool = False

    def kinds(self) -> tuple[str, ...]:
        """GPSBabel's names of what it holds (those of its nuketypes filter)."""
        held = (self.waypoints, self.tracks, self.routes)
        return tuple(name for name, has in zip(("waypoints", "tracks", "routes"), held, strict=True) if has)

    def meets(self, other: Holds) -> bool:
        return (
            (self.waypoints and other.waypoints)
            or (self.tracks and other.tracks)
            or (self.routes and other.routes)
        )


_ALL = Holds(True, True, True)


@dataclass(frozen=True, slots=True)
class GpsFormat:
    """``babel``: GPSBabel's name of it; ``reads``/``writes``: what it holds as a source and as a target;
    ``read_flags``: what GPSBabel is told to read (its csv readers take one kind, waypoints here);
    ``write_filters``: GPSBabel's filters before its writer of the format."""

    babel: str
    reads: Holds
    writes: Holds
    xml: bool = False
    read_flags: tuple[str, ...] = ("-w", "-t", "-r")
    write_filters: tuple[str, ...] = ()


GPS_FORMATS: dict[str, GpsFormat] = {
    "gpx": GpsFormat("gpx,gpxver=1.1", _ALL, _ALL, xml=True),
    "kml": GpsFormat("kml", Holds(waypoints=True, tracks=True), _ALL, xml=True),
    # Garmin Training Center: its laps' starts are read as waypoints, made up: only the tracks count
    "tcx": GpsFormat("gtrnctr", Holds(tracks=True), Holds(tracks=True), xml=True),
    # its writer has no routes: they are written as tracks (a LineString either way)
    "geojson": GpsFormat(
        "geojson", Holds(waypoints=True, routes=True), _ALL, write_filters=("transform,trk=rte",)
    ),
    "csv": GpsFormat("unicsv", Holds(waypoints=True), _ALL, read_flags=("-w",)),
    # NMEA 0183 logs: $GPRMC/$GPGGA fixes are a track; waypoints are written as $GPWPL, rarely logged
    "nmea": GpsFormat("nmea", Holds(tracks=True), Holds(waypoints=True, tracks=True)),
    "igc": GpsFormat("igc", Holds(tracks=True), Holds(tracks=True)),
    "loc": GpsFormat("geo", Holds(waypoints=True), Holds(waypoints=True), xml=True),
    # Garmin's FIT activities (watches, bike computers): read only here, their records are a track
    "fit": GpsFormat("garmin_fit", Holds(tracks=True), Holds()),
    # SeeYou's waypoints (turnpoints of glider pilots, beside their IGC logs)
    "cup": GpsFormat("cup", Holds(waypoints=True), Holds(waypoints=True), read_flags=("-w",)),
    # TomTom: itineraries (.itn, a route) and points of interest (.ov2, binary)
    "itn": GpsFormat("tomtom_itn", Holds(routes=True), Holds(routes=True)),
    "ov2": GpsFormat("tomtom", Holds(waypoints=True), Holds(waypoints=True)),
    # OpenStreetMap XML: nodes are waypoints, ways routes; a track is written as a way of nodes
    "osm": GpsFormat("osm", Holds(waypoints=True, routes=True), _ALL, xml=True),
}


def gps_pairs() -> list[tuple[str, str]]:
    """(source, target) for every two formats where the target can hold what the source has."""
    return [
        (source, target)
        for source, given in GPS_FORMATS.items()
        for target, taken in GPS_FORMATS.items()
        if source != target and given.reads.meets(taken.writes)
    ]
