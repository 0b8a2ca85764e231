"""The closed lists of decisions, checks and reason codes of CONTRACT section 3 (core's decide/reason-codes.ts)."""
from __future__ import annotations

CHECK_ORDER = ("payload", "entities", "authority", "chain", "merchant", "amount", "risk", "approval")

REASON_CODES: dict[str, tuple[str, str]] = {
    "payload_signature_missing": ("deny", "payload"),
    "payload_signature_invalid": ("deny", "payload"),
    "payload_stale": ("deny", "payload"),
    "payload_replayed": ("deny", "payload"),
    "principal_inactive": ("deny", "entities"),
    "actor_inactive": ("deny", "entities"),
    "instrument_inactive": ("deny", "entities"),
    "instrument_not_bound": ("deny", "entities"),
    # aar-decide/1.5.0: the request's agent metadata is not the attested one (right after the actor)
    "agent_metadata_mismatch": ("deny", "entities"),
    "authority_not_found": ("deny", "authority"),
    "capability_not_granted": ("deny", "authority"),
    "authority_revoked": ("deny", "chain"),
    "authority_expired": ("deny", "chain"),
    "delegation_invalid": ("deny", "chain"),
    "mandate_revoked": ("deny", "chain"),
    "mandate_expired": ("deny", "chain"),
    "allowance_used": ("deny", "chain"),
    "merchant_unknown": ("deny", "merchant"),
    "merchant_not_allowed": ("deny", "merchant"),
    "merchant_category_blocked": ("deny", "merchant"),
    "merchant_category_not_allowed": ("deny", "merchant"),
    "jurisdiction_not_allowed": ("deny", "merchant"),
    "currency_mismatch": ("deny", "amount"),
    "amount_above_agent_threshold": ("deny", "amount"),
    "daily_limit_exceeded": ("deny", "amount"),
    "budget_exceeded": ("deny", "amount"),
    "risk_state_blocked": ("deny", "risk"),
    "risk_state_elevated": ("require_approval", "risk"),
    "amount_above_approval_threshold": ("require_approval", "approval"),
    "approval_pending": ("require_approval", "approval"),
    "approval_rejected": ("deny", "approval"),
    "approval_expired": ("deny", "approval"),
    "approval_mismatch": ("deny", "approval"),
    "approved_by_principal": ("allow_with_constraints", "conclusion"),
    "scope_within_attenuated_authority": ("allow_with_constraints", "conclusion"),
}


def decision_of(reason: str) -> str:
    return REASON_CODES[reason][0]
