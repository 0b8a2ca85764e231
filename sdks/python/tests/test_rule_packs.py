"""decide with rule packs (aar-decide/1.3.0): TypeScript's results on `vectors/rule-decisions.json` reproduced exactly,
the order of DESIGN-27 section 4 on hand-made snapshots, and every shipped pack's own tests."""
import copy
import json

import pytest

from aar_sdk.decide import decide
from aar_sdk.jcs import canonical_json
from aar_sdk.rules.packs import dictionary_snapshot, run_pack_tests
from aar_sdk.signed_document import verify_document
from conftest import ROOT, VECTORS, load

RULE_DECISIONS = VECTORS / "rule-decisions.json"
POLICY = ROOT / "packages" / "server" / "policy"
SHIPPED_PACKS = sorted((POLICY / "rule-packs").glob("*.json"))
BASE = load(VECTORS / "decisions" / "allow-execute-eur-root-grant.json")["input"]


@pytest.mark.skipif(not RULE_DECISIONS.exists(), reason="NOTICE: vectors/rule-decisions.json not generated yet")
def test_rule_decisions_match_typescript_exactly():
    vectors = load(RULE_DECISIONS)
    cases = vectors["cases"]
    assert vectors["count"] == len(cases) == 42
    mismatches = []
    for case in cases:
        got = decide(case["request"], case["snapshot"], case["now"])
        if canonical_json(got) != canonical_json(case["result"]):
            mismatches.append(case["name"])
    assert mismatches == []
    # the packs are signed documents that verify against the vectors' key, but for the one edited snapshot
    failures = {(c["name"], verify_document(p["document"], vectors["jwks"]).failure)
                for c in cases for p in (c["snapshot"].get("policy_set") or {}).get("packs", [])}
    assert {f for f in failures if f[1] is not None} == {
        ("a rule outside the profile (edited snapshot) counts as an error match", "signature_mismatch")}
    # the set reaches every outcome a rule can give, shadow and error included
    results = [c["result"] for c in cases]
    assert {r["decision"] for r in results} == {"allow_with_constraints", "require_approval", "deny"}
    assert any("shadow" in r for r in results)
    assert any(d.get("error") for r in results for d in r["diagnostics"].get("rules", []))


def rule(rule_id, when, effect, reason=None, **extra):
    out = {"rule_id": rule_id, "title": rule_id, "description": rule_id, "when": when, "effect": effect, **extra}
    if reason:
        out["reason"] = reason
    return out


def pack(name, rules, dictionaries=()):
    return {"schema_version": "ns.rule_pack.v1", "pack_id": f"ns:rule_pack:{name}", "version": "1.0.0",
            "domain": "purchase", "title": name, "description": name, "dictionaries": list(dictionaries),
            "rules": rules, "tests": []}


def with_packs(*entries, dictionaries=None, snapshot=None, counters=None):
    snap = copy.deepcopy(snapshot or BASE["snapshot"])
    snap["policy_set"] = {"packs": [{"activation_id": f"ns:rule_activation:{i}", "mode": mode, "document": doc}
                                    for i, (mode, doc) in enumerate(entries)], "dictionaries": dictionaries or {}}
    if counters is not None:
        snap["facts"] = {"counters": counters}
    return snap


OVER_40 = {">": [{"var": "request.amount.minor"}, 4000]}
VELOCITY = pack("velocity", [rule("hourly", {">=": [{"var": "facts.counters.purchases_1h"}, 5]}, "deny",
                                  "velocity.hourly_count_exceeded")])
STEP_UP = pack("step_up", [rule("big", OVER_40, "require_approval", "step_up.large_purchase")])
RECEIPT = pack("receipt", [rule("r", OVER_40, "obligate", obligations=[{"type": "receipt.itemised"}],
                                stop_conditions=["merchant.changed"])])
COUNTERS = {"purchases_1h": 5, "purchases_24h": 5, "spend_24h_minor": 0, "spend_30d_minor": 0,
            "merchant_first_purchase": False, "agent_purchases_1h": 0, "agent_purchases_24h": 0}


def test_without_a_policy_set_the_answer_is_unchanged():
    plain = decide(BASE["request"], BASE["snapshot"], BASE["now"])
    assert "rules" not in plain["diagnostics"] and "shadow" not in plain
    empty = decide(BASE["request"], with_packs(), BASE["now"])
    assert empty["decision"] == plain["decision"] and empty["diagnostics"]["rules"] == []


def test_a_deny_rule_decides_with_its_own_reason():
    got = decide(BASE["request"], with_packs(("enforce", VELOCITY), counters=COUNTERS), BASE["now"])
    assert (got["decision"], got["reason"]) == ("deny", "velocity.hourly_count_exceeded")
    assert got["stop_conditions"] == [] and got["obligations"] == [{"type": "audit.emit"}]
    assert got["diagnostics"]["checks"][-1] == {"check": "approval", "outcome": "skip"}
    assert got["diagnostics"]["rules"] == [{"pack_id": "ns:rule_pack:velocity", "version": "1.0.0",
                                            "rule_id": "hourly", "effect": "deny", "matched": True}]
    below = dict(COUNTERS, purchases_1h=4)
    assert decide(BASE["request"], with_packs(("enforce", VELOCITY), counters=below), BASE["now"])["decision"] == \
        "allow_with_constraints"


def test_missing_counters_read_as_null_and_an_error_rule_matches():
    # no facts: purchases_1h reads null, null >= 5 is false
    assert decide(BASE["request"], with_packs(("enforce", VELOCITY)), BASE["now"])["decision"] == "allow_with_constraints"
    broken = pack("broken", [rule("bad", {"missing_some": [1, {"var": "x"}]}, "deny", "broken.cannot_tell")])
    got = decide(BASE["request"], with_packs(("enforce", broken)), BASE["now"])
    assert (got["decision"], got["reason"]) == ("deny", "broken.cannot_tell")
    assert got["diagnostics"]["rules"][0]["error"] is True


def test_require_approval_rule_asks_and_the_approval_retry_is_judged_by_the_approval():
    got = decide(BASE["request"], with_packs(("enforce", STEP_UP)), BASE["now"])
    assert (got["decision"], got["reason"]) == ("require_approval", "step_up.large_purchase")
    retry = dict(BASE["request"], policy_decision_id="ns:policy_decision:missing")
    got = decide(retry, with_packs(("enforce", STEP_UP)), BASE["now"])
    assert (got["decision"], got["reason"]) == ("deny", "approval_mismatch")


def test_first_deny_wins_over_require_approval_across_packs():
    got = decide(BASE["request"], with_packs(("enforce", STEP_UP), ("enforce", VELOCITY), counters=COUNTERS),
                 BASE["now"])
    assert got["reason"] == "velocity.hourly_count_exceeded"
    assert [r["rule_id"] for r in got["diagnostics"]["rules"]] == ["big", "hourly"]


def test_obligations_and_stop_conditions_are_added_when_allowed():
    got = decide(BASE["request"], with_packs(("enforce", RECEIPT), ("enforce", RECEIPT)), BASE["now"])
    assert got["decision"] == "allow_with_constraints"
    assert got["obligations"][-1] == {"type": "receipt.itemised"}
    assert [o["type"] for o in got["obligations"]].count("receipt.itemised") == 1
    assert got["stop_conditions"] == ["actor.stop_signal", "delegation.revoked", "scope.attenuated", "merchant.changed"]


def test_a_shadow_pack_records_and_never_decides():
    got = decide(BASE["request"], with_packs(("shadow", VELOCITY), ("shadow", STEP_UP), counters=COUNTERS),
                 BASE["now"])
    assert got["decision"] == "allow_with_constraints" and got["diagnostics"]["rules"] == []
    assert got["shadow"] == [
        {"pack_id": "ns:rule_pack:velocity", "version": "1.0.0", "effect": "deny",
         "reason": "velocity.hourly_count_exceeded"},
        {"pack_id": "ns:rule_pack:step_up", "version": "1.0.0", "effect": "require_approval",
         "reason": "step_up.large_purchase"}]


def test_a_built_in_deny_stops_rules_and_generic_packs_never_run():
    snap = with_packs(("enforce", STEP_UP), ("shadow", VELOCITY), counters=COUNTERS)
    snap["merchant"]["state"] = "suspended"
    got = decide(BASE["request"], snap, BASE["now"])
    assert got["reason"] == "merchant_unknown" and "rules" not in got["diagnostics"] and "shadow" not in got
    generic = dict(pack("door", [rule("d", True, "deny", "door.no")]), domain="generic")
    got = decide(BASE["request"], with_packs(("enforce", generic)), BASE["now"])
    assert got["decision"] == "allow_with_constraints" and got["diagnostics"]["rules"] == []


def test_dictionaries_are_read_at_the_declared_version():
    high_risk = {"dictionary_id": "ns:dictionary:high_risk", "version": "1.0.0", "digest": "sha-256:x",
                 "codes": ["DE"], "terms": {"DE": {"label": "test"}}}
    doc = pack("geo", [rule("g", {"in": [{"var": "facts.merchant.jurisdiction"}, {"var": "dict.high_risk.codes"}]},
                            "deny", "geo.high_risk")], ["ns:dictionary:high_risk@1.0.0"])
    got = decide(BASE["request"], with_packs(("enforce", doc), dictionaries={"high_risk": high_risk}), BASE["now"])
    assert got["reason"] == "geo.high_risk"
    other = dict(high_risk, version="2.0.0")
    got = decide(BASE["request"], with_packs(("enforce", doc), dictionaries={"high_risk": other}), BASE["now"])
    assert got["decision"] == "allow_with_constraints"


def shipped_dictionaries():
    """Every shipped dictionary by name, as a snapshot carries it (DESIGN-27 section 3)."""
    snapshots = [dictionary_snapshot(load(path)) for path in sorted((POLICY / "dictionaries").glob("*.json"))]
    return {s["dictionary_id"].removeprefix("ns:dictionary:"): s for s in snapshots}


@pytest.mark.skipif(not SHIPPED_PACKS, reason="NOTICE: no shipped rule pack yet in packages/server/policy/rule-packs")
@pytest.mark.parametrize("path", SHIPPED_PACKS, ids=[p.name for p in SHIPPED_PACKS])
def test_shipped_pack_passes_its_own_tests(path):
    doc = load(path)
    report = run_pack_tests(doc, shipped_dictionaries())
    failed = [json.dumps({k: r[k] for k in ("name", "actual", "expected")}) for r in report["results"] if not r["passed"]]
    assert failed == []
    assert report["passed"] == len(doc["tests"])
    if doc.get("domain") == "purchase" and doc.get("rules"):
        assert report["passed"] >= 1, "a shipped purchase pack carries tests"


def test_run_pack_tests_reports_a_failing_case():
    doc = dict(VELOCITY, tests=[
        {"name": "five an hour", "context": {"request": {}, "facts": {"counters": COUNTERS}},
         "expect": {"effect": "deny", "reason": "velocity.hourly_count_exceeded"}},
        {"name": "wrong on purpose", "context": {"request": {}, "facts": {"counters": COUNTERS}},
         "expect": {"effect": "none"}}])
    report = run_pack_tests(doc, {})
    assert (report["passed"], report["failed"]) == (1, 1)
    assert report["results"][1]["actual"] == {"effect": "deny", "reason": "velocity.hourly_count_exceeded"}


def test_malformed_rules_are_ignored_and_an_unreadable_policy_set_denies():
    weird = pack("weird", [rule("r", True, "deny", "noreason"), rule(5, True, "deny", "weird.x"),
                           rule("ok", True, "obligate", obligations=[{"type": "t"}, "junk", {"type": 3}],
                                stop_conditions=["s1", 7, "s1"])])
    got = decide(BASE["request"], with_packs(("enforce", weird)), BASE["now"])
    assert got["decision"] == "allow_with_constraints"
    assert got["obligations"] == [{"type": "audit.emit"}, {"type": "t"}]
    assert got["stop_conditions"][-1:] == ["s1"] and got["stop_conditions"].count("s1") == 1
    assert [r["rule_id"] for r in got["diagnostics"]["rules"]] == ["ok"]
    # an obligation with no RFC 8785 form cannot be bound: core throws, the whole policy set denies (fail closed)
    lone = pack("sur", [rule("r", True, "obligate", obligations=[{"type": "a", "v": "\ud800"}])])
    got = decide(BASE["request"], with_packs(("enforce", lone)), BASE["now"])
    assert (got["decision"], got["reason"], got["diagnostics"]["rules"]) == ("deny", "policy_set.unreadable", [])


def test_a_rule_outside_the_profile_is_never_evaluated_and_narrows():
    outside = pack("outside", [rule("eq", {"==": [1, 2]}, "require_approval", "outside.loose_equality")])
    got = decide(BASE["request"], with_packs(("enforce", outside)), BASE["now"])
    assert (got["decision"], got["reason"]) == ("require_approval", "outside.loose_equality")
    assert got["diagnostics"]["rules"][0]["error"] is True


def test_generic_packs_deny_overrides_and_default_deny():
    from aar_sdk.rules.packs import decide_generic

    def generic(name, *rules):
        return dict(pack(name, list(rules)), domain="generic")

    reader = generic("reader", rule("read", {"===": [{"var": "request.action"}, "read"]}, "permit"))
    guard = generic("guard", rule("night", {"<": [{"var": "facts.local_time.hour"}, 6]}, "deny", "guard.night"),
                    rule("broken", {"==": [1, 1]}, "permit"))  # outside the profile: never permits
    day = {"request": {"action": "read"}, "facts": {"local_time": {"hour": 10}}}
    assert decide_generic([reader, guard], day)["decision"] == "permit"
    night = {"request": {"action": "read"}, "facts": {"local_time": {"hour": 2}}}
    got = decide_generic([reader, guard, VELOCITY], night)
    assert (got["decision"], got["reason"]) == ("deny", "guard.night")
    assert [r["rule_id"] for r in got["rules"]] == ["read", "night"]
    assert decide_generic([guard], day) == {"decision": "deny", "rules": []}
