package aar

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"path/filepath"
	"testing"
)

func TestVerifyEd25519AgreesWithWycheproof(t *testing.T) {
	doc := obj(readJSONFile(t, filepath.Join(sharedVectorPath(t, "ed25519"), "wycheproof_ed25519_test.json")))
	count := 0
	for _, g := range doc["testGroups"].([]any) {
		group := obj(g)
		pk, _ := hex.DecodeString(obj(group["publicKey"])["pk"].(string))
		for _, tc := range group["tests"].([]any) {
			c := obj(tc)
			msg, _ := hex.DecodeString(c["msg"].(string))
			sig, _ := hex.DecodeString(c["sig"].(string))
			want := c["result"] == "valid"
			if got := VerifyEd25519(pk, msg, sig); got != want {
				t.Errorf("tcId %v (%v): got %v, want %v", c["tcId"], c["comment"], got, want)
			}
			count++
		}
	}
	if count < 100 {
		t.Fatalf("only %d wycheproof cases", count)
	}
}

func TestVerifyEd25519RefusesMalleableScalar(t *testing.T) {
	seed, _ := hex.DecodeString("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
	key := ed25519.NewKeyFromSeed(seed)
	sig := ed25519.Sign(key, []byte("m"))
	if !VerifyEd25519(key.Public().(ed25519.PublicKey), []byte("m"), sig) {
		t.Fatal("honest signature refused")
	}
	// S + L: the same point equation holds, the encoding is not canonical.
	s := new([32]byte)
	copy(s[:], sig[32:])
	carry := 0
	order := ed25519Order.Bytes() // big-endian
	for i := 0; i < 32; i++ {
		v := int(s[i]) + int(order[31-i]) + carry
		s[i] = byte(v)
		carry = v >> 8
	}
	forged := append(append([]byte{}, sig[:32]...), s[:]...)
	if VerifyEd25519(key.Public().(ed25519.PublicKey), []byte("m"), forged) {
		t.Fatal("S + L accepted")
	}
	for _, bad := range [][]byte{sig[:63], append(append([]byte{}, sig...), 0), make([]byte, 64)} {
		if VerifyEd25519(key.Public().(ed25519.PublicKey), []byte("m"), bad) {
			t.Fatalf("accepted %x", bad)
		}
	}
}

func TestVerifyDocumentRefusesForgeries(t *testing.T) {
	ctx := context.Background()
	seed := make([]byte, 32)
	seed[0] = 7
	priv := ed25519.NewKeyFromSeed(seed)
	keys := JWKS{Keys: []JWK{PublicJWK(priv.Public().(ed25519.PublicKey), "ns:key:test")}}
	signed, err := SignDocument(map[string]any{"a": 1.5, "b": "x"}, "ns:key:test", priv)
	if err != nil {
		t.Fatal(err)
	}
	if r := VerifyDocument(ctx, signed, keys); !r.Valid || r.KeyID != "ns:key:test" {
		t.Fatalf("honest document refused: %+v", r)
	}
	mutate := func(f func(m map[string]any)) map[string]any {
		raw, _ := Canonicalize(signed)
		v, _ := ParseJSON(raw)
		m := v.(map[string]any)
		f(m)
		return m
	}
	sig := func(m map[string]any) map[string]any { return m["signature"].(map[string]any) }
	cases := map[string]struct {
		doc  any
		want string
	}{
		"edited member":      {mutate(func(m map[string]any) { m["a"] = 2.0 }), "signature_mismatch"},
		"no signature":       {mutate(func(m map[string]any) { delete(m, "signature") }), "missing_signature"},
		"alg none":           {mutate(func(m map[string]any) { sig(m)["algorithm"] = "none" }), "unsupported_algorithm"},
		"unknown key":        {mutate(func(m map[string]any) { sig(m)["key_id"] = "../ns:key:test" }), "unknown_key"},
		"extra member":       {mutate(func(m map[string]any) { sig(m)["jku"] = "https://evil" }), "malformed_signature"},
		"padded base64url":   {mutate(func(m map[string]any) { sig(m)["signature"] = sig(m)["signature"].(string) + "==" }), "malformed_signature"},
		"standard base64":    {mutate(func(m map[string]any) { sig(m)["signature"] = encodeBase64(make([]byte, 64)) }), "malformed_signature"},
		"63 bytes":           {mutate(func(m map[string]any) { sig(m)["signature"] = encodeBase64URL(make([]byte, 63)) }), "malformed_signature"},
		"signature a string": {mutate(func(m map[string]any) { m["signature"] = "x" }), "malformed_signature"},
		"not an object":      {[]any{1.0}, "missing_signature"},
	}
	for name, c := range cases {
		if r := VerifyDocument(ctx, c.doc, keys); r.Valid || r.Failure != c.want {
			t.Errorf("%s: got %+v, want %s", name, r, c.want)
		}
	}
	dup := JWKS{Keys: append(keys.Keys, keys.Keys[0])}
	if r := VerifyDocument(ctx, signed, dup); r.Failure != "invalid_key" {
		t.Errorf("ambiguous kid: %+v", r)
	}
}
