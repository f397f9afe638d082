"""How a file too large for one Swift object is cut: segments as large as the cluster allows up to a
gigabyte, few enough for its manifest, and a clear refusal where the cluster cannot hold it."""

from __future__ import annotations

import pytest

from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage.swift_segments import Limits, segment_size

GIB = 1024**3


def test_a_cluster_that_says_nothing_has_swifts_defaults() -> None:
    assert Limits.from_info(None) == Limits()
    assert Limits.from_info({"swift": {"version": "2.30"}}).slo is False  # no slo: no manifests


def test_info_is_read_for_the_bound_and_the_manifest_limits() -> None:
    info = {"swift": {"max_file_size": 100}, "slo": {"max_manifest_segments": 5, "min_segment_size": 2}}
    assert Limits.from_info(info) == Limits(100, True, 2, 5)


def test_a_6_gib_file_goes_in_gigabyte_segments_on_a_default_cluster() -> None:
    assert segment_size(6 * GIB, Limits(), "c") == GIB


def test_segments_never_pass_the_clusters_bound() -> None:
    assert segment_size(30, Limits(max_file_size=12, slo=True), "c") == 12


def test_a_file_needing_more_segments_than_a_manifest_holds_has_larger_ones() -> None:
    assert segment_size(3000 * GIB, Limits(max_file_size=5 * GIB), "c") == 3 * GIB


def test_a_cluster_without_slo_or_room_refuses_with_the_reason() -> None:
    with pytest.raises(TaskFailed, match="no Static Large Objects"):
        segment_size(20, Limits(max_file_size=10, slo=False), "Swift container 'c'")
    with pytest.raises(TaskFailed, match="does not fit in 2 segments"):
        segment_size(100, Limits(max_file_size=10, max_manifest_segments=2), "Swift container 'c'")
