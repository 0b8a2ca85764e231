"""The keys and signatures of an AP2 chain: hop 0 against the issuer's JWKS only (by `iss` and `kid`, as core's
ap2-signatures.ts; a key that declares its `alg` is used with that one only), a later hop against the `cnf.jwk` keys
the previous hop discloses, plus a key-binding hop's claims. ES256/ES384 signatures are raw r||s, converted for
`cryptography` with encode_dss_signature. Attacker assumption: the token's headers and keys are hostile; a `jwk`,
`jku` or `x5c` header is never read."""
from __future__ import annotations

from typing import Any, Mapping

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from .._b64 import try_decode_b64url
from ..ed25519 import ed25519_verify
from ..jcs import parse_json
from ._common import KB_TYPS, Ap2Hop, mandate_digest

_CURVES = {"ES256": ("P-256", ec.SECP256R1, 32, hashes.SHA256), "ES384": ("P-384", ec.SECP384R1, 48, hashes.SHA384)}

def _public_key(jwk: Any, alg: str) -> Any:
    """A verifier for one JWK usable with `alg`, or None."""
    if not isinstance(jwk, Mapping):
        return None
    declared = jwk.get("alg")
    if declared is not None and declared != alg and not (alg == "EdDSA" and declared == "Ed25519"):
        return None
    if alg in _CURVES and jwk.get("kty") == "EC" and jwk.get("crv") == _CURVES[alg][0]:
        _name, curve, size, _hash = _CURVES[alg]
        x, y = try_decode_b64url(jwk.get("x")), try_decode_b64url(jwk.get("y"))
        if x is None or y is None or len(x) != size or len(y) != size:
            return None
        try:  # refuses a point off the curve
            return ec.EllipticCurvePublicNumbers(int.from_bytes(x, "big"), int.from_bytes(y, "big"), curve()).public_key()
        except ValueError:
            return None
    if alg == "EdDSA" and jwk.get("kty") == "OKP" and jwk.get("crv") == "Ed25519":
        x = try_decode_b64url(jwk.get("x"))
        return ("Ed25519", x) if x is not None and len(x) == 32 else None
    return None


def _verify_signature(key: Any, alg: str, signing_input: bytes, signature: bytes) -> bool:
    if alg == "EdDSA":
        return isinstance(key, tuple) and ed25519_verify(key[1], signing_input, signature)
    _name, _curve, size, digest = _CURVES[alg]
    if len(signature) != 2 * size:
        return False
    r, s = int.from_bytes(signature[:size], "big"), int.from_bytes(signature[size:], "big")
    try:
        key.verify(encode_dss_signature(r, s), signing_input, ec.ECDSA(digest()))
        return True
    except (InvalidSignature, ValueError, TypeError, AttributeError):
        return False


def _issuer_keys(issuer_jwks: Any, issuer: str | None, iss: Any, kid: Any, alg: str) -> list[Any]:
    """Core's issuerCandidates for one configured issuer: with a payload `iss` (which must be the issuer when one is
    named), the keys without a kid or with the header's; without `iss`, only the keys with exactly the header's kid."""
    keys = issuer_jwks.get("keys") if isinstance(issuer_jwks, Mapping) else None
    if not isinstance(keys, list):
        return []
    if iss is not None and (not isinstance(iss, str) or (issuer is not None and iss != issuer)):
        return []
    kid = kid if isinstance(kid, str) else None
    if iss is None and kid is None:
        return []
    out = []
    for jwk in keys:
        if not isinstance(jwk, Mapping):
            continue
        named = jwk.get("kid")
        if iss is None and named != kid or iss is not None and kid is not None and named is not None and named != kid:
            continue
        key = _public_key(jwk, alg)
        if key is not None:
            out.append(key)
    return out


def _cnf_keys(hop: Ap2Hop) -> list[Any]:
    """The key-binding keys a hop delegates to: its top-level `cnf.jwk` and its disclosed mandates' `cnf.jwk`."""
    holders = [hop.payload, *hop.mandates]
    return [h["cnf"]["jwk"] for h in holders
            if isinstance(h, dict) and isinstance(h.get("cnf"), dict) and isinstance(h["cnf"].get("jwk"), dict)]


def _check_signature(hop: Ap2Hop, previous: Ap2Hop | None, issuer_jwks: Any, issuer: str | None) -> dict[str, str] | None:
    base = f"/presentation/hops/{hop.index}"
    jwt = hop.text.split("~", 1)[0]
    head, body, sig = jwt.split(".")
    header = parse_json(try_decode_b64url(head) or b"{}")
    signing_input, signature = f"{head}.{body}".encode("ascii"), try_decode_b64url(sig) or b""
    if previous is None:
        if hop.typ in KB_TYPS:
            return {"path": f"{base}/header", "code": "issuer_key_unknown",
                    "detail": "hop 0 is a key-binding JWT: the key that signs it is the cnf of a mandate not presented"}
        keys = _issuer_keys(issuer_jwks, issuer, hop.payload.get("iss"), header.get("kid"), hop.alg)
        if not keys:
            return {"path": f"{base}/header/kid", "code": "issuer_key_unknown",
                    "detail": "no key of the issuer's JWKS matches this hop's iss, kid and alg"}
        if not any(_verify_signature(k, hop.alg, signing_input, signature) for k in keys):
            return {"path": f"{base}/jws/signature", "code": "signature_invalid",
                    "detail": "no key of the issuer verifies the signature"}
        return None
    keys = [k for k in (_public_key(j, hop.alg) for j in _cnf_keys(previous)) if k is not None]
    if not keys:
        return {"path": f"{base}/jws/signature", "code": "key_binding_invalid",
                "detail": f"hop {previous.index} discloses no cnf key usable with {hop.alg}"}
    if not any(_verify_signature(k, hop.alg, signing_input, signature) for k in keys):
        return {"path": f"{base}/jws/signature", "code": "key_binding_invalid",
                "detail": f"not signed by a cnf key that hop {previous.index} discloses"}
    return None


def _key_binding_claims(hop: Ap2Hop, previous: Ap2Hop | None) -> list[dict[str, str]]:
    """A `kb+sd-jwt` hop's nonce, iat, aud and sd_hash (the audience itself is the service's check, not offline)."""
    if hop.typ not in KB_TYPS:
        return []
    base = f"/presentation/hops/{hop.index}/payload"
    errors = []
    p = hop.payload
    if not isinstance(p.get("nonce"), str) or not p["nonce"]:
        errors.append({"path": f"{base}/nonce", "code": "key_binding_invalid", "detail": "a key-binding hop needs a string nonce"})
    if not isinstance(p.get("iat"), (int, float)) or isinstance(p.get("iat"), bool):
        errors.append({"path": f"{base}/iat", "code": "key_binding_invalid", "detail": "a key-binding hop needs a numeric iat"})
    if not isinstance(p.get("aud"), str):
        errors.append({"path": f"{base}/aud", "code": "key_binding_invalid", "detail": "a key-binding hop needs a string aud"})
    sd_hash = p.get("sd_hash")
    if not isinstance(sd_hash, str):
        errors.append({"path": f"{base}/sd_hash", "code": "key_binding_invalid", "detail": "a key-binding hop needs sd_hash"})
    elif previous is not None and sd_hash != mandate_digest(previous.text):
        errors.append({"path": f"{base}/sd_hash", "code": "sd_hash_mismatch",
                       "detail": f"does not match the SHA-256 of hop {previous.index}"})
    return errors
