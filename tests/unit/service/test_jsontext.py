"""The service's JSON helpers: orjson's speed without refusing what the standard library accepted."""

from __future__ import annotations

import json

from starlette.responses import JSONResponse

from mcv_pipelines.service.state import jsontext
from mcv_pipelines.service.state.jsontext import FastJSONResponse

DOC = {"id": "t1", "name": "ünïcode ☃", "payload": {"width": 320, "ratio": 0.5, "flags": [True, None]}}


def test_documents_round_trip_and_answers_match_starlettes_bytes() -> None:
    assert jsontext.loads(jsontext.dumps(DOC)) == DOC
    assert FastJSONResponse(DOC).body == JSONResponse(DOC).body  # compact UTF-8, same bytes


def test_values_orjson_refuses_fall_back_to_the_standard_library() -> None:
    huge = {"size": 2**70, "nested": {"n": -(2**80)}}
    text = jsontext.dumps(huge)
    assert jsontext.loads(text) == huge
    assert json.loads(FastJSONResponse(huge).body) == huge
    keyed = {1: "one"}
    assert jsontext.loads(jsontext.dumps(keyed)) == {"1": "one"}  # as json.dumps wrote it


def test_text_written_by_the_standard_library_is_read_back() -> None:
    old = json.dumps({"n": 2**70, "s": "\u00e9"})  # a document stored before orjson, ASCII-escaped
    assert jsontext.loads(old) == {"n": 2**70, "s": "é"}
