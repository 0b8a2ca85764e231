"""The client methods of the routes added with proof bundles, compliance, conformance, self-audit, certification,
connectors, listings and the console's read routes, against a local HTTP server: each sends its method, escaped path,
query and body; every POST carries an Idempotency-Key and no GET does; list walks follow cursors past empty filtered
pages and refuse a repeated cursor; problems become typed errors."""
import json
import urllib.parse

import pytest

from aar_sdk import AarApiError, AarNetworkError
from test_client import PROBLEM, Script, client_for, serve, sleeps  # noqa: F401 (sleeps is a fixture)

JSON = {"content-type": "application/json"}
ID = "ns:bundle:a/b"
ESC = urllib.parse.quote(ID, safe="")
BODY = {"probe": 1.5}

CALLS = [
    (lambda c: c.assemble_bundle(BODY), "POST", "/v1/bundles/assemble", BODY),
    (lambda c: c.get_bundle(ID), "GET", f"/v1/bundles/{ESC}", None),
    (lambda c: c.get_bundle_part(ID, "decision_map"), "GET", f"/v1/bundles/{ESC}/parts/decision_map", None),
    (lambda c: c.verify_bundle_online({"b": 1}), "POST", "/v1/bundles/verify", {"bundle": {"b": 1}}),
    (lambda c: c.verify_bundle_online({"b": 1}, {"keys": []}), "POST", "/v1/bundles/verify",
     {"bundle": {"b": 1}, "jwks": {"keys": []}}),
    (lambda c: c.list_schemas(), "GET", "/v1/schemas", None),
    (lambda c: c.get_schema("ns.webhook.v1"), "GET", "/v1/schemas/ns.webhook.v1", None),
    (lambda c: c.list_compliance_frameworks(), "GET", "/v1/compliance/frameworks", None),
    (lambda c: c.get_compliance_framework("soc2"), "GET", "/v1/compliance/frameworks/soc2", None),
    (lambda c: c.create_compliance_projection(BODY), "POST", "/v1/compliance/projections", BODY),
    (lambda c: c.create_compliance_projection(BODY, format="oscal"), "POST", "/v1/compliance/projections?format=oscal",
     BODY),
    (lambda c: c.create_self_audit_run(), "POST", "/v1/self-audit/runs", {}),
    (lambda c: c.get_self_audit_run(ID), "GET", f"/v1/self-audit/runs/{ESC}", None),
    (lambda c: c.create_attestation(BODY), "POST", "/v1/certification/attestations", BODY),
    (lambda c: c.get_attestation(ID), "GET", f"/v1/certification/attestations/{ESC}", None),
    (lambda c: c.verify_attestation_online("a.b.c"), "POST", "/v1/certification/verify", {"jws": "a.b.c"}),
    (lambda c: c.list_conformance_profiles(), "GET", "/v1/conformance/profiles", None),
    (lambda c: c.list_conformance_fixtures(), "GET", "/v1/conformance/fixtures", None),
    (lambda c: c.list_conformance_fixtures("ns.bundles.v1"), "GET", "/v1/conformance/fixtures?profile=ns.bundles.v1",
     None),
    (lambda c: c.create_conformance_run({"profiles": ["ns.core.v1"]}), "POST", "/v1/conformance/runs",
     {"profiles": ["ns.core.v1"]}),
    (lambda c: c.get_conformance_run(ID), "GET", f"/v1/conformance/runs/{ESC}", None),
    (lambda c: c.retire_conformance_run(ID), "POST", f"/v1/conformance/runs/{ESC}/retire", {}),
    (lambda c: c.list_connectors(family="payments", status="active"), "GET",
     "/v1/connectors?family=payments&status=active", None),
    (lambda c: c.get_connector("stripe"), "GET", "/v1/connectors/stripe", None),
    (lambda c: c.create_listing(BODY), "POST", "/v1/listings", BODY),
    (lambda c: c.get_listing("ns:listing:x"), "GET", "/v1/listings/ns%3Alisting%3Ax", None),
    (lambda c: c.search_listings(regime="psd3", min_score=60), "GET", "/v1/listings/search?regime=psd3&min_score=60",
     None),
    (lambda c: c.search_decisions(decision="deny", limit=5), "GET", "/v1/decisions?decision=deny&limit=5", None),
    (lambda c: c.decision_stats(bucket="hour"), "GET", "/v1/decisions/stats?bucket=hour", None),
    (lambda c: c.get_own_token(), "GET", "/v1/tokens/self", None),
    (lambda c: c.audit_verify(), "GET", "/v1/audit/verify", None),
    (lambda c: c.audit_verify(incremental=True), "GET", "/v1/audit/verify?from=verified", None),
]


@pytest.fixture(scope="module")
def shared():
    """One server for the route table (a server's shutdown waits out its poll interval)."""
    script = Script([])
    server = serve(script)
    yield script, server
    server.shutdown()


@pytest.mark.parametrize("call,method,path,body", CALLS, ids=[c[2] + " " + c[1] for c in CALLS])
def test_route_sends_its_request(call, method, path, body, sleeps, shared):
    script, server = shared
    script.answers[:] = [(200, JSON, {"items": [], "next_cursor": None})]
    script.seen.clear()
    call(client_for(server, sleeps))
    [seen] = script.seen
    assert (seen["method"], seen["path"]) == (method, path)
    assert seen["headers"]["Authorization"] == "Bearer tok"
    assert ("Idempotency-Key" in seen["headers"]) is (method == "POST")
    assert (json.loads(seen["body"]) if seen["body"] else None) == body


def test_listing_walk_reads_past_empty_filtered_pages_and_refuses_a_repeated_cursor(sleeps):
    script = Script([(200, JSON, {"items": [], "next_cursor": "p2"}),
                     (200, JSON, {"items": [{"listing_id": "ns:listing:a"}], "next_cursor": "p3"}),
                     (200, JSON, {"items": [{"listing_id": "ns:listing:b"}], "next_cursor": None}),
                     (200, JSON, {"items": [], "next_cursor": "q2"}),
                     (200, JSON, {"items": [], "next_cursor": "q2"})])
    server = serve(script)
    try:
        client = client_for(server, sleeps)
        got = [item["listing_id"] for item in client.iter_listings(min_score=90)]
        with pytest.raises(AarNetworkError, match="twice"):
            list(client.iter_decisions())
    finally:
        server.shutdown()
    assert got == ["ns:listing:a", "ns:listing:b"]
    assert [s["path"] for s in script.seen[:3]] == ["/v1/listings/search?min_score=90",
                                                    "/v1/listings/search?min_score=90&cursor=p2",
                                                    "/v1/listings/search?min_score=90&cursor=p3"]


def test_bundle_part_of_any_shape_and_a_schema_served_as_schema_json(sleeps):
    script = Script([(200, JSON, [{"ref": "ns:policy:default"}]),
                     (200, {"content-type": "application/schema+json; charset=utf-8"}, {"$id": "x", "type": "object"})])
    server = serve(script)
    try:
        client = client_for(server, sleeps)
        assert client.get_bundle_part("ns:bundle:1", "rule_pack_refs") == [{"ref": "ns:policy:default"}]
        assert client.get_schema("ns.x.v1") == {"$id": "x", "type": "object"}
    finally:
        server.shutdown()


def test_refusals_are_typed_and_posts_retry_with_their_key(sleeps):
    problem = {"code": "reference_not_found", "status": 422, "title": "Unknown reference",
               "errors": [{"path": "/conformance_report_id", "message": "no such report"}]}
    script = Script([(503, PROBLEM, {"code": "audit_unavailable", "status": 503}), (422, PROBLEM, problem)])
    server = serve(script)
    try:
        with pytest.raises(AarApiError) as info:
            client_for(server, sleeps).create_attestation({"conformance_report_id": "ns:conformance_report:x"})
    finally:
        server.shutdown()
    err = info.value
    assert (err.status, err.code, err.errors[0]["path"]) == (422, "reference_not_found", "/conformance_report_id")
    keys = {s["headers"]["Idempotency-Key"] for s in script.seen}
    assert len(script.seen) == 2 and len(keys) == 1
