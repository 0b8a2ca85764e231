"""The client against a local HTTP server: typed errors, retries with backoff on 429 (Retry-After) and 503, one
Idempotency-Key per logical POST reused across its retries, network errors retried, pagination."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from aar_sdk import AarApiError, AarClient, AarNetworkError


class Script:
    def __init__(self, answers):
        self.answers = list(answers)
        self.seen = []


def serve(script):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _answer(self):
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            script.seen.append({"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body})
            status, headers, payload = script.answers.pop(0)
            data = json.dumps(payload).encode()
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_DELETE = do_PATCH = _answer

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


PROBLEM = {"content-type": "application/problem+json"}


@pytest.fixture
def sleeps():
    return []


def client_for(server, sleeps, **kw):
    return AarClient(f"http://127.0.0.1:{server.server_address[1]}", "tok", sleep=sleeps.append, **kw)


def test_retries_429_honouring_retry_after_with_one_idempotency_key(sleeps):
    script = Script([(429, {**PROBLEM, "retry-after": "2"}, {"code": "rate_limited", "status": 429, "title": "Too many"}),
                     (503, PROBLEM, {"code": "audit_unavailable", "status": 503, "title": "Unavailable"}),
                     (201, {"content-type": "application/json"}, {"entity_id": "ns:entity:person:alice"})])
    server = serve(script)
    try:
        got = client_for(server, sleeps).create_entity({"type": "person", "id": "alice", "display_name": "A"})
    finally:
        server.shutdown()
    assert got == {"entity_id": "ns:entity:person:alice"}
    keys = {s["headers"]["Idempotency-Key"] for s in script.seen}
    assert len(script.seen) == 3 and len(keys) == 1
    assert sleeps[0] == 2.0 and 0 <= sleeps[1] <= 0.5
    assert script.seen[0]["headers"]["Authorization"] == "Bearer tok"


def test_typed_error_names_code_status_errors_and_request_id(sleeps):
    problem = {"type": "urn:aar:problem:invalid_request", "title": "Invalid request", "status": 400, "code": "invalid_request",
               "detail": "/type: must be one of", "request_id": "req-1", "errors": [{"path": "/type", "message": "bad"}]}
    server = serve(Script([(400, PROBLEM, problem)]))
    try:
        with pytest.raises(AarApiError) as info:
            client_for(server, sleeps).create_entity({"type": "robot"})
    finally:
        server.shutdown()
    err = info.value
    assert (err.status, err.code, err.request_id, err.errors[0]["path"]) == (400, "invalid_request", "req-1", "/type")
    assert sleeps == []


def test_gives_up_after_max_retries(sleeps):
    server = serve(Script([(503, PROBLEM, {"code": "audit_unavailable"})] * 3))
    try:
        with pytest.raises(AarApiError) as info:
            client_for(server, sleeps, max_retries=2).get_entity("ns:entity:person:alice")
    finally:
        server.shutdown()
    assert info.value.status == 503 and len(sleeps) == 2


def test_network_errors_are_retried_then_typed(sleeps):
    client = AarClient("http://127.0.0.1:1", "tok", sleep=sleeps.append, max_retries=2, timeout=2)
    with pytest.raises(AarNetworkError):
        client.health()
    assert len(sleeps) == 2


def test_iterators_follow_next_cursor_and_after(sleeps):
    script = Script([(200, {"content-type": "application/json"}, {"items": [1, 2], "next_cursor": "c1"}),
                     (200, {"content-type": "application/json"}, {"items": [3], "next_cursor": None}),
                     (200, {"content-type": "application/json"}, {"items": ["e1"], "next_cursor": "a1"}),
                     (200, {"content-type": "application/json"}, {"items": [], "next_cursor": None}),
                     (200, {"content-type": "application/json"},
                      {"items": ["e2"], "next_cursor": "a2", "has_more": False})])
    server = serve(script)
    try:
        client = client_for(server, sleeps)
        assert list(client.iter_entities(type="person")) == [1, 2, 3]
        assert list(client.iter_events()) == ["e1"]
        # the feed always names the position reached; has_more false ends the walk (resume later from a2)
        assert list(client.iter_events(after="a1")) == ["e2"]
    finally:
        server.shutdown()
    paths = [s["path"] for s in script.seen]
    assert paths == ["/v1/entities?type=person", "/v1/entities?type=person&cursor=c1", "/v1/events", "/v1/events?after=a1",
                     "/v1/events?after=a1"]
