"""Receiver-side verification of webhook deliveries in the three profiles of CONTRACT section 9, after core's
webhooks/verify-webhook-delivery.ts, with the same failure codes:

- `shared_secret`: Standard Webhooks v1, HMAC-SHA256 over `{id}.{timestamp}.{body}` keyed with the decoded `whsec_`
  secret, compared in constant time (hmac.compare_digest); with `trusted_keys`, the envelope's own signature too;
- `asymmetric`: `v1a,<Ed25519>` with the service key the signed envelope names, and the envelope's signature;
- `cose`: a tagged COSE_Sign1 (alg -8 and kid protected) whose payload is the signed envelope, plus `v1a`.

Attacker assumption: headers and body are anyone's. Only the caller's secrets and trusted keys (the service's JWKS)
count; a key id that is not `ns:key:<name>` is never looked up. Order: headers, signatures, envelope, time, replay,
so `timestamp_stale`, `timestamp_in_future` and `replayed` always mean "authentic, but refused", and `seen_before`
is called only for authentic, fresh ids (it may record them atomically).
"""
from __future__ import annotations

import hashlib
import hmac
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ._b64 import try_decode_b64, try_decode_b64url
from .cose import CoseError, decode_cose_sign1, read_key_id, verify_cose_signature
from .ed25519 import ed25519_verify
from .jcs import parse_json
from .jwks import AmbiguousKey, InvalidJwk, TrustedKeys, UnknownKey, look_up_key, parse_public_ed25519_jwk
from .signed_document import verify_document

PROFILES = ("shared_secret", "asymmetric", "cose")
TOLERANCE_SECONDS = 300
MAX_SIGNATURES = 8
_WEBHOOK_ID = re.compile(r"[A-Za-z0-9:_-]{1,256}")
_TIMESTAMP = re.compile(r"0|[1-9][0-9]{0,14}")
_ENTRY = re.compile(r"([a-z0-9]{1,16}),([\x21-\x7e]{1,512})")
_SERVICE_KEY_ID = re.compile(r"ns:key:[A-Za-z0-9._-]{1,128}")
_LENGTHS = {"v1": 32, "v1a": 64}


@dataclass
class WebhookVerification:
    valid: bool
    code: str | None = None
    detail: str | None = None
    webhook_id: str | None = None
    timestamp: int | None = None
    key_id: str | None = None
    envelope: dict[str, Any] | None = field(default=None, repr=False)

    def __bool__(self) -> bool:
        return self.valid


class _Refused(Exception):
    def __init__(self, code: str, detail: str | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.detail = detail


def parse_webhook_secret(secret: str) -> bytes:
    """The HMAC key of a `whsec_` secret (24-64 bytes of strict base64); ValueError otherwise (never echoes it)."""
    if not isinstance(secret, str) or not secret.startswith("whsec_"):
        raise ValueError("a webhook secret must start with `whsec_`")
    key = try_decode_b64(secret[len("whsec_"):])
    if key is None or not 24 <= len(key) <= 64:
        raise ValueError("a webhook secret must be `whsec_` and the base64 of 24 to 64 bytes")
    return key


def signed_content(webhook_id: str, timestamp: int, body: bytes) -> bytes:
    return f"{webhook_id}.{timestamp}.".encode("ascii") + body


def _lines(headers: Mapping[str, Any], name: str) -> list[str] | None:
    found: list[str] = []
    present = False
    for key, value in headers.items():
        if key.lower() != name:
            continue
        present = True
        found.extend(str(v) for v in value) if isinstance(value, (list, tuple)) else found.append(str(value))
    return found if present else None


def _single(headers: Mapping[str, Any], name: str) -> str | None | bool:
    lines = _lines(headers, name)
    if lines is None:
        return None
    return lines[0] if len(lines) == 1 else False


def _parse_signatures(lines: list[str]) -> list[tuple[str, bytes]] | None:
    tokens = [t for line in lines for t in line.split(" ") if t]
    if not tokens or len(tokens) > MAX_SIGNATURES:
        return None
    entries = []
    for token in tokens:
        m = _ENTRY.fullmatch(token)
        if m is None:
            return None
        version = m.group(1)
        if version not in _LENGTHS:
            continue
        sig = try_decode_b64(m.group(2))
        if sig is None or len(sig) != _LENGTHS[version]:
            return None
        entries.append((version, sig))
    return entries


def _read_headers(headers: Mapping[str, Any]) -> tuple[str, int, list[tuple[str, bytes]], str | None]:
    wid = _single(headers, "webhook-id")
    if wid is None:
        raise _Refused("missing_header", "webhook-id")
    if wid is False or not _WEBHOOK_ID.fullmatch(wid):  # type: ignore[arg-type]
        raise _Refused("malformed_header", "webhook-id")
    ts = _single(headers, "webhook-timestamp")
    if ts is None:
        raise _Refused("missing_header", "webhook-timestamp")
    if ts is False or not _TIMESTAMP.fullmatch(ts):  # type: ignore[arg-type]
        raise _Refused("malformed_header", "webhook-timestamp")
    sig_lines = _lines(headers, "webhook-signature")
    if sig_lines is None:
        raise _Refused("missing_header", "webhook-signature")
    sigs = _parse_signatures(sig_lines)
    if sigs is None:
        raise _Refused("malformed_header", "webhook-signature")
    hint = _single(headers, "webhook-key-id")
    if hint is False or hint == "":
        raise _Refused("malformed_header", "webhook-key-id")
    return wid, int(ts), sigs, hint  # type: ignore[return-value]


def _envelope(body: bytes) -> dict[str, Any]:
    try:
        value = parse_json(body)
    except Exception as error:  # noqa: BLE001
        raise _Refused("envelope_invalid", "not strict json") from error
    if not isinstance(value, dict):
        raise _Refused("envelope_invalid", "not a json object")
    return value


def _envelope_key_id(envelope: dict[str, Any]) -> str | None:
    signature = envelope.get("signature")
    key_id = signature.get("key_id") if isinstance(signature, dict) else None
    return key_id if isinstance(key_id, str) else None


def _trusted_key(trusted: TrustedKeys, hint: str | None, key_id: str) -> tuple[dict[str, str], bytes]:
    if hint is not None and hint != key_id:
        raise _Refused("key_id_mismatch", "webhook-key-id names another key than the signed body")
    if not _SERVICE_KEY_ID.fullmatch(key_id):
        raise _Refused("invalid_key_id", "not of the form `ns:key:<name>`")
    try:
        jwk = parse_public_ed25519_jwk(look_up_key(trusted, key_id))
    except UnknownKey as error:
        raise _Refused("unknown_key") from error
    except (AmbiguousKey, InvalidJwk) as error:
        raise _Refused("invalid_key") from error
    if jwk.get("kid", key_id) != key_id:
        raise _Refused("invalid_key")
    return jwk, try_decode_b64url(jwk["x"])  # type: ignore[return-value]


def _check_document(envelope: dict[str, Any], key_id: str, jwk: dict[str, str]) -> None:
    result = verify_document(envelope, lambda kid: jwk if kid == key_id else None)
    if not result.valid:
        raise _Refused("document_signature_invalid", result.failure)


def _any_ed25519(public_key: bytes, content: bytes, sigs: list[bytes]) -> bool:
    return any(ed25519_verify(public_key, content, s) for s in sigs)


def verify_webhook_delivery(*, profile: str, headers: Mapping[str, Any], body: bytes, now: int | None = None,
                            secrets: list[str] | None = None, trusted_keys: TrustedKeys | None = None,
                            tolerance_seconds: int = TOLERANCE_SECONDS,
                            seen_before: Callable[[str], bool] | None = None) -> WebhookVerification:
    """Verifies one delivery; `body` must be the exact bytes received and `now` the receiver's unix seconds
    (omitted: the system clock). Raises ValueError only for bad options (an unknown profile, no secret, no trusted
    keys)."""
    if now is None:
        now = int(time.time())
    if profile not in PROFILES:
        raise ValueError(f"unknown webhook profile `{profile}`")
    if not isinstance(body, (bytes, bytearray)):
        raise ValueError("the body must be the bytes received")
    body = bytes(body)
    keys: list[bytes] = []
    if profile == "shared_secret":
        if not secrets or len(secrets) > 8:
            raise ValueError("shared_secret needs one to eight `whsec_` secrets")
        keys = [parse_webhook_secret(s) for s in secrets]
    elif trusted_keys is None:
        raise ValueError(f"{profile} needs trusted_keys (the service's JWKS)")
    try:
        wid, ts, sigs, hint = _read_headers(headers)
    except _Refused as refused:
        return WebhookVerification(False, refused.code, refused.detail)
    content = signed_content(wid, ts, body)
    key_id: str | None = None
    try:
        if profile == "shared_secret":
            macs = [s for v, s in sigs if v == "v1"]
            if not macs:
                raise _Refused("signature_missing", "no v1 signature")
            matched = False
            for key in keys:
                expected = hmac.new(key, content, hashlib.sha256).digest()
                for mac in macs:
                    matched |= hmac.compare_digest(expected, mac)
            if not matched:
                raise _Refused("signature_invalid", "no v1 signature matches a configured secret")
            envelope = _envelope(body)
            if trusted_keys is not None:
                key_id = _envelope_key_id(envelope)
                if key_id is None:
                    raise _Refused("document_signature_invalid", "missing_signature")
                jwk, _ = _trusted_key(trusted_keys, hint, key_id)
                _check_document(envelope, key_id, jwk)
        elif profile == "asymmetric":
            ed = [s for v, s in sigs if v == "v1a"]
            if not ed:
                raise _Refused("signature_missing", "no v1a signature")
            envelope = _envelope(body)
            key_id = _envelope_key_id(envelope)
            if key_id is None:
                raise _Refused("document_signature_invalid", "missing_signature")
            jwk, public = _trusted_key(trusted_keys, hint, key_id)
            if not _any_ed25519(public, content, ed):
                raise _Refused("signature_invalid", "no v1a signature verifies with the named key")
            _check_document(envelope, key_id, jwk)
        else:
            ed = [s for v, s in sigs if v == "v1a"]
            if not ed:
                raise _Refused("signature_missing", "no v1a signature")
            try:
                message = decode_cose_sign1(body)
                key_id = read_key_id(message, require_protected_kid=True)
            except CoseError as error:
                raise _Refused(error.code, error.detail) from error
            jwk, public = _trusted_key(trusted_keys, hint, key_id)
            if not _any_ed25519(public, content, ed):
                raise _Refused("signature_invalid", "no v1a signature verifies with the kid key")
            if not verify_cose_signature(message, public):
                raise _Refused("cose_signature_invalid")
            envelope = _envelope(message.payload)
            if _envelope_key_id(envelope) != key_id:
                raise _Refused("key_id_mismatch", "the envelope is not signed by the kid key")
            _check_document(envelope, key_id, jwk)
    except _Refused as refused:
        return WebhookVerification(False, refused.code, refused.detail, wid, ts)
    facts = {"webhook_id": wid, "timestamp": ts, "key_id": key_id}
    if envelope.get("schema_version") != "ns.webhook.v1":
        return WebhookVerification(False, "envelope_invalid", "schema_version is not ns.webhook.v1", **facts)
    if envelope.get("event_id") != wid:
        return WebhookVerification(False, "envelope_id_mismatch", "event_id is not webhook-id", **facts)
    if now - ts > tolerance_seconds:
        return WebhookVerification(False, "timestamp_stale", **facts)
    if ts - now > tolerance_seconds:
        return WebhookVerification(False, "timestamp_in_future", **facts)
    if seen_before is not None and seen_before(wid):
        return WebhookVerification(False, "replayed", **facts)
    return WebhookVerification(True, **facts, envelope=envelope)
