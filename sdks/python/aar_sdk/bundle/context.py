"""What the ten checks read, taken out of the bundle once (core's bundle-context.ts). Attacker assumption: the bundle
is arbitrary JSON (parts missing, swapped, of another decision). Nothing here raises: a member that is not what it
should be reads as MISSING and the checks that need it fail naming it. The decision's facts come from the evidence
pack (its signature and audit entry bind them to the write-once chain); the other parts are checked against them."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..delegation import ChainResult, verify_delegation_chain
from ..jwks import TrustedKeys
from .checks import MISSING, own


@dataclass
class BundleContext:
    bundle: Any
    jwks: TrustedKeys
    pack: dict[str, Any] | None
    # the pack's `now`: the instant the decision was made
    decided_at: str | None
    # grant ids of the chain that decided, root first; [] when the decision read no grant; None: unreadable
    deciding_chain: list[str] | None
    # verify_delegation_chain at decision time, when the bundle carries a chain
    chain: ChainResult | None

    def part(self, name: str) -> Any:
        return own(self.bundle, name)


def read_bundle_context(bundle: Any, jwks: TrustedKeys) -> BundleContext:
    pack_value = own(bundle, "evidence_pack")
    pack = pack_value if isinstance(pack_value, dict) else None
    now = own(pack, "now")
    decided_at = now if isinstance(now, str) else None
    chain_doc = own(bundle, "delegation_chain")
    chain = verify_delegation_chain(chain_doc, jwks, decided_at) \
        if isinstance(chain_doc, dict) and decided_at is not None else None
    return BundleContext(bundle, jwks, pack, decided_at, deciding_chain_of(pack), chain)


def deciding_chain_of(pack: dict[str, Any] | None) -> list[str] | None:
    """The grant ids (root first) of the chain that decided: the one among the snapshot's `grants` and
    `alternatives` whose leaf the decision names (`diagnostics.grant_id`); [] when no grant was read."""
    snapshot = own(pack, "snapshot")
    grants = own(snapshot, "grants")
    if not isinstance(grants, list):
        return None
    alternatives = own(snapshot, "alternatives")
    chains = [grants, *(alternatives if isinstance(alternatives, list) else [])]
    leaf = own(own(own(pack, "decision"), "diagnostics"), "grant_id")

    def ids(chain: Any) -> list[Any]:
        return [own(g, "grant_id") if isinstance(g, dict) else MISSING for g in chain] if isinstance(chain, list) else []

    if leaf is MISSING:
        if not grants:
            return []
        found = ids(grants)
    else:
        found = next((c for c in map(ids, chains) if c and c[-1] == leaf), None)  # type: ignore[assignment]
    return found if found is not None and all(isinstance(i, str) for i in found) else None
