"""How large the segments of a Static Large Object are (swift.py writes them): from the file's size
(known before it is sent) and what the cluster says of itself at ``/info``: at most its
``max_file_size``, at least its SLO ``min_segment_size``, and few enough for ``max_manifest_segments``;
a gigabyte when those allow it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors

__all__ = ["Limits", "segment_size"]

_GIB = 1024**3  # a segment's size when the cluster's limits allow it


@dataclass(frozen=True)
class Limits:
    """What a Swift cluster's ``/info`` says about object sizes (its defaults when it says nothing)."""

    max_file_size: int = 5 * _GIB + 2
    slo: bool = True  # the cluster takes Static Large Object manifests
    min_segment_size: int = 1
    max_manifest_segments: int = 1000

    @classmethod
    def from_info(cls, info: Any) -> Limits:
        """From ``/info``'s JSON; Swift's defaults (SLO taken) when the cluster hides it."""
        if not isinstance(info, dict):
            return cls()
        swift, slo = info.get("swift"), info.get("slo")
        said = {  # the positive whole numbers it gives; a default for each one it does not
            name: int(value)
            for table, name in (
                (swift, "max_file_size"),
                (slo, "min_segment_size"),
                (slo, "max_manifest_segments"),
            )
            if isinstance(table, dict) and isinstance(value := table.get(name), int) and value > 0
        }
        return cls(slo=isinstance(slo, dict), **said)


def segment_size(size: int, limits: Limits, where: str) -> int:
    """The size of each segment of a ``size``-byte file (the last one may be smaller); TaskFailed
    when the cluster cannot hold the file in any way."""
    if not limits.slo:
        raise TaskFailed(
            errors.FAILED,
            f"A file of {size} bytes is larger than one object may be in the {where} "
            f"({limits.max_file_size} bytes), and the cluster takes no Static Large Objects (no slo in "
            "its /info) to store it in segments.",
        )
    needed = math.ceil(size / limits.max_manifest_segments)
    chosen = min(limits.max_file_size, max(_GIB, needed, limits.min_segment_size))
    if chosen < needed or chosen < limits.min_segment_size:
        raise TaskFailed(
            errors.FAILED,
            f"A file of {size} bytes does not fit in {limits.max_manifest_segments} segments of at most "
            f"{limits.max_file_size} bytes, the most the {where} takes.",
        )
    return chosen
