"""Offline verification of the payment mandates an evidence pack carries (issue 29, DESIGN-29 section 8): AP2
mandate presentations (SD-JWT hops joined by '~~', each hop `jwt~disclosure~...~`) and ACP allowances (RFC 8785 JSON,
digest only).

What an AP2 presentation must satisfy here (time is not checked: a pack is re-verified long after the purchase):
- hop 0's JWS verifies against a key of the issuer's JWKS the caller passes (never a key the token names: `jwk`,
  `jku`, `x5c` headers are ignored); no usable key gives `issuer_key_unknown`;
- every disclosure's digest (SHA-256, base64url, `_sd_alg` absent or `sha-256`) is referenced exactly once, from an
  `_sd` array (`[salt, name, value]`) or an array element `{"...": digest}` (`[salt, value]`), at any depth up to
  `MAX_DEPTH`; an unreferenced, duplicated or malformed disclosure fails;
- each later hop has `typ` `kb+sd-jwt`, is signed by the `cnf.jwk` of the previous hop's disclosed mandate (or the
  previous hop's top-level `cnf`), and its `sd_hash` is base64url(SHA-256(previous hop text with its trailing '~'));
- ES256 (raw r||s, 64 bytes) and EdDSA (Ed25519) only; `alg: none` and everything else are refused.
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
KB_TYP = "kb+sd-jwt"
_SUPPORTED_ALGS = ("ES256", "EdDSA")
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


def _b64json(text: str, path: str, what: str) -> Any:
    raw = try_decode_b64url(text)
    if raw is None:
        raise _Refused(path, "schema_invalid", f"{what} is not unpadded base64url")
    try:
        return parse_json(raw)
    except Exception as exc:  # noqa: BLE001 - bad UTF-8, bad JSON, duplicate member
        raise _Refused(path, "schema_invalid", f"{what} is not JSON: {exc}") from None


def split_hops(presentation: str) -> list[str]:
    """Each hop's text, with its trailing '~' (the bytes the next hop's `sd_hash` covers)."""
    parts = presentation.split("~~")
    return [p + "~" for p in parts[:-1]] + [parts[-1]]


def _public_key(jwk: Any, alg: str) -> Any:
    """A verifier for one JWK usable with `alg`, or None."""
    if not isinstance(jwk, Mapping):
        return None
    if alg == "ES256" and jwk.get("kty") == "EC" and jwk.get("crv") == "P-256":
        x, y = try_decode_b64url(jwk.get("x")), try_decode_b64url(jwk.get("y"))
        if x is None or y is None or len(x) != 32 or len(y) != 32:
            return None
        try:  # refuses a point off the curve
            return ec.EllipticCurvePublicNumbers(int.from_bytes(x, "big"), int.from_bytes(y, "big"), ec.SECP256R1()).public_key()
        except ValueError:
            return None
    if alg == "EdDSA" and jwk.get("kty") == "OKP" and jwk.get("crv") == "Ed25519":
        x = try_decode_b64url(jwk.get("x"))
        return ("Ed25519", x) if x is not None and len(x) == 32 else None
    return None


def _verify_signature(key: Any, alg: str, signing_input: bytes, signature: bytes) -> bool:
    if alg == "EdDSA":
        return isinstance(key, tuple) and ed25519_verify(key[1], signing_input, signature)
    if len(signature) != 64:
        return False
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    try:
        key.verify(encode_dss_signature(r, s), signing_input, ec.ECDSA(hashes.SHA256()))
        return True
    except (InvalidSignature, ValueError, TypeError, AttributeError):
        return False


def _issuer_keys(issuer_jwks: Any, header: Mapping[str, Any], alg: str) -> list[Any]:
    keys = issuer_jwks.get("keys") if isinstance(issuer_jwks, Mapping) else None
    if not isinstance(keys, list):
        return []
    kid = header.get("kid")
    out = []
    for jwk in keys:
        if isinstance(kid, str) and isinstance(jwk, Mapping) and "kid" in jwk and jwk.get("kid") != kid:
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
            value = _b64json(text, path, "the disclosure")
            if not isinstance(value, list) or len(value) not in (2, 3) or not isinstance(value[0], str):
                raise _Refused(path, "schema_invalid", "a disclosure is [salt, value] or [salt, name, value]")
            if len(value) == 3 and (not isinstance(value[1], str) or value[1] in ("_sd", _ELLIPSIS)):
                raise _Refused(path, "schema_invalid", "a disclosure's claim name must be a string other than _sd and ...")
            digest = encode_b64url(hashlib.sha256(text.encode("ascii")).digest())
            if digest in self.by_digest:
                raise _Refused(path, "disclosure_digest_mismatch", "the same disclosure appears twice")
            self.by_digest[digest] = (i, value)

    def take(self, digest: Any, path: str, array_element: bool) -> Any:
        """The disclosure a digest names, or None when the presentation does not disclose it."""
        if not isinstance(digest, str):
            raise _Refused(path, "schema_invalid", "a digest must be a string")
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
                    raise _Refused(f"{path}/{i}", "schema_invalid", "an array element digest object has one member")
                disclosed = disclosures.take(item[_ELLIPSIS], f"{path}/{i}", array_element=True)
                if disclosed is not None:
                    out.append(_resolve(disclosed[1], disclosures, f"{path}/{i}", depth + 1))
            else:
                out.append(_resolve(item, disclosures, f"{path}/{i}", depth + 1))
        return out
    if isinstance(value, dict):
        out_obj: dict[str, Any] = {}
        for name, member in value.items():
            if name in ("_sd", "_sd_alg"):
                continue
            out_obj[name] = _resolve(member, disclosures, f"{path}/{_pointer(name)}", depth + 1)
        sd = value.get("_sd")
        if sd is not None:
            if not isinstance(sd, list):
                raise _Refused(f"{path}/_sd", "schema_invalid", "_sd must be an array of digests")
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
    """The key-binding keys a hop delegates to: its disclosed mandates' `cnf.jwk`, else its top-level `cnf.jwk`."""
    keys = [m["cnf"]["jwk"] for m in hop.mandates
            if isinstance(m, dict) and isinstance(m.get("cnf"), dict) and isinstance(m["cnf"].get("jwk"), dict)]
    cnf = hop.payload.get("cnf")
    if not keys and isinstance(cnf, dict) and isinstance(cnf.get("jwk"), dict):
        keys = [cnf["jwk"]]
    return keys


def verify_ap2_presentation(presentation: Any, issuer_jwks: Any = None, *, max_bytes: int = MAX_BYTES) -> Ap2Verification:
    """Verifies every signature and digest of an AP2 presentation that can be verified offline. Never raises."""
    if not isinstance(presentation, str):
        return Ap2Verification("", errors=[{"path": "/presentation", "code": "schema_invalid", "detail": "not a string"}])
    result = Ap2Verification(mandate_digest(presentation))
    if len(presentation.encode("utf-8")) > max_bytes:
        result.errors.append({"path": "/presentation", "code": "schema_invalid", "detail": f"larger than {max_bytes} bytes"})
        return result
    texts = split_hops(presentation)
    for index, text in enumerate(texts):
        try:
            hop = _parse_hop(index, text)
        except _Refused as refused:
            result.errors.append(refused.error)
            return result
        result.hops.append(hop)
    for hop in result.hops:
        error = _check_signature(hop, result.hops[hop.index - 1] if hop.index else None, texts, issuer_jwks)
        if error is not None:
            result.errors.append(error)
    return result


def _parse_hop(index: int, text: str) -> Ap2Hop:
    base = f"/presentation/hops/{index}"
    if not text.endswith("~"):
        raise _Refused(base, "schema_invalid", "a hop ends with '~' (a trailing key-binding JWT is a hop of its own)")
    parts = text[:-1].split("~")
    jwt, disclosure_texts = parts[0], parts[1:]
    if any(t == "" for t in disclosure_texts):
        raise _Refused(base, "schema_invalid", "an empty disclosure")
    segments = jwt.split(".")
    if len(segments) != 3:
        raise _Refused(f"{base}/jwt", "schema_invalid", "a JWS in compact form has three parts")
    header = _b64json(segments[0], f"{base}/jwt/header", "the JWS header")
    payload = _b64json(segments[1], f"{base}/jwt/payload", "the JWS payload")
    if not isinstance(header, dict) or not isinstance(payload, dict):
        raise _Refused(f"{base}/jwt", "schema_invalid", "the JWS header and payload are JSON objects")
    alg = header.get("alg")
    if alg not in _SUPPORTED_ALGS:
        raise _Refused(f"{base}/jwt/header/alg", "signature_invalid", f"alg {alg!r} is not accepted (ES256, EdDSA)")
    if "crit" in header:
        raise _Refused(f"{base}/jwt/header/crit", "schema_invalid", "no critical header extension is understood")
    typ = header.get("typ")
    if index > 0 and typ != KB_TYP:
        raise _Refused(f"{base}/jwt/header/typ", "key_binding_invalid", f"a delegated hop has typ {KB_TYP}")
    if try_decode_b64url(segments[2]) is None:
        raise _Refused(f"{base}/jwt/signature", "schema_invalid", "the signature is not unpadded base64url")
    sd_alg = payload.get("_sd_alg", "sha-256")
    if sd_alg != "sha-256":
        raise _Refused(f"{base}/jwt/payload/_sd_alg", "schema_invalid", "_sd_alg must be sha-256")
    disclosures = _Disclosures(disclosure_texts, base)
    resolved = _resolve(payload, disclosures, f"{base}/jwt/payload", 0)
    unused = disclosures.unused()
    if unused:
        raise _Refused(f"{base}/disclosures/{unused[0]}", "disclosure_digest_mismatch", "no digest of the hop references this disclosure")
    delegate = resolved.get("delegate_payload", [])
    mandates = delegate if isinstance(delegate, list) else []
    return Ap2Hop(index, typ if isinstance(typ, str) else "", alg, resolved, mandates, text)


def _check_signature(hop: Ap2Hop, previous: Ap2Hop | None, texts: list[str], issuer_jwks: Any) -> dict[str, str] | None:
    base = f"/presentation/hops/{hop.index}"
    jwt = hop.text.split("~", 1)[0]
    head, body, sig = jwt.split(".")
    header = parse_json(try_decode_b64url(head) or b"{}")
    signing_input, signature = f"{head}.{body}".encode("ascii"), try_decode_b64url(sig) or b""
    if previous is None:
        keys = _issuer_keys(issuer_jwks, header, hop.alg)
        if not keys:
            return {"path": f"{base}/jwt", "code": "issuer_key_unknown",
                    "detail": "no key of the issuer's JWKS matches this hop's kid and alg"}
        if not any(_verify_signature(k, hop.alg, signing_input, signature) for k in keys):
            return {"path": f"{base}/jwt/signature", "code": "signature_invalid",
                    "detail": "the issuer's signature does not verify"}
        return None
    expected = encode_b64url(hashlib.sha256(texts[hop.index - 1].encode("utf-8")).digest())
    if hop.payload.get("sd_hash") != expected:
        return {"path": f"{base}/jwt/payload/sd_hash", "code": "sd_hash_mismatch",
                "detail": "sd_hash is not the hash of the previous hop"}
    keys = [k for k in (_public_key(j, hop.alg) for j in _cnf_keys(previous)) if k is not None]
    if not keys:
        return {"path": f"{base}/jwt", "code": "key_binding_invalid",
                "detail": f"hop {previous.index} discloses no cnf key usable with {hop.alg}"}
    if not any(_verify_signature(k, hop.alg, signing_input, signature) for k in keys):
        return {"path": f"{base}/jwt/signature", "code": "key_binding_invalid",
                "detail": "the key-binding signature does not verify against the previous hop's cnf key"}
    return None


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
        if not verify_ap2_presentation(text, entry.get("issuer_jwks")).ok:
            return "mandate_signature_invalid"
    return True
