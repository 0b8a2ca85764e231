"""Strict Ed25519 verification (SECURITY.md): a 32-byte key, a 64-byte signature and S < L, checked before
cryptography's Ed25519PublicKey sees them, so signatures stay non-malleable whatever the OpenSSL build accepts."""
from __future__ import annotations

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

# The order of the Ed25519 base point (RFC 8032 section 5.1).
L = 2**252 + 27742317777372353535851937790883648493


def is_canonical_scalar(s: bytes) -> bool:
    return len(s) == 32 and int.from_bytes(s, "little") < L


def ed25519_verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """True only for a valid signature; False (never an exception) for any malformed key or signature."""
    if not isinstance(public_key, (bytes, bytearray)) or len(public_key) != 32:
        return False
    if not isinstance(signature, (bytes, bytearray)) or len(signature) != 64:
        return False
    if not is_canonical_scalar(bytes(signature[32:])):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(bytes(public_key)).verify(bytes(signature), bytes(message))
        return True
    except (InvalidSignature, ValueError):
        return False


def generate_private_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def raw_public_key(private_key: Ed25519PrivateKey) -> bytes:
    return private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
