"""Port of core's `decide(request, snapshot, now)` (packages/core/src/decide/decide.ts, aar-decide/1.5.0): a pure,
deterministic function of its inputs, used here for offline replay of evidence packs. It never raises: a malformed
input fails the check that reads it, and a check that raises fails with that check's fail-closed reason. A snapshot
with a `policy_set` adds its rule packs after checks 1-7 (rule_packs.py); without one the answer is 1.2.0's.

Several grants may cover one request: the snapshot then carries each covering chain (`grants`, then `alternatives`);
every check runs under each chain (`evaluate`) and the most permissive outcome is kept (allow, then
require_approval, then deny), the earliest chain among equals.
"""
from __future__ import annotations

import hashlib
import re
from typing import Any

from .._b64 import encode_b64url
from ..jcs import canonical_json
from .checks import CHECKS, Context
from .instant import parse_instant
from .js import UNDEFINED, get, is_record
from .reason_codes import CHECK_ORDER, decision_of
from .refs import is_purchase_action
from .rule_packs import PolicyOutcome, evaluate_policy_set, has_policy_set
from .scope import compute_effective_scope

BASKET_HASH_PATTERN = re.compile(r"sha-256:[A-Za-z0-9_-]{43}")
ALLOW_STOP_CONDITIONS = ("actor.stop_signal", "delegation.revoked", "scope.attenuated")
MAX_ALTERNATIVES = 32
RANK = {"allow_with_constraints": 0, "require_approval": 1, "deny": 2}

FAIL_CLOSED = {
    "payload": "payload_signature_invalid",
    "entities": "principal_inactive",
    "authority": "authority_not_found",
    "chain": "delegation_invalid",
    "merchant": "merchant_unknown",
    "amount": "amount_above_agent_threshold",
    "risk": "risk_state_blocked",
    "approval": "approval_mismatch",
}


def compute_basket_hash(basket: Any) -> str:
    """`sha-256:` + base64url of SHA-256 over the RFC 8785 JSON of the basket (core's basket-hash.ts; lone
    surrogates are escaped as the `canonicalize` package does)."""
    canonical = canonical_json(basket, escape_lone_surrogates=True)
    return "sha-256:" + encode_b64url(hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).digest())


def _bind_basket(request: dict[str, Any]) -> dict[str, str]:
    given = get(request, "basket_hash")
    if given is not UNDEFINED and not (isinstance(given, str) and BASKET_HASH_PATTERN.fullmatch(given)):
        return {"problem": "basket_hash is not `sha-256:` + base64url"}
    basket = get(request, "basket")
    if basket is UNDEFINED:
        return {} if given is UNDEFINED else {"hash": given}
    try:
        if not is_record(basket):
            raise ValueError("not an object")
        computed = compute_basket_hash(basket)
    except Exception:  # noqa: BLE001
        return {"problem": "basket is not canonical json"}
    if given is not UNDEFINED and given != computed:
        return {"problem": "basket_hash does not match the basket"}
    return {"hash": computed}


def _read_grants(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(is_record(v) for v in value):
        return []
    return value


def _read_alternatives(value: Any) -> list[list[dict[str, Any]]] | None:
    if not isinstance(value, list) or not value:
        return None
    return [_read_grants(chain) for chain in value[:MAX_ALTERNATIVES]]


def _leaf_id(grants: list[dict[str, Any]]) -> str | None:
    leaf_id = get(grants[-1], "grant_id") if grants else UNDEFINED
    return leaf_id if isinstance(leaf_id, str) else None


def _run_check(name: str, ctx: Context) -> dict[str, Any]:
    try:
        return CHECKS[name](ctx)
    except Exception:  # noqa: BLE001 - fail closed, as core's runCheck
        return {"outcome": "fail", "reason": FAIL_CLOSED[name], "detail": "malformed input"}


def evaluate(request: dict[str, Any], snapshot: dict[str, Any], now: Any, action: str | None,
             basket: dict[str, str], grants: list[dict[str, Any]]) -> dict[str, Any]:
    """Every check under one chain: what decide answers when `grants` is the only candidate."""
    ctx = Context(request=request, snapshot=snapshot, now=now, action=action, basket=basket, grants=grants)
    checks: list[dict[str, Any]] = []
    decisive: str | None = None
    approved = False
    for name in CHECK_ORDER[:-1]:
        if decisive is not None:
            checks.append({"check": name, "outcome": "skip"})
            continue
        verdict = _run_check(name, ctx)
        checks.append({"check": name, **verdict})
        if verdict["outcome"] == "fail":
            decisive = verdict["reason"]
    # Rule packs (aar-decide/1.3.0) run once checks 1-7 passed, or only the elevated-risk check failed; they only
    # narrow: the first matched deny decides, else elevated risk stands, else a matched require_approval asks unless
    # the request is the retry of an approval, which the approval check then judges as always.
    rules: PolicyOutcome | None = None
    ruled: tuple[str, str] | None = None  # (decision, reason) a rule decided
    if has_policy_set(snapshot) and (decisive is None or decisive == "risk_state_elevated"):
        rules = evaluate_policy_set(request, snapshot)
        if rules.deny is not None:
            ruled = ("deny", rules.deny.reason)
        elif decisive is None and rules.approval is not None and get(request, "policy_decision_id") is UNDEFINED:
            ruled = ("require_approval", rules.approval.reason)
    if decisive is not None or ruled is not None:
        checks.append({"check": "approval", "outcome": "skip"})
    else:
        verdict = _run_check("approval", ctx)
        checks.append({"check": "approval", **verdict})
        if verdict["outcome"] == "fail":
            decisive = verdict["reason"]
        elif verdict.get("reason") == "approved_by_principal":
            approved = True
    if ruled is not None:
        decision, reason = ruled
    else:
        reason = decisive or ("approved_by_principal" if approved else "scope_within_attenuated_authority")
        decision = decision_of(reason)
    obligations: list[dict[str, Any]] = [{"type": "audit.emit"}]
    # A deny authorises nothing, so there is no basket to hold the caller to (aar-decide/1.2.0).
    if basket.get("hash") and decision != "deny":
        obligations.append({"type": "basket_hash_binding", "basket_hash": basket["hash"]})
    stop_conditions = list(ALLOW_STOP_CONDITIONS) if decision == "allow_with_constraints" else []
    if rules is not None:
        if decision != "deny":
            listed = {canonical_json(o) for o in obligations}
            obligations += [o for o in rules.obligations if canonical_json(o) not in listed]
        if decision == "allow_with_constraints":
            stop_conditions += [s for s in rules.stop_conditions if s not in stop_conditions]
    diagnostics: dict[str, Any] = {"checks": checks}
    leaf_id = _leaf_id(grants)
    if leaf_id is not None:
        diagnostics["grant_id"] = leaf_id
    if rules is not None:
        diagnostics["rules"] = list(rules.diagnostics)
    result: dict[str, Any] = {
        "decision": decision,
        "reason": reason,
        "obligations": obligations,
        "stop_conditions": stop_conditions,
        "diagnostics": diagnostics,
    }
    if rules is not None and rules.shadow is not None:
        result["shadow"] = [dict(outcome) for outcome in rules.shadow]
    amount = get(request, "amount")
    if decision == "allow_with_constraints" and action == "execute" and amount is not UNDEFINED and _truthy(amount):
        result["reservation"] = {
            "amount": {"minor": amount["minor"], "currency": amount["currency"]},
            "grant_ids": [get(g, "grant_id") for g in grants],
        }
    if ctx.scopes is not None:
        result["effective_scope"] = compute_effective_scope(ctx.scopes)
    return result


def _truthy(value: Any) -> bool:
    """JavaScript truthiness of a JSON value."""
    if value is None or value is False or value is UNDEFINED:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0 and value == value
    if isinstance(value, str):
        return value != ""
    return True


def decide(request: Any, snapshot: Any, now: Any) -> dict[str, Any]:
    """Decides one request; `now` is an ISO 8601 timestamp (an invalid one fails every time-dependent check)."""
    req = request if is_record(request) else {}
    snap = snapshot if is_record(snapshot) else {}
    at = parse_instant(now)
    action = get(req, "action") if is_purchase_action(get(req, "action")) else None
    try:
        basket = _bind_basket(req)
    except Exception:  # noqa: BLE001
        basket = {"problem": "request is malformed"}
    first = _read_grants(get(snap, "grants"))
    alternatives = _read_alternatives(get(snap, "alternatives"))
    if alternatives is None:
        return evaluate(req, snap, at, action, basket, first)
    chains = [first, *alternatives]
    results = [evaluate(req, snap, at, action, basket, chain) for chain in chains]
    chosen = 0
    for i, result in enumerate(results):
        if RANK[result["decision"]] < RANK[results[chosen]["decision"]]:
            chosen = i
    kept = results[chosen]
    kept["diagnostics"]["candidates"] = [
        {"grant_id": _leaf_id(chain), "decision": r["decision"], "reason": r["reason"]} for chain, r in zip(chains, results)
    ]
    kept["diagnostics"]["chosen_candidate"] = chosen
    return kept
