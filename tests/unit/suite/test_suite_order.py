"""The order workers get test files in (issue 50): slowest first by tests/durations.json, the image's
tests last, and what `--store-durations` writes."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest

import suite_order

ROOT = Path(__file__).resolve().parents[3]


@dataclass
class Item:
    """What suite_order reads of a pytest item: its node id and its markers."""

    nodeid: str
    marks: set[str] = field(default_factory=set)

    def get_closest_marker(self, name: str) -> object | None:
        return name if name in self.marks else None


def _order(items: list[Item], seconds: dict[str, float]) -> list[str]:
    suite_order.slowest_first(cast(list[pytest.Item], items), seconds)
    return [item.nodeid for item in items]


def test_files_run_slowest_first_each_kept_whole_and_in_its_order() -> None:
    items = [Item("a.py::one"), Item("a.py::two"), Item("b.py::one"), Item("c.py::one"), Item("c.py::two")]
    assert _order(items, {"a.py": 1.0, "b.py": 30.0, "c.py": 12.5}) == [
        "b.py::one", "c.py::one", "c.py::two", "a.py::one", "a.py::two",
    ]  # fmt: skip


def test_the_image_tests_come_last_however_slow() -> None:
    items = [Item("image.py::build", {"image"}), Item("quick.py::one")]
    assert _order(items, {"image.py": 900.0, "quick.py": 0.1}) == ["quick.py::one", "image.py::build"]


def test_a_file_not_measured_yet_sits_among_the_middling_ones() -> None:
    items = [Item("fast.py::t"), Item("new.py::t"), Item("slow.py::t")]
    order = _order(
        items, {"fast.py": suite_order.UNKNOWN_SECONDS / 10, "slow.py": suite_order.UNKNOWN_SECONDS * 10}
    )
    assert order == ["slow.py::t", "new.py::t", "fast.py::t"]


def test_stored_seconds_merge_with_those_of_files_this_run_did_not_reach(tmp_path: Path) -> None:
    path = tmp_path / "durations.json"
    path.write_text(json.dumps({"kept.py": 4.0, "ran.py": 99.0}))
    recorded = suite_order.Recorded()
    for when, seconds in (("setup", 0.25), ("call", 1.5), ("teardown", 0.5)):
        recorded.add(cast(pytest.TestReport, _Report("ran.py::test_x[1]", when, seconds)))
    suite_order.store(path, recorded)
    assert json.loads(path.read_text()) == {"kept.py": 4.0, "ran.py": 2.2}


@dataclass
class _Report:
    nodeid: str
    when: str
    duration: float


def test_an_unreadable_durations_file_orders_nothing_and_fails_nothing(tmp_path: Path) -> None:
    (tmp_path / "durations.json").write_text("{not json")
    assert suite_order.load(tmp_path / "durations.json") == {}
    for wrong in ('["a list"]', '{"tests/x.py": "slow"}', '{"tests/x.py": null}'):
        (tmp_path / "durations.json").write_text(wrong)
        assert suite_order.load(tmp_path / "durations.json") == {}, wrong
    assert suite_order.load(tmp_path / "missing.json") == {}


def test_the_committed_durations_name_only_test_files_that_exist() -> None:
    stored = suite_order.load(ROOT / suite_order.DURATIONS)
    assert len(stored) > 100, "tests/durations.json is missing: run the suite with --store-durations"
    gone = sorted(name for name in stored if not (ROOT / name).is_file())
    assert gone == [], f"remove these from tests/durations.json (or run --store-durations): {gone}"


# A nested pytest gets a --basetemp of its own: with pytest's default it first deletes the oldest of
# /tmp/pytest-of-<user>'s numbered directories, gigabytes after a few full runs, and under CI's load
# that alone outlasted the 120 s bound (seen: the test passed, then the run sat in cleanup).


def test_a_run_stores_each_files_seconds_where_asked(tmp_path: Path) -> None:
    target = tmp_path / "seconds.json"
    here = Path(__file__).relative_to(ROOT).as_posix()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--store-durations={target}",
         f"--basetemp={tmp_path / 'basetemp'}",
         f"{here}::test_files_run_slowest_first_each_kept_whole_and_in_its_order"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    stored: dict[str, Any] = json.loads(target.read_text())
    assert list(stored) == [here]
    assert isinstance(stored[here], float)
    assert stored[here] >= 0


def test_a_test_that_hangs_fails_with_its_stack_instead_of_holding_the_run(tmp_path: Path) -> None:
    """pytest-timeout, configured in pyproject.toml: a hung test is failed where it hangs, its worker
    freed, instead of the run waiting for CI's limit (the bound is lowered here to 2 s)."""
    hung = tmp_path / "test_hung.py"
    hung.write_text("import threading\n\ndef test_hangs():\n    threading.Event().wait()\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(ROOT / "pyproject.toml"),
         "--rootdir", str(tmp_path), f"--basetemp={tmp_path / 'basetemp'}", "-o", "timeout=2", str(hung)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Timeout" in done.stdout
    assert "threading.Event().wait()" in done.stdout or "test_hung.py:4" in done.stdout, done.stdout[-3000:]
