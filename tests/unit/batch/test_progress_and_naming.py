"""Progress numbers (done, failed, in flight, windowed rate, ETA) and output-name collisions."""

from __future__ import annotations

import pytest

from mcv_pipelines.batch.naming import CollisionFinder, find_collisions
from mcv_pipelines.batch.progress import Progress


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_counts_rate_and_eta() -> None:
    clock = Clock()
    progress = Progress(total=100, clock=clock, window=10)
    assert progress.snapshot().rate is None
    assert progress.snapshot().eta is None
    for _ in range(4):
        progress.start()
    clock.now += 2
    progress.finish()
    progress.finish()
    progress.fail()
    snap = progress.snapshot()
    assert (snap.finished, snap.failed, snap.done, snap.in_flight, snap.remaining) == (2, 1, 3, 1, 97)
    assert snap.rate == pytest.approx(3 / 2)
    assert snap.eta == pytest.approx(97 / 1.5)
    assert snap.elapsed == pytest.approx(2)


def test_rate_follows_the_current_pace_not_the_average() -> None:
    clock = Clock()
    progress = Progress(total=1000, clock=clock, window=10)
    for _ in range(100):  # fast at first: 10 rows a second
        progress.start()
        clock.now += 0.1
        progress.finish()
    for _ in range(10):  # then one row every 2 seconds
        progress.start()
        clock.now += 2
        progress.finish()
    snap = progress.snapshot()
    assert snap.rate is not None
    assert snap.rate == pytest.approx(0.5, rel=0.21)
    assert snap.eta == pytest.approx((1000 - 110) / snap.rate)


def test_rows_done_before_a_resume_count_as_done_but_not_in_the_rate() -> None:
    clock = Clock()
    progress = Progress(total=50, finished=40, failed=2, clock=clock)
    clock.now += 5
    snap = progress.snapshot()
    assert (snap.done, snap.remaining, snap.rate, snap.eta) == (42, 8, None, None)


def test_a_row_failing_before_it_is_sent_is_not_in_flight() -> None:
    progress = Progress(total=None, clock=Clock())
    progress.start()
    progress.fail(in_flight=False)
    snap = progress.snapshot()
    assert (snap.in_flight, snap.failed, snap.remaining, snap.eta) == (1, 1, None, None)


# -- naming ------------------------------------------------------------------------------------------


def test_collisions_name_both_rows() -> None:
    found = find_collisions([
        ("a", 1, ["out/a/photo.webp", "out/a/photo.pdf"]),
        ("b", 2, ["out/b/photo.webp"]),
        ("c", 3, ["out/a/../a/photo.webp", "out/c.pdf"]),
        ("d", 4, ["out/b/photo.webp"]),
    ], case_insensitive=False)
    assert [str(c) for c in found] == [
        "out/a/photo.webp is written by row 1 (key a) and row 3 (key c)",
        "out/b/photo.webp is written by row 2 (key b) and row 4 (key d)",
    ]
    diagnostic = found[0].diagnostic("m.csv")
    assert diagnostic.rule == "batch-output-collision"
    assert str(diagnostic.manifest) == "m.csv: row 3"


def test_no_collisions_when_names_differ() -> None:
    assert find_collisions([("a", 1, ["out/a.png"]), ("b", 2, ["out/b.png"])]) == []


def test_one_row_writing_a_name_twice() -> None:
    found = find_collisions([("a", 1, ["out/x.png", "out/./x.png"])])
    assert [str(c) for c in found] == ["out/x.png is written twice by row 1 (key a)"]


def test_case_insensitive_file_systems() -> None:
    with CollisionFinder(case_insensitive=True) as finder:
        finder.add("a", 1, ["out/Photo.PNG"])
        finder.add("b", 2, ["out/photo.png"])
        assert [(c.first_index, c.second_index) for c in finder.collisions] == [(1, 2)]
    with CollisionFinder(case_insensitive=False) as sensitive:
        sensitive.add("a", 1, ["out/Photo.PNG"])
        sensitive.add("b", 2, ["out/photo.png"])
        assert sensitive.collisions == []


def test_many_collisions_are_counted_and_the_first_ones_kept() -> None:
    with CollisionFinder(limit=3) as finder:
        for index in range(1, 11):
            finder.add(f"k{index}", index, ["out/same.png", f"out/{index}.png"])
        assert finder.count == 9
        assert [c.second_index for c in finder.collisions] == [2, 3, 4]
        assert {c.first_index for c in finder.collisions} == {1}
