"""The key-source argument and the optional clock, alike in the three SDKs (issue 26).

`JwksSource` takes a JWKS URL or an issuer URL (told apart by vectors/sdk/jwks-locations.json, which the TypeScript
and Go suites walk too) and fetches, over loopback here, only the URL it resolves to: never a redirect's target.
Every verifier that judges time takes `now` and defaults it to the system clock."""
import base64
import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from aar_sdk import JwksSource, resolve_jwks_url, verify_delegation_chain, verify_webhook_delivery
from aar_sdk.delegation import _utc_now_iso
from conftest import VECTORS, load

LOCATIONS = load(VECTORS / "sdk" / "jwks-locations.json")["cases"]
JWKS = load(VECTORS / "sdk" / "jwks.json")


def _resolve(given):
    if isinstance(given, str):
        return resolve_jwks_url(given)
    return resolve_jwks_url(**given)


@pytest.mark.parametrize("case", LOCATIONS, ids=[c["desc"] for c in LOCATIONS])
def test_jwks_location_vector(case):
    if case.get("wantErr"):
        with pytest.raises(ValueError):
            _resolve(case["input"])
    else:
        assert _resolve(case["input"]) == case["want"]


class _Recorder(BaseHTTPRequestHandler):
    paths: list = []

    def do_GET(self):  # noqa: N802 - http.server's name
        self.paths.append(self.path)
        if self.path.startswith("/moved"):
            self.send_response(302)
            self.send_header("location", f"http://127.0.0.1:{self.server.server_port}/elsewhere/jwks.json")
            self.end_headers()
            return
        body = json.dumps(JWKS).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # quiet
        pass


@pytest.fixture()
def loopback():
    _Recorder.paths = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", _Recorder.paths
    server.shutdown()
    server.server_close()


def test_issuer_and_jwks_urls_fetch_only_what_they_name(loopback):
    base, paths = loopback
    for source in (JwksSource(f"{base}/tenant-a/"), JwksSource(issuer_url=f"{base}/tenant-a"),
                   JwksSource(f"{base}/keys/jwks.json"), JwksSource(jwks_url=f"{base}/keys/set")):
        assert source.get()["keys"]
    assert paths == ["/tenant-a/.well-known/jwks.json", "/tenant-a/.well-known/jwks.json", "/keys/jwks.json",
                     "/keys/set"]


def test_a_redirect_is_an_error_never_followed(loopback):
    base, paths = loopback
    with pytest.raises(Exception) as caught:
        JwksSource(f"{base}/moved/jwks.json").get()
    assert "302" in str(caught.value)
    assert paths == ["/moved/jwks.json"]


def test_a_url_it_would_not_fetch_is_refused_before_any_request():
    for bad in ("file:///etc/jwks.json", "https://aar.example?tenant=a", "https://u:p@aar.example"):
        with pytest.raises(ValueError):
            JwksSource(bad)
    with pytest.raises(ValueError):
        JwksSource("https://a.example", issuer_url="https://b.example")


def test_delegation_chain_now_defaults_to_the_clock():
    for path in sorted((VECTORS / "delegation").glob("*.json")):
        given = load(path)["input"]
        omitted = verify_delegation_chain(given["chain"], given["jwks"])
        explicit = verify_delegation_chain(given["chain"], given["jwks"], _utc_now_iso())
        assert (omitted.valid, omitted.problems) == (explicit.valid, explicit.problems), path.name
        assert all("`now`" not in p["message"] for p in omitted.problems), path.name


def _resigned_at(timestamp: int):
    """vectors/webhooks/valid-shared-secret.json, its timestamp moved to `timestamp` and signed again."""
    given = load(VECTORS / "webhooks" / "valid-shared-secret.json")["input"]
    body = base64.b64decode(given["body"])
    secret = given["secrets"][0]
    key = base64.b64decode(secret[len("whsec_"):])
    wid = given["headers"]["webhook-id"]
    sig = base64.b64encode(hmac.new(key, f"{wid}.{timestamp}.".encode() + body, hashlib.sha256).digest()).decode()
    headers = {"webhook-id": wid, "webhook-timestamp": str(timestamp), "webhook-signature": f"v1,{sig}"}
    return headers, body, secret


def test_webhook_now_defaults_to_the_clock():
    headers, body, secret = _resigned_at(int(time.time()))
    fresh = verify_webhook_delivery(profile="shared_secret", headers=headers, body=body, secrets=[secret])
    assert (fresh.valid, fresh.code) == (True, None)
    headers, body, secret = _resigned_at(int(time.time()) - 3600)
    stale = verify_webhook_delivery(profile="shared_secret", headers=headers, body=body, secrets=[secret])
    assert (stale.valid, stale.code) == (False, "timestamp_stale")
