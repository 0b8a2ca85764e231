"""Offline verification of an authority proof bundle (CONTRACT section 12), a port of core's verifyBundle: the ten
checks, in their order, on the bundle alone with the caller's JWKS. No clock: every time judged is one the bundle
states, so the server's POST /v1/bundles/verify, `aar verify-bundle` and every SDK answer the same.
Attacker assumption: the bundle is anything at all; every check runs, none raises, each reports its own failure.
Keys come only from `jwks` (a JWKS dict, a lookup by kid, or a JwksSource), never from the bundle."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..jwks import TrustedKeys
from .audit_inclusion import check_audit_inclusion
from .checks import BUNDLE_CHECKS, Outcome, Passed
from .context import BundleContext, read_bundle_context
from .delegation_checks import check_delegation_attenuation, check_delegation_chain_signatures
from .references import check_references_digest
from .replay import check_replay_equal
from .signatures import (check_bundle_signature, check_checkpoint_signature, check_decision_map_signature,
                         check_evidence_pack_signature)
from .temporal import check_temporal_validity

_CHECKS: dict[str, Callable[[BundleContext, "str | None"], Outcome]] = {
    "bundle_signature": check_bundle_signature,
    "references_digest": lambda ctx, _origin: check_references_digest(ctx),
    "decision_map_signature": check_decision_map_signature,
    "evidence_pack_signature": check_evidence_pack_signature,
    "delegation_chain_signatures": check_delegation_chain_signatures,
    "delegation_attenuation": check_delegation_attenuation,
    "checkpoint_signature": check_checkpoint_signature,
    "audit_inclusion": check_audit_inclusion,
    "replay_equal": check_replay_equal,
    "temporal_validity": check_temporal_validity,
}


@dataclass
class BundleVerification:
    """`valid` only when all ten checks passed; `checks` always lists the ten, in order: `{ name, ok, detail? }`."""
    valid: bool
    checks: list[dict[str, Any]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.valid

    def failing(self) -> list[str]:
        """The names of the checks that failed, in order."""
        return [c["name"] for c in self.checks if not c["ok"]]


def verify_bundle(bundle: Any, jwks: TrustedKeys, *, origin: str | None = None) -> BundleVerification:
    """`origin`: the audit log the checkpoints must come from (any, when omitted: the signatures still cover it)."""
    try:
        ctx = read_bundle_context(bundle, jwks)
    except Exception:  # noqa: BLE001 - hostile shapes: every check then reads an empty bundle
        ctx = BundleContext(bundle, jwks, None, None, None, None)
    checks: list[dict[str, Any]] = []
    for name in BUNDLE_CHECKS:
        try:
            outcome = _CHECKS[name](ctx, origin)
        except Exception:  # noqa: BLE001 - only hostile shapes get here: a refusal either way
            outcome = "the bundle cannot be read"
        if outcome is True:
            checks.append({"name": name, "ok": True})
        elif isinstance(outcome, Passed):
            checks.append({"name": name, "ok": True, "detail": outcome.detail})
        else:
            checks.append({"name": name, "ok": False, "detail": str(outcome) if outcome else "failed"})
    return BundleVerification(all(c["ok"] for c in checks), checks)
