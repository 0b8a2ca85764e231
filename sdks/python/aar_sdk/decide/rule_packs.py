"""The rule packs of a snapshot's `policy_set` as decide evaluates them (aar-decide/1.3.0, DESIGN-27 section 4): every
`enforce` pack of domain `purchase` in activation order, rules in order, on the rule context `{request, facts, dict}`
(dict from the pack's own declarations); every `shadow` pack alone on the same context. `generic` packs are never
evaluated by purchase decide.

Attacker assumption: the snapshot may be edited JSON from an evidence pack (the evidence verifier checks each pack's
signature and digest); every member is read defensively and nothing here raises.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..rules.packs import match_pack, prepare_pack, purchase_outcome, rule_diagnostic, rule_dict, rule_facts
from .js import get, is_record


@dataclass
class RuleVerdict:
    """The enforce packs' matched rules (in order, with their pack) and each shadow pack's would-be outcome."""
    matched: list[dict[str, Any]] = field(default_factory=list)
    shadow: list[dict[str, Any]] = field(default_factory=list)

    def first(self, effect: str) -> dict[str, Any] | None:
        return next((m for m in self.matched if m["rule"].effect == effect), None)

    def diagnostics(self) -> list[dict[str, Any]]:
        return [rule_diagnostic(m["pack"].pack_id, m["pack"].version, m) for m in self.matched]


def policy_packs(snapshot: Any) -> list[dict[str, Any]] | None:
    """`snapshot.policy_set.packs` as `{mode, pack}`, or None when the snapshot has no policy set."""
    policy_set = get(snapshot, "policy_set")
    if not is_record(policy_set):
        return None
    packs = get(policy_set, "packs")
    out = []
    for entry in packs if isinstance(packs, list) else []:
        if is_record(entry) and get(entry, "mode") in ("enforce", "shadow"):
            out.append({"mode": entry["mode"], "pack": prepare_pack(get(entry, "document"))})
    return out


def evaluate_rule_packs(request: Any, snapshot: Any, packs: list[dict[str, Any]]) -> RuleVerdict:
    dictionaries = get(get(snapshot, "policy_set"), "dictionaries")
    facts = rule_facts(snapshot)
    verdict = RuleVerdict()
    for entry in packs:
        pack = entry["pack"]
        if pack.domain != "purchase":
            continue
        context = {"request": request, "facts": facts, "dict": rule_dict(pack.dictionaries, dictionaries)}
        matches = [{**m, "pack": pack} for m in match_pack(pack, context)]
        if entry["mode"] == "enforce":
            verdict.matched.extend(matches)
        else:
            verdict.shadow.append({"pack_id": pack.pack_id, "version": pack.version, **purchase_outcome(matches)})
    return verdict
