"""verify_ap2_presentation: an AP2 presentation hop by hop (the rules are in the package's docstring). Nothing raises:
anything unforeseen in hostile input is a `schema_invalid` refusal."""
from __future__ import annotations

from typing import Any

from .._b64 import try_decode_b64url
from ._common import KB_TYP, KB_TYPS, MAX_BYTES, MAX_HOPS, Ap2Hop, Ap2Verification, _b64json, _Refused, mandate_digest, split_hops
from ._contents import _checkout_bindings, _mandate_contents
from ._disclosures import _Disclosures, _resolve
from ._keys import _check_signature, _key_binding_claims

_SUPPORTED_ALGS = ("ES256", "ES384", "EdDSA")

def verify_ap2_presentation(presentation: Any, issuer_jwks: Any = None, *, issuer: str | None = None,
                            max_bytes: int = MAX_BYTES) -> Ap2Verification:
    """Verifies every signature and digest of an AP2 presentation that can be verified offline against the issuer's
    JWKS (`{"keys": [...]}`; `issuer`, when given, is the only `iss` hop 0 may name). Never raises."""
    try:
        return _verify_presentation(presentation, issuer_jwks, issuer, max_bytes)
    except Exception:  # noqa: BLE001 - anything unforeseen in hostile input is a refusal, never an exception
        digest = mandate_digest(presentation) if isinstance(presentation, str) else ""
        return Ap2Verification(digest, errors=[{"path": "/presentation", "code": "schema_invalid",
                                                "detail": "not an AP2 presentation this verifier can read"}])


def _verify_presentation(presentation: Any, issuer_jwks: Any, issuer: str | None, max_bytes: int) -> Ap2Verification:
    if not isinstance(presentation, str):
        return Ap2Verification("", errors=[{"path": "/presentation", "code": "schema_invalid", "detail": "not a string"}])
    result = Ap2Verification(mandate_digest(presentation))
    if len(presentation.encode("utf-8")) > max_bytes:
        result.errors.append({"path": "/presentation", "code": "schema_invalid", "detail": f"larger than {max_bytes} bytes"})
        return result
    texts = split_hops(presentation)
    if len(texts) > MAX_HOPS:
        result.errors.append({"path": "/presentation", "code": "schema_invalid", "detail": f"more than {MAX_HOPS} hops"})
        return result
    for index, text in enumerate(texts):
        try:
            hop = _parse_hop(index, text)
        except _Refused as refused:
            result.errors.append(refused.error)
            return result
        result.hops.append(hop)
    for hop in result.hops:
        previous = result.hops[hop.index - 1] if hop.index else None
        error = _check_signature(hop, previous, issuer_jwks, issuer)
        if error is not None:
            result.errors.append(error)
        result.errors.extend(_key_binding_claims(hop, previous))
    result.errors.extend(_mandate_contents(result.hops))
    result.errors.extend(_checkout_bindings(result.hops))
    return result


def _parse_hop(index: int, text: str) -> Ap2Hop:
    base = f"/presentation/hops/{index}"
    if not text.endswith("~"):
        raise _Refused(base, "schema_invalid", "a hop ends with '~' (a trailing key-binding JWT is a hop of its own)")
    parts = text[:-1].split("~")
    jwt, disclosure_texts = parts[0], parts[1:]
    segments = jwt.split(".")
    if len(segments) != 3:
        raise _Refused(f"{base}/jws", "schema_invalid", "a JWS in compact form has three parts")
    header = _b64json(segments[0], f"{base}/jws", "the JWS header")
    payload = _b64json(segments[1], f"{base}/jws", "the JWS payload")
    if not isinstance(header, dict) or not isinstance(payload, dict):
        raise _Refused(f"{base}/jws", "schema_invalid", "the JWS header and payload are JSON objects")
    alg = header.get("alg")
    if alg not in _SUPPORTED_ALGS:
        raise _Refused(f"{base}/header/alg", "signature_invalid", f"alg {alg!r} is not accepted (ES256, ES384, EdDSA)")
    if not segments[2] or try_decode_b64url(segments[2]) is None:
        raise _Refused(f"{base}/jws/signature", "signature_invalid", "the signature is not unpadded base64url")
    if "crit" in header:
        raise _Refused(f"{base}/header/crit", "schema_invalid", "no critical header extension is understood")
    typ = header.get("typ")
    if index > 0 and typ not in KB_TYPS:
        raise _Refused(f"{base}/header/typ", "key_binding_invalid", f"a hop after the first has typ {KB_TYP} (or kb+sd-jwt+kb)")
    sd_alg = payload.get("_sd_alg", "sha-256")
    if sd_alg != "sha-256":
        raise _Refused(f"{base}/payload/_sd_alg", "disclosure_digest_mismatch", "only sha-256 disclosure digests are supported")
    disclosures = _Disclosures(disclosure_texts, base)
    resolved = _resolve(payload, disclosures, f"{base}/payload", 0)
    unused = disclosures.unused()
    if unused:
        raise _Refused(f"{base}/disclosures/{unused[0]}", "disclosure_digest_mismatch", "no digest of the hop references this disclosure")
    delegate = resolved.get("delegate_payload", [])
    mandates = delegate if isinstance(delegate, list) else []
    return Ap2Hop(index, typ if isinstance(typ, str) else "", alg, resolved, mandates, text)
