package aar

// AP2 mandate presentations verified offline (issue 29): chains built here with generated P-256 and Ed25519 keys are
// accepted and each mutation an attacker could make is refused with its reason; the AP2 documentation's six tokens
// pass everything that can be checked without their unpublished issuer key; the evidence pack's `mandates` check;
// the shared cross-runtime vector (vectors/mandates/ap2-chain.json).

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func b64j(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return encodeBase64URL(b)
}

func shaText(s string) string { sum := sha256.Sum256([]byte(s)); return encodeBase64URL(sum[:]) }

func newP256(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func fixed32(n []byte) []byte { return fixedN(n, 32) }

func fixedN(n []byte, size int) []byte {
	out := make([]byte, size)
	copy(out[size-len(n):], n)
	return out
}

func curveSize(k *ecdsa.PrivateKey) int { return (k.Curve.Params().BitSize + 7) / 8 }

func publicJWK(key any) map[string]any {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		size := curveSize(k)
		return map[string]any{"kty": "EC", "crv": k.Curve.Params().Name, "x": encodeBase64URL(fixedN(k.X.Bytes(), size)), "y": encodeBase64URL(fixedN(k.Y.Bytes(), size))}
	case ed25519.PrivateKey:
		return map[string]any{"kty": "OKP", "crv": "Ed25519", "x": encodeBase64URL(k.Public().(ed25519.PublicKey))}
	}
	return nil
}

func signJWS(t testing.TB, header, payload map[string]any, key any) string {
	t.Helper()
	input := b64j(t, header) + "." + b64j(t, payload)
	if header["alg"] == "none" {
		return input + "."
	}
	var sig []byte
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		digest := sha256.Sum256([]byte(input))
		sum := digest[:]
		if curveSize(k) == 48 {
			d := sha512.Sum384([]byte(input))
			sum = d[:]
		}
		r, s, err := ecdsa.Sign(rand.Reader, k, sum)
		if err != nil {
			t.Fatal(err)
		}
		sig = append(fixedN(r.Bytes(), curveSize(k)), fixedN(s.Bytes(), curveSize(k))...)
	case ed25519.PrivateKey:
		sig = ed25519.Sign(k, []byte(input))
	}
	return input + "." + encodeBase64URL(sig)
}

func makeDisclosure(t testing.TB, items ...any) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	return b64j(t, append([]any{encodeBase64URL(salt)}, items...))
}

type testChain struct {
	t                                    testing.TB
	issuer                               any
	alg                                  string
	user, agent                          *ecdsa.PrivateKey
	payee, openMandate, note, closedMand string
	header0, payload0                    map[string]any
}

func newChain(t testing.TB, issuer any, alg string) *testChain {
	if issuer == nil {
		issuer, alg = newP256(t), "ES256"
	}
	c := &testChain{t: t, issuer: issuer, alg: alg, user: newP256(t), agent: newP256(t)}
	c.payee = makeDisclosure(t, map[string]any{"id": "merchant_1", "name": "Demo Merchant"})
	c.openMandate = makeDisclosure(t, map[string]any{
		"vct": "mandate.payment.open.1",
		"constraints": []any{
			map[string]any{"type": "payment.amount_range", "currency": "USD", "max": 20000, "min": 0},
			map[string]any{"type": "payment.allowed_payees", "allowed": []any{map[string]any{"...": shaText(c.payee)}}},
		},
		"cnf": map[string]any{"jwk": publicJWK(c.user)},
	})
	c.header0 = map[string]any{"alg": alg, "typ": "dc+sd-jwt", "kid": "issuer-1"}
	c.payload0 = map[string]any{"iss": "https://issuer.example", "_sd_alg": "sha-256",
		"delegate_payload": []any{map[string]any{"...": shaText(c.openMandate)}}}
	c.note = makeDisclosure(t, "transaction_note", "sneakers")
	c.closedMand = makeDisclosure(t, map[string]any{"_sd": []any{shaText(c.note)}, "vct": "mandate.payment.1",
		"payment_amount": map[string]any{"amount": 19900, "currency": "USD"}, "cnf": map[string]any{"jwk": publicJWK(c.agent)}})
	return c
}

func (c *testChain) jwks(kid string) map[string]any {
	jwk := publicJWK(c.issuer)
	jwk["kid"] = kid
	return map[string]any{"keys": []any{jwk}}
}

func joinHop(jwt string, disclosures []string) string {
	return strings.Join(append([]string{jwt}, disclosures...), "~") + "~"
}

func (c *testChain) hop0(disclosures []string, header, payload map[string]any, key any) string {
	if disclosures == nil {
		disclosures = []string{c.payee, c.openMandate}
	}
	if header == nil {
		header = c.header0
	}
	if payload == nil {
		payload = c.payload0
	}
	if key == nil {
		key = c.issuer
	}
	return joinHop(signJWS(c.t, header, payload, key), disclosures)
}

type hopOpts struct {
	disclosures []string
	key         any
	sdHash      string
	header      map[string]any
}

func (c *testChain) hop1(previous string, o hopOpts) string {
	if o.disclosures == nil {
		o.disclosures = []string{c.closedMand, c.note}
	}
	if o.key == nil {
		o.key = c.user
	}
	if o.sdHash == "" {
		o.sdHash = shaText(previous)
	}
	if o.header == nil {
		o.header = map[string]any{"alg": "ES256", "typ": "kb+sd-jwt"}
	}
	payload := map[string]any{"delegate_payload": []any{map[string]any{"...": shaText(c.closedMand)}},
		"aud": "https://aar.example", "nonce": "n-1", "iat": 1777342370, "_sd_alg": "sha-256", "sd_hash": o.sdHash}
	return joinHop(signJWS(c.t, o.header, payload, o.key), o.disclosures)
}

func with(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{}
	for key, val := range m {
		out[key] = val
	}
	out[k] = v
	return out
}

func TestMandateChainAccepted(t *testing.T) {
	c := newChain(t, nil, "")
	doc := c.hop0(nil, nil, nil, nil)
	presented := doc + "~" + c.hop1(doc, hopOpts{})
	r := VerifyAp2Presentation(presented, c.jwks("issuer-1"), "")
	if !r.OK() || len(r.Hops) != 2 {
		t.Fatalf("want a verified two-hop chain, got %+v", r.Errors)
	}
	allowed := get(get(r.Hops[0].Mandates[0], "constraints").([]any)[1], "allowed").([]any)
	if !strictEqual(get(allowed[0], "id"), "merchant_1") {
		t.Fatalf("the nested payee disclosure is not resolved: %v", allowed)
	}
	if get(r.Hops[1].Mandates[0], "transaction_note") != "sneakers" || !isUndefined(get(r.Hops[1].Mandates[0], "_sd")) {
		t.Fatalf("the object member disclosure is not resolved: %v", r.Hops[1].Mandates[0])
	}
	previous := SplitAp2Hops(presented)[1]
	third := c.hop1(previous, hopOpts{disclosures: []string{}, key: c.agent})
	if r := VerifyAp2Presentation(presented+"~"+third, c.jwks("issuer-1"), ""); !r.OK() {
		t.Fatalf("three hops: %+v", r.Errors)
	}
	if r := VerifyAp2Presentation(c.hop0([]string{c.openMandate}, nil, nil, nil), c.jwks("issuer-1"), ""); !r.OK() {
		t.Fatalf("an undisclosed payee must verify: %+v", r.Errors)
	}
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	ed := newChain(t, edKey, "EdDSA")
	edDoc := ed.hop0(nil, nil, nil, nil)
	if r := VerifyAp2Presentation(edDoc+"~"+ed.hop1(edDoc, hopOpts{}), ed.jwks("issuer-1"), ""); !r.OK() {
		t.Fatalf("EdDSA issuer: %+v", r.Errors)
	}
}

func TestMandateMutationsRefused(t *testing.T) {
	c := newChain(t, nil, "")
	attacker := newP256(t)
	doc := c.hop0(nil, nil, nil, nil)
	presented := doc + "~" + c.hop1(doc, hopOpts{})
	forged := makeDisclosure(t, map[string]any{"vct": "mandate.payment.open.1", "cnf": map[string]any{"jwk": publicJWK(attacker)}})
	extra := makeDisclosure(t, map[string]any{"id": "merchant_2"})
	deep := any(map[string]any{"x": 1})
	for i := 0; i < 20; i++ {
		deep = map[string]any{"a": []any{deep}}
	}
	noneHeader := map[string]any{"alg": "none", "typ": "kb+sd-jwt"}
	unknown := makeDisclosure(t, map[string]any{"vct": "mandate.loyalty.1"})
	cases := []struct {
		name, presentation string
		jwks               any
		want               []string
	}{
		{"changed disclosure", c.hop0([]string{c.payee, forged}, nil, nil, nil), nil, []string{"disclosure_digest_mismatch"}},
		{"dropped disclosure", strings.Replace(presented, "~"+c.payee, "", 1), nil, []string{"sd_hash_mismatch"}},
		{"added disclosure", c.hop0([]string{c.payee, c.openMandate, extra}, nil, nil, nil), nil, []string{"disclosure_digest_mismatch"}},
		{"added to hop 1", doc + "~" + c.hop1(doc, hopOpts{disclosures: []string{c.closedMand, c.note, extra}}), nil, []string{"disclosure_digest_mismatch"}},
		{"duplicated disclosure", c.hop0([]string{c.payee, c.openMandate, c.payee}, nil, nil, nil), nil, []string{"disclosure_digest_mismatch"}},
		{"digest referenced twice", c.hop0(nil, nil, with(c.payload0, "delegate_payload", []any{
			map[string]any{"...": shaText(c.openMandate)}, map[string]any{"...": shaText(c.openMandate)}}), nil), nil, []string{"disclosure_digest_mismatch"}},
		{"array disclosure named from _sd", c.hop0(nil, nil, with(c.payload0, "_sd", []any{shaText(c.payee)}), nil), nil, []string{"disclosure_digest_mismatch"}},
		{"swapped key-binding key", doc + "~" + c.hop1(doc, hopOpts{key: attacker}), nil, []string{"key_binding_invalid"}},
		{"wrong sd_hash", doc + "~" + c.hop1(doc, hopOpts{sdHash: shaText("x~")}), nil, []string{"sd_hash_mismatch"}},
		{"kb hop without its typ", doc + "~" + c.hop1(doc, hopOpts{header: map[string]any{"alg": "ES256", "typ": "JWT"}}), nil, []string{"key_binding_invalid"}},
		{"alg none on hop 0", c.hop0(nil, map[string]any{"alg": "none"}, nil, nil), nil, []string{"signature_invalid"}},
		{"alg none on hop 1", doc + "~" + c.hop1(doc, hopOpts{header: noneHeader}), nil, []string{"signature_invalid"}},
		{"HS256", c.hop0(nil, map[string]any{"alg": "HS256"}, nil, nil), nil, []string{"signature_invalid"}},
		{"self-named issuer key", c.hop0(nil, with(c.header0, "jwk", publicJWK(attacker)), nil, attacker), nil, []string{"signature_invalid"}},
		{"another issuer's key", doc, newChain(t, nil, "").jwks("issuer-1"), []string{"signature_invalid"}},
		{"unknown kid", doc, c.jwks("issuer-2"), []string{"issuer_key_unknown"}},
		{"no issuer keys", doc, map[string]any{"keys": []any{}}, []string{"issuer_key_unknown"}},
		{"padded base64", strings.Replace(doc, "~"+c.payee, "~"+c.payee+"=", 1), nil, []string{"disclosure_digest_mismatch"}},
		{"standard alphabet", strings.Replace(doc, "~", "~+", 1), nil, []string{"disclosure_digest_mismatch"}},
		{"not base64 payload", strings.Replace(doc, ".", ".!", 1), nil, []string{"schema_invalid"}},
		{"no trailing tilde", doc[:len(doc)-1], nil, []string{"schema_invalid"}},
		{"empty hop", strings.Replace(presented, "~~", "~~~~", 1), nil, []string{"schema_invalid"}},
		{"sha-512", c.hop0(nil, nil, with(c.payload0, "_sd_alg", "sha-512"), nil), nil, []string{"disclosure_digest_mismatch"}},
		{"issuer not named", c.hop0(nil, with(c.header0, "kid", nil), with(c.payload0, "iss", nil), nil), nil, []string{"issuer_key_unknown"}},
		{"too deep", c.hop0(nil, nil, with(c.payload0, "deep", deep), nil), nil, []string{"schema_invalid"}},
		{"fractional exp", c.hop0(nil, nil, with(c.payload0, "exp", 1.5), nil), nil, []string{"schema_invalid"}},
		{"delegate_payload not an array", c.hop0([]string{}, nil, with(c.payload0, "delegate_payload", map[string]any{"x": 1}), nil), nil, []string{"schema_invalid"}},
		{"unknown vct", c.hop0([]string{unknown}, nil, with(c.payload0, "delegate_payload", []any{map[string]any{"...": shaText(unknown)}}), nil), nil, []string{"unsupported_vct"}},
		{"too large", c.hop0(nil, nil, with(c.payload0, "pad", strings.Repeat("x", 70000)), nil), nil, []string{"schema_invalid"}},
		{"duplicate header member", encodeBase64URL([]byte(`{"alg":"ES256","alg":"none"}`)) + "." + strings.SplitN(doc, ".", 2)[1], nil, []string{"schema_invalid"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			jwks := tc.jwks
			if jwks == nil {
				jwks = c.jwks("issuer-1")
			}
			got := VerifyAp2Presentation(tc.presentation, jwks, "").Codes()
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("want %v, got %v", tc.want, got)
			}
		})
	}
}

func TestMandateAp2DocumentationTokens(t *testing.T) {
	dir := sharedVectorPath(t, "ap2")
	tokens, _ := readJSONFile(t, filepath.Join(dir, "doc-tokens.json")).([]any)
	if len(tokens) != 6 {
		t.Fatalf("want the six AP2 documentation tokens, got %d", len(tokens))
	}
	for _, tok := range tokens {
		text := get(tok, "token").(string)
		r := VerifyAp2Presentation(text, nil, "")
		// a closed mandate shown alone is signed by the cnf key of an open one not presented
		pointer := "/presentation/hops/0/header/kid"
		if len(r.Hops) > 0 && r.Hops[0].Typ == "kb+sd-jwt" {
			pointer = "/presentation/hops/0/header"
		}
		if len(r.Errors) != 1 || r.Errors[0].Path != pointer || r.Errors[0].Code != "issuer_key_unknown" {
			t.Fatalf("%s: digests, sd_hash and key binding must pass and only the issuer key be unknown: %+v", get(tok, "example"), r.Errors)
		}
		if len(r.Hops) != strings.Count(text, "~~")+1 {
			t.Fatalf("%s: %d hops", get(tok, "example"), len(r.Hops))
		}
		if len(r.Hops) == 2 {
			i := strings.LastIndex(text, ".") + 1
			flip := "A"
			if text[i] == 'A' {
				flip = "B"
			}
			codes := VerifyAp2Presentation(text[:i]+flip+text[i+1:], nil, "").Codes()
			if !reflect.DeepEqual(codes, []string{"issuer_key_unknown", "key_binding_invalid"}) {
				t.Fatalf("a flipped key-binding signature: %v", codes)
			}
		}
	}
}

func TestMandateSharedVector(t *testing.T) {
	v := readJSONFile(t, filepath.Join(vectorPath(t, "mandates"), "ap2-chain.json"))
	cases, _ := get(v, "cases").([]any)
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, tc := range cases {
		got := distinctSorted(VerifyAp2Presentation(get(tc, "presentation").(string), get(v, "issuer_jwks"), get(v, "issuer").(string)).Codes())
		want := stringsOf(get(tc, "want"))
		if want == nil {
			want = []string{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: want %v, got %v", get(tc, "desc"), want, got)
		}
	}
	for _, tc := range get(v, "evidence").([]any) {
		failure, applies := CheckMandates(get(tc, "pack"))
		want := get(tc, "want").(string)
		if want == "valid" {
			want = ""
		}
		if !applies || failure != want {
			t.Errorf("%s: want %q, got %q (applies %v)", get(tc, "desc"), want, failure, applies)
		}
	}
}

func distinctSorted(codes []string) []string {
	out := []string{}
	for _, c := range codes {
		if !includesString(out, c) {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

func TestMandateEvidenceCheck(t *testing.T) {
	c := newChain(t, nil, "")
	doc := c.hop0(nil, nil, nil, nil)
	entry := map[string]any{"mandate_id": "ns:mandate:1", "format": "ap2", "digest": MandateDigest(doc), "document": doc,
		"issuer": "https://issuer.example", "issuer_jwks": c.jwks("issuer-1"), "presented": doc + "~" + c.hop1(doc, hopOpts{})}
	binding := map[string]any{"mandate_id": "ns:mandate:1", "format": "ap2", "digest": MandateDigest(doc), "single_use": false, "used": false}
	pack := func(entries any, alternatives ...any) map[string]any {
		p := map[string]any{"snapshot": map[string]any{"grants": []any{map[string]any{"grant_id": "g"}}, "alternatives": alternatives}}
		if entries != nil {
			p["mandates"] = entries
		}
		return p
	}
	withBinding := func(b map[string]any) []any { return []any{[]any{map[string]any{"mandate": b}}} }
	if _, applies := CheckMandates(pack(nil)); applies {
		t.Fatal("a pack without mandates records no mandates check")
	}
	for name, tc := range map[string]struct {
		pack map[string]any
		want string
	}{
		"valid":                 {pack([]any{entry}, withBinding(binding)...), ""},
		"binding without entry": {pack(nil, withBinding(binding)...), "mandate_missing"},
		"other digest bound":    {pack([]any{entry}, withBinding(with(binding, "digest", shaText("x")))...), "mandate_missing"},
		"digest mismatch":       {pack([]any{with(entry, "digest", shaText("x"))}), "mandate_digest_mismatch"},
		"bad key binding": {pack([]any{with(entry, "presented", doc+"~"+c.hop1(doc, hopOpts{key: c.agent}))}),
			"mandate_signature_invalid"},
		"presented elsewhere": {pack([]any{with(entry, "presented", c.hop1(doc, hopOpts{}))}), "mandate_signature_invalid"},
		"other issuer":        {pack([]any{with(entry, "issuer_jwks", newChain(t, nil, "").jwks("issuer-1"))}), "mandate_signature_invalid"},
		"malformed":           {pack(map[string]any{}), "malformed_mandates"},
		"issuer not named":    {pack([]any{with(entry, "issuer", nil)}), "mandate_signature_invalid"},
		"acp digest": {pack([]any{map[string]any{"mandate_id": "ns:allowance:1", "format": "acp",
			"digest": shaText(`{"max_amount":2000}`), "document": `{"max_amount":20000}`}}), "mandate_digest_mismatch"},
	} {
		if failure, applies := CheckMandates(tc.pack); !applies || failure != tc.want {
			t.Errorf("%s: want %q, got %q", name, tc.want, failure)
		}
	}
	digest, err := AllowanceDigest(map[string]any{"max_amount": 2000.0, "currency": "usd"})
	if err != nil || digest != shaText(`{"currency":"usd","max_amount":2000}`) {
		t.Fatalf("the allowance digest is over its RFC 8785 form: %s %v", digest, err)
	}
}

// A signed pack with a `mandates` member verifies whole; a tampered presentation fails the `mandates` check only.
func TestMandateEvidencePackWiring(t *testing.T) {
	v := readJSONFile(t, filepath.Join(vectorPath(t, "sdk"), "evidence-pack-allowed-valid.json"))
	pack := get(get(v, "input"), "pack").(map[string]any)
	keys := get(readJSONFile(t, filepath.Join(vectorPath(t, "sdk"), "jwks.json")), "keys").([]any)
	_, packKey, _ := ed25519.GenerateKey(rand.Reader)
	jwk := publicJWK(packKey)
	jwk["kid"] = "pack-key"
	trusted := JWKS{}
	raw, _ := json.Marshal(map[string]any{"keys": append(append([]any{}, keys...), jwk)})
	if err := json.Unmarshal(raw, &trusted); err != nil {
		t.Fatal(err)
	}
	c := newChain(t, nil, "")
	doc := c.hop0(nil, nil, nil, nil)
	sign := func(presented string) map[string]any {
		p := map[string]any{}
		for k, val := range pack {
			if k != "signature" {
				p[k] = val
			}
		}
		p["mandates"] = []any{map[string]any{"mandate_id": "ns:mandate:1", "format": "ap2", "digest": MandateDigest(doc),
			"document": doc, "issuer": "https://issuer.example", "issuer_jwks": c.jwks("issuer-1"), "presented": presented}}
		normal, _ := ToJSONValue(p)
		b, err := Canonicalize(normal)
		if err != nil {
			t.Fatal(err)
		}
		p["signature"] = map[string]any{"algorithm": "ed25519", "key_id": "pack-key",
			"signature": base64.RawURLEncoding.EncodeToString(ed25519.Sign(packKey, b))}
		return p
	}
	ok := VerifyEvidencePack(context.Background(), sign(doc+"~"+c.hop1(doc, hopOpts{})), trusted, VerifyEvidencePackOptions{})
	names := []string{}
	for _, ch := range ok.Checks {
		names = append(names, ch.Check)
	}
	if !ok.Valid || names[len(names)-2] != "mandates" {
		t.Fatalf("want a valid pack with a mandates check before replay: %+v", ok.Checks)
	}
	bad := VerifyEvidencePack(context.Background(), sign(doc+"~"+c.hop1(doc, hopOpts{sdHash: shaText("x")})), trusted, VerifyEvidencePackOptions{})
	for _, ch := range bad.Checks {
		if ch.Check == "mandates" && ch.Failure != "mandate_signature_invalid" || ch.Check != "mandates" && !ch.Valid {
			t.Fatalf("only the mandates check fails: %+v", bad.Checks)
		}
	}
	if bad.Valid {
		t.Fatal("a tampered presentation must make the pack invalid")
	}
}

func TestMandateES384AndCheckoutBindingsAndKeyBindingClaims(t *testing.T) {
	issuer, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	c := newChain(t, issuer, "ES384")
	doc := c.hop0(nil, nil, nil, nil)
	if r := VerifyAp2Presentation(doc+"~"+c.hop1(doc, hopOpts{}), c.jwks("issuer-1"), "https://issuer.example"); !r.OK() {
		t.Fatalf("ES384 issuer: %+v", r.Errors)
	}
	if codes := VerifyAp2Presentation(doc, c.jwks("issuer-1"), "https://other.example").Codes(); !reflect.DeepEqual(codes, []string{"issuer_key_unknown"}) {
		t.Fatalf("another issuer named: %v", codes)
	}
	declared := c.jwks("issuer-1")
	declared["keys"].([]any)[0].(map[string]any)["alg"] = "ES256"
	if codes := VerifyAp2Presentation(doc, declared, "").Codes(); !reflect.DeepEqual(codes, []string{"issuer_key_unknown"}) {
		t.Fatalf("a key declaring another alg: %v", codes)
	}

	p := newChain(t, nil, "")
	pdoc := p.hop0(nil, nil, nil, nil)
	checkoutJWT := "eyJhbGciOiJFUzI1NiJ9.eyJpZCI6ImNhcnQifQ.c2ln"
	closed := func(checkoutHash, transactionID string, drop string) []MandateError {
		checkout := makeDisclosure(t, map[string]any{"vct": "mandate.checkout.1", "checkout_jwt": checkoutJWT, "checkout_hash": checkoutHash})
		payment := makeDisclosure(t, map[string]any{"vct": "mandate.payment.1", "transaction_id": transactionID})
		payload := map[string]any{"delegate_payload": []any{map[string]any{"...": shaText(checkout)}, map[string]any{"...": shaText(payment)}},
			"aud": "a", "nonce": "n", "iat": 1, "sd_hash": shaText(pdoc)}
		delete(payload, drop)
		hop := joinHop(signJWS(t, map[string]any{"alg": "ES256", "typ": "kb+sd-jwt"}, payload, p.user), []string{checkout, payment})
		return VerifyAp2Presentation(pdoc+"~"+hop, p.jwks("issuer-1"), "").Errors
	}
	good := shaText(checkoutJWT)
	if errs := closed(good, good, ""); len(errs) != 0 {
		t.Fatalf("bound checkout and payment: %+v", errs)
	}
	if errs := closed(shaText("x"), shaText("x"), ""); len(errs) != 1 || errs[0].Path != "/presentation/hops/1/mandates/0/checkout_hash" || errs[0].Code != "sd_hash_mismatch" {
		t.Fatalf("checkout_hash: %+v", errs)
	}
	if errs := closed(good, shaText("x"), ""); len(errs) != 1 || errs[0].Path != "/presentation/hops/1/mandates/1/transaction_id" || errs[0].Code != "sd_hash_mismatch" {
		t.Fatalf("transaction_id: %+v", errs)
	}
	for _, claim := range []string{"nonce", "iat", "aud", "sd_hash"} {
		errs := closed(good, good, claim)
		if len(errs) != 1 || errs[0].Path != "/presentation/hops/1/payload/"+claim || errs[0].Code != "key_binding_invalid" {
			t.Fatalf("without %s: %+v", claim, errs)
		}
	}
	nine := strings.Repeat(pdoc+"~", 8) + pdoc
	if codes := VerifyAp2Presentation(nine, p.jwks("issuer-1"), "").Codes(); !reflect.DeepEqual(codes, []string{"schema_invalid"}) {
		t.Fatalf("nine hops: %v", codes)
	}
}

// Evidence packs the service made under an AP2 mandate and an ACP allowance verify whole (the mandates check
// included) and replay to their recorded decisions; a forged closing hop or a dropped mandates member fails the check.
func TestMandateServiceMadePacksVerifyAndReplay(t *testing.T) {
	v := readJSONFile(t, filepath.Join(repoRoot(t), "vectors", "evidence-packs-with-mandates.json"))
	keys := jwksOf(t, get(v, "jwks"))
	packs, _ := get(v, "packs").([]any)
	if len(packs) != 5 {
		t.Fatalf("want 5 packs, got %d", len(packs))
	}
	mandatesCheck := func(r EvidenceVerification) EvidenceCheck {
		for _, c := range r.Checks {
			if c.Check == "mandates" {
				return c
			}
		}
		return EvidenceCheck{}
	}
	for _, tc := range packs {
		r := VerifyEvidencePack(context.Background(), get(tc, "pack"), keys, VerifyEvidencePackOptions{})
		want := get(tc, "want")
		if !r.Valid || !mandatesCheck(r).Valid || r.ReplayDecision == nil || !r.ReplayDecision.Matches ||
			r.ReplayDecision.Decision != get(want, "decision") || r.ReplayDecision.Reason != get(want, "reason") {
			t.Fatalf("%s: %+v %+v", get(tc, "desc"), r.Checks, r.ReplayDecision)
		}
	}
	presented := obj(get(packs[1], "pack"))
	entry := obj(get(presented, "mandates").([]any)[0])
	hops := SplitAp2Hops(entry["presented"].(string))
	last := hops[len(hops)-1]
	forgedHop := last[:strings.LastIndex(last, ".")+1] + encodeBase64URL(make([]byte, 64)) + last[strings.Index(last, "~"):]
	forged := with(presented, "mandates", []any{with(entry, "presented", entry["document"].(string)+"~"+forgedHop)})
	if c := mandatesCheck(VerifyEvidencePack(context.Background(), forged, keys, VerifyEvidencePackOptions{})); c.Failure != "mandate_signature_invalid" {
		t.Fatalf("forged closing hop: %+v", c)
	}
	dropped := with(presented, "mandates", nil)
	delete(dropped, "mandates")
	if c := mandatesCheck(VerifyEvidencePack(context.Background(), dropped, keys, VerifyEvidencePackOptions{})); c.Failure != "mandate_missing" {
		t.Fatalf("dropped mandates: %+v", c)
	}
}

func TestMandateEverySingleCharacterChangeIsRefused(t *testing.T) {
	c := newChain(t, nil, "")
	doc := c.hop0(nil, nil, nil, nil)
	presented := doc + "~" + c.hop1(doc, hopOpts{})
	jwks := c.jwks("issuer-1")
	alphabet := "AQgw_-~.="
	for i := 0; i < len(presented); i++ {
		rotated := alphabet[i%len(alphabet):] + alphabet
		replacement := byte(0)
		for j := 0; j < len(rotated); j++ {
			if rotated[j] != presented[i] {
				replacement = rotated[j]
				break
			}
		}
		changed := presented[:i] + string(replacement) + presented[i+1:]
		if VerifyAp2Presentation(changed, jwks, "").OK() {
			t.Fatalf("position %d: %q -> %q accepted", i, presented[i], replacement)
		}
	}
	if VerifyAp2Presentation(presented+"x", jwks, "").OK() {
		t.Fatal("a trailing character accepted")
	}
}
