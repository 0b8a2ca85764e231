"""The shared pieces of AP2 mandate verification: limits, the refusal and result shapes, the digest of a stored
document (DESIGN-29 decision 5), base64url JSON and the '~~' split of a presentation into hops."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from .._b64 import encode_b64url, try_decode_b64url
from ..jcs import canonical_bytes, parse_json

MAX_BYTES = 65536
MAX_DEPTH = 16
MAX_HOPS = 8
KB_TYP = "kb+sd-jwt"
#: key-binding hop types: `kb+sd-jwt+kb` is an intermediate hop as the AP2 reference SDK types it
KB_TYPS = (KB_TYP, "kb+sd-jwt+kb")
_ELLIPSIS = "..."

def mandate_digest(document: str) -> str:
    """base64url (no padding) of SHA-256 of the UTF-8 bytes of a stored mandate document (DESIGN-29 decision 5)."""
    return encode_b64url(hashlib.sha256(document.encode("utf-8")).digest())


def allowance_digest(allowance: Any) -> str:
    """The digest of an ACP allowance object: over its RFC 8785 canonical JSON."""
    return encode_b64url(hashlib.sha256(canonical_bytes(allowance)).digest())


@dataclass
class Ap2Hop:
    index: int
    typ: str
    alg: str
    payload: dict[str, Any]
    #: the disclosed `delegate_payload` items (undisclosed ones dropped, `_sd` resolved)
    mandates: list[Any]
    text: str


@dataclass
class Ap2Verification:
    digest: str
    hops: list[Ap2Hop] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def __bool__(self) -> bool:
        return self.ok

    def codes(self) -> list[str]:
        return [e["code"] for e in self.errors]


class _Refused(Exception):
    def __init__(self, path: str, code: str, detail: str) -> None:
        super().__init__(detail)
        self.error = {"path": path, "code": code, "detail": detail}


def _b64json(text: str, path: str, what: str, code: str = "schema_invalid") -> Any:
    raw = try_decode_b64url(text) if text else None
    if raw is None:
        raise _Refused(path, code, f"{what} is not unpadded base64url")
    try:
        return parse_json(raw)
    except Exception as exc:  # noqa: BLE001 - bad UTF-8, bad JSON, duplicate member
        raise _Refused(path, code, f"{what} is not JSON: {exc}") from None


def split_hops(presentation: str) -> list[str]:
    """Each hop's text, with its trailing '~' (the bytes the next hop's `sd_hash` covers)."""
    parts = presentation.split("~~")
    return [p + "~" for p in parts[:-1]] + [parts[-1]]
