"""Ed25519 public JWKs (RFC 8037) and the issuer's JWKS (CONTRACT section 4).

Attacker assumption: a JWK or a whole JWKS may come from the network. Keys are looked up only by exact `kid` in the
set the caller trusts; `jku`, `x5u` and embedded keys are never followed; a private key is refused outright.
`JwksSource` fetches the JWKS once from the URL the caller named (a JWKS URL, or an issuer URL whose JWKS is
`{issuer}/.well-known/jwks.json`: `resolve_jwks_url`) and caches it; a redirect is an error, never followed; an
unknown `kid` never triggers a refetch (a forged key id must not make the verifier go fetch keys on an attacker's
schedule) unless `refresh()` is called.
"""
from __future__ import annotations

import hashlib
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Mapping

from ._b64 import encode_b64url, try_decode_b64url
from .jcs import canonical_bytes, parse_json

_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})", re.ASCII)
_OPTIONAL = ("kid", "alg", "use", "valid_from", "valid_until")


class InvalidJwk(ValueError):
    pass


def parse_public_ed25519_jwk(value: Any) -> dict[str, str]:
    """The known members of an Ed25519 public JWK; raises InvalidJwk naming the member otherwise."""
    if not isinstance(value, dict):
        raise InvalidJwk("must be a jwk object")
    if "d" in value:
        raise InvalidJwk("/d: private keys are refused")
    if value.get("kty") != "OKP":
        raise InvalidJwk("/kty: must be `OKP`")
    if value.get("crv") != "Ed25519":
        raise InvalidJwk("/crv: must be `Ed25519`")
    x = try_decode_b64url(value.get("x"))
    if x is None or len(x) != 32:
        raise InvalidJwk("/x: must be the base64url of 32 bytes")
    out = {"kty": "OKP", "crv": "Ed25519", "x": value["x"]}
    for name in _OPTIONAL:
        if name not in value:
            continue
        member = value[name]
        if not isinstance(member, str) or not 0 < len(member) <= 256:
            raise InvalidJwk(f"/{name}: must be a non-empty string")
        out[name] = member
    if "alg" in out and out["alg"] not in ("EdDSA", "Ed25519"):
        raise InvalidJwk("/alg: must be `EdDSA` or `Ed25519`")
    if "use" in out and out["use"] != "sig":
        raise InvalidJwk("/use: must be `sig`")
    for name in ("valid_from", "valid_until"):
        if name in out and not _RFC3339.fullmatch(out[name]):
            raise InvalidJwk(f"/{name}: must be an rfc 3339 timestamp")
    return out


def jwk_thumbprint(jwk: Mapping[str, Any]) -> str:
    """RFC 7638 thumbprint: base64url SHA-256 of the canonical `{crv, kty, x}`."""
    parsed = parse_public_ed25519_jwk(dict(jwk))
    members = {"crv": parsed["crv"], "kty": parsed["kty"], "x": parsed["x"]}
    return encode_b64url(hashlib.sha256(canonical_bytes(members)).digest())


# A trusted key set: a JWKS dict, a lookup function by kid, or a JwksSource.
TrustedKeys = Any


class UnknownKey(Exception):
    pass


class AmbiguousKey(Exception):
    pass


def look_up_key(trusted: TrustedKeys, key_id: str) -> Any:
    """The JWK under `key_id` in the trusted set; raises UnknownKey or AmbiguousKey (two keys under one kid)."""
    if isinstance(trusted, JwksSource):
        trusted = trusted.get()
    if callable(trusted):
        found = trusted(key_id)
        if found is None:
            raise UnknownKey(key_id)
        return found
    keys = trusted.get("keys") if isinstance(trusted, dict) else None
    if not isinstance(keys, list):
        raise UnknownKey(key_id)
    matches = [k for k in keys if isinstance(k, dict) and k.get("kid") == key_id]
    if not matches:
        raise UnknownKey(key_id)
    if len(matches) > 1:
        raise AmbiguousKey(key_id)
    return matches[0]


_WELL_KNOWN_JWKS = "/.well-known/jwks.json"


def _checked_url(value: Any, what: str) -> urllib.parse.SplitResult:
    if not isinstance(value, str) or not value:
        raise ValueError(f"the {what} must be an absolute http(s) url")
    try:
        parts = urllib.parse.urlsplit(value)
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError as error:
        raise ValueError(f"the {what} must be an absolute http(s) url") from error
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"the {what} must be an absolute http or https url")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"the {what} must not carry credentials")
    if "#" in value:
        raise ValueError(f"the {what} must not have a fragment")
    return parts


def resolve_jwks_url(url: str | None = None, *, jwks_url: str | None = None, issuer_url: str | None = None) -> str:
    """The JWKS URL a key source fetches (the same rule as the TypeScript and Go SDKs, vectors/sdk/jwks-locations.json).

    `jwks_url=`: that URL as is. `issuer_url=`: `<issuer>/.well-known/jwks.json` (a path prefix kept, trailing `/`
    ignored, no query). A bare `url`: a JWKS URL when its path ends in `/jwks.json`, otherwise an issuer URL.
    Only http(s), no credentials, no fragment; raises ValueError otherwise. Name exactly one of the three."""
    if sum(v is not None for v in (url, jwks_url, issuer_url)) != 1:
        raise ValueError("name the keys with one of: a url, jwks_url= or issuer_url=")
    if jwks_url is not None:
        _checked_url(jwks_url, "jwks url")
        return jwks_url
    if url is not None and _checked_url(url, "key source url").path.endswith("/jwks.json"):
        return url
    issuer = issuer_url if issuer_url is not None else url
    parts = _checked_url(issuer, "issuer url")
    if "?" in str(issuer):
        raise ValueError("the issuer url must not have a query")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + _WELL_KNOWN_JWKS, "", ""))


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """Keys come only from the URL the caller named: a redirect is answered as the error it is, never followed."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001, D102
        raise urllib.error.HTTPError(req.full_url, code, f"the jwks url redirected ({code}): not followed", headers, fp)


_OPENER = urllib.request.build_opener(_RefuseRedirects)


class JwksSource:
    """The issuer's JWKS, fetched once on first use and cached (thread-safe). Pass `jwks=` to pin a set offline.

    Name where it comes from as in the other SDKs: `JwksSource(url)` (a JWKS URL, or an issuer URL: see
    `resolve_jwks_url`), `JwksSource(jwks_url=...)` or `JwksSource(issuer_url=...)`."""

    def __init__(self, url: str | None = None, *, jwks_url: str | None = None, issuer_url: str | None = None,
                 jwks: dict[str, Any] | None = None, timeout: float = 10.0,
                 fetch: Callable[[str], bytes] | None = None) -> None:
        named = (url, jwks_url, issuer_url)
        if all(v is None for v in named) and jwks is None:
            raise ValueError("give a jwks url, an issuer url or a jwks")
        self._url = None if all(v is None for v in named) else \
            resolve_jwks_url(url, jwks_url=jwks_url, issuer_url=issuer_url)
        self._jwks = jwks
        self._timeout = timeout
        self._fetch = fetch
        self._lock = threading.Lock()
        self.fetches = 0

    def _download(self) -> dict[str, Any]:
        assert self._url is not None
        if self._fetch is not None:
            body = self._fetch(self._url)
        else:
            request = urllib.request.Request(self._url, headers={"accept": "application/json"})
            with _OPENER.open(request, timeout=self._timeout) as response:  # noqa: S310 (the caller named the url)
                body = response.read(1 << 20)
        value = parse_json(body)
        if not isinstance(value, dict) or not isinstance(value.get("keys"), list):
            raise ValueError("the issuer's jwks is not a `{ keys: [...] }` document")
        self.fetches += 1
        return value

    @property
    def url(self) -> str | None:
        """The JWKS URL this source fetches (None for a pinned set)."""
        return self._url

    def get(self) -> dict[str, Any]:
        with self._lock:
            if self._jwks is None:
                self._jwks = self._download()
            return self._jwks

    def refresh(self) -> dict[str, Any]:
        """Fetches again (after a key rotation the caller knows of)."""
        with self._lock:
            if self._url is not None:
                self._jwks = self._download()
            assert self._jwks is not None
            return self._jwks

    def __call__(self, key_id: str) -> Any:
        try:
            return look_up_key(self.get(), key_id)
        except (UnknownKey, AmbiguousKey):
            return None
