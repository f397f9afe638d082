"""Azure Shared Key signing and SAS tokens, without a server: the string to sign as the Azure Storage
REST reference lays it out (written out by hand here), and the forms a task may give its credential in."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from mcv_pipelines.service.work.caller_storage.azure_signing import BadCredential, credential_of

KEY = base64.b64encode(b"an account key of 32 bytes......").decode()


def test_the_string_to_sign_has_sorted_ms_headers_and_lowercased_sorted_query_lines() -> None:
    credential = credential_of("media", KEY, "")
    headers = {
        "x-ms-version": "2023-11-03",
        "x-ms-date": "Fri, 27 Nov 2026 16:00:00 GMT",
        "Content-Length": "0",
        "x-ms-meta-Origin": "mcv",
        "Range": "bytes=5-",
    }
    query = [("restype", "container"), ("comp", "list"), ("prefix", "in/a b")]
    signed = (
        "GET\n\n\n"  # verb, Content-Encoding, Content-Language
        "\n"  # Content-Length: 0 signs as empty
        "\n\n\n\n\n\n\n"  # the seven headers from Content-MD5 to If-Unmodified-Since
        "bytes=5-\n"
        "x-ms-date:Fri, 27 Nov 2026 16:00:00 GMT\nx-ms-meta-origin:mcv\nx-ms-version:2023-11-03\n"
        "/media/box\ncomp:list\nprefix:in/a b\nrestype:container"
    )
    digest = hmac.new(base64.b64decode(KEY), signed.encode(), hashlib.sha256).digest()
    expected = f"SharedKey media:{base64.b64encode(digest).decode()}"
    assert credential.authorization("GET", "/box", query, headers) == expected
    assert credential.query(query) == "restype=container&comp=list&prefix=in%2Fa%20b"


def test_a_sas_token_is_sent_as_given_with_or_without_its_question_mark() -> None:
    token = "sv=2023-11-03&sr=c&sp=rl&se=2030-01-01T00%3A00%3A00Z&sig=ab%2Bcd%2F%3D"
    for given in (token, "?" + token, f"  ?{token}\n"):
        credential = credential_of("media", "", given)
        assert credential.authorization("GET", "/box", [], {}) is None  # the query carries it
        assert credential.query([("comp", "list")]) == f"comp=list&{token}"


def test_a_key_that_is_not_base64_is_refused_without_being_shown() -> None:
    with pytest.raises(BadCredential) as raised:
        credential_of("media", "not base64 at all!", "")
    assert "not base64 at all" not in str(raised.value)
    assert "storage_access_key" in str(raised.value)
