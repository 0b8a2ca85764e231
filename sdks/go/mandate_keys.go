package aar

// The keys and signatures of an AP2 chain: hop 0 against the issuer's JWKS only (by `iss` and `kid`, as core's
// ap2-signatures.ts; a key that declares its `alg` is used with that one only), a later hop against the `cnf.jwk`
// keys the previous hop discloses, plus a key-binding hop's claims. ES256/ES384 signatures are raw r||s.
// Attacker assumption: the token's headers and keys are hostile; a `jwk`, `jku` or `x5c` header is never read.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"math/big"
	"strings"
)

// mandateKey is a verifier for one JWK usable with one alg (nil when unusable).
type mandateKey func(message, signature []byte) bool

func mandatePublicKey(jwk any, alg string) mandateKey {
	m, ok := jwk.(map[string]any)
	if !ok {
		return nil
	}
	text := func(name string) ([]byte, bool) {
		s, ok := m[name].(string)
		if !ok {
			return nil, false
		}
		return decodeBase64URLStrict(s)
	}
	if declared, has := m["alg"]; has && declared != alg && !(alg == "EdDSA" && declared == "Ed25519") {
		return nil
	}
	curves := map[string]struct {
		crv   string
		curve elliptic.Curve
		size  int
		hash  func([]byte) []byte
	}{
		"ES256": {"P-256", elliptic.P256(), 32, func(b []byte) []byte { s := sha256.Sum256(b); return s[:] }},
		"ES384": {"P-384", elliptic.P384(), 48, func(b []byte) []byte { s := sha512.Sum384(b); return s[:] }},
	}
	if c, ok := curves[alg]; ok && m["kty"] == "EC" && m["crv"] == c.crv {
		x, okX := text("x")
		y, okY := text("y")
		if !okX || !okY || len(x) != c.size || len(y) != c.size {
			return nil
		}
		px, py := new(big.Int).SetBytes(x), new(big.Int).SetBytes(y)
		if !c.curve.IsOnCurve(px, py) {
			return nil
		}
		key := &ecdsa.PublicKey{Curve: c.curve, X: px, Y: py}
		return func(message, signature []byte) bool {
			if len(signature) != 2*c.size {
				return false
			}
			r, s := new(big.Int).SetBytes(signature[:c.size]), new(big.Int).SetBytes(signature[c.size:])
			return ecdsa.Verify(key, c.hash(message), r, s)
		}
	}
	switch {
	case alg == "EdDSA" && m["kty"] == "OKP" && m["crv"] == "Ed25519":
		x, ok := text("x")
		if !ok || len(x) != 32 {
			return nil
		}
		return func(message, signature []byte) bool { return VerifyEd25519(x, message, signature) }
	}
	return nil
}

// issuerKeys is core's issuerCandidates for one configured issuer: with a payload `iss` (which must be the issuer
// when one is named), the keys without a kid or with the header's; without `iss`, only keys with exactly that kid.
func issuerKeys(issuerJWKS any, issuer string, issuerNamed bool, iss, kidValue any, alg string) []mandateKey {
	keys, _ := get(issuerJWKS, "keys").([]any)
	_, hasIss := iss.(string)
	if iss != nil && (!hasIss || (issuerNamed && iss != issuer)) {
		return nil
	}
	kid, hasKid := kidValue.(string)
	if !hasIss && !hasKid {
		return nil
	}
	out := []mandateKey{}
	for _, jwk := range keys {
		m, ok := jwk.(map[string]any)
		if !ok {
			continue
		}
		named, present := m["kid"]
		if !hasIss && named != kid || hasIss && hasKid && present && named != kid {
			continue
		}
		if k := mandatePublicKey(jwk, alg); k != nil {
			out = append(out, k)
		}
	}
	return out
}

// cnfKeys are the keys a hop delegates to: its top-level `cnf.jwk` and its disclosed mandates' `cnf.jwk`.
func cnfKeys(hop *Ap2Hop) []any {
	out := []any{}
	for _, holder := range append([]any{hop.Payload}, hop.Mandates...) {
		if jwk, ok := get(get(holder, "cnf"), "jwk").(map[string]any); ok {
			out = append(out, jwk)
		}
	}
	return out
}

func checkAp2Signature(hop Ap2Hop, previous *Ap2Hop, issuerJWKS any, issuer string, issuerNamed bool) *mandateRefusal {
	base := fmt.Sprintf("/presentation/hops/%d", hop.Index)
	jwt := strings.SplitN(hop.Text, "~", 2)[0]
	segments := strings.Split(jwt, ".")
	headerBytes, _ := decodeBase64URLStrict(segments[0])
	headerValue, _ := ParseJSON(headerBytes)
	message := []byte(segments[0] + "." + segments[1])
	signature, _ := decodeBase64URLStrict(segments[2])
	verifies := func(keys []mandateKey) bool {
		for _, k := range keys {
			if k(message, signature) {
				return true
			}
		}
		return false
	}
	if previous == nil {
		if isKeyBindingTyp(hop.Typ) {
			return refuse(base+"/header", "issuer_key_unknown", "hop 0 is a key-binding JWT: the key that signs it is the cnf of a mandate not presented")
		}
		keys := issuerKeys(issuerJWKS, issuer, issuerNamed, hop.Payload["iss"], get(headerValue, "kid"), hop.Alg)
		if len(keys) == 0 {
			return refuse(base+"/header/kid", "issuer_key_unknown", "no key of the issuer's JWKS matches this hop's iss, kid and alg")
		}
		if !verifies(keys) {
			return refuse(base+"/jws/signature", "signature_invalid", "no key of the issuer verifies the signature")
		}
		return nil
	}
	keys := []mandateKey{}
	for _, jwk := range cnfKeys(previous) {
		if k := mandatePublicKey(jwk, hop.Alg); k != nil {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return refuse(base+"/jws/signature", "key_binding_invalid", "hop %d discloses no cnf key usable with %s", previous.Index, hop.Alg)
	}
	if !verifies(keys) {
		return refuse(base+"/jws/signature", "key_binding_invalid", "not signed by a cnf key that hop %d discloses", previous.Index)
	}
	return nil
}

// keyBindingClaims checks a `kb+sd-jwt` hop's nonce, iat, aud and sd_hash (the audience itself is the service's
// check, not an offline one).
func keyBindingClaims(hop Ap2Hop, previous *Ap2Hop) []MandateError {
	if !isKeyBindingTyp(hop.Typ) {
		return nil
	}
	base := fmt.Sprintf("/presentation/hops/%d/payload", hop.Index)
	out := []MandateError{}
	if nonce, ok := hop.Payload["nonce"].(string); !ok || nonce == "" {
		out = append(out, MandateError{base + "/nonce", "key_binding_invalid", "a key-binding hop needs a string nonce"})
	}
	if _, ok := hop.Payload["iat"].(float64); !ok {
		out = append(out, MandateError{base + "/iat", "key_binding_invalid", "a key-binding hop needs a numeric iat"})
	}
	if _, ok := hop.Payload["aud"].(string); !ok {
		out = append(out, MandateError{base + "/aud", "key_binding_invalid", "a key-binding hop needs a string aud"})
	}
	sdHash, ok := hop.Payload["sd_hash"].(string)
	switch {
	case !ok:
		out = append(out, MandateError{base + "/sd_hash", "key_binding_invalid", "a key-binding hop needs sd_hash"})
	case previous != nil && sdHash != MandateDigest(previous.Text):
		out = append(out, MandateError{base + "/sd_hash", "sd_hash_mismatch", fmt.Sprintf("does not match the SHA-256 of hop %d", previous.Index)})
	}
	return out
}

func isKeyBindingTyp(typ string) bool { return typ == kbTyp || typ == kbTypIntermediate }
