package aar

import (
	"crypto/ed25519"
	"math/big"
)

// ed25519Order is L, the order of the Ed25519 base point (RFC 8032 section 5.1).
var ed25519Order, _ = new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)

// VerifyEd25519 verifies strictly: a 32-byte key, a 64-byte signature whose S is below L. crypto/ed25519 already
// refuses S >= L; the explicit check keeps the rule visible and pinned by the Wycheproof vectors.
// Never panics on malformed input.
func VerifyEd25519(publicKey, message, signature []byte) bool {
	if len(publicKey) != ed25519.PublicKeySize || len(signature) != ed25519.SignatureSize {
		return false
	}
	if !isCanonicalScalar(signature[32:]) {
		return false
	}
	return ed25519.Verify(ed25519.PublicKey(publicKey), message, signature)
}

func isCanonicalScalar(s []byte) bool {
	if len(s) != 32 {
		return false
	}
	be := make([]byte, 32)
	for i := range s {
		be[31-i] = s[i]
	}
	return new(big.Int).SetBytes(be).Cmp(ed25519Order) < 0
}
