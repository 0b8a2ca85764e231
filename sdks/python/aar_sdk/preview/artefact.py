"""A payload artefact (`ns.payload_artefact.v1`, docs/artefacts.md "Offline verification"), offline: the same checks
and failure codes as the TypeScript SDK's verifyPayloadArtefact (`shape`, `state`, `basket`, `transitions`, and
`payload` and `agent_signature` when the caller passes the bytes it holds and the agent key it trusts)."""
from __future__ import annotations

import hashlib
import re
from typing import Any

from .._b64 import encode_b64url
from ..jwks import TrustedKeys, jwk_thumbprint
from ..signed_document import verify_document
from ._frame import (
    CheckFailed,
    PreviewCheck,
    PreviewVerification,
    instant,
    is_ns_id,
    is_text,
    is_timestamp,
    require,
    verify_preview_document,
)

PAYLOAD_ARTEFACT_SCHEMA = "ns.payload_artefact.v1"
PAYLOAD_ARTEFACT_STATEMENT_SCHEMA = "ns.payload_artefact_statement.v1"

_KINDS = {"checkout", "basket", "payment_instruction"}
_STATES = {"verified", "rejected", "executed"}
_REJECTION_REASONS = {
    "decision_unknown", "decision_not_allowed", "decision_not_execute", "decision_expired", "decision_settled",
    "signature_missing", "signature_key_unknown", "signature_invalid", "mandate_mismatch", "basket_not_bound",
    "basket_mismatch", "decision_has_artefact",
}
_DIGEST = re.compile(r"[A-Za-z0-9_-]{43}", re.ASCII)


def _is_digest(value: Any) -> bool:
    return isinstance(value, str) and _DIGEST.fullmatch(value) is not None


def _shape(d: dict) -> None:
    require([
        ("/payload_artefact_id", is_ns_id(d.get("payload_artefact_id"), "payload_artefact")),
        ("/issuer", is_text(d.get("issuer"))),
        ("/kind", d.get("kind") in _KINDS if isinstance(d.get("kind"), str) else False),
        ("/digest", _is_digest(d.get("digest"))),
        ("/policy_decision_id", is_ns_id(d.get("policy_decision_id"), "decision")),
        ("/state", d.get("state") in _STATES if isinstance(d.get("state"), str) else False),
        ("/received_at", is_timestamp(d.get("received_at"))),
        ("/decided_at", is_timestamp(d.get("decided_at"))),
        ("/executed_at", "executed_at" in d and (d["executed_at"] is None or is_timestamp(d["executed_at"]))),
        ("/agent_signature", "agent_signature" in d and (d["agent_signature"] is None or isinstance(d["agent_signature"], dict))),
        ("/transitions", isinstance(d.get("transitions"), list)),
    ])


def _state(d: dict) -> None:
    rejected = d.get("state") == "rejected"
    executed = d.get("state") == "executed"
    reason, outcome = d.get("reason", "absent"), d.get("outcome", "absent")
    if rejected != (isinstance(reason, str) and reason in _REJECTION_REASONS):
        raise CheckFailed("state_inconsistent", "/reason")
    if not rejected and reason is not None:
        raise CheckFailed("state_inconsistent", "/reason")
    if executed != (outcome in ("executed", "failed")):
        raise CheckFailed("state_inconsistent", "/outcome")
    if not executed and outcome is not None:
        raise CheckFailed("state_inconsistent", "/outcome")
    if executed != (d.get("executed_at") is not None):
        raise CheckFailed("state_inconsistent", "/executed_at")
    if not rejected:
        if not is_ns_id(d.get("actor_entity_id"), "entity"):
            raise CheckFailed("state_inconsistent", "/actor_entity_id")
        if not is_ns_id(d.get("principal_entity_id"), "entity"):
            raise CheckFailed("state_inconsistent", "/principal_entity_id")
    if "agent_key_thumbprint" not in d:
        raise CheckFailed("malformed_document", "/agent_key_thumbprint")
    thumbprint = d["agent_key_thumbprint"]
    if thumbprint is not None and not _is_digest(thumbprint):
        raise CheckFailed("malformed_document", "/agent_key_thumbprint")
    signed = d.get("agent_signature") is not None
    # a thumbprint names the key that verified the agent's signature: none without one or on a rejection
    if (thumbprint is not None) != (signed and not rejected):
        raise CheckFailed("state_inconsistent", "/agent_key_thumbprint")


def _basket(d: dict) -> None:
    if d.get("kind") != "basket" or d.get("state") == "rejected":
        return
    if d.get("basket_hash") != f"sha-256:{d.get('digest')}":
        raise CheckFailed("basket_mismatch", "/basket_hash")


def _transitions(d: dict) -> None:
    steps = d.get("transitions")
    if not isinstance(steps, list):
        raise CheckFailed("malformed_document", "/transitions")
    expected = ["received", "rejected" if d.get("state") == "rejected" else "verified"]
    if d.get("state") == "executed":
        expected.append("executed")
    if len(steps) != len(expected):
        raise CheckFailed("transitions_invalid", "/transitions")
    previous = None
    for i, step in enumerate(steps):
        if not isinstance(step, dict):
            raise CheckFailed("malformed_document", f"/transitions/{i}")
        if step.get("state") != expected[i]:
            raise CheckFailed("transitions_invalid", f"/transitions/{i}/state")
        if not is_timestamp(step.get("at")):
            raise CheckFailed("malformed_document", f"/transitions/{i}/at")
        if not is_ns_id(step.get("event_id"), "event"):
            raise CheckFailed("malformed_document", f"/transitions/{i}/event_id")
        if not is_ns_id(step.get("audit_ref"), "audit"):
            raise CheckFailed("malformed_document", f"/transitions/{i}/audit_ref")
        at = instant(step["at"])
        if previous is not None and at < previous:
            raise CheckFailed("transitions_invalid", f"/transitions/{i}/at")
        previous = at
    decided = instant(d["decided_at"])
    if decided < instant(d["received_at"]):
        raise CheckFailed("transitions_invalid", "/decided_at")
    if isinstance(d.get("executed_at"), str) and instant(d["executed_at"]) < decided:
        raise CheckFailed("transitions_invalid", "/executed_at")


def _agent_signature_check(artefact: Any, agent_key: Any) -> PreviewCheck:
    """The agent's signature over `{ schema_version, kind, digest, policy_decision_id }` with the caller's agent key
    (under the kid the signature names only so that the lookup finds it), and the thumbprint the service recorded."""
    try:
        signature = artefact.get("agent_signature") if isinstance(artefact, dict) else None
        if not isinstance(signature, dict):
            return PreviewCheck("agent_signature", False, "agent_signature_missing", "/agent_signature")
        statement = {
            "schema_version": PAYLOAD_ARTEFACT_STATEMENT_SCHEMA, "kind": artefact.get("kind"),
            "digest": artefact.get("digest"), "policy_decision_id": artefact.get("policy_decision_id"),
            "signature": signature,
        }
        key_id = signature.get("key_id") if isinstance(signature.get("key_id"), str) else ""
        result = verify_document(statement, {"keys": [{**agent_key, "kid": key_id}]})
        if not result.valid:
            return PreviewCheck("agent_signature", False, "agent_signature_invalid", f"/agent_signature ({result.failure})")
        recorded = artefact.get("agent_key_thumbprint")  # none on a rejected artefact
        if recorded is not None and recorded != jwk_thumbprint(agent_key):
            return PreviewCheck("agent_signature", False, "agent_signature_invalid", "/agent_key_thumbprint")
        return PreviewCheck("agent_signature", True)
    except Exception:  # noqa: BLE001
        return PreviewCheck("agent_signature", False, "malformed_document")


def verify_payload_artefact(
    artefact: Any, trusted: TrustedKeys, *, payload: bytes | str | None = None, agent_key: Any = None
) -> PreviewVerification:
    """`payload`: the bytes the caller holds; their SHA-256 must be the artefact's `digest` (check `payload`).
    `agent_key`: the agent's public JWK the caller trusts; `agent_signature` must verify with it (check
    `agent_signature`), never with a key the artefact names."""
    result = verify_preview_document(artefact, trusted, PAYLOAD_ARTEFACT_SCHEMA, [
        ("shape", _shape), ("state", _state), ("basket", _basket), ("transitions", _transitions),
    ])
    if payload is not None:
        data = payload.encode("utf-8") if isinstance(payload, str) else payload
        digest = encode_b64url(hashlib.sha256(data).digest())
        ok = isinstance(artefact, dict) and artefact.get("digest") == digest
        result.checks.append(PreviewCheck("payload", True) if ok else PreviewCheck("payload", False, "payload_digest_mismatch", "/digest"))
    if agent_key is not None:
        result.checks.append(_agent_signature_check(artefact, agent_key))
    result.valid = all(c.valid for c in result.checks)
    return result
