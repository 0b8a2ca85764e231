"""The rule packs of `snapshot.policy_set` as decide applies them (aar-decide/1.3.0, CONTRACT section 19 "Order"),
ported from core's decide/policy-rules.ts: every `enforce` pack of domain `purchase` in snapshot (activation) order,
rules in order, on the context `{request, facts, dict}` (dict from the pack's own declarations): every matched rule is
collected, the first matched deny and the first matched require_approval are what decide uses. `shadow` packs are
evaluated alone on the same context, never decisive. `generic` packs are never evaluated here.

Attacker assumption: the snapshot may be edited JSON from an evidence pack (the evidence verifier checks each pack's
signature and digest); every member is read defensively. A policy set that cannot be evaluated at all (an obligation
with no canonical JSON form) denies with `policy_set.unreadable`: rules only narrow, the narrowest answer is safe.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..jcs import canonical_json
from ..rules.packs import (PreparedRule, match_pack, prepare_pack, purchase_outcome, rule_diagnostic, rule_dict,
                           rule_facts)
from .js import UNDEFINED, get, is_record


@dataclass
class PolicyOutcome:
    diagnostics: list[dict[str, Any]] = field(default_factory=list)
    deny: PreparedRule | None = None
    approval: PreparedRule | None = None
    #: matched rules' obligations, rule order, deduplicated by canonical JSON
    obligations: list[dict[str, Any]] = field(default_factory=list)
    #: matched rules' stop conditions, rule order, deduplicated
    stop_conditions: list[str] = field(default_factory=list)
    #: None when the policy set holds no shadow pack of the purchase domain
    shadow: list[dict[str, Any]] | None = None


UNREADABLE = PreparedRule(rule_id="policy_set", effect="deny", when=True, in_profile=True,
                          reason="policy_set.unreadable")


def has_policy_set(snapshot: Any) -> bool:
    """Without a `policy_set` member decide runs exactly as 1.2.0."""
    return get(snapshot, "policy_set") is not UNDEFINED


def evaluate_policy_set(request: Any, snapshot: Any) -> PolicyOutcome:
    try:
        return _evaluate(request, snapshot)
    except Exception:  # noqa: BLE001 - fail closed, as core's safeEvaluate
        return PolicyOutcome(deny=UNREADABLE)


def _evaluate(request: Any, snapshot: Any) -> PolicyOutcome:
    policy_set = get(snapshot, "policy_set")
    entries = get(policy_set, "packs") if is_record(policy_set) else []
    entries = entries if isinstance(entries, list) else []
    dictionaries = get(policy_set, "dictionaries") if is_record(policy_set) else UNDEFINED
    facts = rule_facts(snapshot)
    outcome = PolicyOutcome()
    seen: set[str] = set()
    for entry in entries:
        if not is_record(entry) or get(entry, "mode") not in ("enforce", "shadow"):
            continue
        pack = prepare_pack(get(entry, "document"))
        if pack.domain != "purchase":
            continue
        context = {"request": request, "facts": facts, "dict": rule_dict(pack.dictionaries, dictionaries)}
        matches = match_pack(pack, context)
        if entry["mode"] == "shadow":
            if outcome.shadow is None:
                outcome.shadow = []
            outcome.shadow.append({"pack_id": pack.pack_id, "version": pack.version, **purchase_outcome(matches)})
            continue
        for match in matches:
            rule: PreparedRule = match["rule"]
            outcome.diagnostics.append(rule_diagnostic(pack.pack_id, pack.version, match))
            if rule.effect == "deny" and outcome.deny is None:
                outcome.deny = rule
            elif rule.effect == "require_approval" and outcome.approval is None:
                outcome.approval = rule
            for obligation in rule.obligations:
                key = canonical_json(obligation)  # raises on a lone surrogate, as core's canonicalJson throws
                if key not in seen:
                    seen.add(key)
                    outcome.obligations.append(obligation)
            for stop in rule.stop_conditions:
                if stop not in outcome.stop_conditions:
                    outcome.stop_conditions.append(stop)
    return outcome
