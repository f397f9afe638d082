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
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.model import ConversionKey, Descriptor, EngineVersionDef, OptionDef
from mcv_pipelines.errors import UsageError

__all__ = ["FORMAT", "VERSION", "cache_dir", "dumps_index", "index_path", "loads_index", "store_index"]

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


def loads_index(
    data: bytes, digest: str, *, source: str, fallback: Callable[[], Catalog]
) -> Catalog | None:
    """The lazy catalog ``data`` indexes, or None when it is no index of the snapshot ``digest``.

    ``fallback`` gives the catalog parsed from the snapshot itself; a detail that cannot be decoded
    later (a damaged file) is taken from it instead, so a check never fails on the cache.
    """
    end = data.find(b"\n")
    try:
        head = json.loads(data[:end])
        if (
            head.get("format") != FORMAT
            or head.get("version") != VERSION
            or head.get("snapshot_sha256") != digest
        ):
            return None
        rows = head["types"]
        keys = [ConversionKey(op, fin, fout, engine) for op, fin, fout, engine, _, _, _ in rows]
        defaults = [bool(row[4]) for row in rows]
        spans = [(int(row[5]), int(row[6])) for row in rows]
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    details = memoryview(data)[end + 1 :]
    whole: list[Catalog] = []

    def load(i: int) -> Descriptor:
        start, stop = spans[i]
        try:
            return _descriptor(keys[i], defaults[i], details[start:stop].tobytes())
        except (ValueError, TypeError):
            if not whole:
                whole.append(fallback())
            found = whole[0].get(keys[i])
            if found is None:  # only if an index format change forgot to raise VERSION
                raise UsageError(
                    f"{index_path(digest)}: this cached index of {source} lists types the snapshot does "
                    "not have; delete the file and run again"
                ) from None
            return found

    return Catalog.lazily(keys, defaults, load, source=source)


def store_index(catalog: Catalog, digest: str) -> None:
    """Write the index of ``catalog`` into the cache (atomically); a cache that refuses is skipped."""
    import tempfile

    path = index_path(digest)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".index-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(dumps_index(catalog, digest))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        _prune(path.parent)
    except OSError:
        return  # a read-only or full cache directory: validation goes on, just without the speed-up


def _prune(directory: Path) -> None:
    indexes = sorted(directory.glob("index-v*.jsonl"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in indexes[_KEPT:]:
        old.unlink(missing_ok=True)
