"""The service's timestamps: ISO 8601 to the second, made once per second and never stale."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mcv_pipelines.service.state import accounts
from mcv_pipelines.service.state.accounts import now_iso


def test_now_is_this_second_in_the_api_format() -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    stamp = now_iso()
    after = datetime.now(UTC).replace(microsecond=0)
    assert stamp.endswith("+00:00")
    assert before <= datetime.fromisoformat(stamp) <= after


def test_a_new_second_gives_a_new_stamp_and_the_same_second_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1_795_470_043.2]
    monkeypatch.setattr(accounts.time, "time", lambda: clock[0])
    assert now_iso() == "2026-11-23T21:40:43+00:00"
    clock[0] = 1_795_470_043.999
    assert now_iso() == "2026-11-23T21:40:43+00:00"
    clock[0] = 1_795_470_044.0
    assert now_iso() == "2026-11-23T21:40:44+00:00"
    clock[0] = 1_795_470_043.5  # the wall clock stepped back (NTP): the stamp follows it
    assert now_iso() == "2026-11-23T21:40:43+00:00"
