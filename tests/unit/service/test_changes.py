"""The change feed wakes async and thread listeners on a publish, from any thread, missing nothing."""

from __future__ import annotations

import asyncio
import threading

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
        # A bound of 10x the wait: reached only by a next() that ignores ``within`` and waits on.
        ended = await asyncio.wait_for(changes.next(within=0.5), timeout=5)
        assert ended is None


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


def _wait_in_a_thread(feed: ChangeFeed, seen: int) -> tuple[threading.Thread, list[int]]:
    """``feed.wait_after(seen)`` in a thread, with a timeout (an hour) that no passing test reaches."""
    woke: list[int] = []
    waiter = threading.Thread(target=lambda: woke.append(feed.wait_after(seen, timeout=3600)), daemon=True)
    waiter.start()
    return waiter, woke


def test_thread_wait_wakes_on_a_change_made_after_reading_the_generation() -> None:
    feed = ChangeFeed()
    seen = feed.generation()
    waiter, woke = _wait_in_a_thread(feed, seen)
    feed.publish(Change("task", "t1", "waiting"))
    waiter.join(timeout=30)
    assert not waiter.is_alive(), "waited 30 s for wait_after to wake on the change"
    assert woke == [seen + 1]


def test_thread_wait_returns_at_once_when_a_change_came_in_between() -> None:
    feed = ChangeFeed()
    seen = feed.generation()
    feed.publish(Change("task", "t1", "waiting"))
    waiter, woke = _wait_in_a_thread(feed, seen)
    waiter.join(timeout=30)
    assert not waiter.is_alive(), "waited 30 s for wait_after to see the change made before it"
    assert woke == [seen + 1]


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
