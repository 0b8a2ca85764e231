"""End to end against a live `aar serve` on loopback (a real process, real SQLite file, real socket): the SDK
generates the agent's key, builds a principal, agent, card token, merchant and root grant, authorizes a signed
purchase, verifies the returned decision map, fetches the evidence pack and verifies it offline with replay through
the Python decide, and gets a typed error for a bad request. Skipped when node is missing, unless CI=true."""
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest

from aar_sdk import (AarApiError, AarClient, JwksSource, RequestSigner, part_digest, verify_bundle, verify_decision_map,
                     verify_evidence_pack)
from aar_sdk.ed25519 import generate_private_key
from aar_sdk.http_signatures import public_jwk
from aar_sdk.merkle import verify_checkpoint
from conftest import ROOT

NODE = shutil.which("node")
if NODE is None and os.environ.get("CI") == "true":
    raise RuntimeError("node is required for the integration test in CI")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed: the live-service test needs `aar serve`")
TOKEN = "python-sdk-bootstrap-token-0123456789"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def service():
    data = tempfile.mkdtemp(prefix="aar-py-")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "AAR_DATA_DIR": data, "AAR_PORT": str(port), "AAR_HOST": "127.0.0.1",
           "AAR_BOOTSTRAP_TOKEN": TOKEN, "AAR_ISSUER_URL": base, "AAR_PUBLIC_URL": base, "AAR_LOG_LEVEL": "warn",
           # the sources, never a stale build in packages/server/dist; SQLite, whatever the caller's environment says
           "AAR_FROM_SOURCE": "1", "DATABASE_URL": ""}
    proc = subprocess.Popen([NODE, str(ROOT / "packages" / "server" / "bin" / "aar.js"), "serve"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"aar serve exited: {proc.stdout.read().decode()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=1) as res:
                    if res.status == 200:
                        break
            except OSError:
                pass
            if time.time() > deadline:
                raise RuntimeError("aar serve did not become healthy in 60 s")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(data, ignore_errors=True)


def test_signed_purchase_verified_offline(service):
    admin = AarClient(service, TOKEN)
    key = generate_private_key()
    admin.create_entity({"type": "person", "id": "alice", "display_name": "Alice"})
    admin.create_entity({"type": "agent", "id": "shopper-1", "display_name": "Shopper", "public_key_jwk": public_jwk(key)})
    admin.create_card_token({"id": "tok-1", "principal_entity_id": "ns:entity:person:alice", "network_token": "ntk_alice"})
    admin.create_merchant({"id": "grocer-1", "display_name": "Grocer", "category": "5411", "jurisdiction": "DE"})
    valid_until = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 30 * 86400))
    admin.create_grant({
        "principal_entity_id": "ns:entity:person:alice", "actor_entity_id": "ns:entity:agent:shopper-1",
        "capability_id": "ns:capability:payment_action:card_purchase", "resource_id": "ns:credential:card-token:tok-1",
        "scope": {"max_amount_per_purchase": {"amount": 50, "currency": "EUR"},
                  "max_daily_amount": {"amount": 100, "currency": "EUR"}, "valid_until": valid_until},
    })
    runtime = AarClient(service, admin.create_token({"role": "runtime"})["token"])
    signer = RequestSigner("ns:entity:agent:shopper-1", key)
    purchase = {"actor_entity_id": "ns:entity:agent:shopper-1", "principal_entity_id": "ns:entity:person:alice",
                "subject": "ns:capability:payment_action:card_purchase",
                "resource": {"merchant_id": "grocer-1", "amount": 42.5, "currency": "EUR"},
                "scope": {"instrument": "ns:card_token:tok-1"}}
    answer = runtime.authorize(purchase, signer=signer)
    assert (answer["decision"], answer["reason"]) == ("allow_with_constraints", "scope_within_attenuated_authority")

    jwks = admin.jwks_source()
    assert verify_decision_map(answer["decision_map"], jwks, expected=answer).valid
    tampered = dict(answer["decision_map"], reason="approved_by_principal")
    assert verify_decision_map(tampered, jwks).failure == "signature_mismatch"
    # the key source named by the issuer URL or by the JWKS URL, as in the TypeScript and Go SDKs: the same keys
    for named in (JwksSource(service), JwksSource(f"{service}/.well-known/jwks.json")):
        assert verify_decision_map(answer["decision_map"], named, expected=answer).valid

    pack = admin.get_evidence_pack(answer["evidence_refs"][0])
    result = verify_evidence_pack(pack, jwks)
    assert result.valid, result.checks
    assert result.replay_decision["matches"] and result.replay_decision["decision"] == "allow_with_constraints"
    assert verify_checkpoint(admin.get_checkpoint(), jwks).valid

    unsigned = runtime.authorize(purchase)
    assert (unsigned["decision"], unsigned["reason"]) == ("deny", "payload_signature_missing")
    over = runtime.authorize(dict(purchase, resource={"merchant_id": "grocer-1", "amount": 75, "currency": "EUR"}), signer=signer)
    assert over["reason"] == "amount_above_agent_threshold"

    # the decision's proof bundle: assembled by the service, verified offline in Python (the ten checks), one part
    # read alone hashes to its reference, and the service's own verification agrees
    bundle = runtime.assemble_bundle({"policy_decision_id": answer["policy_decision_id"],
                                      "purpose": {"purpose": "chargeback_dispute", "ticket": "case-1"}})
    result = verify_bundle(bundle, jwks)
    assert result.valid and len(result.checks) == 10, result.checks
    assert admin.get_bundle(bundle["bundle_id"]) == bundle
    part = admin.get_bundle_part(bundle["bundle_id"], "evidence_pack")
    assert part_digest(part) == bundle["references"][5]["sha256"]
    tampered = dict(bundle, runtime_decision=dict(bundle["runtime_decision"], decision="deny"))
    assert verify_bundle(tampered, jwks).failing()[:2] == ["bundle_signature", "references_digest"]
    assert admin.verify_bundle_online(bundle)["valid"] is True

    # the console's read routes see the decisions; a credential describes itself
    found = list(admin.iter_decisions(actor_entity_id="ns:entity:agent:shopper-1", decision="allow_with_constraints"))
    assert [d["policy_decision_id"] for d in found] == [answer["policy_decision_id"]]
    assert runtime.get_own_token()["role"] == "runtime"
    assert {f["framework"] for f in admin.list_compliance_frameworks()["frameworks"]} >= {"soc2", "dora", "psd3"}


def test_typed_error_for_a_bad_request(service):
    admin = AarClient(service, TOKEN)
    with pytest.raises(AarApiError) as info:
        admin.create_merchant({"id": "m-1", "display_name": "M", "category": "5411", "jurisdiction": "germany"})
    err = info.value
    assert err.status == 400 and err.code and err.request_id
    assert any("jurisdiction" in e["path"] for e in err.errors)
    with pytest.raises(AarApiError) as info:
        AarClient(service, "wrong-token").list_entities()
    assert info.value.status == 401
