"""The agent's RFC 9421 request signer (CONTRACT section 7): Ed25519 over `@method`, `@target-uri` and
`content-digest` (RFC 9530, sha-256), parameters `created`, `nonce`, `keyid`, `alg="ed25519"`, label `sig1`. Written
by hand after core's http-signatures/ (no RFC 9421 library in the standard library or the allowed dependencies).

INVARIANT: `body` must be the exact bytes sent; re-serialising JSON afterwards breaks the digest. `@target-uri` must
be the URL the service is configured to answer under (AAR_PUBLIC_URL + path): a signature for another deployment
never verifies there. URL values are normalised as the WHATWG URL serialiser does for ordinary URLs (lowercase
scheme and host, default port dropped, empty path `/`); a URL with userinfo is refused.
"""
from __future__ import annotations

import hashlib
import re
import secrets
import time
from typing import Any, Callable, Iterable, Mapping
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ._b64 import encode_b64, encode_b64url, try_decode_b64url

AGENT_REQUEST_COMPONENTS = ("@method", "@target-uri", "content-digest")
DEFAULT_LABEL = "sig1"
_FIELD_NAME = re.compile(r"[a-z0-9!#$%&'*+\-.^_`|~]+")
_METHOD = re.compile(r"[A-Za-z0-9!#$%&'*+\-.^_`|~]+")
_SAFE_VALUE = re.compile(r"[\t\x20-\x7e]*")
_KEY = re.compile(r"[a-z*][a-z0-9_\-.*]*")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_NORMALIZED_METHODS = {"DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"}


class SignatureError(ValueError):
    pass


def content_digest(body: bytes | str) -> str:
    data = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    return f"sha-256=:{encode_b64(hashlib.sha256(data).digest())}:"


def _serialize_string(value: str) -> str:
    out = ['"']
    for ch in value:
        if not 0x20 <= ord(ch) <= 0x7E:
            raise SignatureError("a structured field string holds only printable ascii")
        out.append("\\" + ch if ch in '"\\' else ch)
    out.append('"')
    return "".join(out)


def _target(url: str) -> dict[str, str]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise SignatureError("the url must be absolute http or https")
    if parts.username is not None or parts.password is not None:
        raise SignatureError("a target uri carries no userinfo")
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    authority = host if parts.port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{parts.port}"
    path = parts.path or "/"
    query = parts.query
    href = f"{scheme}://{authority}{path}" + (f"?{query}" if query or url.split("#")[0].endswith("?") else "")
    return {"@target-uri": href, "@authority": authority, "@scheme": scheme, "@path": path, "@query": f"?{query}"}


def _header_lines(headers: Mapping[str, Any] | None, name: str) -> list[str] | None:
    if headers is None:
        return None
    found: list[str] = []
    present = False
    for key, value in headers.items():
        if key.lower() != name:
            continue
        present = True
        found.extend(str(v) for v in value) if isinstance(value, (list, tuple)) else found.append(str(value))
    return found if present else None


def _component_value(name: str, method: str, url: str, headers: Mapping[str, Any] | None) -> str:
    if name == "@method":
        if not _METHOD.fullmatch(method):
            raise SignatureError("invalid method")
        return method
    if name.startswith("@"):
        values = _target(url)
        if name not in values:
            raise SignatureError(f"component `{name}` is not supported")
        return values[name]
    if not _FIELD_NAME.fullmatch(name):
        raise SignatureError(f"component `{name}` is not supported")
    lines = _header_lines(headers, name)
    if lines is None:
        raise SignatureError(f"component `{name}` is absent")
    value = ", ".join(re.sub(r"\r\n[ \t]+", " ", line).strip(" \t") for line in lines)
    if not _SAFE_VALUE.fullmatch(value):
        raise SignatureError(f"component `{name}` has a value that cannot be signed")
    return value


def serialize_signature_params(components: Iterable[str], params: list[tuple[str, Any]]) -> str:
    out = "(" + " ".join(_serialize_string(c) for c in components) + ")"
    for key, value in params:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise SignatureError(f"`{key}` is not a signature parameter of the expected type")
        out += f";{key}=" + (str(value) if isinstance(value, int) else _serialize_string(value))
    return out


def signature_base(components: Iterable[str], method: str, url: str, headers: Mapping[str, Any] | None,
                   params: list[tuple[str, Any]]) -> str:
    """The RFC 9421 section 2.5 signature base; raises SignatureError for a component it cannot produce."""
    components = list(components)
    if len(set(components)) != len(components):
        raise SignatureError("a component is repeated")
    lines = [f"{_serialize_string(c)}: {_component_value(c, method, url, headers)}" for c in components]
    lines.append(f'"@signature-params": {serialize_signature_params(components, params)}')
    return "\n".join(lines)


def sign_request(*, method: str, url: str, body: bytes | str, private_key: Ed25519PrivateKey, key_id: str,
                 created: int, nonce: str, headers: Mapping[str, Any] | None = None,
                 components: Iterable[str] = AGENT_REQUEST_COMPONENTS, label: str = DEFAULT_LABEL) -> dict[str, str]:
    """The `content-digest`, `signature-input` and `signature` headers to send with the request."""
    if not key_id:
        raise SignatureError("a key id is required")
    if not nonce:
        raise SignatureError("a nonce is required")
    if not _KEY.fullmatch(label):
        raise SignatureError("the label is not a structured field key")
    if isinstance(created, bool) or not isinstance(created, int) or created < 0:
        raise SignatureError("`created` must be unix seconds")
    digest = content_digest(body)
    signed_headers = {k.lower(): v for k, v in (headers or {}).items() if k.lower() != "content-digest"}
    signed_headers["content-digest"] = digest
    params: list[tuple[str, Any]] = [("created", created), ("nonce", nonce), ("keyid", key_id), ("alg", "ed25519")]
    components = list(components)
    base = signature_base(components, method, url, signed_headers, params)
    signature = private_key.sign(base.encode("ascii"))
    return {
        "content-digest": digest,
        "signature-input": f"{label}={serialize_signature_params(components, params)}",
        "signature": f"{label}=:{encode_b64(signature)}:",
    }


def private_key_from_jwk(jwk: Mapping[str, Any]) -> Ed25519PrivateKey:
    """An Ed25519 private key from a private JWK (RFC 8037); checks `d` and that `x` is its public key."""
    if jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
        raise SignatureError("the private jwk must be `OKP` / `Ed25519`")
    d, x = try_decode_b64url(jwk.get("d")), try_decode_b64url(jwk.get("x"))
    if d is None or len(d) != 32:
        raise SignatureError("the private jwk needs `d`: base64url of 32 bytes")
    key = Ed25519PrivateKey.from_private_bytes(d)
    from .ed25519 import raw_public_key
    if x is not None and x != raw_public_key(key):
        raise SignatureError("the private jwk's `x` is not the public key of `d`")
    return key


def public_jwk(private_key: Ed25519PrivateKey) -> dict[str, str]:
    from .ed25519 import raw_public_key
    return {"kty": "OKP", "crv": "Ed25519", "x": encode_b64url(raw_public_key(private_key))}


class RequestSigner:
    """Signs agent requests with the clock and a fresh 128-bit nonce: `signer.sign("POST", url, body)`."""

    def __init__(self, key_id: str, private_key: Ed25519PrivateKey | Mapping[str, Any], *,
                 now: Callable[[], float] = time.time, components: Iterable[str] = AGENT_REQUEST_COMPONENTS) -> None:
        if not key_id:
            raise SignatureError("a key id is required")
        self.key_id = key_id
        self._key = private_key if isinstance(private_key, Ed25519PrivateKey) else private_key_from_jwk(private_key)
        self._now = now
        self._components = tuple(components)

    def sign(self, method: str, url: str, body: bytes | str = b"", headers: Mapping[str, Any] | None = None) -> dict[str, str]:
        upper = method.upper()
        return sign_request(method=upper if upper in _NORMALIZED_METHODS else method, url=url, body=body,
                            private_key=self._key, key_id=self.key_id, created=int(self._now()),
                            nonce=encode_b64url(secrets.token_bytes(16)), headers=headers, components=self._components)
