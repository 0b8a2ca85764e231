"""Verification of a signed JSON document (CONTRACT section 4): Ed25519 over the RFC 8785 bytes of the object without
its `signature` member, `signature: { algorithm: "ed25519", key_id, signature: <base64url> }`.

Attacker assumption: the document chooses `key_id` and `algorithm` freely. The key comes only from the caller's
trusted set by exact `kid`; the algorithm is the key's (Ed25519) and the document must say so; the signature must be
strict base64url of exactly 64 bytes; an unknown member of `signature` is refused. Never raises: every failure is a
result with a stable code (the same codes as core's verifyDocument).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._b64 import encode_b64url, try_decode_b64url
from .ed25519 import ed25519_verify
from .jcs import CanonicalJsonError, canonical_bytes
from .jwks import AmbiguousKey, InvalidJwk, TrustedKeys, UnknownKey, look_up_key, parse_public_ed25519_jwk

_SIGNATURE_MEMBERS = {"algorithm", "key_id", "signature"}


@dataclass
class VerifyResult:
    valid: bool
    key_id: str | None = None
    failure: str | None = None
    algorithm: str = "ed25519"

    def __bool__(self) -> bool:
        return self.valid


def signing_bytes(doc: dict[str, Any]) -> bytes:
    """The bytes a document signature covers: JCS of `doc` without `signature`."""
    return canonical_bytes({k: v for k, v in doc.items() if k != "signature"})


def verify_document(doc: Any, trusted: TrustedKeys) -> VerifyResult:
    try:
        return _verify(doc, trusted)
    except Exception:  # noqa: BLE001 - hostile shapes end here; a refusal either way
        return VerifyResult(False, failure="malformed_signature")


def _verify(doc: Any, trusted: TrustedKeys) -> VerifyResult:
    if not isinstance(doc, dict) or "signature" not in doc:
        return VerifyResult(False, failure="missing_signature")
    signature = doc["signature"]
    if not isinstance(signature, dict):
        return VerifyResult(False, failure="malformed_signature")
    key_id = signature.get("key_id") if isinstance(signature.get("key_id"), str) else None
    if any(name not in _SIGNATURE_MEMBERS for name in signature):
        return VerifyResult(False, key_id, "malformed_signature")
    if not key_id:
        return VerifyResult(False, failure="malformed_signature")
    if not isinstance(signature.get("algorithm"), str):
        return VerifyResult(False, key_id, "malformed_signature")
    if signature["algorithm"] != "ed25519":
        return VerifyResult(False, key_id, "unsupported_algorithm")
    sig = try_decode_b64url(signature.get("signature"))
    if sig is None or len(sig) != 64:
        return VerifyResult(False, key_id, "malformed_signature")
    try:
        found = look_up_key(trusted, key_id)
    except UnknownKey:
        return VerifyResult(False, key_id, "unknown_key")
    except AmbiguousKey:
        return VerifyResult(False, key_id, "invalid_key")
    except Exception:  # noqa: BLE001
        return VerifyResult(False, key_id, "unknown_key")
    try:
        jwk = parse_public_ed25519_jwk(found)
    except InvalidJwk:
        return VerifyResult(False, key_id, "invalid_key")
    # A lookup that answers with another key's JWK is a caller bug: do not trust its answer.
    if "kid" in jwk and jwk["kid"] != key_id:
        return VerifyResult(False, key_id, "invalid_key")
    public = try_decode_b64url(jwk["x"])
    try:
        message = signing_bytes(doc)
    except CanonicalJsonError:
        return VerifyResult(False, key_id, "signature_mismatch")
    if not ed25519_verify(public, message, sig):  # type: ignore[arg-type]
        return VerifyResult(False, key_id, "signature_mismatch")
    return VerifyResult(True, key_id)


def sign_document(doc: dict[str, Any], private_key: Any, key_id: str) -> dict[str, Any]:
    """A copy of `doc` signed with an Ed25519 private key (cryptography's Ed25519PrivateKey)."""
    unsigned = {k: v for k, v in doc.items() if k != "signature"}
    sig = private_key.sign(canonical_bytes(unsigned))
    return {**unsigned, "signature": {"algorithm": "ed25519", "key_id": key_id, "signature": encode_b64url(sig)}}
