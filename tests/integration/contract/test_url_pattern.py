"""The service takes exactly the bodies its published schemas allow, patterns included.

JSON Schema patterns are ECMA-262 regular expressions; Python's ``re`` reads ``\\s``, ``\\d``, ``$``
and ``.`` differently (its ``\\s`` holds U+001C..U+001F: a URL with U+001C passed the schema and was
refused by the service; issue 29). jsonschema-rs, which reads patterns as ECMA-262 does, is the judge.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs

from mcv_pipelines.service.http.ecma_pattern import ecma_search
from mcv_pipelines.service.server import LocalService

OPERATIONS = Path(__file__).resolve().parents[3] / "schemas" / "operations"
# Where ECMA-262 and Python disagree, and a few plain characters beside them.
TRICKY = [
    *"\x1c\x1d\x1e\x1f\x00\x7f\x85\xa0\ufeff\u2028\u3000\u0663\u00e9\U0001d7ce",
    *" \t\n\r./\\-_+=aZ09",
]


def _patterns(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            yield from _patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from _patterns(value)


def _samples(pattern: str) -> Iterator[str]:
    prefix = "http://h/" if pattern.startswith("^https?://") else ""
    for char in TRICKY:
        for text in (char, "a" + char + "b", "ab" + char, char + ".png", "a.b" + char):
            yield prefix + text
    yield prefix + "a.b"


def test_every_schema_pattern_is_read_as_ecma_262_reads_it() -> None:
    files = OPERATIONS.glob("*.schema.json")
    patterns = {p for path in files for p in _patterns(json.loads(path.read_text(encoding="utf-8")))}
    assert len(patterns) >= 5
    differ = [
        (pattern, text)
        for pattern in sorted(patterns)
        for text in _samples(pattern)
        if ecma_search(pattern, text) != jsonschema_rs.validator_for({"pattern": pattern}).is_valid(text)
    ]
    assert differ == []


def test_capture_website_takes_exactly_the_urls_its_published_schema_takes(
    contract_service: LocalService,
) -> None:
    published = httpx.get(f"{contract_service.base_url}/openapi.json", timeout=30).json()
    url_schema = published["components"]["schemas"]["JobTask-capture-website"]["properties"]["url"]
    judge = jsonschema_rs.validator_for(url_schema)
    headers = {"Authorization": f"Bearer {contract_service.api_key}"}
    verdicts: dict[str, tuple[bool, bool]] = {}
    with httpx.Client(base_url=contract_service.base_url, headers=headers, timeout=30) as client:
        for char in [*"\x1c\x1d\x1e\x1f\x85\xa0\ufeff\u3000\u00e9", "\n"]:
            for url in (f"http://127.0.0.1:9/a{char}b", f"http://127.0.0.1:9/ab{char}"):
                answer = client.post("/v2/capture-website", json={"url": url, "output_format": "png"})
                assert answer.status_code in (201, 422), answer.text
                if answer.status_code == 422:
                    assert list(answer.json()["errors"]) == ["url"], answer.text
                verdicts[url] = (answer.status_code == 201, judge.is_valid(url))
    assert {url: v for url, v in verdicts.items() if v[0] != v[1]} == {}
    # The characters of the report: control characters, refused by the schema and the service alike.
    assert not any(verdicts[f"http://127.0.0.1:9/a{c}b"][0] for c in "\x1c\x1d\x1e\x1f")
    # Where Python's \s and ECMA-262's differ the other way round: U+0085 is no space to ECMA-262.
    assert verdicts["http://127.0.0.1:9/a\x85b"] == (True, True)
    assert verdicts["http://127.0.0.1:9/a\ufeffb"] == (False, False)
