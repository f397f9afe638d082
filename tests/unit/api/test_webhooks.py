"""Webhook signatures are checked on the raw bytes, under either header name."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from mcv_pipelines.api.webhooks import sign, signature_from_headers, verify

SECRET = "whsec-signing-secret"
BODY = b'{"event":"job.finished","job":{"id":"j1","status":"finished"}}'


def test_sign_is_lowercase_hex_hmac_sha256() -> None:
    expected = hmac.new(SECRET.encode(), BODY, hashlib.sha256).hexdigest()
    assert sign(BODY, SECRET) == expected
    assert sign(BODY, SECRET) == sign(BODY, SECRET).lower()


def test_verify_accepts_the_right_signature_in_either_case() -> None:
    assert verify(BODY, sign(BODY, SECRET), SECRET)
    assert verify(BODY, sign(BODY, SECRET).upper(), SECRET)


def test_tampered_body_is_rejected() -> None:
    signature = sign(BODY, SECRET)
    assert not verify(BODY.replace(b"finished", b"failed\x20\x20"), signature, SECRET)


def test_reserialised_json_is_not_the_signed_body() -> None:
    signature = sign(BODY, SECRET)
    reserialised = json.dumps(json.loads(BODY), indent=1).encode()
    assert not verify(reserialised, signature, SECRET)


@pytest.mark.parametrize("bad", ["", None, "zz", "0" * 64])
def test_wrong_or_missing_signature_is_rejected(bad: str | None) -> None:
    assert not verify(BODY, bad, SECRET)
    assert not verify(BODY, sign(BODY, "other-secret"), SECRET)


@pytest.mark.parametrize("name", ["Service-Signature", "CloudConvert-Signature", "cloudconvert-signature"])
def test_signature_from_either_header(name: str) -> None:
    assert signature_from_headers({name: "abc", "Content-Type": "application/json"}) == "abc"


def test_no_signature_header() -> None:
    assert signature_from_headers({"Content-Type": "application/json"}) is None
