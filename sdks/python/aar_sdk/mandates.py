"""Offline verification of the payment mandates an evidence pack carries (issue 29, DESIGN-29 section 8): AP2
mandate presentations (SD-JWT hops joined by '~~', each hop `jwt~disclosure~...~`) and ACP allowances (RFC 8785 JSON,
digest only).

What an AP2 presentation must satisfy here (time and audience are not checked: a pack is re-verified long after the
purchase, by someone who is not the audience). The codes and pointers are core's (packages/core/src/mandates/):
- hop 0's JWS verifies against a key of the issuer's JWKS the caller passes (never a key the token names: `jwk`,
  `jku`, `x5c` headers are ignored), chosen as core does: by the payload's `iss` (which must be the issuer, when
  the caller names one) and the header `kid`; a key that declares its `alg` is used with that one only; no usable
  key gives `issuer_key_unknown`, and so does a hop 0 that is itself a `kb+sd-jwt` (a closed mandate shown alone);
- every disclosure's digest (SHA-256, base64url, `_sd_alg` absent or `sha-256`) is referenced exactly once, from an
  `_sd` array (`[salt, name, value]`) or an array element `{"...": digest}` (`[salt, value]`), at any depth up to
  `MAX_DEPTH`; an unreferenced, duplicated or malformed disclosure fails;
- each later hop has `typ` `kb+sd-jwt`, is signed by the `cnf.jwk` of the previous hop's disclosed mandate (or the
  previous hop's top-level `cnf`), carries a string `nonce`, a numeric `iat`, a string `aud`, and its `sd_hash` is
  base64url(SHA-256(previous hop text with its trailing '~'));
- a closed checkout mandate's `checkout_hash` is the SHA-256 of its disclosed `checkout_jwt`, and a closed payment
  mandate's `transaction_id` that same hash when both are in the chain (`sd_hash_mismatch` otherwise);
- ES256 and ES384 (raw r||s) and EdDSA (Ed25519) only; `alg: none` and everything else are refused; at most 8 hops.
Attacker assumption: the presentation and the pack are anything at all (edited, truncated, re-encoded); nothing
raises, every failure is reported as `{path, code, detail}` with the DESIGN's error codes.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from ._b64 import encode_b64url, try_decode_b64url
from .ed25519 import ed25519_verify
from .jcs import canonical_bytes, parse_json

MAX_BYTES = 65536
MAX_DEPTH = 16
MAX_HOPS = 8
KB_TYP = "kb+sd-jwt"
_SUPPORTED_ALGS = ("ES256", "ES384", "EdDSA")
_CURVES = {"ES256": ("P-256", ec.SECP256R1, 32, hashes.SHA256), "ES384": ("P-384", ec.SECP384R1, 48, hashes.SHA384)}
_ELLIPSIS = "..."
#: the mandate content types of AP2 v0.2 (`vct` of a `delegate_payload` item)
AP2_VCTS = ("mandate.payment.open.1", "mandate.payment.1", "mandate.checkout.open.1", "mandate.checkout.1")
_MAX_SAFE = 2**53 - 1


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


class _Disclosures:
    """The hop's disclosures by digest; each must be used exactly once."""

    def __init__(self, texts: list[str], base: str) -> None:
        self.by_digest: dict[str, tuple[int, list[Any]]] = {}
        self.used: set[str] = set()
        for i, text in enumerate(texts):
            path = f"{base}/disclosures/{i}"
            value = _b64json(text, path, "the disclosure", "disclosure_digest_mismatch")
            if not isinstance(value, list) or len(value) not in (2, 3) or not isinstance(value[0], str):
                raise _Refused(path, "disclosure_digest_mismatch", "a disclosure is [salt, value] or [salt, name, value]")
            if len(value) == 3 and (not isinstance(value[1], str) or value[1] in ("_sd", _ELLIPSIS, "_sd_alg")):
                raise _Refused(path, "disclosure_digest_mismatch", "a disclosure's claim name must be a string other than _sd, _sd_alg and ...")
            digest = encode_b64url(hashlib.sha256(text.encode("ascii")).digest())
            if digest in self.by_digest:
                raise _Refused(path, "disclosure_digest_mismatch", "the same disclosure appears twice")
            self.by_digest[digest] = (i, value)

    def take(self, digest: Any, path: str, array_element: bool) -> Any:
        """The disclosure a digest names, or None when the presentation does not disclose it."""
        if not isinstance(digest, str):
            raise _Refused(path, "disclosure_digest_mismatch", "a digest must be a string")
        if digest in self.used:
            raise _Refused(path, "disclosure_digest_mismatch", "a digest is referenced twice")
        found = self.by_digest.get(digest)
        if found is None:
            return None
        self.used.add(digest)
        if (len(found[1]) == 2) != array_element:
            raise _Refused(path, "disclosure_digest_mismatch", "an array element digest names an object member disclosure, or the reverse")
        return found[1]

    def unused(self) -> list[int]:
        return sorted(i for d, (i, _v) in self.by_digest.items() if d not in self.used)


def _resolve(value: Any, disclosures: _Disclosures, path: str, depth: int) -> Any:
    """The value with every disclosed digest replaced by what it discloses (undisclosed ones dropped)."""
    if depth > MAX_DEPTH:
        raise _Refused(path, "schema_invalid", f"nested deeper than {MAX_DEPTH}")
    if isinstance(value, list):
        out = []
        for i, item in enumerate(value):
            if isinstance(item, dict) and _ELLIPSIS in item:
                if len(item) != 1:
                    raise _Refused(f"{path}/{i}", "disclosure_digest_mismatch", "an array element digest object has one member")
                disclosed = disclosures.take(item[_ELLIPSIS], f"{path}/{i}", array_element=True)
                if disclosed is not None:
                    out.append(_resolve(disclosed[1], disclosures, f"{path}/{i}", depth + 1))
            else:
                out.append(_resolve(item, disclosures, f"{path}/{i}", depth + 1))
        return out
    if isinstance(value, dict):
        out_obj: dict[str, Any] = {}
        if _ELLIPSIS in value:
            raise _Refused(f"{path}/...", "disclosure_digest_mismatch", "the member ... is allowed only as an array element digest")
        for name, member in value.items():
            if name in ("_sd", "_sd_alg"):
                continue
            out_obj[name] = _resolve(member, disclosures, f"{path}/{_pointer(name)}", depth + 1)
        sd = value.get("_sd")
        if sd is not None:
            if not isinstance(sd, list):
                raise _Refused(f"{path}/_sd", "disclosure_digest_mismatch", "_sd must be an array of digests")
            for i, digest in enumerate(sd):
                disclosed = disclosures.take(digest, f"{path}/_sd/{i}", array_element=False)
                if disclosed is None:
                    continue
                name = disclosed[1]
                if name in out_obj:
                    raise _Refused(f"{path}/_sd/{i}", "disclosure_digest_mismatch", f"the claim {name} is disclosed and also plain")
                out_obj[name] = _resolve(disclosed[2], disclosures, f"{path}/{_pointer(name)}", depth + 1)
        return out_obj
    return value


def _pointer(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _cnf_keys(hop: Ap2Hop) -> list[Any]:
    """The key-binding keys a hop delegates to: its top-level `cnf.jwk` and its disclosed mandates' `cnf.jwk`."""
    holders = [hop.payload, *hop.mandates]
    return [h["cnf"]["jwk"] for h in holders
            if isinstance(h, dict) and isinstance(h.get("cnf"), dict) and isinstance(h["cnf"].get("jwk"), dict)]


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
    if index > 0 and typ != KB_TYP:
        raise _Refused(f"{base}/header/typ", "key_binding_invalid", f"a hop after the first has typ {KB_TYP}")
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


def _check_signature(hop: Ap2Hop, previous: Ap2Hop | None, issuer_jwks: Any, issuer: str | None) -> dict[str, str] | None:
    base = f"/presentation/hops/{hop.index}"
    jwt = hop.text.split("~", 1)[0]
    head, body, sig = jwt.split(".")
    header = parse_json(try_decode_b64url(head) or b"{}")
    signing_input, signature = f"{head}.{body}".encode("ascii"), try_decode_b64url(sig) or b""
    if previous is None:
        if hop.typ == KB_TYP:
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
    if hop.typ != KB_TYP:
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


def _time_claims(claims: Mapping[str, Any], path: str) -> list[dict[str, str]]:
    """`exp`, `iat`, `nbf` are whole numbers of seconds when present (their values are not judged offline)."""
    out = []
    for name in ("exp", "iat", "nbf"):
        value = claims.get(name)
        if name in claims and not (isinstance(value, (int, float)) and not isinstance(value, bool)
                                   and abs(value) <= _MAX_SAFE and float(value).is_integer()):
            out.append({"path": f"{path}/{name}", "code": "schema_invalid", "detail": "must be a whole number of seconds"})
    return out


def _mandate_contents(hops: list[Ap2Hop]) -> list[dict[str, str]]:
    """Core's extractMandates: each `delegate_payload` item is an object of a known `vct` (a chain may re-delegate an
    open mandate: what the mandates allow together is the service's question, not an offline one)."""
    errors: list[dict[str, str]] = []
    for hop in hops:
        base = f"/presentation/hops/{hop.index}"
        errors.extend(_time_claims(hop.payload, f"{base}/payload"))
        delegate = hop.payload.get("delegate_payload")
        if delegate is not None and not isinstance(delegate, list):
            errors.append({"path": f"{base}/payload/delegate_payload", "code": "schema_invalid", "detail": "must be an array"})
        for i, item in enumerate(hop.mandates):
            at = f"{base}/mandates/{i}"
            if not isinstance(item, dict):
                errors.append({"path": at, "code": "schema_invalid", "detail": "a mandate content must be a JSON object"})
                continue
            if item.get("vct") not in AP2_VCTS:
                errors.append({"path": f"{at}/vct", "code": "unsupported_vct", "detail": "vct must be one of " + ", ".join(AP2_VCTS)})
                continue
            errors.extend(_time_claims(item, at))
    return errors


def _checkout_bindings(hops: list[Ap2Hop]) -> list[dict[str, str]]:
    """A closed checkout's `checkout_hash` is the SHA-256 of its `checkout_jwt`; a closed payment's `transaction_id`
    is that hash when both are in the chain (core's checkBindings, first mandate of each type)."""
    def first(vct: str) -> tuple[str, dict[str, Any]] | None:
        for hop in hops:
            for i, m in enumerate(hop.mandates):
                if isinstance(m, dict) and m.get("vct") == vct:
                    return f"/presentation/hops/{hop.index}/mandates/{i}", m
        return None

    errors = []
    checkout, payment = first("mandate.checkout.1"), first("mandate.payment.1")
    if checkout is not None:
        path, content = checkout
        if not isinstance(content.get("checkout_hash"), str):
            errors.append({"path": f"{path}/checkout_hash", "code": "schema_invalid", "detail": "must be a string"})
        elif isinstance(content.get("checkout_jwt"), str) and mandate_digest(content["checkout_jwt"]) != content["checkout_hash"]:
            errors.append({"path": f"{path}/checkout_hash", "code": "sd_hash_mismatch",
                           "detail": "is not the SHA-256 of the disclosed checkout_jwt"})
        if payment is not None and payment[1].get("transaction_id") != content.get("checkout_hash"):
            errors.append({"path": f"{payment[0]}/transaction_id", "code": "sd_hash_mismatch",
                           "detail": f"is not the checkout_hash of the closed checkout mandate ({path})"})
    return errors


# -- evidence pack -------------------------------------------------------------------------------------------------

def snapshot_bindings(snapshot: Any) -> list[dict[str, Any]]:
    """Every `mandate` binding of the snapshot's chains (`grants` and each `alternatives` chain)."""
    if not isinstance(snapshot, dict):
        return []
    chains: list[Any] = [snapshot.get("grants")]
    alternatives = snapshot.get("alternatives")
    if isinstance(alternatives, list):
        chains.extend(alternatives)
    out = []
    for chain in chains:
        for grant in chain if isinstance(chain, list) else []:
            if isinstance(grant, dict) and "mandate" in grant:
                out.append(grant["mandate"])
    return out


def _entries(value: Any) -> list[dict[str, Any]] | None:
    if not isinstance(value, list):
        return None
    for entry in value:
        if not isinstance(entry, dict):
            return None
        if not all(isinstance(entry.get(k), str) for k in ("mandate_id", "format", "digest", "document")):
            return None
        if entry["format"] not in ("ap2", "acp") or ("presented" in entry and not isinstance(entry["presented"], str)):
            return None
    return value


def check_mandates(pack: Any) -> Any:
    """The evidence pack's `mandates` check: None when neither the snapshot nor the pack carries a mandate (the check
    is not recorded), else True or a failure code. Every snapshot binding needs its entry (same id, format, digest);
    every entry's digest is the hash of its document; AP2 documents (and `presented`, which extends the document)
    verify against the entry's `issuer_jwks`."""
    snapshot = pack.get("snapshot") if isinstance(pack, dict) else None
    bindings = snapshot_bindings(snapshot)
    has_member = isinstance(pack, dict) and "mandates" in pack
    if not bindings and not has_member:
        return None
    entries = _entries(pack.get("mandates", []) if isinstance(pack, dict) else None)
    if entries is None:
        return "malformed_mandates"
    for binding in bindings:
        if not isinstance(binding, dict) or not isinstance(binding.get("mandate_id"), str):
            return "malformed_mandates"
        if not any(e["mandate_id"] == binding["mandate_id"] and e["format"] == binding.get("format")
                   and e["digest"] == binding.get("digest") for e in entries):
            return "mandate_missing"
    for entry in entries:
        failure = _check_entry(entry)
        if failure is not True:
            return failure
    return True


def _check_entry(entry: dict[str, Any]) -> Any:
    document = entry["document"]
    if mandate_digest(document) != entry["digest"]:
        return "mandate_digest_mismatch"
    if entry["format"] == "acp":
        return True
    presentations: Iterable[str] = [document]
    presented = entry.get("presented")
    if presented is not None:
        if not presented.startswith(document + "~"):
            return "mandate_signature_invalid"
        presentations = [document, presented]
    for text in presentations:
        # as core: the entry names its issuer; without one, a hop 0 that names its `iss` has no trusted key
        issuer = entry.get("issuer") if isinstance(entry.get("issuer"), str) else ""
        if not verify_ap2_presentation(text, entry.get("issuer_jwks"), issuer=issuer).ok:
            return "mandate_signature_invalid"
    return True
