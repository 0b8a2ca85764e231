"""Verification of a signed decision map (`ns.decision_map.v1`, CONTRACT sections 4 and 11): its Ed25519 signature
against the trusted keys, its shape (the seven nodes in the spec's order), and, when the caller passes the authorize
response or decision it came with, that the map states the same decision, reason and decision id."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .jwks import TrustedKeys
from .signed_document import verify_document

DECISION_MAP_SCHEMA = "ns.decision_map.v1"
NODE_TYPES = ("principal", "delegation", "actor", "capability", "scope", "state", "policy")


@dataclass
class DecisionMapResult:
    valid: bool
    failure: str | None = None
    key_id: str | None = None

    def __bool__(self) -> bool:
        return self.valid


def verify_decision_map(decision_map: Any, trusted: TrustedKeys, *, expected: dict[str, Any] | None = None) -> DecisionMapResult:
    """`expected`: e.g. the authorize response (`decision`, `reason`, `policy_decision_id`) the map must agree with."""
    signature = verify_document(decision_map, trusted)
    if not signature.valid:
        return DecisionMapResult(False, signature.failure, signature.key_id)
    if decision_map.get("schema_version") != DECISION_MAP_SCHEMA:
        return DecisionMapResult(False, "malformed_map", signature.key_id)
    nodes = decision_map.get("nodes")
    if not isinstance(nodes, list) or [n.get("type") if isinstance(n, dict) else None for n in nodes] != list(NODE_TYPES):
        return DecisionMapResult(False, "malformed_map", signature.key_id)
    if expected is not None:
        for name in ("decision", "reason", "policy_decision_id"):
            if name in expected and decision_map.get(name) != expected[name]:
                return DecisionMapResult(False, "decision_mismatch", signature.key_id)
    return DecisionMapResult(True, None, signature.key_id)
