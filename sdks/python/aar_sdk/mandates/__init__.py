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
- each later hop has `typ` `kb+sd-jwt` (`kb+sd-jwt+kb` for an intermediate one), is signed by the `cnf.jwk` of
  the previous hop's disclosed mandate (or the previous hop's top-level `cnf`), carries a string `nonce`, a numeric `iat`, a string `aud`, and its `sd_hash` is
  base64url(SHA-256(previous hop text with its trailing '~'));
- a closed checkout mandate's `checkout_hash` is the SHA-256 of its disclosed `checkout_jwt`, and a closed payment
  mandate's `transaction_id` that same hash when both are in the chain (`sd_hash_mismatch` otherwise);
- ES256 and ES384 (raw r||s) and EdDSA (Ed25519) only; `alg: none` and everything else are refused; at most 8 hops.
Attacker assumption: the presentation and the pack are anything at all (edited, truncated, re-encoded); nothing
raises, every failure is reported as `{path, code, detail}` with the DESIGN's error codes.

The parts: _common.py (shapes, digests, the hop split), _disclosures.py, _keys.py (keys, signatures, key-binding
claims), _contents.py (mandate contents, checkout/payment bindings), _ap2.py (the verifier), _evidence.py (the
evidence pack's `mandates` check).
"""
from ._ap2 import verify_ap2_presentation
from ._common import MAX_BYTES, MAX_DEPTH, MAX_HOPS, Ap2Hop, Ap2Verification, allowance_digest, mandate_digest, split_hops
from ._contents import AP2_VCTS
from ._evidence import check_mandates, snapshot_bindings

__all__ = ["verify_ap2_presentation", "Ap2Hop", "Ap2Verification", "allowance_digest", "mandate_digest", "split_hops",
           "check_mandates", "snapshot_bindings", "AP2_VCTS", "MAX_BYTES", "MAX_DEPTH", "MAX_HOPS"]
