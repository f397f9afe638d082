"""The service account's grant for Google Cloud Storage: the keys a caller may send, and the JWT they sign."""

from __future__ import annotations

import base64
import json

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

from mcv_pipelines.service.work.caller_storage.gcs_auth import SCOPE, assertion, private_key_of


@pytest.fixture(scope="module")
def key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(65537, 2048)


def pem(key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey, form: serialization.PrivateFormat) -> str:
    return key.private_bytes(serialization.Encoding.PEM, form, serialization.NoEncryption()).decode()


def same(a: rsa.RSAPrivateKey, b: rsa.RSAPrivateKey) -> bool:
    return a.private_numbers() == b.private_numbers()


def test_the_key_of_a_json_key_file_is_read_as_written_or_with_escaped_line_breaks(
    key: rsa.RSAPrivateKey,
) -> None:
    text = pem(key, serialization.PrivateFormat.PKCS8)
    assert same(private_key_of(text), key)
    escaped = text.replace("\n", "\\n")  # how some SDKs and environment variables carry it
    assert "\n" not in escaped
    assert same(private_key_of(escaped), key)
    assert same(private_key_of(pem(key, serialization.PrivateFormat.TraditionalOpenSSL)), key)  # PKCS#1


def test_a_key_that_is_not_an_rsa_pem_is_refused_without_being_quoted() -> None:
    canary = "canary" + "A" * 40
    with pytest.raises(ValueError, match="not a PEM private key") as garbage:
        private_key_of(f"-----BEGIN PRIVATE KEY-----\n{canary}\n-----END PRIVATE KEY-----\n")
    assert canary not in str(garbage.value)
    other = ec.generate_private_key(ec.SECP256R1())
    with pytest.raises(ValueError, match="not an RSA key"):
        private_key_of(pem(other, serialization.PrivateFormat.PKCS8))


def test_the_grant_is_an_rs256_jwt_of_the_account_for_the_storage_scope(key: rsa.RSAPrivateKey) -> None:
    jwt = assertion("svc@p.iam.gserviceaccount.com", key, "https://oauth2.example/token", now=1_800_000_000.7)
    parts = jwt.split(".")
    assert len(parts) == 3
    assert all("=" not in part for part in parts)  # base64url without padding

    def decoded(part: str) -> bytes:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))

    assert json.loads(decoded(parts[0])) == {"alg": "RS256", "typ": "JWT"}
    assert json.loads(decoded(parts[1])) == {
        "iss": "svc@p.iam.gserviceaccount.com",
        "scope": SCOPE,
        "aud": "https://oauth2.example/token",
        "iat": 1_800_000_000,
        "exp": 1_800_003_600,
    }
    signed = f"{parts[0]}.{parts[1]}".encode()
    key.public_key().verify(decoded(parts[2]), signed, padding.PKCS1v15(), hashes.SHA256())  # raises if not
