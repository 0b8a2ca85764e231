"""Agent metadata binding offline (issue 30, aar-decide/1.5.0): evidence packs the service made for an agent that
attested its metadata with its own key (vectors/evidence-packs-with-agent-metadata.json) verify and replay here,
`agent_metadata_mismatch` included; each edit an attacker could make to the attestation, its key or its digest is
refused with core's failure code; the port of decide judges presented metadata as core does."""
import copy

import pytest

from aar_sdk.agent_metadata import agent_metadata_digest, check_agent_metadata
from aar_sdk.decide import decide
from aar_sdk.ed25519 import generate_private_key, raw_public_key
from aar_sdk._b64 import encode_b64url
from aar_sdk.evidence import verify_evidence_pack
from aar_sdk.signed_document import sign_document
from conftest import VECTORS, load

FILE = load(VECTORS / "evidence-packs-with-agent-metadata.json")


def case(name):
    return copy.deepcopy(next(c for c in FILE["cases"] if c["name"] == name))


@pytest.mark.parametrize("name", [c["name"] for c in FILE["cases"]])
def test_service_packs_verify_and_replay(name):
    c = case(name)
    result = verify_evidence_pack(c["pack"], FILE["jwks"])
    assert result.valid, result.checks
    assert {"check": "agent_metadata", "valid": True} in result.checks
    assert result.replay_decision["reason"] == c["reason"]
    assert c["pack"]["engine_version"] == "aar-decide/1.5.0"


def test_denied_pack_names_the_reason():
    pack = case("denied-mismatch")["pack"]
    assert pack["decision"]["reason"] == "agent_metadata_mismatch"
    replayed = decide(pack["request"], pack["snapshot"], pack["now"])
    assert replayed == pack["decision"]


def failure(pack):
    return check_agent_metadata(pack)


def test_edits_fail_the_check_with_cores_codes():
    pack = case("allowed-matching")["pack"]
    assert failure(pack) is True
    edited = copy.deepcopy(pack)
    edited["agent_metadata_attestation"]["model"] = "another"
    assert failure(edited) == "agent_metadata_digest_mismatch"
    dropped = copy.deepcopy(pack)
    del dropped["agent_metadata_attestation"]
    assert failure(dropped) == "agent_metadata_missing"
    # a document re-signed by another key, its digest put everywhere: the key in the snapshot refuses it
    other = generate_private_key()
    resigned = sign_document(pack["agent_metadata_attestation"], other, "ns:entity:agent:shopper-1")
    swapped = copy.deepcopy(pack)
    swapped["agent_metadata_attestation"] = resigned
    digest = agent_metadata_digest(resigned)
    swapped["snapshot"]["agent_metadata"]["digest"] = digest
    next(n for n in swapped["decision_map"]["nodes"] if n["type"] == "actor")["attestation_digest"] = digest
    assert failure(swapped) == "agent_metadata_signature_invalid"
    # ... and swapping the snapshot's key for the forger's is a signed-record edit: the key then verifies, but the
    # pack's record digest and signature fail (the whole pack is no longer valid)
    swapped["snapshot"]["agent_metadata"]["public_key_jwk"] = {
        "kty": "OKP", "crv": "Ed25519", "x": encode_b64url(raw_public_key(other))}
    assert failure(swapped) is True
    assert not verify_evidence_pack(swapped, FILE["jwks"]).valid
    shown = copy.deepcopy(pack)
    next(n for n in shown["decision_map"]["nodes"] if n["type"] == "actor")["agent_metadata"]["operator"] = "x"
    assert failure(shown) == "agent_metadata_mismatch"
    # an older pack with none of these members: the check is not recorded
    old = copy.deepcopy(pack)
    del old["agent_metadata_attestation"]
    del old["snapshot"]["agent_metadata"]
    node = next(n for n in old["decision_map"]["nodes"] if n["type"] == "actor")
    del node["agent_metadata"], node["attestation_digest"]
    assert failure(old) is None


def test_decide_judges_presented_metadata_like_core():
    pack = case("allowed-matching")["pack"]
    request, snapshot, now = pack["request"], pack["snapshot"], pack["now"]
    assert decide(request, snapshot, now)["decision"] == "allow_with_constraints"
    other = {**request, "agent_metadata": {**request["agent_metadata"], "model": "m2"}}
    entities = next(c for c in decide(other, snapshot, now)["diagnostics"]["checks"] if c["check"] == "entities")
    assert entities == {"check": "entities", "outcome": "fail", "reason": "agent_metadata_mismatch",
                        "detail": "agent metadata model `m2` is not the attested one"}
    none = {k: v for k, v in snapshot.items() if k != "agent_metadata"}
    assert decide(request, none, now)["reason"] == "agent_metadata_mismatch"
    assert decide({**request, "agent_metadata": None}, snapshot, now)["reason"] == "agent_metadata_mismatch"
    plain = {k: v for k, v in request.items() if k != "agent_metadata"}
    assert decide(plain, none, now)["decision"] == "allow_with_constraints"
