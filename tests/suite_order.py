"""The order tests reach pytest-xdist's workers (issue 50).

scripts/test.sh runs the suite with ``--dist loadfile --no-loadscope-reorder``: a test file is one unit
of work, so what its tests share (a warm LibreOffice, a browser, a running service made once for the
module) starts once, on one worker; and workers take files in the order collection leaves them. That
order is set here:

- files run slowest first, by the seconds tests/durations.json holds for them (written by
  ``pytest --store-durations``), so the longest files start early and the short ones fill in around
  them rather than leaving one worker busy at the end; a file it does not know yet counts as
  ``UNKNOWN_SECONDS``;
- the image's tests last: .ci/run builds the image in the background while the rest run (issue 38).

The order only decides when a test runs, never whether: a stale or missing durations file costs time,
not a test. Imported by name (pytest puts tests/ on sys.path).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

__all__ = [
    "DURATIONS",
    "UNKNOWN_SECONDS",
    "Ordering",
    "Recorded",
    "file_of",
    "load",
    "slowest_first",
    "store",
]

DURATIONS = Path("tests") / "durations.json"  # under the rootdir
# A file not measured yet: about what a module of integration tests takes, so a new one is neither
# started first nor left to the end.
UNKNOWN_SECONDS = 5.0


class Ordering:
    """The plugin tests/conftest.py registers: sorts the collection, and records and stores seconds."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.recorded = Recorded()

    @pytest.hookimpl(trylast=True)  # after pytest's own reordering by fixture, whose order a file keeps
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        slowest_first(items, load(self.config.rootpath / DURATIONS))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.recorded.add(report)

    def pytest_sessionfinish(self) -> None:
        # Under pytest-xdist the controller sees every worker's reports; a worker writes nothing.
        path = self.config.getoption("store_durations")
        if path and not hasattr(self.config, "workerinput"):
            store(self.config.rootpath / path, self.recorded)


class Recorded:
    """Seconds per test file, from the reports of this run (setup, call and teardown)."""

    def __init__(self) -> None:
        self.seconds: defaultdict[str, float] = defaultdict(float)

    def add(self, report: pytest.TestReport) -> None:
        self.seconds[_file(report.nodeid)] += report.duration


def file_of(item: pytest.Item) -> str:
    return _file(item.nodeid)


def _file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def load(path: Path) -> dict[str, float]:
    """The stored seconds per file; nothing (every file middling) where the file is missing or not a
    mapping of numbers: a bad file costs order, never a collection error."""
    try:
        stored = json.loads(path.read_text())
        return {str(name): float(seconds) for name, seconds in stored.items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def slowest_first(items: list[pytest.Item], seconds: dict[str, float]) -> None:
    """Sort ``items`` in place: the image's tests last, the rest by their file's seconds, longest first.
    The sort is stable, so a file's tests keep their order and stay together."""

    def key(item: pytest.Item) -> tuple[bool, float]:
        last = item.get_closest_marker("image") is not None
        return last, -seconds.get(file_of(item), UNKNOWN_SECONDS)

    items.sort(key=key)


def store(path: Path, recorded: Recorded) -> None:
    """Merge this run's seconds into ``path``: files this run did not reach keep theirs."""
    merged = load(path)
    merged.update({name: round(value, 1) for name, value in recorded.seconds.items()})
    path.write_text(json.dumps(dict(sorted(merged.items())), indent=1) + "\n")
