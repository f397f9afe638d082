"""GPS tracks, routes and waypoints (gpx, kml, tcx, geojson, nmea, igc, loc, cup, itn, ov2, osm, csv;
fit read) with GPSBabel.

formats.py says which format holds what and which pairs mean something; points.py checks an input
before GPSBabel reads it and counts what a conversion read; gpsbabel.py is the engine.
"""

__all__: list[str] = []
