"""Strict base64 codecs: exactly one spelling per byte string is accepted (no whitespace, exact padding for standard
base64, none for base64url, zero pad bits), as core's encoding/ modules do. A second spelling of one signature or
hash would let an attacker vary bytes that are supposed to be fixed."""
from __future__ import annotations

import base64
import re

_URL = re.compile(r"[A-Za-z0-9_-]*")
_STD = re.compile(r"[A-Za-z0-9+/]*")


def encode_b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def encode_b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _decode_digits(digits: str, url: bool) -> bytes | None:
    if len(digits) % 4 == 1:
        return None
    if not (_URL if url else _STD).fullmatch(digits):
        return None
    padded = digits + "=" * ((4 - len(digits) % 4) % 4)
    try:
        data = (base64.urlsafe_b64decode if url else base64.b64decode)(padded.encode("ascii"))
    except (ValueError, TypeError):
        return None
    # Canonical only: non-zero pad bits would give a second spelling of the same bytes.
    again = encode_b64url(data) if url else encode_b64(data).rstrip("=")
    return data if again == digits else None


def try_decode_b64url(text: object) -> bytes | None:
    """Bytes of unpadded base64url text, or None for anything else."""
    if not isinstance(text, str):
        return None
    return _decode_digits(text, url=True)


def try_decode_b64(text: object) -> bytes | None:
    """Bytes of canonical padded standard base64, or None for anything else."""
    if not isinstance(text, str) or len(text) % 4 != 0:
        return None
    digits = text.rstrip("=")
    if len(text) - len(digits) > 2 or (4 - len(digits) % 4) % 4 != len(text) - len(digits):
        return None
    return _decode_digits(digits, url=False)
