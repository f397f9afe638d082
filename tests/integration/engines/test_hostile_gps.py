"""Hostile GPS files read nothing outside their task (issue 47), under bubblewrap and under Landlock.

A KML's NetworkLinks name KML files planted beside the secrets outside the task (by path, file: URL and
``../`` climb) and a loopback origin; a GPX declares external entities naming the secrets, another a
billion-laughs tree of internal ones, an OpenStreetMap file the same external ones; an NMEA log is a
gzip stream (GPSBabel's line readers inflate what they read, so a kilobyte would become gigabytes of
points); and a track of 250,000 points outgrows a seal whose memory is cut to 100 MiB. Nothing is read
or requested, each bomb stops with a clear error.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from hostile_origin import listening_origin
from planted_secrets import CANARY, Planted
from test_hostile_files_see_only_their_task import (  # the fixtures and helpers of the hostile suite
    Outcome,
    assert_nothing_out,
    convert,
    sealing,
    secrets,
)

from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.geo.gpsbabel import GpsbabelEngine
from mcv_pipelines.service.engines.seal import Limits

RequireEngine = Callable[..., Engine]
__all__ = ["sealing", "secrets"]  # fixtures this module uses, imported from the hostile suite

_QUOKKA = (
    "<Placemark><name>Quokka</name><Point><coordinates>115.5432,-31.9912</coordinates></Point></Placemark>"
)
_TO_GPX = {"operation": "convert", "output_format": "gpx"}


def _leaks(secrets: Planted) -> list[str]:
    """A KML beside each planted secret, naming the canary: found in an output only if it was read."""
    paths = []
    for place, text in secrets.text.items():
        leak = text.with_name("leak.kml")
        leak.write_text(
            '<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Placemark>'
            f"<name>{CANARY}-{place}</name><Point><coordinates>1,2</coordinates></Point></Placemark></kml>"
        )
        paths += [str(leak), f"file://{leak}", "../" * 16 + str(leak).lstrip("/"), str(text)]
    return [*paths, "/etc/passwd"]


def test_kml_network_links_are_not_followed(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("gpsbabel", "convert", "kml", "gpx")
    with listening_origin() as origin:
        links = [*_leaks(secrets), f"{origin.url}/linked.kml"]
        network = "".join(f"<NetworkLink><Link><href>{href}</href></Link></NetworkLink>" for href in links)
        styles = "".join(
            f"<Style><IconStyle><Icon><href>{href}</href></Icon></IconStyle></Style>" for href in links
        )
        kml = (
            '<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document>'
            f"{network}{styles}{_QUOKKA}</Document></kml>"
        )
        outcome = convert(client, tmp_path, "links.kml", kml.encode(), _TO_GPX)
        assert origin.paths == []
    assert_nothing_out({"links.kml": outcome}, secrets)
    assert outcome.status == "finished", outcome.message
    assert b"<name>Quokka</name>" in outcome.output


def test_gpx_entities_are_refused(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("gpsbabel", "convert", "gpx", "kml")
    paths = [str(path) for path in secrets.text.values()] + ["/etc/passwd"]
    declared = "".join(f'<!ENTITY e{i} SYSTEM "file://{p}">' for i, p in enumerate(paths))
    used = "".join(f"&e{i};" for i in range(len(paths)))
    laughs = '<!ENTITY a "lol">' + "".join(
        f'<!ENTITY {c} "{("&" + p + ";") * 10}">' for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    sources = {
        "external.gpx": f"<!DOCTYPE gpx [{declared}]>",
        "laughs.gpx": f"<!DOCTYPE gpx [{laughs}]>",
    }
    outcomes: dict[str, Outcome] = {}
    for name, doctype in sources.items():
        body = used if name == "external.gpx" else "&i;"
        gpx = (
            f'<?xml version="1.0"?>{doctype}<gpx version="1.1" creator="x" '
            f'xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="1" lon="2"><name>{body}</name></wpt></gpx>'
        )
        task = {"operation": "convert", "output_format": "kml"}
        outcomes[name] = convert(client, tmp_path / name, name, gpx.encode(), task)
    osm = (
        f'<?xml version="1.0"?><!DOCTYPE osm [{declared}]><osm version="0.6"><node id="-1" lat="1" lon="2">'
        f'<tag k="name" v="{used}"/></node></osm>'
    )
    outcomes["external.osm"] = convert(client, tmp_path / "osm", "external.osm", osm.encode(), _TO_GPX)
    assert_nothing_out(outcomes, secrets)
    for name, outcome in outcomes.items():
        assert outcome.status == "error", name
        assert outcome.message.startswith("INVALID_INPUT_FILE"), outcome.message
        assert f"{name} declares XML entities" in outcome.message


def test_gzip_nmea_bomb_is_refused(
    sealing: str, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("gpsbabel", "convert", "nmea", "gpx")
    line = b"$GPGGA,080000.00,3159.7000,S,11532.4000,E,1,08,0.9,5.0,M,-30.0,M,,*5A\r\n"
    bomb = gzip.compress(line * 2_000_000)  # 140 MB of fixes in under 300 KB
    outcome = convert(client, tmp_path, "log.nmea", bomb, _TO_GPX)
    assert outcome.status == "error"
    assert (
        outcome.message
        == "INVALID_INPUT_FILE: log.nmea is compressed with gzip, not a nmea file: unpack it first"
    )


def test_a_point_bomb_stops_at_the_seals_memory(
    sealing: str,
    require_engine: RequireEngine,
    client: httpx.Client,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    require_engine("gpsbabel", "convert", "gpx", "kml")
    monkeypatch.setattr(GpsbabelEngine, "limits", Limits(memory=100 * 1024**2, cpu_seconds=60))
    points = '<trkpt lat="1" lon="2"/>' * 250_000  # 6 MB: under the 10 MB of an import/base64
    gpx = f'<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>{points}</trkseg></trk></gpx>'
    outcome = convert(
        client, tmp_path, "many.gpx", gpx.encode(), {"operation": "convert", "output_format": "kml"}
    )
    assert outcome.status == "error"
    assert outcome.message == (
        "CONVERSION_FAILED: reading many.gpx with GPSBabel stopped: "
        "the file holds more points than 100 MiB of memory can hold"
    )
