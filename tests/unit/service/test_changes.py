"""The change feed wakes async and thread listeners on a publish, from any thread, missing nothing."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from mcv_pipelines.service.state.changes import Change, ChangeFeed


async def test_subscriber_hears_a_change_published_from_another_thread() -> None:
    feed = ChangeFeed()
    async with feed.subscribe(lambda c: c.id == "j1") as changes:
        threading.Thread(target=feed.publish, args=(Change("job", "j2", "finished"),)).start()
        threading.Thread(target=feed.publish, args=(Change("job", "j1", "finished"),)).start()
        change = await changes.next(within=5)
    assert change == Change("job", "j1", "finished")


async def test_next_returns_none_when_nothing_matches_in_time() -> None:
    feed = ChangeFeed()
    async with feed.subscribe(lambda c: c.kind == "task") as changes:
        feed.publish(Change("job", "j1", "processing"))
        started = time.monotonic()
        assert await changes.next(within=0.05) is None
    assert time.monotonic() - started < 2


async def test_changes_published_before_reading_are_queued_in_order() -> None:
    feed = ChangeFeed()
    async with feed.subscribe() as changes:
        for status in ("waiting", "processing", "finished"):
            feed.publish(Change("task", "t1", status))
        await asyncio.sleep(0)  # let the loop run the queued callbacks
        assert [c.status for c in changes.drain()] == ["waiting", "processing", "finished"]


async def test_a_closed_subscription_hears_nothing_more() -> None:
    feed = ChangeFeed()
    async with feed.subscribe() as changes:
        pass
    feed.publish(Change("job", "j1", "finished"))
    await asyncio.sleep(0)
    assert changes.drain() == []


def test_thread_wait_wakes_on_a_change_made_after_reading_the_generation() -> None:
    feed = ChangeFeed()
    seen = feed.generation()
    threading.Timer(0.05, feed.publish, (Change("task", "t1", "waiting"),)).start()
    started = time.monotonic()
    assert feed.wait_after(seen, timeout=10) == seen + 1
    assert time.monotonic() - started < 5


def test_thread_wait_returns_at_once_when_a_change_came_in_between() -> None:
    feed = ChangeFeed()
    seen = feed.generation()
    feed.publish(Change("task", "t1", "waiting"))
    started = time.monotonic()
    assert feed.wait_after(seen, timeout=10) == seen + 1
    assert time.monotonic() - started < 1


def test_listeners_hear_every_change_and_a_failing_one_does_not_stop_the_publisher(
    caplog: pytest.LogCaptureFixture,
) -> None:
    feed = ChangeFeed()
    heard: list[Change] = []

    def broken(change: Change) -> None:
        raise RuntimeError("listener bug")

    feed.listen(broken)
    feed.listen(heard.append)
    change = Change("task", "t1", "error", operation="convert", engine="pillow", code="X", seconds=1.5)
    feed.publish(change)
    assert heard == [change]
    assert "change listener failed on task t1" in caplog.text
