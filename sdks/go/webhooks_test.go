package aar

import (
	"context"
	"encoding/hex"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

func deliveryOptions(t testing.TB, in map[string]any) WebhookVerifyOptions {
	h := http.Header{}
	for k, v := range obj(in["headers"]) {
		switch x := v.(type) {
		case string:
			h.Add(k, x)
		case []any:
			for _, line := range x {
				h.Add(k, line.(string))
			}
		}
	}
	bodyText, _ := in["body"].(string)
	if b, ok := in["body_base64"].(string); ok {
		bodyText = b
	}
	body, ok := decodeBase64Strict(bodyText)
	if !ok && bodyText != "" {
		t.Fatalf("body is not base64")
	}
	o := WebhookVerifyOptions{Profile: in["profile"].(string), Headers: h, Body: body, Now: int64(in["now"].(float64))}
	for _, s := range stringsOf(in["secrets"]) {
		o.Secrets = append(o.Secrets, s)
	}
	if j, ok := in["jwks"]; ok {
		o.Keys = jwksOf(t, j)
	}
	seen := stringsOf(in["seen"])
	o.SeenBefore = func(id string) bool { return includesString(seen, id) }
	return o
}

func TestWebhookDeliveryVectors(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(vectorPath(t, "webhooks"), "*.json"))
	if len(files) < 20 {
		t.Skipf("only %d webhook vectors in vectors/webhooks", len(files))
	}
	for _, f := range files {
		f := f
		t.Run(filepath.Base(f), func(t *testing.T) {
			c := obj(readJSONFile(t, f))
			got := VerifyWebhook(context.Background(), deliveryOptions(t, obj(c["input"])))
			if wantErr, ok := c["wantErr"].(string); ok {
				if got.Valid || got.Code != wantErr {
					t.Fatalf("got %v %q (%s), want %s", got.Valid, got.Code, got.Detail, wantErr)
				}
				return
			}
			want := obj(c["want"])
			if !got.Valid {
				t.Fatalf("refused: %s %s", got.Code, got.Detail)
			}
			if got.WebhookID != want["webhook_id"] || float64(got.Timestamp) != want["timestamp"] {
				t.Fatalf("facts %+v", got)
			}
			if k, ok := want["key_id"]; ok && got.KeyID != k {
				t.Fatalf("key %s, want %v", got.KeyID, k)
			}
		})
	}
}

func TestStandardWebhooksUpstreamHMAC(t *testing.T) {
	path := sharedVectorPath(t, "webhooks", "standard-webhooks.json")
	for _, c := range obj(readJSONFile(t, path))["cases"].([]any) {
		m := obj(c)
		got, err := SignWebhookV1(m["secret"].(string), m["id"].(string), int64(m["timestamp"].(float64)), []byte(m["body"].(string)))
		if err != nil || got != m["signature"] {
			t.Fatalf("got %s %v, want %s", got, err, m["signature"])
		}
	}
}

func coseVector(t *testing.T, name string) map[string]any {
	return obj(readJSONFile(t, sharedVectorPath(t, "cose", name+".json")))
}

func TestCoseSign1UpstreamExamples(t *testing.T) {
	v := coseVector(t, "eddsa-sig-01")
	msg, _ := hex.DecodeString(obj(v["output"])["cbor"].(string))
	decoded, err := DecodeCoseSign1(msg)
	if err != nil {
		t.Fatal(err)
	}
	tbs, _ := hex.DecodeString(obj(v["intermediates"])["ToBeSign_hex"].(string))
	if got := CoseSigStructure(decoded.ProtectedBytes, nil, decoded.Payload); string(got) != string(tbs) {
		t.Fatalf("Sig_structure %x", got)
	}
	pub, _ := hex.DecodeString(obj(obj(obj(v["input"])["sign0"])["key"])["x_hex"].(string))
	if !VerifyEd25519(pub, tbs, decoded.Signature) {
		t.Fatal("the cose-wg example does not verify")
	}
	// Our webhook profile wants the kid protected; the example carries it unprotected.
	if _, err := decoded.KeyID(true); err == nil || err.(*CoseError).Code != "cose_kid_not_protected" {
		t.Fatalf("got %v", err)
	}
	if kid, err := decoded.KeyID(false); err != nil || kid != "11" {
		t.Fatalf("kid %q %v", kid, err)
	}
	// Ed448 (sig-02): decodes, its Sig_structure matches, and our Ed25519-only verifier refuses it.
	v2 := coseVector(t, "eddsa-sig-02")
	msg2, _ := hex.DecodeString(obj(v2["output"])["cbor"].(string))
	d2, err := DecodeCoseSign1(msg2)
	if err != nil {
		t.Fatal(err)
	}
	tbs2, _ := hex.DecodeString(obj(v2["intermediates"])["ToBeSign_hex"].(string))
	if string(CoseSigStructure(d2.ProtectedBytes, nil, d2.Payload)) != string(tbs2) {
		t.Fatal("ed448 Sig_structure differs")
	}
	pub2, _ := hex.DecodeString(obj(obj(obj(v2["input"])["sign0"])["key"])["x_hex"].(string))
	if VerifyEd25519(pub2, tbs2, d2.Signature) {
		t.Fatal("an Ed448 signature verified")
	}
	// COSE_Sign (tag 98) is the wrong tag.
	v3 := coseVector(t, "eddsa-01")
	msg3, _ := hex.DecodeString(obj(v3["output"])["cbor"].(string))
	if _, err := DecodeCoseSign1(msg3); err == nil || err.(*CoseError).Code != "cose_wrong_tag" {
		t.Fatalf("got %v", err)
	}
}

func TestCBORDecoderRefusals(t *testing.T) {
	for name, h := range map[string]string{
		"indefinite array":     "d29f40a0404040ff",
		"trailing":             "d28440a0404000",
		"non-preferred length": "d2841800a0404040",
		"duplicate key":        "d2844a" + "a2012701270000" + "a0404040",
		"float":                "d28440a0f93c0040",
		"other tag":            "d88440a0404040",
		"untagged":             "8440a0404040",
	} {
		b, _ := hex.DecodeString(strings.ReplaceAll(h, " ", ""))
		if _, err := DecodeCoseSign1(b); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}
