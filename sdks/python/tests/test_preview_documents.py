"""The preview documents' verifiers (issue 30) over vectors/preview, the documents the service made: payload
artefacts, memory records and tombstones, the principal's tombstone chain and a compliance report. Valid ones
verify; every tampered variant fails with the check and code its vector names (the same as the TypeScript and Go
SDKs); every one-byte change of a signed document that still parses fails, and nothing raises."""
import json

import pytest

from aar_sdk import verify_compliance_report, verify_memory_chain, verify_memory_record, verify_payload_artefact
from conftest import VECTORS, load

PREVIEW = VECTORS / "preview"
JWKS = load(PREVIEW / "jwks.json")
# the kinds the Python SDK verifies (the graph, search and data-flow documents are the TypeScript SDK's)
KINDS = {"payload_artefact", "memory_record", "memory_chain", "compliance_report"}
FILES = sorted(p.name for p in PREVIEW.glob("*.json") if p.name != "jwks.json" and load(p)["kind"] in KINDS)


def judge(kind, given, trusted=JWKS):
    if kind == "payload_artefact":
        return verify_payload_artefact(given["document"], trusted, payload=given.get("payload"),
                                       agent_key=given.get("agent_key"))
    if kind == "memory_record":
        return verify_memory_record(given["document"], trusted, content=given.get("content"),
                                    content_salt=given.get("content_salt"), record=given.get("record"))
    if kind == "memory_chain":
        return verify_memory_chain(given["records"], trusted)
    if kind == "compliance_report":
        return verify_compliance_report(given["document"], trusted)
    raise AssertionError(kind)


def test_the_vectors_cover_every_kind():
    assert {load(PREVIEW / f)["kind"] for f in FILES} == KINDS


@pytest.mark.parametrize("name", FILES)
def test_vector(name):
    vector = load(PREVIEW / name)
    result = judge(vector["kind"], vector["input"])
    failed = [(c.check, c.failure) for c in result.checks if not c.valid]
    if vector["want"]["valid"]:
        assert failed == [] and result.valid
    else:
        assert not result.valid
        assert (vector["want"]["check"], vector["want"]["failure"]) in failed


def test_keys_come_only_from_the_caller():
    vector = load(PREVIEW / "memory-record.json")
    result = judge("memory_record", vector["input"], {"keys": []})
    assert result.checks[0].check == "signature" and result.checks[0].failure == "unknown_key"


@pytest.mark.parametrize("value", [None, 1, "x", [], {}, {"signature": 7}, {"schema_version": "ns.memory_record.v1"}])
def test_hostile_input_is_a_result(value):
    for verify in (verify_payload_artefact, verify_memory_record, verify_compliance_report):
        assert not verify(value, JWKS).valid
    assert not verify_memory_chain(value if not isinstance(value, list) else [value], JWKS).valid


SIGNED = [f for f in FILES if load(PREVIEW / f)["want"]["valid"] and "document" in load(PREVIEW / f)["input"]]


@pytest.mark.parametrize("name", SIGNED)
def test_every_one_byte_change_fails(name):
    vector = load(PREVIEW / name)
    text = json.dumps(vector["input"]["document"], ensure_ascii=False, separators=(",", ":"))
    data = text.encode("utf-8")
    parsed = 0
    for i in range(len(data)):
        changed = bytearray(data)
        changed[i] ^= 0x01
        try:
            doc = json.loads(bytes(changed).decode("utf-8"))
        except ValueError:
            continue  # not JSON any more: nothing a verifier is ever handed as a document
        if json.dumps(doc, ensure_ascii=False, separators=(",", ":")) == text:
            continue
        parsed += 1
        given = dict(vector["input"], document=doc)
        assert not judge(vector["kind"], given).valid, f"byte {i} of {name}"
    assert parsed > len(data) // 2
