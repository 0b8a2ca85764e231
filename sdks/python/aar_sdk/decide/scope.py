"""Grant scopes in decide's form (integer minor units, bare actions), as core's decide/scope-fields.ts,
scope-subset.ts and effective-scope.ts. INVARIANT: a scope that passed `find_malformed_scope_fields` holds only
well-formed values, so the checks read it without guards. Scopes here are dicts holding only the fields that are set."""
from __future__ import annotations

import re
from typing import Any

from .instant import compare_instants, parse_instant
from .js import get, is_record, is_safe_integer, strict_eq
from .refs import is_purchase_action

MONEY_FIELDS = ("max_amount_per_purchase", "max_daily_amount", "requires_approval_above")
ALLOWED_LIST_FIELDS = ("allowed_merchant_categories", "allowed_jurisdictions", "allowed_actions", "allowed_merchants")
KNOWN_FIELDS = (*MONEY_FIELDS, "allowed_merchant_categories", "blocked_merchant_categories", "allowed_jurisdictions",
                "valid_until", "allowed_actions", "may_delegate", "max_delegation_depth", "budget", "allowed_merchants")
# aar-decide/1.4.0: the UTC periods a `budget` counts spend over
BUDGET_PERIODS = ("day", "week", "month", "year", "total")
_CURRENCY = re.compile(r"[A-Z]{3}")


def is_minor_money(value: Any) -> bool:
    return (is_record(value) and isinstance(value.get("currency"), str) and _CURRENCY.fullmatch(value["currency"])
            is not None and is_safe_integer(get(value, "minor")) and value["minor"] >= 0)


def is_budget(value: Any) -> bool:
    """`{ minor, currency, period }` (aar-decide/1.4.0): well-formed money with a known period."""
    period = get(value, "period")
    return is_minor_money(value) and isinstance(period, str) and period in BUDGET_PERIODS


def is_string_array(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def is_non_negative_safe_integer(value: Any) -> bool:
    return is_safe_integer(value) and value >= 0


def find_malformed_scope_fields(scope: Any) -> list[str]:
    if not is_record(scope):
        return ["scope"]
    bad: list[str] = []
    for key in MONEY_FIELDS:
        if key in scope and not is_minor_money(scope[key]):
            bad.append(key)
    for key in ("allowed_merchant_categories", "blocked_merchant_categories", "allowed_jurisdictions"):
        if key in scope and not is_string_array(scope[key]):
            bad.append(key)
    if "allowed_actions" in scope:
        actions = scope["allowed_actions"]
        if not (isinstance(actions, list) and all(is_purchase_action(a) for a in actions)):
            bad.append("allowed_actions")
    if "valid_until" in scope and parse_instant(scope["valid_until"]) is None:
        bad.append("valid_until")
    if "may_delegate" in scope and not isinstance(scope["may_delegate"], bool):
        bad.append("may_delegate")
    if "max_delegation_depth" in scope and not is_non_negative_safe_integer(scope["max_delegation_depth"]):
        bad.append("max_delegation_depth")
    if "budget" in scope and not is_budget(scope["budget"]):
        bad.append("budget")
    if "allowed_merchants" in scope and not is_string_array(scope["allowed_merchants"]):
        bad.append("allowed_merchants")
    return bad


def known_scope_fields(scope: Any) -> dict[str, Any]:
    return {key: scope[key] for key in KNOWN_FIELDS if is_record(scope) and key in scope}


def inherit_scope(parent_effective: dict[str, Any] | None, own: dict[str, Any]) -> dict[str, Any]:
    return {**(parent_effective or {}), **own}


def find_wider_fields(child: dict[str, Any], parent: dict[str, Any]) -> list[str]:
    """INVARIANT: child ⊆ parent; every field in which `child` is wider than its parent's effective scope."""
    wider: list[str] = []
    for key in MONEY_FIELDS:
        c, p = child.get(key), parent.get(key)
        if c is not None and p is not None and (c["currency"] != p["currency"] or c["minor"] > p["minor"]):
            wider.append(key)
    # aar-decide/1.4.0: a budget is no larger than the parent's (same currency), whatever the two periods
    cb, pb = child.get("budget"), parent.get("budget")
    if cb is not None and pb is not None and (cb["currency"] != pb["currency"] or cb["minor"] > pb["minor"]):
        wider.append("budget")
    if "valid_until" in child and "valid_until" in parent:
        c_at, p_at = parse_instant(child["valid_until"]), parse_instant(parent["valid_until"])
        if compare_instants(c_at, p_at) > 0:  # type: ignore[arg-type]
            wider.append("valid_until")
    for key in ALLOWED_LIST_FIELDS:
        c, p = child.get(key), parent.get(key)
        if c is not None and p is not None and not all(item in p for item in c):
            wider.append(key)
    cb, pb = child.get("blocked_merchant_categories"), parent.get("blocked_merchant_categories")
    if cb is not None and pb is not None and not all(item in cb for item in pb):
        wider.append("blocked_merchant_categories")
    if child.get("may_delegate") is True and parent.get("may_delegate") is False:
        wider.append("may_delegate")
    cd, pd = child.get("max_delegation_depth"), parent.get("max_delegation_depth")
    # The child sits one level below: it may allow at most one level less than its parent.
    if cd is not None and pd is not None and cd > pd - 1:
        wider.append("max_delegation_depth")
    return wider


def _unique(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if not any(strict_eq(item, seen) for seen in out):
            out.append(item)
    return out


def compute_effective_scope(scopes: list[dict[str, Any]]) -> dict[str, Any]:
    """The intersection of a chain's scopes (lowest amounts, earliest valid_until, intersected allowed lists, unioned
    blocked lists; aar-decide/1.4.0: the lowest budget with its period, allowed_merchants intersected), lists in order
    of first appearance, root first."""
    out: dict[str, Any] = {}
    for key in MONEY_FIELDS:
        lowest = None
        for scope in scopes:
            value = scope.get(key)
            if value is not None and (lowest is None or value["minor"] < lowest["minor"]):
                lowest = value
        if lowest is not None:
            out[key] = {"minor": lowest["minor"], "currency": lowest["currency"]}
    earliest = None
    for scope in scopes:
        at = parse_instant(scope.get("valid_until"))
        if at and scope.get("valid_until") and (earliest is None or compare_instants(at, earliest[1]) < 0):
            earliest = (scope["valid_until"], at)
    if earliest:
        out["valid_until"] = earliest[0]
    for key in ALLOWED_LIST_FIELDS:
        kept = None
        for scope in scopes:
            lst = scope.get(key)
            if lst is not None:
                kept = _unique([i for i in kept if i in lst] if kept is not None else list(lst))
        if kept is not None:
            out[key] = kept
    if any("blocked_merchant_categories" in s for s in scopes):
        out["blocked_merchant_categories"] = _unique([i for s in scopes for i in s.get("blocked_merchant_categories", [])])
    lowest_budget = None
    for scope in scopes:
        value = scope.get("budget")
        if value is not None and (lowest_budget is None or value["minor"] < lowest_budget["minor"]):
            lowest_budget = value
    if lowest_budget is not None:
        out["budget"] = {"minor": lowest_budget["minor"], "currency": lowest_budget["currency"],
                         "period": lowest_budget["period"]}
    delegable = [s for s in scopes if "may_delegate" in s]
    if delegable:
        out["may_delegate"] = all(s["may_delegate"] is True for s in delegable)
    leaf = len(scopes) - 1
    remaining = None
    for i, scope in enumerate(scopes):
        if "max_delegation_depth" not in scope:
            continue
        left = max(0, scope["max_delegation_depth"] - (leaf - i))
        remaining = left if remaining is None else min(remaining, left)
    if remaining is not None:
        out["max_delegation_depth"] = remaining
    return out
