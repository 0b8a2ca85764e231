"""Proof bundles verified offline (CONTRACT section 12): the Python port of core's verifyBundle walks
vectors/bundles (built by the service; one mutated case per check) and must fail exactly the checks each case names,
always answering the ten checks in their order; hostile input is refused check by check, never raised."""
import copy

import pytest

from aar_sdk import BUNDLE_CHECKS, JwksSource, part_digest, verify_bundle
from conftest import VECTORS, load

BUNDLES = sorted((VECTORS / "bundles").glob("*.json"))


def test_the_folder_holds_both_valid_cases_and_a_failing_case_for_every_check():
    wants = [load(p)["want"] for p in BUNDLES]
    assert sum(1 for w in wants if w["valid"]) >= 2
    assert {name for w in wants for name in w["failing"]} == set(BUNDLE_CHECKS)


@pytest.mark.parametrize("path", BUNDLES, ids=[p.name for p in BUNDLES])
def test_bundle_vector(path):
    case = load(path)
    given, want = case["input"], case["want"]
    result = verify_bundle(given["bundle"], given["jwks"], origin=given.get("origin"))
    assert [c["name"] for c in result.checks] == list(BUNDLE_CHECKS)
    assert result.failing() == want["failing"], result.checks
    assert result.valid is want["valid"] and bool(result) is want["valid"]
    for check in result.checks:
        assert check["ok"] or check["detail"]


def valid_case():
    return load(VECTORS / "bundles" / "valid-delegated-purchase.json")["input"]


def test_a_jwks_source_is_accepted_and_fetched_once():
    given = valid_case()
    fetched = []

    def fetch(url):
        fetched.append(url)
        import json
        return json.dumps(given["jwks"]).encode()

    source = JwksSource("https://aar.example", fetch=fetch)
    assert verify_bundle(given["bundle"], source, origin=given["origin"]).valid
    assert fetched == ["https://aar.example/.well-known/jwks.json"]


def test_keys_come_only_from_the_caller():
    given = valid_case()
    result = verify_bundle(given["bundle"], {"keys": []}, origin=given["origin"])
    assert not result.valid
    for name in ("bundle_signature", "decision_map_signature", "evidence_pack_signature",
                 "delegation_chain_signatures", "checkpoint_signature"):
        assert name in result.failing()
    # the chain lists its service key as a hint: never trusted
    assert "keys" in given["bundle"]["delegation_chain"]


def test_a_checkpoint_of_another_log_fails_where_the_log_is_judged():
    given = valid_case()
    result = verify_bundle(given["bundle"], given["jwks"], origin="another-log.example/audit")
    assert result.failing() == ["evidence_pack_signature", "checkpoint_signature"]
    assert "another-log.example/audit" in result.checks[6]["detail"]


def test_a_part_changed_after_signing_fails_its_digest_and_the_bundle_signature():
    given = valid_case()
    bundle = copy.deepcopy(given["bundle"])
    bundle["purpose_manifest"]["purpose"] = "something_else"
    result = verify_bundle(bundle, given["jwks"], origin=given["origin"])
    assert result.failing() == ["bundle_signature", "references_digest"]
    assert "purpose_manifest" in result.checks[1]["detail"]


def test_part_digest_is_the_sha256_of_the_rfc8785_bytes():
    bundle = valid_case()["bundle"]
    by_name = {ref["name"]: ref["sha256"] for ref in bundle["references"]}
    assert part_digest(bundle["decision_map"]) == by_name["decision_map"]
    assert part_digest(None) == "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b"


@pytest.mark.parametrize("hostile", [None, [], "bundle", 42, {}, {"schema_version": "ns.authority_proof_bundle.v1"},
                                     {"evidence_pack": {"now": "not a time", "snapshot": {"grants": [1]}}},
                                     {"evidence_pack": [], "delegation_chain": {"links": [None] * 3}}])
def test_hostile_input_is_refused_check_by_check(hostile):
    result = verify_bundle(hostile, valid_case()["jwks"])
    assert not result.valid
    assert [c["name"] for c in result.checks] == list(BUNDLE_CHECKS)
    assert result.failing()[0] == "bundle_signature"


def test_a_removed_part_is_named():
    given = valid_case()
    bundle = copy.deepcopy(given["bundle"])
    del bundle["replay_proof"]
    result = verify_bundle(bundle, given["jwks"], origin=given["origin"])
    assert "part `replay_proof` is missing" == result.checks[1]["detail"]
    assert "replay_equal" in result.failing()


def _apply_edits(bundle, edits):
    out = copy.deepcopy(bundle)
    for edit in edits:
        keys = [k.replace("~1", "/").replace("~0", "~") for k in edit["pointer"].split("/")[1:]]
        node = out
        for key in keys[:-1]:
            node = node[int(key)] if isinstance(node, list) else node[key]
        last = keys[-1]
        if isinstance(node, list):
            node[int(last)] = edit.get("value")
        elif "value" in edit:
            node[last] = edit["value"]
        else:
            del node[last]
    return out


def test_every_check_and_detail_agree_with_core_on_damaged_bundles():
    """vectors/sdk/bundle-differential.json: seeded damage to vectors/bundles with core's full answer."""
    cases = load(VECTORS / "sdk" / "bundle-differential.json")["cases"]
    assert len(cases) > 100
    sources = {p.name: load(p)["input"] for p in BUNDLES}
    differ = []
    for i, case in enumerate(cases):
        given = sources[case["bundle"]]
        result = verify_bundle(_apply_edits(given["bundle"], case["edits"]), given["jwks"], origin=case["origin"])
        if result.checks != case["want"]["checks"] or result.valid is not case["want"]["valid"]:
            differ.append((i, case["bundle"], case["edits"], result.checks))
    assert differ == []
