"""Sharding: ``--shard I/N`` takes a deterministic share of a manifest's rows.

Shards count from 1 (``1/4`` .. ``4/4``), like a CI matrix ``shard: [1, 2, 3, 4]``; a Kubernetes
Indexed Job counts from 0, so pass ``$((JOB_COMPLETION_INDEX + 1))/N``. A row belongs to shard
``sha256(key) mod N + 1``: machines that see the same manifest split it with no coordination, each
row in exactly one shard, whatever the Python hash seed or row order.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from mcv_pipelines.errors import UsageError

__all__ = ["Shard", "parse_shard", "shard_of"]

_FORM = re.compile(r"\s*([0-9]+)\s*/\s*([0-9]+)\s*")
_MAX_COUNT = 1_000_000


def shard_of(key: str, count: int) -> int:
    """The shard (1..count) that owns ``key``."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``index`` of ``count``, both counting from 1."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise UsageError(f"shard {self.index}/{self.count} does not exist: use 1/{self.count} .. "
                             f"{self.count}/{self.count}")

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and shard_of(key, self.count) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """Parse ``I/N`` (1 <= I <= N), with an error saying what was expected.

    >>> parse_shard("2/4")
    Shard(index=2, count=4)
    """
    match = _FORM.fullmatch(text)
    if match is None:
        raise UsageError(f"--shard {text!r}: expected I/N, e.g. 2/4 (shards count from 1)")
    index, count = int(match.group(1)), int(match.group(2))
    if count == 0:
        raise UsageError(f"--shard {text}: N must be at least 1")
    if count > _MAX_COUNT:
        raise UsageError(f"--shard {text}: N is at most {_MAX_COUNT}")
    if index == 0:
        raise UsageError(f"--shard {text}: shards count from 1 (1/{count} .. {count}/{count}); "
                         f"for a 0-based index such as JOB_COMPLETION_INDEX, add 1")
    return Shard(index, count)
