package aar

import (
	"crypto/ed25519"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSignatureBaseAndSignatureMatchRFC9421B26(t *testing.T) {
	v := obj(readJSONFile(t, filepath.Join(sharedVectorPath(t, "http-signatures"), "rfc9421-b26.json")))
	key, req := obj(v["key"]), obj(v["request"])
	seed, ok := decodeBase64URLStrict(key["d"].(string))
	if !ok {
		t.Fatal("bad seed")
	}
	priv := ed25519.NewKeyFromSeed(seed)
	if encodeBase64URL(priv.Public().(ed25519.PublicKey)) != key["x"] {
		t.Fatal("seed does not give the vector's public key")
	}
	headers := http.Header{}
	for k, val := range obj(req["headers"]) {
		headers.Set(k, val.(string))
	}
	components := []string{"date", "@method", "@path", "@authority", "content-type", "content-length"}
	base, sp, err := SignatureBase(components, SignableRequest{
		Method: req["method"].(string), URL: "https://" + req["authority"].(string) + req["path"].(string), Headers: headers,
	}, []SignatureParam{{"created", int64(1618884473)}, {"keyid", key["kid"].(string)}})
	if err != nil {
		t.Fatal(err)
	}
	if base != v["signature_base"] {
		t.Fatalf("base:\n%s\nwant:\n%s", base, v["signature_base"])
	}
	if "sig-b26="+sp != v["signature_input"] {
		t.Fatalf("signature-input %s", sp)
	}
	got := "sig-b26=:" + encodeBase64(ed25519.Sign(priv, []byte(base))) + ":"
	if got != v["signature"] {
		t.Fatalf("signature %s, want %s", got, v["signature"])
	}
}

func TestRequestSignerAgentProfile(t *testing.T) {
	seed := make([]byte, 32)
	priv := ed25519.NewKeyFromSeed(seed)
	s := &RequestSigner{
		KeyID: "ns:entity:agent:shopper-1", PrivateKey: priv,
		Now:   func() time.Time { return time.Unix(1776247200, 0) },
		Nonce: func() string { return "n-1" },
		// the client talks to an internal address; the signature names the public URL the service rebuilds
		TargetBaseURL: "https://AAR.example:443",
	}
	body := []byte(`{"a":1}`)
	h, err := s.Sign("POST", "http://10.0.0.5:8080/v1/runtime/authorize", body)
	if err != nil {
		t.Fatal(err)
	}
	wantInput := `sig1=("@method" "@target-uri" "content-digest");created=1776247200;nonce="n-1";keyid="ns:entity:agent:shopper-1";alg="ed25519"`
	if h.SignatureInput != wantInput {
		t.Fatalf("input %s", h.SignatureInput)
	}
	base := "\"@method\": POST\n\"@target-uri\": https://aar.example/v1/runtime/authorize\n\"content-digest\": " +
		ContentDigest(body) + "\n\"@signature-params\": " + strings.TrimPrefix(wantInput, "sig1=")
	sig, _ := decodeBase64Strict(strings.TrimSuffix(strings.TrimPrefix(h.Signature, "sig1=:"), ":"))
	if !VerifyEd25519(priv.Public().(ed25519.PublicKey), []byte(base), sig) {
		t.Fatal("signature does not cover the expected base")
	}
	if _, err := s.Sign("POST", "https://user:pw@aar.example/x", body); err != nil {
		// TargetBaseURL replaces the authority; without it userinfo is refused
		t.Fatal(err)
	}
	s.TargetBaseURL = ""
	if _, err := s.Sign("POST", "https://user:pw@aar.example/x", body); err == nil {
		t.Fatal("userinfo accepted")
	}
	if _, _, err := SignatureBase([]string{"x-evil"}, SignableRequest{Headers: http.Header{"X-Evil": {"a\r\n\"@method\": GET"}}}, nil); err == nil {
		t.Fatal("a value with CR LF was signed")
	}
}
