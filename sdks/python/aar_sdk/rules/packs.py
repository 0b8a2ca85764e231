"""Rule packs (`ns.rule_pack.v1`, CONTRACT section 19) as decide, a pack's own tests and the generic domain evaluate
them, ported from core's rules/rule-context.ts, evaluate-pack.ts, run-pack-tests.ts and dictionary-snapshot.ts.

Attacker assumption: a pack in a replayed snapshot was signed and profile-checked at publish, but the snapshot may
have been edited (the evidence verifier then fails on its signature). Reading never raises; a rule that cannot act
(not an object, an effect its domain does not allow, a deciding effect without a `<name>.<code>` reason) is ignored;
a rule whose `when` is outside the profile is never evaluated and counts as an evaluation error: matched for the
narrowing effects (fail closed), unmatched for `permit`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..decide.js import UNDEFINED, get, is_record
from .coerce import truthy
from .digest import policy_document_digest
from .jsonlogic import apply
from .names import DICTIONARY_PREFIX, RULE_PACK_PREFIX, name_of_id, parse_reference
from .profile import check_rule_profile

EFFECTS = {"purchase": ("deny", "require_approval", "obligate"), "generic": ("permit", "deny")}

__all__ = ["PreparedRule", "PreparedPack", "prepare_pack", "match_pack", "purchase_outcome", "generic_outcome",
           "rule_facts", "rule_dict", "build_rule_context", "evaluate_rule", "run_pack_tests", "dictionary_snapshot",
           "rule_diagnostic", "decide_generic"]


@dataclass
class PreparedRule:
    rule_id: str
    effect: str
    when: Any
    in_profile: bool
    reason: str | None = None
    obligations: list[dict[str, Any]] = field(default_factory=list)
    stop_conditions: list[str] = field(default_factory=list)


@dataclass
class PreparedPack:
    pack_id: str
    version: str
    name: str | None
    domain: str | None
    dictionaries: Any
    rules: list[PreparedRule]


def _null(value: Any) -> Any:
    """JS `value ?? null`."""
    return None if value is UNDEFINED else value


def prepare_pack(doc: Any) -> PreparedPack:
    """The pack read for evaluation (core's preparePack)."""
    if not is_record(doc):
        return PreparedPack("", "", None, None, [], [])
    domain = doc.get("domain") if doc.get("domain") in EFFECTS else None
    rules = []
    if domain is not None and isinstance(doc.get("rules"), list):
        rules = [r for r in (_read_rule(rule, domain) for rule in doc["rules"]) if r is not None]
    return PreparedPack(
        pack_id=doc["pack_id"] if isinstance(doc.get("pack_id"), str) else "",
        version=doc["version"] if isinstance(doc.get("version"), str) else "",
        name=name_of_id(doc.get("pack_id"), RULE_PACK_PREFIX), domain=domain,
        dictionaries=doc.get("dictionaries", UNDEFINED), rules=rules)


def _read_rule(rule: Any, domain: str) -> PreparedRule | None:
    if not is_record(rule) or not isinstance(rule.get("rule_id"), str):
        return None
    effect = rule.get("effect")
    if not isinstance(effect, str) or effect not in EFFECTS[domain]:
        return None
    obligations = rule.get("obligations")
    stops = rule.get("stop_conditions")
    ready = PreparedRule(
        rule_id=rule["rule_id"], effect=effect, when=rule.get("when", UNDEFINED),
        in_profile="when" in rule and not check_rule_profile(rule["when"], ""),
        obligations=[o for o in obligations if is_record(o) and isinstance(o.get("type"), str)]
        if isinstance(obligations, list) else [],
        stop_conditions=[s for s in stops if isinstance(s, str)] if isinstance(stops, list) else [])
    if effect in ("deny", "require_approval"):
        reason = rule.get("reason")
        if not isinstance(reason, str) or reason.find(".") <= 0:
            return None
        ready.reason = reason
    return ready


def evaluate_rule(expr: Any, context: Any) -> dict[str, Any]:
    """`{matched}`; `{matched: True, error: True}` when json-logic-js would throw (fail closed)."""
    try:
        return {"matched": truthy(apply(expr, context))}
    except Exception:  # noqa: BLE001 - every throw of the evaluator, a stack overflow included
        return {"matched": True, "error": True}


def match_pack(pack: PreparedPack, context: Any) -> list[dict[str, Any]]:
    """Every matched rule of the pack in rule order: `{rule, error?}`."""
    matches = []
    for rule in pack.rules:
        evaluation = evaluate_rule(rule.when, context) if rule.in_profile else {"matched": True, "error": True}
        if evaluation.get("error"):
            if rule.effect != "permit":
                matches.append({"rule": rule, "error": True})
        elif evaluation["matched"]:
            matches.append({"rule": rule})
    return matches


def purchase_outcome(matches: list[dict[str, Any]]) -> dict[str, Any]:
    """A purchase pack alone: first deny, else first require_approval, else obligate, else none."""
    for effect in ("deny", "require_approval"):
        hit = next((m for m in matches if m["rule"].effect == effect), None)
        if hit is not None:
            return {"effect": effect, "reason": hit["rule"].reason}
    return {"effect": "obligate" if any(m["rule"].effect == "obligate" for m in matches) else "none"}


def generic_outcome(matches: list[dict[str, Any]]) -> dict[str, Any]:
    """A generic pack alone: any deny (its first reason), else permit when one matched, else none."""
    hit = next((m for m in matches if m["rule"].effect == "deny"), None)
    if hit is not None:
        return {"effect": "deny", "reason": hit["rule"].reason}
    return {"effect": "permit" if any(m["rule"].effect == "permit" for m in matches) else "none"}


def rule_diagnostic(pack_id: str, version: str, match: dict[str, Any]) -> dict[str, Any]:
    rule: PreparedRule = match["rule"]
    diagnostic = {"pack_id": pack_id, "version": version, "rule_id": rule.rule_id, "effect": rule.effect,
                  "matched": True}
    if match.get("error"):
        diagnostic["error"] = True
    return diagnostic


def rule_facts(snapshot: Any) -> dict[str, Any]:
    """`facts` of the rule context; a member the snapshot lacks reads as null."""
    snap = snapshot if is_record(snapshot) else {}
    merchant = snap.get("merchant", UNDEFINED)
    recorded = snap.get("facts") if is_record(snap.get("facts")) else {}
    return {
        "principal": _null(snap.get("principal", UNDEFINED)),
        "actor": _null(snap.get("actor", UNDEFINED)),
        "instrument": _null(snap.get("instrument", UNDEFINED)),
        "merchant": {k: _null(merchant.get(k, UNDEFINED)) for k in ("merchant_id", "category", "jurisdiction", "state")}
        if is_record(merchant) else None,
        "counters": _null(recorded.get("counters", UNDEFINED)),
        "local_time": _null(recorded.get("local_time", UNDEFINED)),
    }


def rule_dict(refs: Any, dictionaries: Any) -> dict[str, Any]:
    """`dict` for a pack declaring `refs`: each declared dictionary `dictionaries` holds under its name at the declared
    version; one it lacks is absent (a rule reading it reads null)."""
    out: dict[str, Any] = {}
    if not isinstance(refs, list) or not is_record(dictionaries):
        return out
    for ref in refs:
        parsed = parse_reference(ref, DICTIONARY_PREFIX)
        if parsed is None or parsed["name"] not in dictionaries:
            continue
        snap = dictionaries[parsed["name"]]
        if not is_record(snap) or snap.get("version") != parsed["version"]:
            continue
        out[parsed["name"]] = {"codes": snap.get("codes", UNDEFINED), "terms": snap.get("terms", UNDEFINED)}
    return out


def build_rule_context(request: Any, snapshot: Any, dictionaries: dict[str, Any] | None = None) -> dict[str, Any]:
    """`{request, facts, dict}` with every dictionary of `dictionaries` (by name)."""
    dict_ = {name: {"codes": s["codes"], "terms": s["terms"]} for name, s in (dictionaries or {}).items()}
    return {"request": request, "facts": rule_facts(snapshot), "dict": dict_}


def dictionary_snapshot(doc: dict[str, Any]) -> dict[str, Any]:
    """A published dictionary as a snapshot carries it (core's dictionarySnapshot)."""
    codes, terms = [], {}
    for term in doc["terms"]:
        codes.append(term["code"])
        terms[term["code"]] = {k: v for k, v in term.items() if k != "code"}
    return {"dictionary_id": doc["dictionary_id"], "version": doc["version"], "digest": policy_document_digest(doc),
            "codes": codes, "terms": terms}


def run_pack_tests(doc: dict[str, Any], dictionaries: dict[str, Any]) -> dict[str, Any]:
    """The pack's own `tests` (core's runPackTests): each case's `{request, facts}` plus the pack's declared
    dictionaries (`dictionaries` by name, as `dictionary_snapshot` gives them), evaluated by the pack alone exactly as
    decide evaluates it; effect and, when the case gives one, reason must match.
    Returns `{passed, failed, results: [{name, passed, actual, expected}]}`."""
    pack = prepare_pack(doc)
    dict_ = rule_dict(doc.get("dictionaries"), dictionaries)
    results = []
    tests = doc.get("tests")
    for test in tests if isinstance(tests, list) else []:
        given = get(test, "context")
        given = given if is_record(given) else {}
        context = {"request": _null(given.get("request", UNDEFINED)), "facts": _null(given.get("facts", UNDEFINED)),
                   "dict": dict_}
        matches = match_pack(pack, context)
        actual = generic_outcome(matches) if pack.domain == "generic" else purchase_outcome(matches)
        expected = get(test, "expect")
        ok = is_record(expected) and actual["effect"] == expected.get("effect") and (
            "reason" not in expected or actual.get("reason") == expected["reason"])
        results.append({"name": get(test, "name"), "passed": ok, "actual": actual, "expected": expected})
    passed = sum(1 for r in results if r["passed"])
    return {"passed": passed, "failed": len(results) - passed, "results": results}


def decide_generic(packs: list[Any], context: dict[str, Any], dictionaries: dict[str, Any] | None = None) -> dict[str, Any]:
    """The generic domain (core's decideGeneric): deny overrides, default deny; `permit` only when some permit rule
    matched and no deny rule did. `dict` is filled per pack from `dictionaries` when given, else the context's own is
    used; packs of another domain are skipped. Returns `{decision, reason?, rules}`."""
    rules: list[dict[str, Any]] = []
    deny: dict[str, Any] | None = None
    permit = False
    for doc in packs:
        pack = prepare_pack(doc)
        if pack.domain != "generic":
            continue
        ctx = {**context, "dict": rule_dict(pack.dictionaries, dictionaries)} if dictionaries is not None else context
        for match in match_pack(pack, ctx):
            rules.append(rule_diagnostic(pack.pack_id, pack.version, match))
            if match["rule"].effect == "deny":
                deny = deny or match
            else:
                permit = True
    if deny is not None:
        return {"decision": "deny", "reason": deny["rule"].reason, "rules": rules}
    return {"decision": "permit" if permit else "deny", "rules": rules}
