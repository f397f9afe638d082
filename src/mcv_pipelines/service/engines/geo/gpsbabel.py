"""Tracks, routes and waypoints between GPS formats with GPSBabel (gpsbabel, GPL).

Each task runs GPSBabel twice, sealed, on its input alone (copied into a directory of its own): once to
GPX, whose points are counted (points.py), and once to the target. The count turns what would be an
empty file into an error that says what the input lacks (a GPX of waypoints has no track for an IGC
log), picks what a csv's rows are (the track points when there are any, else the route's, else the
waypoints) and, for gpx, is the answer itself. The argv is built here from fixed names: no user string
reaches GPSBabel's options (some of which name files), and ``-p ""`` keeps it from reading an ini file.
GPSBabel never follows a KML NetworkLink nor expands a GPX's external entities; the seal stands behind.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Sequence

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import (
    CONVERSION_FAILED,
    INVALID_INPUT_FILE,
    UNSUPPORTED_CONVERSION,
)
from mcv_pipelines.service.engines.geo.formats import GPS_FORMATS, Holds, gps_pairs
from mcv_pipelines.service.engines.geo.points import PointCounts, check_input, count_points
from mcv_pipelines.service.engines.naming import output_path
from mcv_pipelines.service.engines.options import FILENAME, int_option
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.seal import Limits
from mcv_pipelines.service.engines.vector.isolate import isolated_input

__all__ = ["GpsbabelEngine"]

_GIB = 1024**3
SIMPLIFY = OptionSpec(
    "simplify_points",
    "integer",
    None,
    None,
    "Keep at most this many points of each track and route, dropping first those that change its shape "
    "least (GPSBabel's simplify filter); unset keeps every point",
)
_NO_INI = ("-p", "")  # no gpsbabel.ini from anywhere
_ALL = Holds(waypoints=True, tracks=True, routes=True)


class GpsbabelEngine(ProgramEngine):
    name = "gpsbabel"
    programs = ("gpsbabel",)
    version_args = ("-V",)
    version_pattern = r"GPSBabel Version (\d[\w.]*)"
    # a GPS file is small: 2 GiB holds millions of points, and a file made to hold more stops there
    limits = Limits(memory=2 * _GIB, cpu_seconds=900, file_size=2 * _GIB)

    def conversion_types(self) -> Iterable[ConversionType]:
        """simplify_points where a track or route comes through, not where only waypoints do."""
        pairs = {(s, t): _lines(GPS_FORMATS[s].reads).meets(GPS_FORMATS[t].writes) for s, t in gps_pairs()}
        return [
            *self.convert_pairs(
                GPS_FORMATS, GPS_FORMATS, (FILENAME, SIMPLIFY), lambda s, t: pairs.get((s, t)) is True
            ),
            *self.convert_pairs(
                GPS_FORMATS, GPS_FORMATS, (FILENAME,), lambda s, t: pairs.get((s, t)) is False
            ),
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        source_format, target_format = request.input_format, request.output_format
        if (
            request.operation != "convert"
            or (source_format, target_format) not in gps_pairs()
            or self.program is None
        ):
            raise EngineError(
                UNSUPPORTED_CONVERSION,
                f"gpsbabel does not {request.operation} {source_format} to {target_format}",
            )
        given, taken = GPS_FORMATS[source_format], GPS_FORMATS[target_format]
        source = isolated_input(request, "gpsbabel")
        shown = request.inputs[0].path.name
        check_input(source, source_format, given.xml, shown)
        points = int_option(request.options, "simplify_points", minimum=2, maximum=10_000_000)
        simplify = ["-x", f"simplify,count={points}"] if points else []
        read = ["-i", given.babel, "-f", source.name, *simplify]
        counted = source.parent / "counted.gpx"
        reading = f"reading {shown} with GPSBabel"
        self._babel(
            request, [*given.read_flags, *read, "-o", GPS_FORMATS["gpx"].babel, "-F", counted.name], reading
        )
        counts = count_points(counted)
        _check_holds(counts, taken.writes, shown, target_format)
        target = output_path(request, target_format)
        if target_format == "gpx":
            shutil.move(counted, target)
            return EngineResult(files=[target])
        written = source.parent / f"output.{target_format}"
        # GPSBabel's csv writer takes one kind of point; its other writers what they hold of all three
        flags = (_one_kind(counts),) if target_format == "csv" else given.read_flags
        self._babel(
            request,
            [
                *flags,
                *read,
                *_keep_only(taken.writes),
                *_filters(taken.write_filters),
                "-o",
                taken.babel,
                "-F",
                written.name,
            ],
            f"writing {shown} as {target_format} with GPSBabel",
        )
        shutil.move(written, target)
        return EngineResult(files=[target])

    def _babel(self, request: EngineRequest, args: Sequence[str], what: str) -> None:
        assert self.program is not None
        source_dir = request.work_dir / "gpsbabel"
        try:
            run_checked(
                [self.program, *_NO_INI, *args],
                what=what,
                cwd=source_dir,
                timeout=request.timeout,
                cancelled=request.cancelled,
                limits=self.limits,
            )
        except EngineError as error:
            if "bad_alloc" not in error.message or self.limits.memory is None:
                raise
            room = f"{self.limits.memory / 1024**2:,.0f} MiB"
            raise EngineError(
                CONVERSION_FAILED,
                f"{what} stopped: the file holds more points than {room} of memory can hold",
            ) from error


def _lines(holds: Holds) -> Holds:
    """What of ``holds`` is a line of points (tracks and routes), which simplify_points thins."""
    return Holds(tracks=holds.tracks, routes=holds.routes)


def _filters(names: Sequence[str]) -> list[str]:
    return [arg for name in names for arg in ("-x", name)]


def _keep_only(writes: Holds) -> list[str]:
    """GPSBabel's filter dropping what a target of one kind would turn into it (SeeYou's writer lists a
    track's points as nameless turnpoints)."""
    dropped = [name for name in _ALL.kinds() if name not in writes.kinds()]
    return ["-x", "nuketypes," + ",".join(dropped)] if dropped and len(dropped) < 3 else []


def _one_kind(counts: PointCounts) -> str:
    """The points a csv's rows are: the track's, else the route's, else the waypoints."""
    if counts.track_points:
        return "-t"
    return "-r" if counts.route_points else "-w"


def _check_holds(counts: PointCounts, writes: Holds, shown: str, target: str) -> None:
    if counts.total == 0:
        raise EngineError(INVALID_INPUT_FILE, f"{shown} holds no waypoint, track or route GPSBabel reads")
    has = Holds(counts.waypoints > 0, counts.track_points > 0, counts.route_points > 0)
    if has.meets(writes):
        return
    raise EngineError(
        INVALID_INPUT_FILE,
        f"{shown} holds only {_kinds(has)}, and a {target} file only {_kinds(writes)}: nothing to write",
    )


def _kinds(holds: Holds) -> str:
    return " and ".join(holds.kinds())
