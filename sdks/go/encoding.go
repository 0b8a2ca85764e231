package aar

import (
	"encoding/base64"
	"strings"
)

// decodeBase64URLStrict decodes unpadded base64url and refuses anything else (padding, standard-alphabet characters,
// non-zero trailing bits), so that one signature has exactly one spelling.
func decodeBase64URLStrict(s string) ([]byte, bool) {
	if strings.ContainsAny(s, "=+/\r\n") {
		return nil, false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	return b, err == nil
}

// decodeBase64Strict decodes canonical padded standard base64 (the form hashes travel in, CONTRACT section 8).
func decodeBase64Strict(s string) ([]byte, bool) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, false
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	return b, err == nil
}

func encodeBase64URL(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func encodeBase64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
