"""Metrics of one service: what a Prometheus scrape shows after requests, task changes and transfers."""

from __future__ import annotations

import math

import pytest
from prometheus_client.parser import text_string_to_metric_families

from mcv_pipelines.service.http.metrics import Metrics
from mcv_pipelines.service.state.changes import Change, ChangeFeed

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(metrics: Metrics) -> Samples:
    body, content_type = metrics.exposition("")
    assert content_type.startswith("text/plain; version=0.0.4")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(body.decode())
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


def test_requests_are_counted_by_method_route_template_and_status() -> None:
    metrics = Metrics()
    metrics.observe_request("GET", "/v2/jobs/{job_id}", 200, 0.004)
    metrics.observe_request("GET", "/v2/jobs/{job_id}", 200, 0.02)
    metrics.observe_request("GET", "/v2/jobs/{job_id}", 404, 0.001)
    samples = scrape(metrics)
    route = "/v2/jobs/{job_id}"
    assert value(samples, "mcv_http_requests_total", method="GET", route=route, status="200") == 2
    assert value(samples, "mcv_http_requests_total", method="GET", route=route, status="404") == 1
    assert value(samples, "mcv_http_request_duration_seconds_count", method="GET", route=route) == 3
    assert (
        value(samples, "mcv_http_request_duration_seconds_bucket", method="GET", route=route, le="0.005") == 2
    )


def test_a_made_up_method_does_not_make_a_series_of_its_own() -> None:
    metrics = Metrics()
    metrics.observe_request("BREW", "unmatched", 405, 0.001)
    samples = scrape(metrics)
    assert value(samples, "mcv_http_requests_total", method="other", route="unmatched", status="405") == 1
    assert not any("BREW" in str(labels) for _, labels in samples)


def test_ended_tasks_heard_on_the_feed_are_counted_with_their_duration() -> None:
    metrics = Metrics()
    feed = ChangeFeed()
    feed.listen(metrics.task_changed)
    convert = {"operation": "convert", "engine": "pillow"}
    feed.publish(Change("task", "t1", "processing", **convert))
    feed.publish(Change("task", "t1", "finished", seconds=1.5, **convert))
    feed.publish(Change("task", "t2", "error", code="TIMEOUT", seconds=3.0, **convert))
    feed.publish(Change("task", "t3", "finished", operation="import/url", seconds=0.2))
    feed.publish(Change("job", "j1", "finished"))
    # Heard from another process: that process counts it; counting here too would double the sum.
    feed.publish(Change("task", "t4", "finished", seconds=9.0, remote=True, **convert))
    samples = scrape(metrics)
    assert value(samples, "mcv_tasks_ended_total", status="finished", **convert) == 1
    assert value(samples, "mcv_tasks_ended_total", status="error", **convert) == 1
    assert value(samples, "mcv_tasks_ended_total", operation="import/url", engine="", status="finished") == 1
    assert value(samples, "mcv_task_duration_seconds_sum", **convert) == 4.5
    assert value(samples, "mcv_task_duration_seconds_count", **convert) == 2


def test_leases_lost_and_file_bytes_start_at_zero_and_add_up() -> None:
    metrics = Metrics()
    before = scrape(metrics)
    assert value(before, "mcv_task_leases_lost_total") == 0
    assert value(before, "mcv_file_bytes_total", direction="in") == 0
    metrics.lease_lost()
    metrics.bytes_in(1000)
    metrics.bytes_in(24)
    metrics.bytes_out(7)
    after = scrape(metrics)
    assert value(after, "mcv_task_leases_lost_total") == 1
    assert value(after, "mcv_file_bytes_total", direction="in") == 1024
    assert value(after, "mcv_file_bytes_total", direction="out") == 7


def test_queue_depth_is_read_at_scrape_time() -> None:
    depth = [3]
    metrics = Metrics(queue_depth=lambda: depth[0])
    assert value(scrape(metrics), "mcv_task_queue_depth") == 3
    depth[0] = 0
    assert value(scrape(metrics), "mcv_task_queue_depth") == 0
    assert value(scrape(Metrics()), "mcv_task_queue_depth") is None  # no source, no gauge


def test_a_failing_queue_depth_still_answers_the_scrape(caplog: pytest.LogCaptureFixture) -> None:
    def database_away() -> int:
        raise ConnectionError("database is down")

    depth = value(scrape(Metrics(queue_depth=database_away)), "mcv_task_queue_depth")
    assert depth is not None
    assert math.isnan(depth)
    assert "could not read the queue depth" in caplog.text


def test_each_service_has_its_own_registry() -> None:
    first, second = Metrics(), Metrics()
    first.observe_request("GET", "/v2/users/me", 200, 0.01)
    assert (
        value(scrape(first), "mcv_http_requests_total", method="GET", route="/v2/users/me", status="200") == 1
    )
    assert (
        value(scrape(second), "mcv_http_requests_total", method="GET", route="/v2/users/me", status="200")
        is None
    )


def test_openmetrics_is_answered_when_asked_for() -> None:
    body, content_type = Metrics().exposition("application/openmetrics-text; version=1.0.0")
    assert content_type.startswith("application/openmetrics-text; version=1.0.0")
    assert body.rstrip().endswith(b"# EOF")
