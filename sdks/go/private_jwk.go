package aar

import (
	"crypto/ed25519"
	"crypto/subtle"
	"encoding/json"
	"fmt"
)

// PrivateJWK is an Ed25519 private key as a JWK (RFC 8037): `{"kty":"OKP","crv":"Ed25519","d":…,"x":…}`, the form the
// TypeScript SDK's createRequestSigner and the Python SDK's RequestSigner take. Keep it secret: it signs as the agent.
type PrivateJWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	D   string `json:"d"`
	Kid string `json:"kid,omitempty"`
	Alg string `json:"alg,omitempty"`
}

// ErrInvalidPrivateJWK is wrapped by every refusal of PrivateKeyFromJWK. Its messages never include `d`.
var ErrInvalidPrivateJWK = fmt.Errorf("aar: invalid private jwk")

// PrivateKeyFromJWK turns an Ed25519 private JWK into the key RequestSigner takes. It checks kty OKP, crv Ed25519,
// `d` and `x` strict base64url of 32 bytes each, and that `x` is the public key of `d`: a JWK whose halves disagree
// would sign with one key while its owner registered the other, and every request would then fail as forged.
func PrivateKeyFromJWK(jwk PrivateJWK) (ed25519.PrivateKey, error) {
	if jwk.Kty != "OKP" || jwk.Crv != "Ed25519" {
		return nil, fmt.Errorf("%w: must be `OKP` / `Ed25519`", ErrInvalidPrivateJWK)
	}
	if jwk.Alg != "" && jwk.Alg != "EdDSA" && jwk.Alg != "Ed25519" {
		return nil, fmt.Errorf("%w: alg must be `EdDSA` or `Ed25519`", ErrInvalidPrivateJWK)
	}
	seed, ok := decodeBase64URLStrict(jwk.D)
	if !ok || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%w: `d` must be the base64url of 32 bytes", ErrInvalidPrivateJWK)
	}
	public, ok := decodeBase64URLStrict(jwk.X)
	if !ok || len(public) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: `x` must be the base64url of 32 bytes", ErrInvalidPrivateJWK)
	}
	key := ed25519.NewKeyFromSeed(seed)
	if subtle.ConstantTimeCompare(key.Public().(ed25519.PublicKey), public) != 1 {
		return nil, fmt.Errorf("%w: `x` is not the public key of `d`", ErrInvalidPrivateJWK)
	}
	return key, nil
}

// ParsePrivateJWK reads a private JWK from JSON (a key file) and returns its key and its `kid` (empty when absent).
func ParsePrivateJWK(data []byte) (ed25519.PrivateKey, string, error) {
	var jwk PrivateJWK
	if err := json.Unmarshal(data, &jwk); err != nil {
		return nil, "", fmt.Errorf("%w: not a json object", ErrInvalidPrivateJWK)
	}
	key, err := PrivateKeyFromJWK(jwk)
	if err != nil {
		return nil, "", err
	}
	return key, jwk.Kid, nil
}

// PrivateJWKOf is the private JWK of key (the inverse of PrivateKeyFromJWK), e.g. to hand a generated key to
// another SDK.
func PrivateJWKOf(key ed25519.PrivateKey, kid string) PrivateJWK {
	return PrivateJWK{
		Kty: "OKP", Crv: "Ed25519", X: encodeBase64URL(key.Public().(ed25519.PublicKey)), D: encodeBase64URL(key.Seed()),
		Kid: kid,
	}
}
