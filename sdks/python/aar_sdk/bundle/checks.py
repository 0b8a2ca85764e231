"""The names the bundle format fixes (core's bundle-document.ts and bundle-verification.ts): the ten checks in the
order every verifier answers them, and the twelve parts in the order `references` lists them with their schemas."""
from __future__ import annotations

from typing import Any, Union

AUTHORITY_PROOF_BUNDLE_SCHEMA = "ns.authority_proof_bundle.v1"
STATE_SNAPSHOT_SCHEMA = "ns.state_snapshot.v1"
RUNTIME_DECISION_SCHEMA = "ns.runtime_decision.v1"

BUNDLE_CHECKS = (
    "bundle_signature",
    "references_digest",
    "decision_map_signature",
    "evidence_pack_signature",
    "delegation_chain_signatures",
    "delegation_attenuation",
    "checkpoint_signature",
    "audit_inclusion",
    "replay_equal",
    "temporal_validity",
)

BUNDLE_PARTS = (
    ("purpose_manifest", "ns.purpose_manifest.v1"),
    ("scope_snapshot", "ns.scope_snapshot.v1"),
    ("state_snapshot", STATE_SNAPSHOT_SCHEMA),
    ("runtime_decision", RUNTIME_DECISION_SCHEMA),
    ("decision_map", "ns.decision_map.v1"),
    ("evidence_pack", "ns.evidence_pack.v1"),
    ("delegation_chain", "ns.delegation_chain.v1"),
    ("replay_proof", "ns.replay_proof.v1"),
    ("checkpoint", "ns.checkpoint.v1"),
    ("inclusion_proof", "ns.inclusion_proof.v1"),
    ("rule_pack_refs", "ns.rule_pack_refs.v1"),
    ("conformance_profiles", "ns.conformance_profiles.v1"),
)


class Passed:
    """A passing outcome that says what it saw."""

    def __init__(self, detail: str) -> None:
        self.detail = detail


# True (passed), a string (why it failed), or Passed(detail)
Outcome = Union[bool, str, Passed]


class _Missing:
    """A member the JSON does not have, as distinct from one that is `null` (core's undefined)."""

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


def own(value: Any, name: str) -> Any:
    """`value[name]` when value is an object that has the member, else MISSING."""
    return value.get(name, MISSING) if isinstance(value, dict) else MISSING
