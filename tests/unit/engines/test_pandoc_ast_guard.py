"""What the Pandoc engine takes out of a document before a writer (or the printing browser) sees it."""

from __future__ import annotations

from typing import Any

from mcv_pipelines.service.engines.text.ast_guard import clean_document


def _raw(html: str) -> dict[str, Any]:
    return {"t": "RawBlock", "c": ["html", html]}


def test_raw_html_that_fetches_or_navigates_is_dropped_and_the_rest_kept() -> None:
    kept = _raw("<b>plain</b>")
    document = {
        "meta": {"title": {"t": "MetaString", "c": "T"}, "css": {"t": "MetaString", "c": "/etc/passwd"}},
        "blocks": [
            _raw('<img src="http://127.0.0.1/x.png">'),
            _raw('<meta http-equiv="refresh" content="0; url=http://127.0.0.1/r">'),
            _raw('<META HTTP-EQUIV = "Refresh" CONTENT="0">'),
            _raw("<style>@import 'http://10.0.0.7/a.css';</style>"),
            kept,
        ],
    }
    cleaned = clean_document(document)
    assert cleaned["blocks"] == [kept]
    assert set(cleaned["meta"]) == {"title"}


def test_an_image_that_is_not_a_local_path_becomes_a_link() -> None:
    image = {"t": "Image", "c": [["", [], []], [{"t": "Str", "c": "x"}], ["file:///etc/passwd", ""]]}
    cleaned = clean_document({"meta": {}, "blocks": [{"t": "Para", "c": [image]}]})
    assert cleaned["blocks"][0]["c"][0]["t"] == "Link"
