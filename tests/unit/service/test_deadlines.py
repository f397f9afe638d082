"""Task timeouts on one thread: a deadline fires once with its key and seconds, a cancelled one never,
and many deadlines share one thread."""

from __future__ import annotations

import threading
import time

from mcv_pipelines.service.work.deadlines import Deadlines


def test_deadlines_fire_in_order_and_cancelled_ones_never() -> None:
    fired: list[tuple[str, float]] = []
    done = threading.Event()

    def expired(key: str, seconds: float) -> None:
        fired.append((key, seconds))
        if key == "last":
            done.set()

    deadlines = Deadlines(expired)
    try:
        deadlines.add("last", 0.3)
        deadlines.add("first", 0.05)  # nearer than the one the thread sleeps on: wakes it
        deadlines.add("cancelled", 0.1)
        deadlines.cancel("cancelled")
        assert done.wait(10)
        assert fired == [("first", 0.05), ("last", 0.3)]
        assert deadlines.pending() == 0
    finally:
        deadlines.stop()


def test_adding_a_key_again_replaces_its_deadline() -> None:
    fired: list[tuple[str, float]] = []
    deadlines = Deadlines(lambda key, seconds: fired.append((key, seconds)))
    try:
        deadlines.add("t", 0.05)
        deadlines.add("t", 3600)
        time.sleep(0.3)
        assert fired == []
        assert deadlines.pending() == 1
    finally:
        deadlines.stop()


def test_many_deadlines_share_one_thread() -> None:
    before = threading.active_count()
    deadlines = Deadlines(lambda key, seconds: None)
    try:
        for n in range(300):
            deadlines.add(f"t{n}", 3600 + n)
        assert threading.active_count() == before + 1
        assert deadlines.pending() == 300
    finally:
        deadlines.stop()
    assert threading.active_count() == before


def test_a_failing_callback_does_not_stop_the_others() -> None:
    fired: list[str] = []
    done = threading.Event()

    def expired(key: str, seconds: float) -> None:
        if key == "bad":
            raise RuntimeError("bug")
        fired.append(key)
        done.set()

    deadlines = Deadlines(expired)
    try:
        deadlines.add("bad", 0.01)
        deadlines.add("good", 0.05)
        assert done.wait(10)
        assert fired == ["good"]
    finally:
        deadlines.stop()


def test_cancelled_deadlines_do_not_pile_up() -> None:
    deadlines = Deadlines(lambda key, seconds: None)
    try:
        for n in range(10_000):  # tasks that end long before their 5 h timeout
            deadlines.add(f"t{n}", 5 * 3600)
            deadlines.cancel(f"t{n}")
        assert deadlines.pending() == 0
        assert deadlines.held() <= 130
    finally:
        deadlines.stop()


def test_cancel_tells_how_long_the_deadline_was_pending() -> None:
    deadlines = Deadlines(lambda key, seconds: None)
    try:
        deadlines.add("t", 3600)
        time.sleep(0.05)
        took = deadlines.cancel("t")
        assert took is not None
        assert 0.05 <= took < 5
        assert deadlines.cancel("t") is None  # no longer pending
        assert deadlines.cancel("never added") is None
    finally:
        deadlines.stop()
