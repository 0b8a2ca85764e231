package aar

// Offline verification of AP2 mandate presentations (issue 29, DESIGN-29 section 8), as an evidence pack carries
// them: SD-JWT hops joined by "~~", each hop `jwt~disclosure~...~`.
//
// What a presentation must satisfy here (time is not checked: a pack is re-verified long after the purchase):
//   - hop 0's JWS verifies against a key of the issuer's JWKS the caller passes (never a key the token names: `jwk`,
//     `jku`, `x5c` headers are ignored); no usable key gives `issuer_key_unknown`;
//   - every disclosure's digest (SHA-256, base64url; `_sd_alg` absent or `sha-256`) is referenced exactly once, from an
//     `_sd` array (`[salt, name, value]`) or an array element `{"...": digest}` (`[salt, value]`), up to
//     MandateMaxDepth; an unreferenced, duplicated or malformed disclosure fails;
//   - each later hop has `typ` `kb+sd-jwt`, is signed by the `cnf.jwk` of the previous hop's disclosed mandate (or
//     the previous hop's top-level `cnf`), and its `sd_hash` is base64url(SHA-256(previous hop text with its '~'));
//   - ES256 (raw r||s, 64 bytes) and EdDSA (Ed25519) only; `alg: none` and every other alg are refused.
//
// Attacker assumption: the presentation is anything at all; nothing panics, every failure is a MandateError with the
// DESIGN's codes. Same rules, paths and codes as the Python SDK's mandates.py.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"fmt"
	"math/big"
	"sort"
	"strings"
)

const (
	// MandateMaxBytes bounds a presentation (64 KiB, as the service does).
	MandateMaxBytes = 65536
	// MandateMaxDepth bounds the nesting of a hop's payload and disclosed values.
	MandateMaxDepth = 16
	kbTyp           = "kb+sd-jwt"
)

// MandateError is one refusal: a JSON pointer into the presentation, a DESIGN-29 code and a detail for people.
type MandateError struct {
	Path   string `json:"path"`
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

// Ap2Hop is one verified-or-not hop: its resolved payload (every disclosed digest replaced, `_sd` removed) and its
// disclosed `delegate_payload` items.
type Ap2Hop struct {
	Index    int
	Typ      string
	Alg      string
	Payload  map[string]any
	Mandates []any
	Text     string
}

// Ap2Verification is the outcome; OK only without errors.
type Ap2Verification struct {
	Digest string
	Hops   []Ap2Hop
	Errors []MandateError
}

// OK reports whether every check passed.
func (v Ap2Verification) OK() bool { return len(v.Errors) == 0 }

// Codes lists the error codes in order.
func (v Ap2Verification) Codes() []string {
	out := []string{}
	for _, e := range v.Errors {
		out = append(out, e.Code)
	}
	return out
}

// MandateDigest is base64url (no padding) of SHA-256 of a stored mandate document's UTF-8 bytes.
func MandateDigest(document string) string {
	sum := sha256.Sum256([]byte(document))
	return encodeBase64URL(sum[:])
}

// AllowanceDigest is the digest of an ACP allowance: over its RFC 8785 canonical JSON.
func AllowanceDigest(allowance any) (string, error) {
	b, err := Canonicalize(allowance)
	if err != nil {
		return "", err
	}
	return MandateDigest(string(b)), nil
}

// SplitAp2Hops returns each hop's text with its trailing '~' (the bytes the next hop's sd_hash covers).
func SplitAp2Hops(presentation string) []string {
	parts := strings.Split(presentation, "~~")
	for i := 0; i < len(parts)-1; i++ {
		parts[i] += "~"
	}
	return parts
}

type mandateRefusal struct{ err MandateError }

func refuse(path, code, format string, args ...any) *mandateRefusal {
	return &mandateRefusal{MandateError{Path: path, Code: code, Detail: fmt.Sprintf(format, args...)}}
}

// VerifyAp2Presentation verifies every signature and digest of an AP2 presentation that can be checked offline.
// issuerJWKS is `{"keys": [...]}` (nil when no issuer key is known).
func VerifyAp2Presentation(presentation string, issuerJWKS any) Ap2Verification {
	out := Ap2Verification{Digest: MandateDigest(presentation)}
	if len(presentation) > MandateMaxBytes {
		out.Errors = append(out.Errors, MandateError{"/presentation", "schema_invalid", fmt.Sprintf("larger than %d bytes", MandateMaxBytes)})
		return out
	}
	texts := SplitAp2Hops(presentation)
	for i, text := range texts {
		hop, refused := parseAp2Hop(i, text)
		if refused != nil {
			out.Errors = append(out.Errors, refused.err)
			return out
		}
		out.Hops = append(out.Hops, hop)
	}
	for i := range out.Hops {
		var previous *Ap2Hop
		if i > 0 {
			previous = &out.Hops[i-1]
		}
		if refused := checkAp2Signature(out.Hops[i], previous, issuerJWKS); refused != nil {
			out.Errors = append(out.Errors, refused.err)
		}
	}
	return out
}

func decodeB64JSON(text, path, what string) (any, *mandateRefusal) {
	raw, ok := decodeBase64URLStrict(text)
	if !ok {
		return nil, refuse(path, "schema_invalid", "%s is not unpadded base64url", what)
	}
	v, err := ParseJSON(raw)
	if err != nil {
		return nil, refuse(path, "schema_invalid", "%s is not JSON: %v", what, err)
	}
	return v, nil
}

func parseAp2Hop(index int, text string) (Ap2Hop, *mandateRefusal) {
	base := fmt.Sprintf("/presentation/hops/%d", index)
	if !strings.HasSuffix(text, "~") {
		return Ap2Hop{}, refuse(base, "schema_invalid", "a hop ends with '~' (a trailing key-binding JWT is a hop of its own)")
	}
	parts := strings.Split(text[:len(text)-1], "~")
	jwt, disclosureTexts := parts[0], parts[1:]
	for _, t := range disclosureTexts {
		if t == "" {
			return Ap2Hop{}, refuse(base, "schema_invalid", "an empty disclosure")
		}
	}
	segments := strings.Split(jwt, ".")
	if len(segments) != 3 {
		return Ap2Hop{}, refuse(base+"/jwt", "schema_invalid", "a JWS in compact form has three parts")
	}
	headerValue, r := decodeB64JSON(segments[0], base+"/jwt/header", "the JWS header")
	if r != nil {
		return Ap2Hop{}, r
	}
	payloadValue, r := decodeB64JSON(segments[1], base+"/jwt/payload", "the JWS payload")
	if r != nil {
		return Ap2Hop{}, r
	}
	header, okH := headerValue.(map[string]any)
	payload, okP := payloadValue.(map[string]any)
	if !okH || !okP {
		return Ap2Hop{}, refuse(base+"/jwt", "schema_invalid", "the JWS header and payload are JSON objects")
	}
	alg, _ := header["alg"].(string)
	if alg != "ES256" && alg != "EdDSA" {
		return Ap2Hop{}, refuse(base+"/jwt/header/alg", "signature_invalid", "alg %s is not accepted (ES256, EdDSA)", quote(header["alg"]))
	}
	if _, crit := header["crit"]; crit {
		return Ap2Hop{}, refuse(base+"/jwt/header/crit", "schema_invalid", "no critical header extension is understood")
	}
	typ, _ := header["typ"].(string)
	if index > 0 && typ != kbTyp {
		return Ap2Hop{}, refuse(base+"/jwt/header/typ", "key_binding_invalid", "a delegated hop has typ %s", kbTyp)
	}
	if _, ok := decodeBase64URLStrict(segments[2]); !ok {
		return Ap2Hop{}, refuse(base+"/jwt/signature", "schema_invalid", "the signature is not unpadded base64url")
	}
	if sdAlg, present := payload["_sd_alg"]; present && sdAlg != "sha-256" {
		return Ap2Hop{}, refuse(base+"/jwt/payload/_sd_alg", "schema_invalid", "_sd_alg must be sha-256")
	}
	ds, r := parseDisclosures(disclosureTexts, base)
	if r != nil {
		return Ap2Hop{}, r
	}
	resolved, r := ds.resolve(payload, base+"/jwt/payload", 0)
	if r != nil {
		return Ap2Hop{}, r
	}
	if unused := ds.unused(); len(unused) > 0 {
		return Ap2Hop{}, refuse(fmt.Sprintf("%s/disclosures/%d", base, unused[0]), "disclosure_digest_mismatch",
			"no digest of the hop references this disclosure")
	}
	resolvedPayload := resolved.(map[string]any)
	mandates, _ := resolvedPayload["delegate_payload"].([]any)
	return Ap2Hop{Index: index, Typ: typ, Alg: alg, Payload: resolvedPayload, Mandates: mandates, Text: text}, nil
}

type disclosure struct {
	index int
	value []any
}

type disclosureSet struct {
	byDigest map[string]disclosure
	used     map[string]bool
}

func parseDisclosures(texts []string, base string) (*disclosureSet, *mandateRefusal) {
	ds := &disclosureSet{byDigest: map[string]disclosure{}, used: map[string]bool{}}
	for i, text := range texts {
		path := fmt.Sprintf("%s/disclosures/%d", base, i)
		v, r := decodeB64JSON(text, path, "the disclosure")
		if r != nil {
			return nil, r
		}
		arr, ok := v.([]any)
		if !ok || (len(arr) != 2 && len(arr) != 3) {
			return nil, refuse(path, "schema_invalid", "a disclosure is [salt, value] or [salt, name, value]")
		}
		if _, ok := arr[0].(string); !ok {
			return nil, refuse(path, "schema_invalid", "a disclosure is [salt, value] or [salt, name, value]")
		}
		if len(arr) == 3 {
			name, ok := arr[1].(string)
			if !ok || name == "_sd" || name == "..." {
				return nil, refuse(path, "schema_invalid", "a disclosure's claim name must be a string other than _sd and ...")
			}
		}
		digest := MandateDigest(text)
		if _, dup := ds.byDigest[digest]; dup {
			return nil, refuse(path, "disclosure_digest_mismatch", "the same disclosure appears twice")
		}
		ds.byDigest[digest] = disclosure{i, arr}
	}
	return ds, nil
}

func (ds *disclosureSet) take(digest any, path string, arrayElement bool) ([]any, *mandateRefusal) {
	d, ok := digest.(string)
	if !ok {
		return nil, refuse(path, "schema_invalid", "a digest must be a string")
	}
	if ds.used[d] {
		return nil, refuse(path, "disclosure_digest_mismatch", "a digest is referenced twice")
	}
	found, ok := ds.byDigest[d]
	if !ok {
		return nil, nil
	}
	ds.used[d] = true
	if (len(found.value) == 2) != arrayElement {
		return nil, refuse(path, "disclosure_digest_mismatch", "an array element digest names an object member disclosure, or the reverse")
	}
	return found.value, nil
}

func (ds *disclosureSet) unused() []int {
	out := []int{}
	for d, v := range ds.byDigest {
		if !ds.used[d] {
			out = append(out, v.index)
		}
	}
	sort.Ints(out)
	return out
}

func pointerToken(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

func (ds *disclosureSet) resolve(value any, path string, depth int) (any, *mandateRefusal) {
	if depth > MandateMaxDepth {
		return nil, refuse(path, "schema_invalid", "nested deeper than %d", MandateMaxDepth)
	}
	switch v := value.(type) {
	case []any:
		out := []any{}
		for i, item := range v {
			itemPath := fmt.Sprintf("%s/%d", path, i)
			if obj, ok := item.(map[string]any); ok {
				if digest, has := obj["..."]; has {
					if len(obj) != 1 {
						return nil, refuse(itemPath, "schema_invalid", "an array element digest object has one member")
					}
					disclosed, r := ds.take(digest, itemPath, true)
					if r != nil {
						return nil, r
					}
					if disclosed != nil {
						resolved, r := ds.resolve(disclosed[1], itemPath, depth+1)
						if r != nil {
							return nil, r
						}
						out = append(out, resolved)
					}
					continue
				}
			}
			resolved, r := ds.resolve(item, itemPath, depth+1)
			if r != nil {
				return nil, r
			}
			out = append(out, resolved)
		}
		return out, nil
	case map[string]any:
		out := map[string]any{}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "_sd" || k == "_sd_alg" {
				continue
			}
			resolved, r := ds.resolve(v[k], path+"/"+pointerToken(k), depth+1)
			if r != nil {
				return nil, r
			}
			out[k] = resolved
		}
		if sd, has := v["_sd"]; has && sd != nil {
			list, ok := sd.([]any)
			if !ok {
				return nil, refuse(path+"/_sd", "schema_invalid", "_sd must be an array of digests")
			}
			for i, digest := range list {
				itemPath := fmt.Sprintf("%s/_sd/%d", path, i)
				disclosed, r := ds.take(digest, itemPath, false)
				if r != nil {
					return nil, r
				}
				if disclosed == nil {
					continue
				}
				name := disclosed[1].(string)
				if _, exists := out[name]; exists {
					return nil, refuse(itemPath, "disclosure_digest_mismatch", "the claim %s is disclosed and also plain", name)
				}
				resolved, r := ds.resolve(disclosed[2], path+"/"+pointerToken(name), depth+1)
				if r != nil {
					return nil, r
				}
				out[name] = resolved
			}
		}
		return out, nil
	default:
		return value, nil
	}
}

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
	switch {
	case alg == "ES256" && m["kty"] == "EC" && m["crv"] == "P-256":
		x, okX := text("x")
		y, okY := text("y")
		if !okX || !okY || len(x) != 32 || len(y) != 32 {
			return nil
		}
		curve := elliptic.P256()
		px, py := new(big.Int).SetBytes(x), new(big.Int).SetBytes(y)
		if !curve.IsOnCurve(px, py) {
			return nil
		}
		key := &ecdsa.PublicKey{Curve: curve, X: px, Y: py}
		return func(message, signature []byte) bool {
			if len(signature) != 64 {
				return false
			}
			sum := sha256.Sum256(message)
			r, s := new(big.Int).SetBytes(signature[:32]), new(big.Int).SetBytes(signature[32:])
			return ecdsa.Verify(key, sum[:], r, s)
		}
	case alg == "EdDSA" && m["kty"] == "OKP" && m["crv"] == "Ed25519":
		x, ok := text("x")
		if !ok || len(x) != 32 {
			return nil
		}
		return func(message, signature []byte) bool { return VerifyEd25519(x, message, signature) }
	}
	return nil
}

func issuerKeys(issuerJWKS any, header map[string]any, alg string) []mandateKey {
	keys, _ := get(issuerJWKS, "keys").([]any)
	kid, hasKid := header["kid"].(string)
	out := []mandateKey{}
	for _, jwk := range keys {
		if m, ok := jwk.(map[string]any); ok && hasKid {
			if named, present := m["kid"]; present && named != kid {
				continue
			}
		}
		if k := mandatePublicKey(jwk, alg); k != nil {
			out = append(out, k)
		}
	}
	return out
}

// cnfKeys are the keys a hop delegates to: its disclosed mandates' `cnf.jwk`, else its top-level `cnf.jwk`.
func cnfKeys(hop *Ap2Hop) []any {
	out := []any{}
	for _, m := range hop.Mandates {
		if jwk, ok := get(get(m, "cnf"), "jwk").(map[string]any); ok {
			out = append(out, jwk)
		}
	}
	if len(out) == 0 {
		if jwk, ok := get(hop.Payload["cnf"], "jwk").(map[string]any); ok {
			out = append(out, jwk)
		}
	}
	return out
}

func checkAp2Signature(hop Ap2Hop, previous *Ap2Hop, issuerJWKS any) *mandateRefusal {
	base := fmt.Sprintf("/presentation/hops/%d", hop.Index)
	jwt := strings.SplitN(hop.Text, "~", 2)[0]
	segments := strings.Split(jwt, ".")
	headerBytes, _ := decodeBase64URLStrict(segments[0])
	headerValue, _ := ParseJSON(headerBytes)
	header, _ := headerValue.(map[string]any)
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
		keys := issuerKeys(issuerJWKS, header, hop.Alg)
		if len(keys) == 0 {
			return refuse(base+"/jwt", "issuer_key_unknown", "no key of the issuer's JWKS matches this hop's kid and alg")
		}
		if !verifies(keys) {
			return refuse(base+"/jwt/signature", "signature_invalid", "the issuer's signature does not verify")
		}
		return nil
	}
	if hop.Payload["sd_hash"] != MandateDigest(previous.Text) {
		return refuse(base+"/jwt/payload/sd_hash", "sd_hash_mismatch", "sd_hash is not the hash of the previous hop")
	}
	keys := []mandateKey{}
	for _, jwk := range cnfKeys(previous) {
		if k := mandatePublicKey(jwk, hop.Alg); k != nil {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return refuse(base+"/jwt", "key_binding_invalid", "hop %d discloses no cnf key usable with %s", previous.Index, hop.Alg)
	}
	if !verifies(keys) {
		return refuse(base+"/jwt/signature", "key_binding_invalid", "the key-binding signature does not verify against the previous hop's cnf key")
	}
	return nil
}
