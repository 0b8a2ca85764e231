"""AP2 mandate presentations verified offline (issue 29): chains built here with generated P-256 (and Ed25519) keys
are accepted, and each mutation an attacker could make to one is refused with its reason; the AP2 documentation's
six tokens pass everything that can be checked without their unpublished issuer key; the evidence pack's `mandates`
check; the shared cross-runtime vector (vectors/mandates/)."""
import copy
import hashlib
import json
import secrets

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from aar_sdk._b64 import encode_b64url
from aar_sdk.ed25519 import generate_private_key, raw_public_key
from aar_sdk.evidence import verify_evidence_pack
from aar_sdk.jcs import canonical_json
from aar_sdk.mandates import (allowance_digest, check_mandates, mandate_digest, split_hops,
                              verify_ap2_presentation)
from aar_sdk.signed_document import signing_bytes
from conftest import VECTORS, load, shared


def b64json(value):
    return encode_b64url(json.dumps(value, separators=(",", ":")).encode("utf-8"))


def sha(text):
    return encode_b64url(hashlib.sha256(text.encode("utf-8")).digest())


def public_jwk(key):
    if isinstance(key, ec.EllipticCurvePrivateKey):
        n = key.public_key().public_numbers()
        crv, size = ("P-384", 48) if key.curve.name == "secp384r1" else ("P-256", 32)
        return {"kty": "EC", "crv": crv, "x": encode_b64url(n.x.to_bytes(size, "big")),
                "y": encode_b64url(n.y.to_bytes(size, "big"))}
    return {"kty": "OKP", "crv": "Ed25519", "x": encode_b64url(raw_public_key(key))}


def jws(header, payload, key):
    signing_input = f"{b64json(header)}.{b64json(payload)}"
    if header.get("alg") == "none":
        return signing_input + "."
    if isinstance(key, ec.EllipticCurvePrivateKey):
        size, digest = (48, hashes.SHA384()) if key.curve.name == "secp384r1" else (32, hashes.SHA256())
        r, s = decode_dss_signature(key.sign(signing_input.encode("ascii"), ec.ECDSA(digest)))
        signature = r.to_bytes(size, "big") + s.to_bytes(size, "big")
    else:
        signature = key.sign(signing_input.encode("ascii"))
    return f"{signing_input}.{encode_b64url(signature)}"


def disclosure(*items):
    return b64json([secrets.token_urlsafe(16), *items])


def p256():
    return ec.generate_private_key(ec.SECP256R1())


class Chain:
    """issuer -> user device (cnf of the open mandate) -> agent (cnf of the closed mandate)."""

    def __init__(self, issuer=None, alg="ES256"):
        self.issuer = issuer or p256()
        self.alg = alg
        self.user, self.agent = p256(), p256()
        self.payee = disclosure({"id": "merchant_1", "name": "Demo Merchant"})
        self.open_mandate = disclosure({
            "vct": "mandate.payment.open.1",
            "constraints": [{"type": "payment.amount_range", "currency": "USD", "max": 20000, "min": 0},
                            {"type": "payment.allowed_payees", "allowed": [{"...": sha(self.payee)}]}],
            "cnf": {"jwk": public_jwk(self.user)}, "iat": 1777342357, "exp": 1777345957})
        self.header0 = {"alg": alg, "typ": "dc+sd-jwt", "kid": "issuer-1"}
        self.payload0 = {"iss": "https://issuer.example", "delegate_payload": [{"...": sha(self.open_mandate)}],
                         "_sd_alg": "sha-256"}
        self.note = disclosure("transaction_note", "sneakers")
        self.closed_mandate = disclosure({"_sd": [sha(self.note)], "vct": "mandate.payment.1",
                                          "payment_amount": {"amount": 19900, "currency": "USD"},
                                          "cnf": {"jwk": public_jwk(self.agent)}})

    def jwks(self, kid="issuer-1"):
        return {"keys": [{**public_jwk(self.issuer), "kid": kid, "alg": self.alg}]}

    def hop0(self, disclosures=None, header=None, payload=None, key=None):
        disclosures = [self.payee, self.open_mandate] if disclosures is None else disclosures
        jwt = jws(header or self.header0, payload or self.payload0, key or self.issuer)
        return "~".join([jwt, *disclosures]) + "~"

    def hop1(self, previous, disclosures=None, key=None, sd_hash=None, header=None, **changes):
        disclosures = [self.closed_mandate, self.note] if disclosures is None else disclosures
        payload = {"delegate_payload": [{"...": sha(self.closed_mandate)}], "aud": "https://aar.example",
                   "nonce": "n-1", "iat": 1777342370, "_sd_alg": "sha-256",
                   "sd_hash": sha(previous) if sd_hash is None else sd_hash, **changes}
        jwt = jws(header or {"alg": "ES256", "typ": "kb+sd-jwt"}, payload, key or self.user)
        return "~".join([jwt, *disclosures]) + "~"

    def document(self):
        return self.hop0()

    def presented(self, document=None, **hop1):
        document = document or self.document()
        return document + "~" + self.hop1(document, **hop1)


def codes(presentation, jwks):
    return verify_ap2_presentation(presentation, jwks).codes()


# -- accepted ------------------------------------------------------------------------------------------------------

def test_an_issuer_signed_open_mandate_and_its_key_bound_closed_hop_verify():
    chain = Chain()
    document = chain.document()
    result = verify_ap2_presentation(chain.presented(document), chain.jwks())
    assert result.ok, result.errors
    assert [h.typ for h in result.hops] == ["dc+sd-jwt", "kb+sd-jwt"]
    open_mandate = result.hops[0].mandates[0]
    assert open_mandate["constraints"][1]["allowed"] == [{"id": "merchant_1", "name": "Demo Merchant"}]
    closed = result.hops[1].mandates[0]
    assert closed["transaction_note"] == "sneakers" and "_sd" not in closed
    assert verify_ap2_presentation(document, chain.jwks()).ok


def test_a_third_hop_signed_by_the_closed_mandates_cnf_key_verifies():
    chain = Chain()
    two = chain.presented()
    previous = split_hops(two)[1]  # sd_hash covers the previous hop only, with its trailing '~'
    third = chain.hop1(previous, disclosures=[], key=chain.agent)
    assert verify_ap2_presentation(two + "~" + third, chain.jwks()).ok
    assert codes(two + "~" + chain.hop1(two, disclosures=[], key=chain.agent), chain.jwks()) == ["sd_hash_mismatch"]
    wrong_key = chain.hop1(previous, disclosures=[], key=chain.user)
    assert codes(two + "~" + wrong_key, chain.jwks()) == ["key_binding_invalid"]


def test_an_eddsa_issuer_verifies():
    chain = Chain(issuer=generate_private_key(), alg="EdDSA")
    assert verify_ap2_presentation(chain.presented(), chain.jwks()).ok


def test_an_undisclosed_claim_is_simply_absent():
    chain = Chain()
    result = verify_ap2_presentation(chain.hop0(disclosures=[chain.open_mandate]), chain.jwks())
    assert result.ok and result.hops[0].mandates[0]["constraints"][1]["allowed"] == []


def test_an_es384_issuer_verifies():
    issuer = ec.generate_private_key(ec.SECP384R1())
    chain = Chain(issuer=issuer, alg="ES384")
    assert verify_ap2_presentation(chain.presented(), chain.jwks()).ok
    # a key that declares another alg is not used
    jwks = {"keys": [{**chain.jwks()["keys"][0], "alg": "ES256"}]}
    assert codes(chain.document(), jwks) == ["issuer_key_unknown"]


def test_the_issuer_is_chosen_by_iss_and_kid_as_core_does():
    chain = Chain()
    document = chain.document()
    assert verify_ap2_presentation(document, chain.jwks(), issuer="https://issuer.example").ok
    assert codes_of(verify_ap2_presentation(document, chain.jwks(), issuer="https://other.example")) == ["issuer_key_unknown"]
    anonymous = chain.hop0(header={"alg": "ES256", "typ": "dc+sd-jwt"},
                           payload={k: v for k, v in chain.payload0.items() if k != "iss"})
    assert codes(anonymous, chain.jwks()) == ["issuer_key_unknown"]


def codes_of(result):
    return result.codes()


@pytest.mark.parametrize("claim", ["nonce", "iat", "aud", "sd_hash"])
def test_a_key_binding_hop_needs_nonce_iat_aud_and_sd_hash(claim):
    chain = Chain()
    document = chain.document()
    payload = {"delegate_payload": [{"...": sha(chain.closed_mandate)}], "aud": "https://aar.example", "nonce": "n-1",
               "iat": 1777342370, "sd_hash": sha(document)}
    del payload[claim]
    hop = "~".join([jws({"alg": "ES256", "typ": "kb+sd-jwt"}, payload, chain.user), chain.closed_mandate, chain.note]) + "~"
    result = verify_ap2_presentation(document + "~" + hop, chain.jwks())
    assert [(e["path"], e["code"]) for e in result.errors] == [(f"/presentation/hops/1/payload/{claim}", "key_binding_invalid")]


def test_a_closed_checkout_is_bound_to_its_checkout_jwt_and_the_payment_to_it():
    chain = Chain()
    document = chain.document()
    checkout_jwt = "eyJhbGciOiJFUzI1NiJ9.eyJpZCI6ImNhcnQifQ.c2ln"

    def presented(checkout_hash, transaction_id):
        checkout = disclosure({"vct": "mandate.checkout.1", "checkout_jwt": checkout_jwt, "checkout_hash": checkout_hash})
        payment = disclosure({"vct": "mandate.payment.1", "transaction_id": transaction_id})
        payload = {"delegate_payload": [{"...": sha(checkout)}, {"...": sha(payment)}], "aud": "a", "nonce": "n",
                   "iat": 1, "sd_hash": sha(document)}
        hop = "~".join([jws({"alg": "ES256", "typ": "kb+sd-jwt"}, payload, chain.user), checkout, payment]) + "~"
        return verify_ap2_presentation(document + "~" + hop, chain.jwks())

    good = sha(checkout_jwt)
    assert presented(good, good).ok
    assert [(e["path"], e["code"]) for e in presented(sha("x"), sha("x")).errors] == \
        [("/presentation/hops/1/mandates/0/checkout_hash", "sd_hash_mismatch")]
    assert [(e["path"], e["code"]) for e in presented(good, sha("x")).errors] == \
        [("/presentation/hops/1/mandates/1/transaction_id", "sd_hash_mismatch")]


def test_mandate_contents_have_a_known_vct_and_whole_second_times_and_may_be_re_delegated():
    chain = Chain()
    unknown = disclosure({"vct": "mandate.loyalty.1"})
    result = verify_ap2_presentation(chain.hop0(disclosures=[unknown], payload={**chain.payload0, "delegate_payload": [{"...": sha(unknown)}]}), chain.jwks())
    assert [(e["path"], e["code"]) for e in result.errors] == [("/presentation/hops/0/mandates/0/vct", "unsupported_vct")]
    second = disclosure({"vct": "mandate.payment.open.1", "cnf": {"jwk": public_jwk(chain.agent)}})
    document = chain.document()
    payload = {"delegate_payload": [{"...": sha(second)}], "aud": "a", "nonce": "n", "iat": 1, "sd_hash": sha(document)}
    hop = "~".join([jws({"alg": "ES256", "typ": "kb+sd-jwt"}, payload, chain.user), second]) + "~"
    result = verify_ap2_presentation(document + "~" + hop, chain.jwks())
    # a re-delegated open mandate (AP2 multi-hop): its signatures hold; what it allows is the service's question
    assert result.ok, result.errors
    fractional = chain.hop0(payload={**chain.payload0, "exp": 1.5})
    assert codes(fractional, chain.jwks()) == ["schema_invalid"]
    not_a_list = chain.hop0(disclosures=[], payload={**chain.payload0, "delegate_payload": {"x": 1}})
    assert codes(not_a_list, chain.jwks()) == ["schema_invalid"]


def test_more_than_eight_hops_are_refused():
    chain = Chain()
    assert codes("~".join([chain.document()] * 9), chain.jwks()) == ["schema_invalid"]


def test_hops_keep_their_trailing_tilde():
    chain = Chain()
    document = chain.document()
    hops = split_hops(chain.presented(document))
    assert hops[0] == document and hops[1].endswith("~")


# -- refused -------------------------------------------------------------------------------------------------------

def test_a_changed_disclosure_no_longer_matches_its_digest():
    chain = Chain()
    forged = disclosure({"vct": "mandate.payment.open.1", "constraints": [], "cnf": {"jwk": public_jwk(chain.user)}})
    assert codes(chain.hop0(disclosures=[chain.payee, forged]), chain.jwks()) == ["disclosure_digest_mismatch"]


def test_a_disclosure_dropped_from_a_hop_breaks_the_next_hops_sd_hash():
    chain = Chain()
    document = chain.document()
    presented = chain.presented(document)
    dropped = presented.replace("~" + chain.payee, "", 1)
    assert dropped != presented
    assert codes(dropped, chain.jwks()) == ["sd_hash_mismatch"]


def test_a_disclosure_dropped_from_a_key_bound_hop_is_refused_by_the_evidence_digest():
    chain = Chain()
    document = chain.document()
    entry = {"mandate_id": "ns:mandate:1", "format": "ap2", "digest": mandate_digest(document), "document": document,
             "issuer": "https://issuer.example", "issuer_jwks": chain.jwks(), "presented": chain.presented(document)}
    assert check_mandates({"mandates": [entry]}) is True
    # as core: an entry that does not name the issuer its document's `iss` names has no trusted key
    assert check_mandates({"mandates": [{k: v for k, v in entry.items() if k != "issuer"}]}) == "mandate_signature_invalid"
    entry["presented"] = entry["presented"].replace("~" + chain.note, "", 1)
    # the note is still referenced by digest but not disclosed: a legal SD-JWT, the closed hop only shows less
    assert check_mandates({"mandates": [entry]}) is True
    entry["document"] = document.replace("~" + chain.payee, "", 1)
    assert check_mandates({"mandates": [entry]}) == "mandate_digest_mismatch"


@pytest.mark.parametrize("where", ["hop0", "hop1"])
def test_an_added_disclosure_is_refused(where):
    chain = Chain()
    extra = disclosure({"id": "merchant_2"})
    if where == "hop0":
        presentation = chain.hop0(disclosures=[chain.payee, chain.open_mandate, extra])
    else:
        document = chain.document()
        presentation = document + "~" + chain.hop1(document, disclosures=[chain.closed_mandate, chain.note, extra])
    result = verify_ap2_presentation(presentation, chain.jwks())
    assert result.codes() == ["disclosure_digest_mismatch"]
    assert result.errors[0]["path"].endswith("/disclosures/2")


def test_a_duplicated_disclosure_is_refused():
    chain = Chain()
    presentation = chain.hop0(disclosures=[chain.payee, chain.open_mandate, chain.payee])
    assert codes(presentation, chain.jwks()) == ["disclosure_digest_mismatch"]


def test_a_digest_referenced_twice_is_refused():
    chain = Chain()
    payload = {**chain.payload0, "delegate_payload": [{"...": sha(chain.open_mandate)}, {"...": sha(chain.open_mandate)}]}
    assert codes(chain.hop0(payload=payload), chain.jwks()) == ["disclosure_digest_mismatch"]


def test_an_array_element_disclosure_named_from_sd_is_refused():
    chain = Chain()
    payload = {**chain.payload0, "_sd": [sha(chain.payee)]}
    assert codes(chain.hop0(payload=payload), chain.jwks()) == ["disclosure_digest_mismatch"]


def test_a_key_binding_hop_signed_by_another_key_is_refused():
    chain = Chain()
    result = verify_ap2_presentation(chain.presented(key=chain.agent), chain.jwks())
    assert result.codes() == ["key_binding_invalid"]
    assert result.errors[0]["path"] == "/presentation/hops/1/jws/signature"


def test_a_swapped_cnf_key_breaks_the_open_mandates_digest():
    chain = Chain()
    attacker = p256()
    forged = json.loads(__import__("base64").urlsafe_b64decode(chain.open_mandate + "=="))
    forged[1]["cnf"] = {"jwk": public_jwk(attacker)}
    forged_text = b64json(forged)
    document = chain.hop0(disclosures=[chain.payee, forged_text])
    presentation = document + "~" + chain.hop1(document, key=attacker)
    assert codes(presentation, chain.jwks())[0] == "disclosure_digest_mismatch"


def test_a_wrong_sd_hash_is_refused():
    chain = Chain()
    assert codes(chain.presented(sd_hash=sha("something else~")), chain.jwks()) == ["sd_hash_mismatch"]


def test_a_key_binding_hop_without_its_typ_is_refused():
    chain = Chain()
    assert codes(chain.presented(header={"alg": "ES256", "typ": "JWT"}), chain.jwks()) == ["key_binding_invalid"]


@pytest.mark.parametrize("hop", [0, 1])
def test_alg_none_is_refused(hop):
    chain = Chain()
    if hop == 0:
        presentation = chain.hop0(header={"alg": "none", "typ": "dc+sd-jwt"})
    else:
        presentation = chain.presented(header={"alg": "none", "typ": "kb+sd-jwt"})
    result = verify_ap2_presentation(presentation, chain.jwks())
    assert result.codes() == ["signature_invalid"]
    assert result.errors[0]["path"] == f"/presentation/hops/{hop}/header/alg"


@pytest.mark.parametrize("edit", [
    lambda p: p.replace("~", "~=", 1),          # padding
    lambda p: p.replace("~", "~+", 1),          # standard alphabet
    lambda p: p.replace(".", ".!", 1),          # not base64 in the payload
    lambda p: p[: p.index("~") - 3] + p[p.index("~"):],  # truncated signature
    lambda p: p[:-1],                           # no trailing '~'
    lambda p: p.replace("~", "~~~", 1),         # an empty hop
])
def test_bad_encodings_are_refused(edit):
    chain = Chain()
    result = verify_ap2_presentation(edit(chain.presented()), chain.jwks())
    assert not result.ok and result.codes()[0] in ("schema_invalid", "signature_invalid", "disclosure_digest_mismatch")


def test_a_bad_issuer_signature_and_an_unknown_issuer_key():
    chain = Chain()
    other = Chain()
    assert codes(chain.document(), other.jwks()) == ["signature_invalid"]
    assert codes(chain.document(), other.jwks(kid="someone-else")) == ["issuer_key_unknown"]
    assert codes(chain.document(), None) == ["issuer_key_unknown"]


def test_a_key_the_token_names_for_itself_is_never_used():
    chain = Chain()
    attacker = p256()
    header = {**chain.header0, "jwk": public_jwk(attacker)}
    forged = chain.hop0(header=header, key=attacker)
    assert codes(forged, chain.jwks()) == ["signature_invalid"]


def test_an_unsupported_sd_alg_and_deep_nesting_and_size_are_refused():
    chain = Chain()
    assert codes(chain.hop0(payload={**chain.payload0, "_sd_alg": "sha-512"}), chain.jwks()) == ["disclosure_digest_mismatch"]
    deep = {"x": 1}
    for _ in range(20):
        deep = {"a": [deep]}
    assert codes(chain.hop0(payload={**chain.payload0, "deep": deep}), chain.jwks()) == ["schema_invalid"]
    big = chain.hop0(payload={**chain.payload0, "pad": "x" * 70000})
    assert codes(big, chain.jwks()) == ["schema_invalid"]
    assert verify_ap2_presentation(None).codes() == ["schema_invalid"]


def test_duplicate_json_members_are_refused():
    chain = Chain()
    head = encode_b64url(b'{"alg":"ES256","alg":"none"}')
    presentation = head + "." + chain.document().split(".", 1)[1]
    assert codes(presentation, chain.jwks()) == ["schema_invalid"]


# -- the AP2 documentation's tokens ----------------------------------------------------------------------------------

def doc_tokens():
    path = shared("ap2", "doc-tokens.json")
    return load(path) if path else []


@pytest.mark.parametrize("token", doc_tokens() or [pytest.param(None, marks=pytest.mark.skip("no shared vectors"))],
                         ids=lambda t: t["example"][:40] if t else "absent")
def test_ap2_documentation_tokens_pass_all_but_the_unpublished_issuer_key(token):
    result = verify_ap2_presentation(token["token"])
    # disclosure digests, sd_hash, the key-binding signature and the checkout hash bindings pass: the only error is
    # hop 0's unknown issuer key (a closed mandate shown alone is signed by the cnf key of an open one not presented)
    pointer = "/presentation/hops/0/header" + ("" if result.hops[0].typ == "kb+sd-jwt" else "/kid")
    assert [(e["path"], e["code"]) for e in result.errors] == [(pointer, "issuer_key_unknown")]
    assert len(result.hops) == token["token"].count("~~") + 1
    if len(result.hops) == 2:
        assert result.hops[1].typ == "kb+sd-jwt"
        tampered = token["token"]
        last = tampered.rsplit(".", 1)
        flipped = last[0] + "." + ("A" if last[1][0] != "A" else "B") + last[1][1:]
        assert "key_binding_invalid" in verify_ap2_presentation(flipped).codes()


# -- the evidence pack's `mandates` check ----------------------------------------------------------------------------

def entry_for(chain, mandate_id="ns:mandate:1"):
    document = chain.document()
    return {"mandate_id": mandate_id, "format": "ap2", "digest": mandate_digest(document), "document": document,
            "issuer": "https://issuer.example", "issuer_jwks": chain.jwks(), "presented": chain.presented(document)}


def binding(entry, **changes):
    return {"mandate_id": entry["mandate_id"], "format": entry["format"], "digest": entry["digest"],
            "single_use": False, "used": False, **changes}


def pack_with(entries, bindings, alternatives=None):
    snapshot = {"grants": [{"grant_id": "ns:grant:root"}, *({"grant_id": f"g{i}", "mandate": b} for i, b in enumerate(bindings))]}
    if alternatives is not None:
        snapshot["alternatives"] = alternatives
    pack = {"snapshot": snapshot}
    if entries is not None:
        pack["mandates"] = entries
    return pack


def test_the_mandates_check_applies_only_when_there_is_a_mandate():
    assert check_mandates({"snapshot": {"grants": [{"grant_id": "g"}]}}) is None
    assert check_mandates(pack_with([], [])) is True


def test_each_binding_needs_its_entry_with_the_same_digest():
    chain = Chain()
    entry = entry_for(chain)
    assert check_mandates(pack_with([entry], [binding(entry)])) is True
    assert check_mandates(pack_with(None, [binding(entry)])) == "mandate_missing"
    assert check_mandates(pack_with([], [binding(entry)])) == "mandate_missing"
    assert check_mandates(pack_with([entry], [binding(entry, digest=sha("x"))])) == "mandate_missing"
    assert check_mandates(pack_with([entry], [], alternatives=[[{"mandate": binding(entry, mandate_id="m2")}]])) \
        == "mandate_missing"


def test_an_entry_whose_digest_or_signatures_fail_is_refused():
    chain = Chain()
    entry = entry_for(chain)
    assert check_mandates(pack_with([{**entry, "digest": sha("x")}], [])) == "mandate_digest_mismatch"
    assert check_mandates(pack_with([{**entry, "issuer_jwks": Chain().jwks()}], [])) == "mandate_signature_invalid"
    assert check_mandates(pack_with([{**entry, "issuer_jwks": {"keys": []}}], [])) == "mandate_signature_invalid"
    bad_hop = chain.presented(entry["document"], key=chain.agent)
    assert check_mandates(pack_with([{**entry, "presented": bad_hop}], [])) == "mandate_signature_invalid"
    other = Chain(issuer=chain.issuer).presented()
    assert check_mandates(pack_with([{**entry, "presented": other}], [])) == "mandate_signature_invalid"
    assert check_mandates(pack_with([{**entry, "document": 5}], [])) == "malformed_mandates"
    assert check_mandates(pack_with({"not": "a list"}, [])) == "malformed_mandates"


def test_an_acp_entry_is_checked_by_its_digest():
    allowance = {"reason": "one_time", "max_amount": 2000, "currency": "usd", "checkout_session_id": "cs_1",
                 "merchant_id": "acme", "expires_at": "2026-12-01T00:00:00Z"}
    document = canonical_json(allowance)
    assert mandate_digest(document) == allowance_digest(allowance)
    entry = {"mandate_id": "ns:allowance:1", "format": "acp", "digest": allowance_digest(allowance), "document": document}
    assert check_mandates(pack_with([entry], [binding(entry, single_use=True)])) is True
    assert check_mandates(pack_with([{**entry, "document": document.replace("2000", "20000")}], [])) \
        == "mandate_digest_mismatch"


SDK = VECTORS / "sdk"
PACK_KEY = generate_private_key()


def test_a_signed_evidence_pack_with_mandates_verifies_and_a_tampered_one_does_not():
    pack = copy.deepcopy(load(SDK / "evidence-pack-allowed-valid.json")["input"]["pack"])
    chain = Chain()
    pack["mandates"] = [entry_for(chain)]

    def signed(doc):
        unsigned = {k: v for k, v in doc.items() if k != "signature"}
        sig = encode_b64url(PACK_KEY.sign(signing_bytes(unsigned)))
        return {**unsigned, "signature": {"algorithm": "ed25519", "key_id": "pack-key", "signature": sig}}

    trusted = {"keys": [*load(SDK / "jwks.json")["keys"],
                        {"kty": "OKP", "crv": "Ed25519", "x": encode_b64url(raw_public_key(PACK_KEY)), "kid": "pack-key"}]}
    result = verify_evidence_pack(signed(pack), trusted)
    assert result.valid, result.checks
    assert [c["check"] for c in result.checks][-2:] == ["mandates", "replay"]
    pack["mandates"][0]["presented"] = chain.presented(pack["mandates"][0]["document"], sd_hash=sha("x"))
    result = verify_evidence_pack(signed(pack), trusted)
    assert not result.valid
    assert result.failure() == "mandate_signature_invalid"


# -- the cross-runtime vector ----------------------------------------------------------------------------------------

def test_the_shared_mandate_chain_vector():
    vector = load(VECTORS / "mandates" / "ap2-chain.json")
    for case in vector["cases"]:
        result = verify_ap2_presentation(case["presentation"], vector["issuer_jwks"], issuer=vector["issuer"])
        assert sorted(set(result.codes())) == case["want"], case["desc"]
    for case in vector["evidence"]:
        assert check_mandates(case["pack"]) == (True if case["want"] == "valid" else case["want"]), case["desc"]


# -- evidence packs the service made (vectors/evidence-packs-with-mandates.json) -----------------------------------

SERVICE_PACKS = load(VECTORS / "evidence-packs-with-mandates.json")


@pytest.mark.parametrize("case", SERVICE_PACKS["packs"], ids=lambda c: c["desc"][:50])
def test_service_made_mandate_packs_verify_and_replay_offline(case):
    result = verify_evidence_pack(case["pack"], SERVICE_PACKS["jwks"])
    assert result.valid, result.checks
    assert {"check": "mandates", "valid": True} in result.checks
    assert result.replay_decision["matches"]
    assert (result.replay_decision["decision"], result.replay_decision["reason"]) == \
        (case["want"]["decision"], case["want"]["reason"])


def test_a_service_made_pack_with_its_mandate_changed_fails_the_mandates_check():
    case = next(c for c in SERVICE_PACKS["packs"] if "presented" in c["pack"]["mandates"][0])
    pack = copy.deepcopy(case["pack"])
    entry = pack["mandates"][0]
    hops = split_hops(entry["presented"])
    # a closing hop signed again by someone else: the presentation still extends the document
    forged_hop = hops[-1][: hops[-1].rindex(".") + 1] + encode_b64url(b"\x01" * 64) + hops[-1][hops[-1].index("~"):]
    entry["presented"] = entry["document"] + "~" + forged_hop
    failure = next(c for c in verify_evidence_pack(pack, SERVICE_PACKS["jwks"]).checks if c["check"] == "mandates")
    assert failure == {"check": "mandates", "valid": False, "failure": "mandate_signature_invalid"}
    pack = copy.deepcopy(case["pack"])
    del pack["mandates"]
    failure = next(c for c in verify_evidence_pack(pack, SERVICE_PACKS["jwks"]).checks if c["check"] == "mandates")
    assert failure == {"check": "mandates", "valid": False, "failure": "mandate_missing"}


def test_every_single_character_change_of_a_chain_is_refused_and_nothing_raises():
    chain = Chain()
    presented = chain.presented()
    jwks = chain.jwks()
    alphabet = "AQgw_-~.="
    for i, ch in enumerate(presented):
        replacement = next(c for c in alphabet[i % len(alphabet):] + alphabet if c != ch)
        changed = presented[:i] + replacement + presented[i + 1:]
        assert not verify_ap2_presentation(changed, jwks).ok, (i, ch, replacement)
    assert not verify_ap2_presentation(presented + "x", jwks).ok
    big = '{"iat": 1' + "0" * 400 + '}'
    assert codes(chain.hop0(payload={**chain.payload0, "nbf": 10**400}), jwks) == ["schema_invalid"]
    assert codes(encode_b64url(b'{"alg":"ES256"}') + "." + encode_b64url(big.encode()) + ".AA~", jwks)
