"""The client methods of the mandate and allowance routes (CONTRACT section 21) against a local HTTP server: each
sends its method, escaped path and body; every POST carries an Idempotency-Key and no GET does; a refused mandate is
an AarApiError whose `errors` keep each fault's pointer, code and detail; authorize presents a mandate inside the
bytes it signs."""
import json
import urllib.parse

import pytest

from aar_sdk import AarApiError, RequestSigner, content_digest
from aar_sdk.ed25519 import generate_private_key
from test_client import PROBLEM, Script, client_for, serve, sleeps  # noqa: F401 (sleeps is a fixture)

JSON = {"content-type": "application/json"}
MANDATE_ID = "ns:mandate:0195f3a0-0000-7000-8000-000000000001"
ALLOWANCE_ID = "ns:allowance:0195f3a0-0000-7000-8000-000000000002"
ESC_M = urllib.parse.quote(MANDATE_ID, safe="")
ESC_A = urllib.parse.quote(ALLOWANCE_ID, safe="")
ISSUER = {"issuer": "https://issuer.example", "format": "ap2", "jwks_uri": "https://issuer.example/jwks.json"}
MANDATE = {"format": "ap2", "presentation": "a.b.c~d~", "parent_grant_id": "ns:authority:grant:root",
           "actor_entity_id": "ns:entity:agent:shopper-1", "payees": {"merchant_1": "ns:merchant:grocer-1"}}
ALLOWANCE = {"format": "acp", "allowance": {"reason": "one_time", "max_amount": 2000, "currency": "usd",
                                            "checkout_session_id": "cs_01", "merchant_id": "acme",
                                            "expires_at": "2026-12-01T00:00:00Z"},
             "vaulted_token_id": "vt_01", "parent_grant_id": "ns:authority:grant:root",
             "actor_entity_id": "ns:entity:agent:shopper-1"}

CALLS = [
    (lambda c: c.create_mandate_issuer(ISSUER), "POST", "/v1/mandate-issuers", ISSUER),
    (lambda c: c.list_mandate_issuers(), "GET", "/v1/mandate-issuers", None),
    (lambda c: c.create_mandate(MANDATE), "POST", "/v1/mandates", MANDATE),
    (lambda c: c.get_mandate(MANDATE_ID), "GET", f"/v1/mandates/{ESC_M}", None),
    (lambda c: c.revoke_mandate(MANDATE_ID), "POST", f"/v1/mandates/{ESC_M}/revoke", {}),
    (lambda c: c.create_allowance(ALLOWANCE), "POST", "/v1/allowances", ALLOWANCE),
    (lambda c: c.get_allowance(ALLOWANCE_ID), "GET", f"/v1/allowances/{ESC_A}", None),
    (lambda c: c.revoke_allowance(ALLOWANCE_ID), "POST", f"/v1/allowances/{ESC_A}/revoke", {}),
]


@pytest.fixture(scope="module")
def shared():
    script = Script([])
    server = serve(script)
    yield script, server
    server.shutdown()


@pytest.mark.parametrize("call,method,path,body", CALLS, ids=[c[2] + " " + c[1] for c in CALLS])
def test_mandate_route_sends_its_request(call, method, path, body, sleeps, shared):
    script, server = shared
    script.answers[:] = [(200, JSON, {"ok": True})]
    script.seen.clear()
    assert call(client_for(server, sleeps)) == {"ok": True}
    [seen] = script.seen
    assert (seen["method"], seen["path"]) == (method, path)
    assert seen["headers"]["Authorization"] == "Bearer tok"
    assert ("Idempotency-Key" in seen["headers"]) is (method == "POST")
    assert (json.loads(seen["body"]) if seen["body"] else None) == body


def test_a_refused_mandate_names_each_fault_and_posts_retry_with_their_key(sleeps):
    faults = [{"path": "/presentation/hops/0/header/kid", "code": "issuer_key_unknown", "detail": "not configured"},
              {"path": "/presentation/hops/1/payload/sd_hash", "code": "sd_hash_mismatch", "detail": "not hop 0"}]
    script = Script([(503, PROBLEM, {"code": "audit_unavailable", "status": 503}),
                     (422, PROBLEM, {"code": "mandate_invalid", "status": 422, "title": "Mandate invalid",
                                     "errors": faults})])
    server = serve(script)
    try:
        with pytest.raises(AarApiError) as info:
            client_for(server, sleeps).create_mandate(MANDATE, idempotency_key="k-1")
    finally:
        server.shutdown()
    assert (info.value.status, info.value.code) == (422, "mandate_invalid")
    assert [(e["path"], e["code"]) for e in info.value.errors] == [(f["path"], f["code"]) for f in faults]
    assert [s["headers"]["Idempotency-Key"] for s in script.seen] == ["k-1", "k-1"]


@pytest.mark.parametrize("mandate", [{"mandate_id": MANDATE_ID}, {"presentation": "open~~closed~"}])
def test_authorize_presents_a_mandate_inside_the_signed_bytes(mandate, sleeps):
    script = Script([(200, JSON, {"decision": "allow_with_constraints"})])
    server = serve(script)
    body = {"actor_entity_id": "ns:entity:agent:shopper-1", "principal_entity_id": "ns:entity:person:alice",
            "subject": "ns:capability:payment_action:card_purchase",
            "resource": {"merchant_id": "grocer-1", "amount": 12.5, "currency": "EUR"}}
    try:
        signer = RequestSigner("ns:entity:agent:shopper-1", generate_private_key())
        client_for(server, sleeps).authorize(body, signer=signer, mandate=mandate)
    finally:
        server.shutdown()
    [seen] = script.seen
    assert json.loads(seen["body"]) == {**body, "mandate": mandate}
    # the signed content-digest covers the exact bytes sent, mandate included
    assert seen["headers"]["Content-Digest"] == content_digest(seen["body"])
    assert "content-digest" in seen["headers"]["Signature-Input"]
    assert "mandate" not in body  # the caller's body is not changed
