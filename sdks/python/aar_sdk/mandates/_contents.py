"""The mandate contents of an AP2 chain (core's extractMandates and checkBindings): each `delegate_payload` item is an
object of a known `vct` with whole-second times (a chain may re-delegate an open mandate), and a closed checkout /
payment pair is bound by hashes."""
from __future__ import annotations

from typing import Any, Mapping

from ._common import Ap2Hop, mandate_digest

#: the mandate content types of AP2 v0.2 (`vct` of a `delegate_payload` item)
AP2_VCTS = ("mandate.payment.open.1", "mandate.payment.1", "mandate.checkout.open.1", "mandate.checkout.1")
_MAX_SAFE = 2**53 - 1

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
