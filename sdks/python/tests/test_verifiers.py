"""Signed documents, decision maps, evidence packs, delegation chains, checkpoints and webhooks against the vectors
the service produced (vectors/sdk), the delegation vectors, the RFC 9162 vectors and the Wycheproof Ed25519 set."""
import base64
import copy

import pytest

from aar_sdk.decision_map import verify_decision_map
from aar_sdk.delegation import verify_delegation_chain
from aar_sdk.ed25519 import ed25519_verify
from aar_sdk.evidence import verify_evidence_pack
from aar_sdk.jwks import JwksSource
from aar_sdk.merkle import verify_checkpoint_inclusion, verify_inclusion
from aar_sdk.webhooks import verify_webhook_delivery
from conftest import VECTORS, load, shared

SDK = VECTORS / "sdk"
INDEX = load(SDK / "index.json")
JWKS = load(SDK / "jwks.json")


def judge(kind, given):
    if kind == "decision_map":
        r = verify_decision_map(given["document"], JWKS)
        return r.valid, r.failure
    if kind == "evidence_pack":
        r = verify_evidence_pack(given["pack"], JWKS)
        return r.valid, r.failure(), {c["check"]: c.get("failure") for c in r.checks if not c["valid"]}
    if kind == "delegation_chain":
        r = verify_delegation_chain(given["chain"], JWKS, given["now"])
        return r.valid, (r.problems[0]["code"] if r.problems else None)
    if kind == "checkpoint_inclusion":
        r = verify_checkpoint_inclusion(given["entry"].encode("utf-8"), given["proof"], given["checkpoint"], JWKS)
        return r.valid, r.failure
    if kind == "webhook":
        r = verify_webhook_delivery(profile=given["profile"], headers=given["headers"],
                                    body=base64.b64decode(given["body_base64"]), now=given["now"],
                                    secrets=given.get("secrets"), trusted_keys=JWKS)
        return r.valid, r.code
    raise AssertionError(kind)


@pytest.mark.parametrize("entry", INDEX["vectors"], ids=[v["file"] for v in INDEX["vectors"]])
def test_sdk_golden_vector(entry):
    case = load(SDK / entry["file"])
    assert case["want"] == entry["want"]
    got = judge(entry["kind"], case["input"])
    want = entry["want"]
    assert got[0] is want["valid"]
    if "code" in want:
        assert got[1] == want["code"]
    for check, code in want.get("failures", {}).items():
        assert got[2].get(check) == code, (check, got[2])


def test_every_kind_has_valid_and_tampered_vectors():
    kinds = {(v["kind"], v["want"]["valid"]) for v in INDEX["vectors"]}
    for kind in ("decision_map", "evidence_pack", "delegation_chain", "checkpoint_inclusion", "webhook"):
        assert (kind, True) in kinds and (kind, False) in kinds


def test_evidence_pack_replays_through_the_python_decide():
    pack = load(SDK / "evidence-pack-allowed-valid.json")["input"]["pack"]
    result = verify_evidence_pack(pack, JWKS)
    assert result.valid and result.replay_decision["matches"]
    assert result.replay_decision["decision"] == pack["decision"]["decision"]
    assert verify_evidence_pack(pack, JWKS, origin="another-log").failure() == "origin_mismatch"
    assert verify_evidence_pack(pack, {"keys": []}).failure() == "unknown_key"


def test_jwks_source_fetches_once():
    calls = []

    def fetch(url):
        calls.append(url)
        import json
        return json.dumps(JWKS).encode()

    source = JwksSource("https://aar.example", fetch=fetch)
    for name in ("decision-map-valid.json", "decision-map-deny-valid.json"):
        assert verify_decision_map(load(SDK / name)["input"]["document"], source).valid
    assert verify_decision_map(load(SDK / "decision-map-wrong-key-id.json")["input"]["document"], source).failure == "unknown_key"
    assert calls == ["https://aar.example/.well-known/jwks.json"]


DELEGATION = sorted((VECTORS / "delegation").glob("*.json"))


@pytest.mark.parametrize("path", DELEGATION, ids=[p.name for p in DELEGATION])
def test_delegation_vector(path):
    case = load(path)
    given, want = case["input"], case["want"]
    result = verify_delegation_chain(given["chain"], given["jwks"], given["now"])
    assert result.valid is want["valid"]
    if want["valid"]:
        assert result.problems == []
    for p in want.get("problems", []):
        assert any(q["code"] == p["code"] and q["index"] == p["index"] and q["field"] == p.get("field", q["field"])
                   for q in result.problems), (p, result.problems)


MERKLE_DIR = shared("merkle")
MERKLE = sorted((MERKLE_DIR / "inclusion").rglob("*.json")) if MERKLE_DIR else []


@pytest.mark.parametrize("path", MERKLE, ids=[str(p.relative_to(MERKLE_DIR)) for p in MERKLE])
def test_rfc9162_inclusion_vector(path):
    case = load(path)
    dec = lambda t: base64.b64decode(t) if isinstance(t, str) else t  # noqa: E731
    proof = [dec(h) for h in (case["proof"] or [])]
    result = verify_inclusion(dec(case["leafHash"]), case["leafIdx"], case["treeSize"], proof, dec(case["root"]))
    assert result.valid is (not case["wantErr"])


WYCHEPROOF_PATH = shared("ed25519", "wycheproof_ed25519_test.json")
WYCHEPROOF = load(WYCHEPROOF_PATH) if WYCHEPROOF_PATH else None


@pytest.mark.skipif(WYCHEPROOF is None, reason="../shared/vectors/ed25519 is absent")
def test_ed25519_strict_against_wycheproof():
    checked = 0
    for group in WYCHEPROOF["testGroups"]:
        pk = bytes.fromhex(group["publicKey"]["pk"])
        for t in group["tests"]:
            got = ed25519_verify(pk, bytes.fromhex(t["msg"]), bytes.fromhex(t["sig"]))
            assert got is (t["result"] == "valid"), t["tcId"]
            checked += 1
    assert checked > 100


STANDARD_WEBHOOKS = shared("webhooks", "standard-webhooks.json")


@pytest.mark.skipif(STANDARD_WEBHOOKS is None, reason="../shared/vectors/webhooks is absent")
def test_standard_webhooks_vector():
    case = load(STANDARD_WEBHOOKS)["cases"][0]
    import hmac, hashlib  # noqa: E401
    from aar_sdk.webhooks import parse_webhook_secret, signed_content
    mac = hmac.new(parse_webhook_secret(case["secret"]), signed_content(case["id"], case["timestamp"], case["body"].encode()),
                   hashlib.sha256).digest()
    assert "v1," + base64.b64encode(mac).decode() == case["signature"]


@pytest.mark.parametrize("name", ["eddsa-sig-01.json"])  # eddsa-sig-02 is Ed448, outside the profile
def test_cose_sign1_vectors(name):
    from aar_sdk.cose import decode_cose_sign1, verify_cose_signature
    path = shared("cose", name)
    if path is None:
        pytest.skip("../shared/vectors/cose is absent")
    case = load(path)
    message = decode_cose_sign1(bytes.fromhex(case["output"]["cbor"]))
    key = bytes.fromhex(case["input"]["sign0"]["key"]["x_hex"])
    assert verify_cose_signature(message, key)
    forged = copy.copy(message)
    forged.payload = message.payload + b"!"
    assert not verify_cose_signature(forged, key)


def test_webhook_refuses_path_like_key_id_and_replays():
    case = load(SDK / "webhook-asymmetric-valid.json")["input"]
    body = base64.b64decode(case["body_base64"])
    headers = dict(case["headers"], **{"webhook-key-id": "../etc/passwd"})
    r = verify_webhook_delivery(profile="asymmetric", headers=headers, body=body, now=case["now"], trusted_keys=JWKS)
    assert r.code == "key_id_mismatch"
    seen = set()
    first = verify_webhook_delivery(profile="asymmetric", headers=case["headers"], body=body, now=case["now"],
                                    trusted_keys=JWKS, seen_before=lambda i: (i in seen) or seen.add(i) or False)
    again = verify_webhook_delivery(profile="asymmetric", headers=case["headers"], body=body, now=case["now"],
                                    trusted_keys=JWKS, seen_before=lambda i: (i in seen) or seen.add(i) or False)
    assert first.valid and first.envelope["event_id"] == case["headers"]["webhook-id"]
    assert again.code == "replayed"
