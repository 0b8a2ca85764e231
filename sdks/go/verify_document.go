package aar

import (
	"context"
	"crypto/ed25519"
	"errors"
)

// DocumentVerification is the result of VerifyDocument (CONTRACT section 4).
type DocumentVerification struct {
	Valid bool `json:"valid"`
	// KeyID is the document's key_id when it is a string.
	KeyID string `json:"key_id,omitempty"`
	// Failure is one of missing_signature, malformed_signature, unsupported_algorithm, unknown_key, invalid_key,
	// signature_mismatch.
	Failure string `json:"failure,omitempty"`
}

// SigningBytes returns the bytes a document signature covers: RFC 8785 of the object without its `signature`.
func SigningBytes(doc map[string]any) ([]byte, error) {
	unsigned := make(map[string]any, len(doc))
	for k, v := range doc {
		if k != "signature" {
			unsigned[k] = v
		}
	}
	return Canonicalize(unsigned)
}

// VerifyDocument verifies a signed JSON document: Ed25519 over the RFC 8785 bytes of the object without its
// `signature` member, with the key of that key_id from the trusted keys only. doc may be a generic JSON value,
// raw JSON bytes ([]byte or json.RawMessage) or any value encoding/json marshals.
// Attacker assumption: the document chooses key_id and algorithm freely; the algorithm is the key's (Ed25519) and a
// document naming another is refused; unknown members of `signature` are refused (they are not signed).
func VerifyDocument(ctx context.Context, doc any, keys KeySource) DocumentVerification {
	value, err := documentValue(doc)
	if err != nil {
		return DocumentVerification{Failure: "missing_signature"}
	}
	m, ok := value.(map[string]any)
	if !ok {
		return DocumentVerification{Failure: "missing_signature"}
	}
	rawSig, present := m["signature"]
	if !present {
		return DocumentVerification{Failure: "missing_signature"}
	}
	sig, ok := rawSig.(map[string]any)
	if !ok {
		return DocumentVerification{Failure: "malformed_signature"}
	}
	keyID, _ := sig["key_id"].(string)
	for name := range sig {
		if name != "algorithm" && name != "key_id" && name != "signature" {
			return DocumentVerification{KeyID: keyID, Failure: "malformed_signature"}
		}
	}
	if keyID == "" {
		return DocumentVerification{Failure: "malformed_signature"}
	}
	fail := func(f string) DocumentVerification { return DocumentVerification{KeyID: keyID, Failure: f} }
	alg, ok := sig["algorithm"].(string)
	if !ok {
		return fail("malformed_signature")
	}
	if alg != "ed25519" {
		return fail("unsupported_algorithm")
	}
	sigText, _ := sig["signature"].(string)
	sigBytes, ok := decodeBase64URLStrict(sigText)
	if !ok || len(sigBytes) != 64 {
		return fail("malformed_signature")
	}
	if keys == nil {
		return fail("unknown_key")
	}
	jwk, err := keys.LookupKey(ctx, keyID)
	if err != nil {
		if errors.Is(err, ErrInvalidKey) {
			return fail("invalid_key")
		}
		return fail("unknown_key")
	}
	pub, err := jwk.PublicKey()
	if err != nil || (jwk.Kid != "" && jwk.Kid != keyID) {
		return fail("invalid_key")
	}
	msg, err := SigningBytes(m)
	if err != nil {
		return fail("signature_mismatch")
	}
	if !VerifyEd25519(pub, msg, sigBytes) {
		return fail("signature_mismatch")
	}
	return DocumentVerification{Valid: true, KeyID: keyID}
}

func documentValue(doc any) (any, error) {
	switch d := doc.(type) {
	case []byte:
		return ParseJSON(d)
	case interface{ MarshalJSON() ([]byte, error) }:
		raw, err := d.MarshalJSON()
		if err != nil {
			return nil, err
		}
		return ParseJSON(raw)
	}
	return ToJSONValue(doc)
}

// SignDocument returns a copy of doc (a JSON object) carrying `signature` by privateKey under keyID: the service's
// scheme, for tests and for documents a client signs itself (delegation statements).
func SignDocument(doc any, keyID string, privateKey ed25519.PrivateKey) (map[string]any, error) {
	value, err := documentValue(doc)
	if err != nil {
		return nil, err
	}
	m, ok := value.(map[string]any)
	if !ok {
		return nil, errors.New("aar: a signed document must be a json object")
	}
	msg, err := SigningBytes(m)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out["signature"] = map[string]any{
		"algorithm": "ed25519",
		"key_id":    keyID,
		"signature": encodeBase64URL(ed25519.Sign(privateKey, msg)),
	}
	return out, nil
}
