"""COSE_Sign1 (RFC 9052) with EdDSA / Ed25519, strict, on cbor2: the body of the `cose` webhook profile
(CONTRACT section 9). Written by hand (cbor2 has no COSE), after core's webhooks/decode-cose-sign1.ts.

Strictness without a strict decoder: after decoding, the value is re-encoded with cbor2's preferred (shortest)
encodings in the order received and must give back exactly the bytes received. That refuses indefinite lengths,
non-preferred integers and lengths, duplicate map keys (a dict keeps one) and trailing bytes. Only int, text, bytes,
arrays, maps, true, false and null are accepted inside; the one tag is the outer 18.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cbor2

from .ed25519 import ed25519_verify

COSE_SIGN1_TAG = 18
COSE_ALG_EDDSA = -8
LABEL_ALG, LABEL_CRIT, LABEL_KID = 1, 2, 4


class CoseError(ValueError):
    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


@dataclass
class CoseSign1:
    protected_bytes: bytes
    protected: dict[Any, Any]
    unprotected: dict[Any, Any]
    payload: bytes
    signature: bytes


def _plain(value: Any, depth: int = 0) -> bool:
    if depth > 16:
        return False
    if value is None or isinstance(value, (bool, int, str, bytes)):
        return not isinstance(value, float)
    if isinstance(value, list):
        return all(_plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    return False


def _strict_loads(data: bytes) -> Any:
    if not data:
        raise CoseError("cose_malformed", "no cbor item")
    try:
        value = cbor2.loads(data)
        again = cbor2.dumps(value)
    except Exception as error:  # noqa: BLE001
        raise CoseError("cose_malformed", str(error)[:120]) from error
    if again != data:
        raise CoseError("cose_malformed", "not one item in preferred, definite-length encoding without duplicates")
    return value


def _header_map(value: Any) -> dict[Any, Any] | None:
    if not isinstance(value, dict):
        return None
    for label in value:
        if isinstance(label, bool) or not isinstance(label, (int, str)):
            return None
    return value


def decode_cose_sign1(data: bytes) -> CoseSign1:
    """The four parts of a tagged COSE_Sign1; raises CoseError with core's failure codes."""
    outer = _strict_loads(data)
    if not isinstance(outer, cbor2.CBORTag):
        raise CoseError("cose_wrong_tag", "not a tagged cose message")
    if outer.tag != COSE_SIGN1_TAG:
        raise CoseError("cose_wrong_tag", f"tag `{outer.tag}`")
    parts = outer.value
    if not isinstance(parts, list) or len(parts) != 4:
        raise CoseError("cose_malformed", "cose_sign1 is an array of 4")
    if not _plain(parts):
        raise CoseError("cose_malformed", "only plain cbor items are accepted")
    protected_bytes, unprotected, payload, signature = parts
    if not isinstance(protected_bytes, bytes):
        raise CoseError("cose_malformed", "the protected bucket is not a bstr")
    if payload is None:
        raise CoseError("cose_detached_payload", "the payload is detached")
    if not isinstance(payload, bytes):
        raise CoseError("cose_malformed", "the payload is not a bstr")
    if not isinstance(signature, bytes):
        raise CoseError("cose_malformed", "the signature is not a bstr")
    unprotected_map = _header_map(unprotected)
    if unprotected_map is None:
        raise CoseError("cose_malformed", "the unprotected bucket is not a header map")
    protected_map: dict[Any, Any] = {}
    if protected_bytes:
        inner = _strict_loads(protected_bytes)
        if not _plain(inner) or _header_map(inner) is None:
            raise CoseError("cose_malformed", "the protected bucket is not a header map")
        protected_map = inner
    for label in unprotected_map:
        if label in protected_map:
            raise CoseError("cose_duplicate_label", f"label `{label}` in both buckets")
    return CoseSign1(protected_bytes, protected_map, unprotected_map, payload, signature)


def read_key_id(message: CoseSign1, *, require_protected_kid: bool = True) -> str:
    """The `kid` after the algorithm rules: alg EdDSA (-8) in the protected bucket only, no `crit`."""
    if LABEL_ALG in message.unprotected:
        raise CoseError("cose_alg_not_protected", "alg is in the unprotected bucket")
    if LABEL_ALG not in message.protected:
        raise CoseError("cose_alg_not_protected", "no alg in the protected bucket")
    alg = message.protected[LABEL_ALG]
    if alg != COSE_ALG_EDDSA or isinstance(alg, bool):
        raise CoseError("cose_unsupported_alg", f"alg `{str(alg)[:32]}` is not -8")
    if LABEL_CRIT in message.protected or LABEL_CRIT in message.unprotected:
        raise CoseError("cose_crit_unsupported", "crit names parameters this verifier does not understand")
    protected = LABEL_KID in message.protected
    kid = message.protected.get(LABEL_KID) if protected else message.unprotected.get(LABEL_KID)
    if kid is None:
        raise CoseError("cose_missing_kid", "no kid")
    if not protected and require_protected_kid:
        raise CoseError("cose_kid_not_protected", "kid is in the unprotected bucket")
    if not isinstance(kid, bytes) or not 0 < len(kid) <= 256:
        raise CoseError("cose_malformed", "bad kid")
    try:
        return kid.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CoseError("cose_malformed", "kid is not utf-8") from error


def sig_structure(protected_bytes: bytes, payload: bytes, external_aad: bytes = b"") -> bytes:
    return cbor2.dumps(["Signature1", protected_bytes, external_aad, payload])


def verify_cose_signature(message: CoseSign1, public_key: bytes, external_aad: bytes = b"") -> bool:
    return ed25519_verify(public_key, sig_structure(message.protected_bytes, message.payload, external_aad),
                          message.signature)
