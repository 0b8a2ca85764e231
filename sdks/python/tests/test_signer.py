"""The RFC 9421 signer: RFC 9421 Appendix B.2.6 byte for byte, and the same headers as core's signRequest (the TS
signer the service's own tests use) for the same key, time and nonce."""
import json
import os
import shutil
import subprocess

import pytest

from aar_sdk.ed25519 import ed25519_verify, raw_public_key
from aar_sdk.http_signatures import RequestSigner, SignatureError, private_key_from_jwk, sign_request, signature_base
from conftest import ROOT, load, shared

B26_PATH = shared("http-signatures", "rfc9421-b26.json")
if B26_PATH is None:  # every test here signs with the RFC's B.1.4 key
    pytest.skip("../shared/vectors/http-signatures is absent", allow_module_level=True)
B26 = load(B26_PATH)


def test_rfc9421_b26_signature_base_and_signature():
    req = B26["request"]
    components = ["date", "@method", "@path", "@authority", "content-type", "content-length"]
    params = [("created", 1618884473), ("keyid", "test-key-ed25519")]
    base = signature_base(components, req["method"], f"https://{req['authority']}{req['path']}", req["headers"], params)
    assert base == B26["signature_base"]
    key = private_key_from_jwk(B26["key"])
    import base64
    assert "sig-b26=:" + base64.b64encode(key.sign(base.encode())).decode() + ":" == B26["signature"]


def test_agent_signature_verifies_and_covers_the_profile():
    key = private_key_from_jwk(B26["key"])
    signer = RequestSigner("ns:entity:agent:shopper-1", key, now=lambda: 1776247200.9)
    headers = signer.sign("post", "HTTPS://AAR.Example:443/v1/runtime/authorize", b'{"a":1}')
    assert headers["signature-input"].startswith('sig1=("@method" "@target-uri" "content-digest");created=1776247200;nonce="')
    assert headers["signature-input"].endswith(';keyid="ns:entity:agent:shopper-1";alg="ed25519"')
    params = headers["signature-input"][len('sig1=("@method" "@target-uri" "content-digest")'):]
    base = ('"@method": POST\n"@target-uri": https://aar.example/v1/runtime/authorize\n'
            f'"content-digest": {headers["content-digest"]}\n'
            f'"@signature-params": ("@method" "@target-uri" "content-digest"){params}')
    import base64
    sig = base64.b64decode(headers["signature"][len("sig1=:"):-1])
    assert ed25519_verify(raw_public_key(key), base.encode(), sig)
    assert signer.sign("POST", "https://a.example/x", b"")["signature"] != signer.sign("POST", "https://a.example/x", b"")["signature"]


def test_refuses_userinfo_and_bad_nonce():
    key = private_key_from_jwk(B26["key"])
    with pytest.raises(SignatureError):
        sign_request(method="POST", url="https://user@aar.example/x", body=b"", private_key=key, key_id="k", created=1, nonce="n")
    with pytest.raises(SignatureError):
        sign_request(method="POST", url="https://aar.example/x", body=b"", private_key=key, key_id="k", created=1, nonce="\n")


@pytest.mark.skipif(shutil.which("node") is None and os.environ.get("CI") != "true", reason="node is not installed")
def test_same_headers_as_core_sign_request():
    script = """
import { signRequest } from './packages/core/src/index.ts';
import { createPrivateKey, sign } from 'node:crypto';
const jwk = JSON.parse(process.argv[1]);
const key = createPrivateKey({ key: jwk, format: 'jwk' });
const headers = await signRequest(
  { method: 'POST', url: 'https://aar.example/v1/runtime/authorize', body: '{"amount":42.5}' },
  { keyId: 'ns:entity:agent:shopper-1', sign: async (m) => new Uint8Array(sign(null, m, key)) },
  { created: 1776247200, nonce: 'fixed-nonce-0123456789' },
);
console.log(JSON.stringify(headers));
"""
    out = subprocess.run(["node", "--import", "tsx", "--input-type=module", "-e", script, json.dumps(B26["key"])],
                         cwd=ROOT, capture_output=True, text=True, timeout=60, check=True).stdout
    ts = json.loads(out)
    py = sign_request(method="POST", url="https://aar.example/v1/runtime/authorize", body='{"amount":42.5}',
                      private_key=private_key_from_jwk(B26["key"]), key_id="ns:entity:agent:shopper-1",
                      created=1776247200, nonce="fixed-nonce-0123456789")
    assert py == ts
