"""Holding a task's files to its expectations: each key checked, each miss a ``Failure`` at its line.

Per-group keys (files, names) look at the files together; the others look at each file, and the first
file that misses is the one reported (a group of twenty webp files that are all png is one failure,
not twenty). Readers run only for the keys asked: a case that counts files never opens one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcv_pipelines.pipeline.cases import Bound, Expectation, TaskExpectations
from mcv_pipelines.testing.outcome import Failure
from mcv_pipelines.testing.probe import archive_members, image_size, media_info, page_count, text_of
from mcv_pipelines.testing.sniff import Sniffed, sniff_format

__all__ = ["VIDEO_FORMATS", "FileFacts", "check_files"]

VIDEO_FORMATS = frozenset(
    {"mp4", "m4v", "mov", "webm", "mkv", "avi", "3gp", "3g2", "mpg", "ts", "flv", "ogv"}
)

_GROUP_KEYS = ("files", "names")
_SKIPPED = ("golden", "similarity", "fails")  # judged elsewhere


class FileFacts:
    """What is known of one output file, read on first use and kept."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._sniffed: Sniffed | None = None
        self._cache: dict[str, Any] = {}

    @property
    def sniffed(self) -> Sniffed:
        if self._sniffed is None:
            self._sniffed = sniff_format(self.path)
        return self._sniffed

    def get(self, key: str) -> Any:
        if key not in self._cache:
            self._cache[key] = self._read(key)
        return self._cache[key]

    def _read(self, key: str) -> Any:
        fmt = self.sniffed.format
        if key in ("width", "height"):
            size = image_size(self.path)
            if size is None and fmt in VIDEO_FORMATS:
                info = media_info(self.path)  # a video's frame size, as ffprobe reads it
                size = info.size if info is not None else None
            return None if size is None else size[0 if key == "width" else 1]
        if key == "pages":
            return page_count(self.path)
        if key == "text":
            return text_of(self.path, fmt)
        if key in ("duration", "streams", "codecs"):
            info = media_info(self.path)
            return None if info is None else getattr(info, key)
        if key == "members":
            return archive_members(self.path, fmt)
        if key == "size":
            return self.path.stat().st_size
        raise KeyError(key)


def _bytes(value: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if value >= size:
            return f"{value / size:.1f} {unit} ({int(value):,} bytes)"
    return f"{int(value)} bytes"


def _shown(key: str, value: Any) -> str:
    if key == "size":
        return _bytes(float(value))
    if key == "duration" and isinstance(value, float):
        return f"{value:.2f} s"
    if isinstance(value, tuple):
        return "[" + ", ".join(value) + "]" if value else "none"
    return str(value)


def _names_failure(item: Expectation, task: str, names: list[str]) -> Failure | None:
    expected = sorted(item.value)
    if sorted(names) == expected:
        return None
    return Failure(
        item.location, task, "names", ", ".join(expected) or "none", ", ".join(sorted(names)) or "none"
    )


def _per_file(item: Expectation, task: str, facts: FileFacts) -> Failure | None:
    key, name = item.key, facts.path.name
    if key == "format":
        sniffed = facts.sniffed
        if sniffed.accepts & set(item.value):
            return None
        return Failure(
            item.location, task, key, " or ".join(item.value), sniffed.format or "an unknown format", name
        )
    actual = facts.get(key)
    if key == "text":
        missing = [text for text in item.value if actual is None or text not in actual]
        if not missing:
            return None
        if not actual:
            fmt = facts.sniffed.format or "file"
            found = f"no text that mcv test can read in this {fmt}"
        else:
            found = f"text without {missing[0]!r}"
        return Failure(item.location, task, key, f"text containing {missing[0]!r}", found, name)
    if actual is None:
        what = {
            "pages": "not a PDF",
            "members": "not an archive",
            "width": "not a picture",
            "height": "not a picture",
        }
        reason = what.get(key, "nothing ffprobe can read")
        return Failure(
            item.location,
            task,
            key,
            _shown(key, item.value.text if isinstance(item.value, Bound) else item.value),
            f"{facts.sniffed.format or 'a file'}: {reason}",
            name,
        )
    if isinstance(item.value, Bound):
        if item.value.holds(float(actual)):
            return None
        return Failure(item.location, task, key, item.value.text, _shown(key, actual), name)
    expected: tuple[str, ...] = item.value
    if key == "members":
        if sorted(actual) == sorted(expected):
            return None
        extra, missing_members = sorted(set(actual) - set(expected)), sorted(set(expected) - set(actual))
        said = "; ".join(
            p
            for p in (
                f"extra {', '.join(extra)}" if extra else "",
                f"missing {', '.join(missing_members)}" if missing_members else "",
            )
            if p
        )
        return Failure(
            item.location,
            task,
            key,
            _shown(key, tuple(sorted(expected))),
            said or _shown(key, tuple(actual)),
            name,
        )
    if tuple(actual) == expected:
        return None
    return Failure(item.location, task, key, _shown(key, expected), _shown(key, tuple(actual)), name)


def check_files(expected: TaskExpectations, files: list[FileFacts]) -> list[Failure]:
    """Every expectation of ``expected`` that ``files`` miss (golden, similarity and fails aside).

    Raises ``ReaderMissing`` when a key needs a program this machine lacks (ffprobe).
    """
    failures: list[Failure] = []
    for item in expected.items:
        if item.key in _SKIPPED:
            continue
        if item.key == "files":
            if not item.value.holds(len(files)):
                names = ", ".join(f.path.name for f in files[:5]) + (", ..." if len(files) > 5 else "")
                shown = f"{len(files)} file{'s' if len(files) != 1 else ''}" + (
                    f" ({names})" if files else ""
                )
                failures.append(Failure(item.location, expected.task, "files", item.value.text, shown))
            continue
        if item.key == "names":
            failure = _names_failure(item, expected.task, [f.path.name for f in files])
            if failure is not None:
                failures.append(failure)
            continue
        for facts in files:
            failure = _per_file(item, expected.task, facts)
            if failure is not None:
                failures.append(failure)
                break
    return failures
