"""`mcv catalog pull` and `mcv catalog diff SNAPSHOT` against a live listing.

The happy paths read the real embedded local service over loopback; a listing that fails half way
(which a real server does not easily do) is served by httpx.MockTransport through CLIENT_FACTORY.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcv_pipelines.api import ApiClient, RetryPolicy, Settings
from mcv_pipelines.catalog.snapshot import dumps_catalog, load_catalog
from mcv_pipelines.cli import connection
from mcv_pipelines.cli.main import main

DATA = Path(__file__).resolve().parents[1] / "catalog" / "data"
BASE = "http://127.0.0.1:9"
Capture = pytest.CaptureFixture[str]


async def _no_sleep(_seconds: float) -> None:
    return None


def _serve(monkeypatch: pytest.MonkeyPatch, handler: Callable[[httpx.Request], httpx.Response]) -> list[str]:
    """Point the CLI at a fake service; returns the list of URLs requested."""
    seen: list[str] = []

    def recorded(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return handler(request)

    def factory(settings: Settings) -> ApiClient:
        transport = httpx.MockTransport(recorded)
        return ApiClient(settings, transport=transport, retry=RetryPolicy(sleep=_no_sleep))

    monkeypatch.setattr(connection, "CLIENT_FACTORY", factory)
    monkeypatch.setenv("MCV_BASE_URL", BASE)
    monkeypatch.delenv("MCV_API_KEY", raising=False)
    return seen


def _pages(request: httpx.Request) -> httpx.Response:
    page = request.url.params.get("page", "1")
    return httpx.Response(200, content=(DATA / f"page{page}.json").read_bytes())


def test_pull_reads_every_page_with_options_and_alternatives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture
) -> None:
    seen = _serve(monkeypatch, _pages)
    out = tmp_path / "catalog.json"
    assert main(["catalog", "pull", "--out", str(out)]) == 0
    assert len(seen) == 2
    first = httpx.URL(seen[0]).params
    assert first["include"] == "options,engine_versions"
    assert first["alternatives"] == "true"
    catalog = load_catalog(out)
    assert len(catalog) == 20  # 9 on page 1, 11 on page 2
    assert out.read_text() == dumps_catalog(catalog)  # written normalised
    assert capsys.readouterr().out == (
        f"wrote 20 conversion types from {BASE} to {out}\nno earlier snapshot to compare with\n"
    )


def test_pull_over_an_older_snapshot_prints_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture
) -> None:
    new = json.loads((DATA / "listing-new.json").read_text())
    _serve(monkeypatch, lambda _r: httpx.Response(200, json={"data": new, "links": {"next": None}}))
    out = tmp_path / "catalog.json"
    out.write_text(dumps_catalog(load_catalog(DATA / "listing.json")))
    assert main(["catalog", "pull", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"wrote 20 conversion types from {BASE} to {out}\n")
    assert printed.endswith(" changed\n")
    assert " added, " in printed


@pytest.mark.parametrize(
    "second_page",
    [
        httpx.Response(200, content=b'{"data": [{"operation": "convert", "input_for'),  # truncated
        httpx.Response(500, json={"message": "boom", "code": "INTERNAL"}),
        httpx.Response(200, json={"data": [{"operation": "convert", "input_format": "jpg",
                                            "output_format": "png", "engine": "x",
                                            "options": [{"name": "w", "type": "number"}]}],
                                  "links": {"next": None}}),  # an option type the listing never uses
    ],
    ids=["truncated", "server-error", "unknown-option-type"],
)
def test_a_listing_that_fails_half_way_leaves_the_old_snapshot_untouched(
    second_page: httpx.Response, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return _pages(request) if request.url.params.get("page", "1") == "1" else second_page

    _serve(monkeypatch, handler)
    out = tmp_path / "catalog.json"
    old = dumps_catalog(load_catalog(DATA / "listing.json"))
    out.write_text(old)
    code = main(["catalog", "pull", "--out", str(out)])
    err = capsys.readouterr().err
    assert code in (2, 3)
    assert err.startswith("mcv: error: ")
    assert f"{out} is left as it was" in err
    assert "Traceback" not in err
    assert out.read_text() == old
    assert [p.name for p in tmp_path.iterdir()] == ["catalog.json"]  # no temporary file left behind


def test_diff_one_snapshot_against_the_live_listing(
    monkeypatch: pytest.MonkeyPatch, capsys: Capture
) -> None:
    new = json.loads((DATA / "listing-new.json").read_text())
    _serve(monkeypatch, lambda _r: httpx.Response(200, json={"data": new, "links": {"next": None}}))
    assert main(["catalog", "diff", str(DATA / "listing.json"), "--format", "json"]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert report["new"] == BASE
    snapshots = [str(DATA / "listing.json"), str(DATA / "listing-new.json")]
    assert main(["catalog", "diff", *snapshots, "--format", "json"]) == 0
    both: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert {k: report[k] for k in ("added", "removed", "changed")} == {
        k: both[k] for k in ("added", "removed", "changed")
    }
    assert report["added"] or report["removed"] or report["changed"]


def test_pull_local_starts_the_embedded_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture
) -> None:
    monkeypatch.setenv("MCV_BASE_URL", "http://127.0.0.1:9")  # --local wins over a configured service
    out = tmp_path / "local.json"
    assert main(["catalog", "pull", "--local", "--out", str(out)]) == 0
    assert "from the embedded local service" in capsys.readouterr().out
    catalog = load_catalog(out)
    assert catalog.default_engine("convert", "jpg", "webp") == "pillow"
    assert catalog.engines("merge", "pdf", "pdf")
    assert out.read_text() == dumps_catalog(catalog)
