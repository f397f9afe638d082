"""Catalog listings: any decoded JSON is a catalog or a clean InvalidInput; the normalised snapshot of
a catalog reads back to the same snapshot (parse -> dump -> parse -> dump is stable)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st
from strategies import json_values, nasty_text

from mcv_pipelines.catalog.listing import parse_listing
from mcv_pipelines.catalog.snapshot import dumps_catalog
from mcv_pipelines.errors import McvError

words = st.one_of(st.sampled_from(["convert", "thumbnail", "merge", "png", "JPEG", ".tif", "pdf", "any",
                                   "pillow", "ffmpeg", "tar.gz", "TGZ", "jpg"]), nasty_text)
option_types = st.sampled_from(["string", "boolean", "integer", "float", "enum", "dictionary"])

option = st.fixed_dictionaries(
    {"name": st.one_of(words, st.from_regex(r"[a-z_]{1,10}", fullmatch=True)), "type": option_types},
    optional={"default": json_values, "possible_values": st.lists(json_values, max_size=3),
              "description": st.one_of(nasty_text, st.none())},
)
version = st.fixed_dictionaries(
    {"version": st.one_of(nasty_text, st.integers(), st.floats(allow_nan=False))},
    optional={k: st.one_of(st.booleans(), st.none())
              for k in ("default", "latest", "deprecated", "experimental")},
)
descriptor = st.fixed_dictionaries(
    {"operation": words, "input_format": words, "output_format": words, "engine": words},
    optional={
        "credits": st.one_of(st.integers(0, 1000), st.floats(0, 1000), st.none()),
        "options": st.lists(option, max_size=4),
        "engine_versions": st.lists(version, max_size=2),
        "deprecated": st.one_of(st.booleans(), st.none()),
        "experimental": st.booleans(),
        "default": st.booleans(),
        "meta": st.dictionaries(nasty_text, json_values, max_size=2),
    },
)
listings = st.one_of(
    st.lists(descriptor, max_size=6).map(lambda d: {"data": d}),
    st.lists(descriptor, max_size=6),
)


def _parsed(data: Any) -> str | None:
    """The normalised snapshot of ``data``, or None when it was refused with a clean error."""
    try:
        return dumps_catalog(parse_listing(data, source="listing.json"))
    except McvError as exc:
        refusal = str(exc)
    assert refusal.startswith("listing.json: not an operations listing"), refusal
    return None


@given(data=listings)
@example(data=[{"operation": "convert", "input_format": "JPEG", "output_format": ".PNG", "engine": "x"}])
@example(data=[{"operation": "c", "input_format": "a", "output_format": "b", "engine": "e",
                "credits": 1e300}])
@example(data={"data": [{"operation": "convert", "input_format": "convert", "output_format": " ",
                         "engine": "convert"}]})  # found by Hypothesis: " " became "", then refused
@example(data=[{"operation": "c", "input_format": " . .x", "output_format": "b", "engine": "e"}])
@example(data=[{"operation": "c", "input_format": "a", "output_format": "b", "engine": "e",
                "options": [{"name": "q", "type": "integer", "default": float("nan")}]}])
def test_the_normalised_snapshot_round_trips(data: Any) -> None:
    first = _parsed(data)
    if first is None:
        return
    again = _parsed(json.loads(first))
    assert again == first


@given(data=st.one_of(json_values, st.lists(json_values, max_size=4), st.dictionaries(
    st.sampled_from(["data", "links", "meta"]), st.one_of(json_values, st.lists(json_values)))))
@example(data={"data": [{"operation": "c", "input_format": "a", "output_format": "b", "engine": "e",
                         "credits": float("inf")}]})  # found by Hypothesis: OverflowError
@example(data={"data": [None]})
@example(data={"data": [{"operation": "c", "input_format": "a", "output_format": "b", "engine": "e",
                         "credits": float("nan")}]})
def test_any_json_is_a_catalog_or_a_clean_error(data: Any) -> None:
    _parsed(data)
