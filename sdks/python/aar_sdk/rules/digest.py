"""The digest of a published policy document (rule pack, dictionary, sector pack): `sha-256:` + base64url (no padding)
of SHA-256 over the RFC 8785 bytes of the document without `signature`, the bytes its signature covers (core's
rules/document-digest.ts `policyDocumentDigest`)."""
from __future__ import annotations

import hashlib
from typing import Any

from .._b64 import encode_b64url
from ..signed_document import signing_bytes


def policy_document_digest(doc: dict[str, Any]) -> str:
    """Raises CanonicalJsonError when `doc` has no RFC 8785 form."""
    return "sha-256:" + encode_b64url(hashlib.sha256(signing_bytes(doc)).digest())
