"""The port of decide against every hand-written decision vector and against core on seeded differential cases."""
import pytest

from aar_sdk.decide import REASON_CODES, decide
from aar_sdk.jcs import canonical_json
from conftest import ROOT, VECTORS, load

DECISIONS = sorted((VECTORS / "decisions").glob("*.json"))


@pytest.mark.parametrize("path", DECISIONS, ids=[p.name for p in DECISIONS])
def test_decision_vector(path):
    case = load(path)
    given, want = case["input"], case["want"]
    got = decide(given["request"], given["snapshot"], given["now"])
    assert (got["decision"], got["reason"]) == (want["decision"], want["reason"])
    for key in ("obligations", "stop_conditions"):
        if key in want:
            assert got[key] == want[key]
    if "reservation" in want:
        assert got.get("reservation") == want["reservation"]


def test_vectors_reach_every_reason_code():
    seen = {load(p)["want"]["reason"] for p in DECISIONS}
    assert seen == set(REASON_CODES)


def _differential_files():
    files = [VECTORS / "sdk" / "differential.json"]
    large = ROOT / ".tmp" / "differential-large.json"
    return files + ([large] if large.exists() else [])


@pytest.mark.parametrize("path", _differential_files(), ids=lambda p: p.name)
def test_differential_against_core(path):
    cases = load(path)["cases"]
    assert len(cases) >= 500
    mismatches = []
    for i, case in enumerate(cases):
        got = decide(case["input"]["request"], case["input"]["snapshot"], case["input"]["now"])
        if canonical_json(got) != canonical_json(case["want"]):
            mismatches.append(i)
    assert mismatches == [], f"decide differs from core on cases {mismatches[:10]}"


def test_never_raises_on_hostile_input():
    for request, snapshot, now in [(None, None, None), ([], "x", 5), ({"amount": {"minor": 1e400}}, {"grants": [1]}, "")]:
        got = decide(request, snapshot, now)
        assert got["decision"] == "deny"


def test_most_permissive_candidate_wins():
    allowed = load(VECTORS / "decisions" / "allow-execute-eur-root-grant.json")["input"]
    snapshot = dict(allowed["snapshot"])
    revoked = [dict(g, state="revoked") for g in allowed["snapshot"]["grants"]]
    snapshot["alternatives"] = [allowed["snapshot"]["grants"]]
    snapshot["grants"] = revoked
    got = decide(allowed["request"], snapshot, allowed["now"])
    assert got["decision"] == "allow_with_constraints"
    assert got["diagnostics"]["chosen_candidate"] == 1
    assert [c["reason"] for c in got["diagnostics"]["candidates"]] == ["authority_revoked", got["reason"]]
