"""Job and task ids are version-7 UUIDs (issue 27): valid UUIDs, unique, and ordered by the time
they were made, so the oldest rows (those the retention sweep deletes together) sit together in
every index keyed by an id."""

from __future__ import annotations

import time
import uuid

from mcv_pipelines.service.state.tasks import new_id


def test_ids_are_version_7_uuids_carrying_the_time_they_were_made() -> None:
    before = time.time_ns() // 1_000_000
    made = uuid.UUID(new_id())
    after = time.time_ns() // 1_000_000
    assert str(made) == str(made).lower()
    assert made.version == 7
    assert made.variant == uuid.RFC_4122
    assert before <= made.int >> 80 <= after


def _millis(made: str) -> int:
    return uuid.UUID(made).int >> 80


def test_ids_made_later_sort_later_and_never_repeat() -> None:
    made = [new_id() for _ in range(2000)]
    while _millis(made[-1]) < _millis(made[0]) + 3:  # ids of a few milliseconds, whatever the machine
        made.append(new_id())
    assert len(set(made)) == len(made)
    assert [_millis(m) for m in made] == sorted(_millis(m) for m in made)
    assert [_millis(m) for m in sorted(made)] == [_millis(m) for m in made]  # text order is time order
