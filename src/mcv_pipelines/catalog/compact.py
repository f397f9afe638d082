"""The compact index of a catalog snapshot: what `mcv validate` reads instead of the snapshot's JSON.

A snapshot (schemas/catalog/local.json: 25k lines, 650 KB) is parsed and checked once; its index is
kept in the user's cache directory under the snapshot's SHA-256, so it serves every snapshot the user
passes (``--catalog PATH``), is never stale (other bytes, other file) and needs no build step or
second committed file to keep in step with the first. Cached rather than committed: the snapshot stays
the one reviewed, diffable source, and a pulled snapshot gets its index on first use like the bundled
one.

The index is pickle-free text (JSON, versioned). Line 1 holds every conversion type's key, default
flag and where its details start and end; the rest of the file is the details (credits, flags,
options, engine versions, meta), one compact JSON array each, decoded only when a check asks for that
type (``Catalog.lazily``). So loading costs one small JSON line, however many options the catalog has.

Anything wrong with an index (another version, another snapshot, damaged) makes it a miss: the
snapshot is parsed as before and the index written again. A cache directory that cannot be written
only costs the speed-up.

Finding the index needs the snapshot's SHA-256. A stamp beside the indexes remembers it for one
snapshot path with the file's identity (device, inode, size, modification and change times in ns), so
a later start reads neither the snapshot (13 MB) nor the index's details: one stat and two small
reads. Any change to the file, even one that keeps its size and modification time, changes its
change time (which no tool sets back), and the stamp no longer matches: the snapshot is read and
hashed as before.
"""

from __future__ import annotations

import hashlib
import json
import operator
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, overload

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.listing import gc_paused
from mcv_pipelines.catalog.model import ConversionKey, Descriptor, EngineVersionDef, OptionDef
from mcv_pipelines.errors import UsageError

__all__ = [
    "FORMAT",
    "VERSION",
    "cache_dir",
    "dumps_index",
    "index_path",
    "known_digest",
    "loads_index",
    "read_index",
    "store_index",
    "store_stamp",
]

FORMAT = "mcv-catalog-index"
VERSION = 1
_KEPT = 16  # indexes kept in the cache directory; the oldest beyond that are removed on write


def cache_dir() -> Path:
    """``MCV_CACHE_DIR``, else the user cache directory of mcv-pipelines."""
    explicit = os.environ.get("MCV_CACHE_DIR")
    if explicit:
        return Path(explicit)
    system: str = sys.platform  # a plain str: mypy would judge the branches for its own platform
    if system not in ("darwin", "win32"):
        # What platformdirs answers on Linux and the BSDs, without its import on every start-up.
        base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")
        return Path(base) / "mcv-pipelines"
    import platformdirs

    return Path(platformdirs.user_cache_dir("mcv-pipelines"))


def index_path(digest: str) -> Path:
    """Where the index of the snapshot whose SHA-256 is ``digest`` is kept."""
    return cache_dir() / "catalog" / f"index-v{VERSION}-{digest}.jsonl"


def _stamp_path(snapshot: Path) -> Path:
    name = hashlib.sha256(str(snapshot).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return cache_dir() / "catalog" / f"stamp-{name}.json"


def _identity(info: os.stat_result) -> list[int]:
    return [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def known_digest(snapshot: Path, info: os.stat_result) -> str | None:
    """The SHA-256 of the snapshot at ``snapshot`` (a resolved path) as its stamp remembers it, or None
    when there is no stamp or the file is no longer the one stamped."""
    try:
        stamp = json.loads(_stamp_path(snapshot).read_bytes())
        digest = stamp["sha256"]
        same = stamp["path"] == str(snapshot) and stamp["identity"] == _identity(info)
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if not same or not isinstance(digest, str) or len(digest) != 64:
        return None
    return digest


def store_stamp(snapshot: Path, info: os.stat_result, digest: str) -> None:
    """Remember ``digest`` for the snapshot at ``snapshot`` as ``info`` describes it (best effort)."""
    stamp = {"path": str(snapshot), "identity": _identity(info), "sha256": digest}
    _write_atomically(_stamp_path(snapshot), json.dumps(stamp).encode(), "stamp-*.json", _KEPT * 4)


def read_index(digest: str) -> tuple[bytes, Callable[[int, int], bytes]] | None:
    """The first line of the cached index of ``digest``, and a reader of its details (from where the
    line ends, each read opening the file anew: a check reads a handful); None when there is none."""
    path = index_path(digest)
    try:
        with open(path, "rb") as handle:
            head = handle.readline()
    except OSError:
        return None
    base = len(head)

    def read(start: int, stop: int) -> bytes:
        with open(path, "rb") as handle:
            handle.seek(base + start)
            data = handle.read(stop - start)
        if len(data) != stop - start:
            raise ValueError("the index ends early")
        return data

    return head, read


def _details(desc: Descriptor) -> list[Any]:
    options = None if desc.options is None else [
        [o.name, o.type, o.default, None if o.possible_values is None else list(o.possible_values),
         o.description]
        for o in desc.options
    ]
    return [
        desc.credits,
        desc.deprecated,
        desc.experimental,
        options,
        [list(v) for v in desc.engine_versions],
        dict(desc.meta),
    ]


def dumps_index(catalog: Catalog, digest: str) -> bytes:
    """The index of ``catalog`` (parsed from the snapshot whose SHA-256 is ``digest``)."""
    rows: list[list[Any]] = []
    blobs: list[bytes] = []
    offset = 0
    for desc in catalog:
        blob = json.dumps(_details(desc), separators=(",", ":"), ensure_ascii=False).encode()
        rows.append([*desc.key, desc.default, offset, offset + len(blob)])
        blobs.append(blob)
        offset += len(blob)
    head = {"format": FORMAT, "version": VERSION, "snapshot_sha256": digest, "types": rows}
    return json.dumps(head, separators=(",", ":"), ensure_ascii=False).encode() + b"\n" + b"".join(blobs)


def _descriptor(key: ConversionKey, default: bool, blob: bytes) -> Descriptor:
    credits, deprecated, experimental, options, versions, meta = json.loads(blob)
    return Descriptor(
        *key,
        credits=credits,
        options=None if options is None else tuple(
            OptionDef(name, kind, value, None if values is None else tuple(values), description)
            for name, kind, value, values, description in options
        ),
        engine_versions=tuple(EngineVersionDef(*v) for v in versions),
        deprecated=deprecated,
        experimental=experimental,
        default=default,
        meta=meta,
    )


class _Keys(Sequence[ConversionKey]):
    """The index's rows as conversion keys, each made when asked for: a start-up reads 10k rows and
    a check looks at a few hundred of them."""

    def __init__(self, rows: list[list[Any]]) -> None:
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, i: int) -> ConversionKey: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[ConversionKey]: ...
    def __getitem__(self, i: int | slice) -> ConversionKey | Sequence[ConversionKey]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self._rows)))]
        row = self._rows[i]
        return ConversionKey(row[0], row[1], row[2], row[3])


def loads_index(
    head: bytes,
    read: Callable[[int, int], bytes],
    digest: str,
    *,
    source: str,
    fallback: Callable[[], Catalog],
) -> Catalog | None:
    """The lazy catalog an index indexes (its first line ``head``; ``read(start, stop)`` gives a span
    of its details), or None when it is no index of the snapshot ``digest``.

    ``fallback`` gives the catalog parsed from the snapshot itself; a detail that cannot be read or
    decoded later (a damaged or vanished file) is taken from it instead, so a check never fails on
    the cache.
    """
    try:
        with gc_paused():
            parsed = json.loads(head)
        if (
            parsed.get("format") != FORMAT
            or parsed.get("version") != VERSION
            or parsed.get("snapshot_sha256") != digest
        ):
            return None
        rows = parsed["types"]
        if not (isinstance(rows, list) and all(isinstance(row, list) and len(row) == 7 for row in rows)):
            return None
        if not all(map(operator.lt, rows, rows[1:])):  # Catalog.lazily's keys are sorted and unique
            return None
        keys = _Keys(rows)
        defaults = [bool(row[4]) for row in rows]
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    whole: list[Catalog] = []

    def load(i: int) -> Descriptor:
        try:
            return _descriptor(keys[i], defaults[i], read(int(rows[i][5]), int(rows[i][6])))
        except (ValueError, TypeError, OSError):
            if not whole:
                whole.append(fallback())
            found = whole[0].get(keys[i])
            if found is None:  # only if an index format change forgot to raise VERSION
                raise UsageError(
                    f"{index_path(digest)}: this cached index of {source} lists types the snapshot does "
                    "not have; delete the file and run again"
                ) from None
            return found

    with gc_paused():
        return Catalog.lazily(keys, defaults, load, source=source)


def store_index(catalog: Catalog, digest: str) -> None:
    """Write the index of ``catalog`` into the cache (atomically); a cache that refuses is skipped."""
    _write_atomically(index_path(digest), dumps_index(catalog, digest), "index-v*.jsonl", _KEPT)


def _write_atomically(path: Path, data: bytes, kind: str, kept: int) -> None:
    """``path`` written whole or not at all, then the oldest files of its ``kind`` beyond ``kept``
    removed; a cache directory that cannot be written is skipped: only the speed-up is lost."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".cache-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        _prune(path.parent, kind, kept)
    except OSError:
        return


def _prune(directory: Path, kind: str, kept: int) -> None:
    found = sorted(directory.glob(kind), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in found[kept:]:
        old.unlink(missing_ok=True)
