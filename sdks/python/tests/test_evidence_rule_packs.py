"""An evidence pack made under rule packs: each pack document of `snapshot.policy_set` verifies against the trusted
keys and is the one (by digest, id, version, mode) the signed decision map names; the real pack the service made
(vectors/evidence-pack-with-rule-packs.json) verifies and replays offline."""
import copy

import pytest

from aar_sdk._b64 import encode_b64url
from aar_sdk.ed25519 import generate_private_key, raw_public_key
from aar_sdk.evidence import verify_evidence_pack
from aar_sdk.rules.digest import policy_document_digest
from aar_sdk.signed_document import signing_bytes
from conftest import VECTORS, load

SDK = VECTORS / "sdk"
WITH_RULE_PACKS = VECTORS / "evidence-pack-with-rule-packs.json"
KEY = generate_private_key()
KEY_ID = "test-policy-key"


def signed(doc):
    unsigned = {k: v for k, v in doc.items() if k != "signature"}
    signature = encode_b64url(KEY.sign(signing_bytes(unsigned)))
    return {**unsigned, "signature": {"algorithm": "ed25519", "key_id": KEY_ID, "signature": signature}}


def trusted():
    jwk = {"kty": "OKP", "crv": "Ed25519", "x": encode_b64url(raw_public_key(KEY)), "kid": KEY_ID}
    return {"keys": [*load(SDK / "jwks.json")["keys"], jwk]}


PACK = signed({"schema_version": "ns.rule_pack.v1", "pack_id": "ns:rule_pack:velocity", "version": "1.0.0",
               "domain": "purchase", "title": "velocity", "description": "velocity", "dictionaries": [],
               "rules": [{"rule_id": "never", "title": "t", "description": "d", "when": False, "effect": "deny",
                          "reason": "velocity.never"}], "tests": []})


def evidence_with(document, named):
    """The golden allowed evidence pack with a policy set whose map node names `named` (its signatures then fail:
    only the `policy_set` check is judged here)."""
    pack = copy.deepcopy(load(SDK / "evidence-pack-allowed-valid.json")["input"]["pack"])
    pack["snapshot"]["policy_set"] = {"packs": [{"activation_id": "ns:rule_activation:1", "mode": "enforce",
                                                 "document": document}], "dictionaries": {}}
    node = next(n for n in pack["decision_map"]["nodes"] if n["type"] == "policy")
    node["packs"] = named
    return pack


def policy_check(result):
    return next(c for c in result.checks if c["check"] == "policy_set")


def ref(document, **changes):
    return {"pack_id": document["pack_id"], "version": document["version"], "digest": policy_document_digest(document),
            "mode": "enforce", **changes}


def test_a_signed_pack_named_by_the_map_passes():
    result = verify_evidence_pack(evidence_with(PACK, [ref(PACK)]), trusted())
    assert policy_check(result) == {"check": "policy_set", "valid": True}
    assert [c["check"] for c in result.checks][-2:] == ["policy_set", "replay"]
    assert result.replay_decision["matches"]  # the rule never matches: replay under the pack answers as recorded
    assert policy_document_digest(PACK).startswith("sha-256:") and len(policy_document_digest(PACK)) == 51


def test_an_edited_pack_fails_its_signature():
    edited = copy.deepcopy(PACK)
    edited["rules"][0]["when"] = True
    result = verify_evidence_pack(evidence_with(edited, [ref(PACK)]), trusted())
    assert policy_check(result)["failure"] == "policy_signature_invalid"


def test_an_untrusted_signer_fails():
    result = verify_evidence_pack(evidence_with(PACK, [ref(PACK)]), load(SDK / "jwks.json"))
    assert policy_check(result)["failure"] == "policy_signature_invalid"


@pytest.mark.parametrize("change", [{"digest": "sha-256:" + "A" * 43}, {"mode": "shadow"}, {"version": "1.0.1"}])
def test_a_pack_other_than_the_one_the_map_names_fails(change):
    result = verify_evidence_pack(evidence_with(PACK, [ref(PACK, **change)]), trusted())
    assert policy_check(result)["failure"] == "policy_digest_mismatch"
    assert not result.valid


def test_a_pack_the_map_does_not_name_fails():
    assert policy_check(verify_evidence_pack(evidence_with(PACK, []), trusted()))["failure"] == "policy_digest_mismatch"
    missing = evidence_with(PACK, [])
    del next(n for n in missing["decision_map"]["nodes"] if n["type"] == "policy")["packs"]
    assert policy_check(verify_evidence_pack(missing, trusted()))["failure"] == "malformed_policy_set"
    # a map naming packs the snapshot does not carry: the replay would run without the rules that decided
    dropped = evidence_with(PACK, [ref(PACK)])
    del dropped["snapshot"]["policy_set"]
    assert policy_check(verify_evidence_pack(dropped, trusted()))["failure"] == "malformed_policy_set"


def test_an_evidence_pack_without_a_policy_set_has_no_such_check():
    pack = load(SDK / "evidence-pack-allowed-valid.json")["input"]["pack"]
    result = verify_evidence_pack(pack, load(SDK / "jwks.json"))
    assert result.valid and "policy_set" not in [c["check"] for c in result.checks]


@pytest.mark.skipif(not WITH_RULE_PACKS.exists(), reason="NOTICE: vectors/evidence-pack-with-rule-packs.json absent")
def test_the_service_evidence_pack_with_rule_packs_verifies_and_replays_offline():
    vector = load(WITH_RULE_PACKS)
    pack, jwks, want = vector["input"]["pack"], vector["input"]["jwks"], vector["want"]
    result = verify_evidence_pack(pack, jwks)
    assert result.failure() is None and result.valid is want["valid"] is True
    assert [c["check"] for c in result.checks] == ["pack_signature", "decision_map_signature", "bindings", "audit_entry",
                                                   "record_digest", "inclusion_proof", "checkpoint", "policy_set",
                                                   "replay"]
    assert result.replay_decision["matches"]
    assert (result.replay_decision["decision"], result.replay_decision["reason"]) == (want["decision"], want["reason"])
    assert pack["engine_version"] == "aar-decide/1.3.0"
    assert [p["document"]["pack_id"] for p in pack["snapshot"]["policy_set"]["packs"]] == want["policy_packs"]
    # the pack's holder cannot steer replay: an edited rule breaks the pack's signature, facts that no longer match
    # make replay disagree with the recorded deny
    edited = copy.deepcopy(pack)
    edited["snapshot"]["policy_set"]["packs"][0]["document"]["title"] += " (edited)"
    assert policy_check(verify_evidence_pack(edited, jwks))["failure"] == "policy_signature_invalid"
    calmer = copy.deepcopy(pack)
    calmer["snapshot"]["facts"]["counters"] = {k: (0 if isinstance(v, int) and not isinstance(v, bool) else v)
                                               for k, v in calmer["snapshot"]["facts"]["counters"].items()}
    calm = verify_evidence_pack(calmer, jwks)
    failed = {c["check"]: c["failure"] for c in calm.checks if not c["valid"]}
    assert failed["pack_signature"] == "signature_mismatch" and failed["replay"] == "replay_mismatch"
    assert calm.replay_decision["decision"] == "allow_with_constraints"


def test_replay_accepts_engine_1_3_0_and_compares_the_rule_decision():
    from aar_sdk.decide import decide
    from aar_sdk.evidence import replay_decision

    base = load(VECTORS / "decisions" / "allow-execute-eur-root-grant.json")["input"]
    deny = signed(dict(PACK, rules=[dict(PACK["rules"][0], when=True)]))
    snapshot = dict(base["snapshot"], policy_set={"packs": [{"activation_id": "ns:rule_activation:1",
                                                             "mode": "enforce", "document": deny}],
                                                  "dictionaries": {}})
    recorded = decide(base["request"], snapshot, base["now"])
    assert recorded["reason"] == "velocity.never"
    assert replay_decision(base["request"], snapshot, base["now"], recorded, "aar-decide/1.3.0")["matches"]
    allowed = decide(base["request"], base["snapshot"], base["now"])
    assert not replay_decision(base["request"], snapshot, base["now"], allowed, "aar-decide/1.3.0")["matches"]
