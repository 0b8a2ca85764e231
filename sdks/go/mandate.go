package aar

// Offline verification of AP2 mandate presentations (issue 29, DESIGN-29 section 8), as an evidence pack carries
// them: SD-JWT hops joined by "~~", each hop `jwt~disclosure~...~`.
//
// What a presentation must satisfy here (time and audience are not checked: a pack is re-verified long after the
// purchase, by someone who is not the audience). The codes and pointers are core's (packages/core/src/mandates/):
//   - hop 0's JWS verifies against a key of the issuer's JWKS the caller passes (never a key the token names: `jwk`,
//     `jku`, `x5c` headers are ignored), chosen as core does: by the payload's `iss` (which must be the issuer when
//     the caller names one) and the header `kid`; a key that declares its `alg` is used with that one only; no
//     usable key gives `issuer_key_unknown`, and so does a hop 0 that is itself a `kb+sd-jwt`;
//   - every disclosure's digest (SHA-256, base64url; `_sd_alg` absent or `sha-256`) is referenced exactly once, from an
//     `_sd` array (`[salt, name, value]`) or an array element `{"...": digest}` (`[salt, value]`), up to
//     MandateMaxDepth; an unreferenced, duplicated or malformed disclosure fails;
//   - each later hop has `typ` `kb+sd-jwt`, is signed by the `cnf.jwk` of the previous hop's disclosed mandate (or
//     the previous hop's top-level `cnf`), carries a string `nonce`, a numeric `iat`, a string `aud`, and its
//     `sd_hash` is base64url(SHA-256(previous hop text with its '~'));
//   - a closed checkout mandate's `checkout_hash` is the SHA-256 of its disclosed `checkout_jwt`, and a closed
//     payment mandate's `transaction_id` that same hash when both are in the chain (`sd_hash_mismatch`);
//   - ES256, ES384 (raw r||s) and EdDSA (Ed25519) only; `alg: none` and every other alg are refused; at most 8 hops.
//
// Attacker assumption: the presentation is anything at all; nothing panics, every failure is a MandateError with the
// DESIGN's codes. Same rules, paths and codes as the Python SDK's mandates.py.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/sha512"
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
	// MandateMaxHops bounds the hops of a presentation (issuer, user device, agent, sub-agents...).
	MandateMaxHops = 8
	kbTyp          = "kb+sd-jwt"
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
// issuerJWKS is `{"keys": [...]}` (nil when no issuer key is known); issuer, when not empty, is the only `iss` hop 0
// may name.
func VerifyAp2Presentation(presentation string, issuerJWKS any, issuer string) Ap2Verification {
	return verifyAp2(presentation, issuerJWKS, issuer, issuer != "")
}

// verifyAp2: issuerNamed with an empty issuer (an evidence entry without `issuer`) leaves no key for a hop 0 that
// names its `iss`, as core does.
func verifyAp2(presentation string, issuerJWKS any, issuer string, issuerNamed bool) (out Ap2Verification) {
	out = Ap2Verification{Digest: MandateDigest(presentation)}
	defer func() {
		// anything unforeseen in hostile input is a refusal, never a panic
		if recover() != nil {
			out = Ap2Verification{Digest: MandateDigest(presentation), Errors: []MandateError{
				{"/presentation", "schema_invalid", "not an AP2 presentation this verifier can read"}}}
		}
	}()
	if len(presentation) > MandateMaxBytes {
		out.Errors = append(out.Errors, MandateError{"/presentation", "schema_invalid", fmt.Sprintf("larger than %d bytes", MandateMaxBytes)})
		return out
	}
	texts := SplitAp2Hops(presentation)
	if len(texts) > MandateMaxHops {
		out.Errors = append(out.Errors, MandateError{"/presentation", "schema_invalid", fmt.Sprintf("more than %d hops", MandateMaxHops)})
		return out
	}
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
		if refused := checkAp2Signature(out.Hops[i], previous, issuerJWKS, issuer, issuerNamed); refused != nil {
			out.Errors = append(out.Errors, refused.err)
		}
		out.Errors = append(out.Errors, keyBindingClaims(out.Hops[i], previous)...)
	}
	out.Errors = append(out.Errors, mandateContents(out.Hops)...)
	out.Errors = append(out.Errors, checkoutBindings(out.Hops)...)
	return out
}

func decodeB64JSON(text, path, what, code string) (any, *mandateRefusal) {
	raw, ok := decodeBase64URLStrict(text)
	if !ok || text == "" {
		return nil, refuse(path, code, "%s is not unpadded base64url", what)
	}
	v, err := ParseJSON(raw)
	if err != nil {
		return nil, refuse(path, code, "%s is not JSON: %v", what, err)
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
	segments := strings.Split(jwt, ".")
	if len(segments) != 3 {
		return Ap2Hop{}, refuse(base+"/jws", "schema_invalid", "a JWS in compact form has three parts")
	}
	headerValue, r := decodeB64JSON(segments[0], base+"/jws", "the JWS header", "schema_invalid")
	if r != nil {
		return Ap2Hop{}, r
	}
	payloadValue, r := decodeB64JSON(segments[1], base+"/jws", "the JWS payload", "schema_invalid")
	if r != nil {
		return Ap2Hop{}, r
	}
	header, okH := headerValue.(map[string]any)
	payload, okP := payloadValue.(map[string]any)
	if !okH || !okP {
		return Ap2Hop{}, refuse(base+"/jws", "schema_invalid", "the JWS header and payload are JSON objects")
	}
	alg, _ := header["alg"].(string)
	if alg != "ES256" && alg != "ES384" && alg != "EdDSA" {
		return Ap2Hop{}, refuse(base+"/header/alg", "signature_invalid", "alg %s is not accepted (ES256, ES384, EdDSA)", quote(header["alg"]))
	}
	if _, ok := decodeBase64URLStrict(segments[2]); !ok || segments[2] == "" {
		return Ap2Hop{}, refuse(base+"/jws/signature", "signature_invalid", "the signature is not unpadded base64url")
	}
	if _, crit := header["crit"]; crit {
		return Ap2Hop{}, refuse(base+"/header/crit", "schema_invalid", "no critical header extension is understood")
	}
	typ, _ := header["typ"].(string)
	if index > 0 && typ != kbTyp {
		return Ap2Hop{}, refuse(base+"/header/typ", "key_binding_invalid", "a hop after the first has typ %s", kbTyp)
	}
	if sdAlg, present := payload["_sd_alg"]; present && sdAlg != "sha-256" {
		return Ap2Hop{}, refuse(base+"/payload/_sd_alg", "disclosure_digest_mismatch", "only sha-256 disclosure digests are supported")
	}
	ds, r := parseDisclosures(disclosureTexts, base)
	if r != nil {
		return Ap2Hop{}, r
	}
	resolved, r := ds.resolve(payload, base+"/payload", 0)
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
		v, r := decodeB64JSON(text, path, "the disclosure", "disclosure_digest_mismatch")
		if r != nil {
			return nil, r
		}
		arr, ok := v.([]any)
		if !ok || (len(arr) != 2 && len(arr) != 3) {
			return nil, refuse(path, "disclosure_digest_mismatch", "a disclosure is [salt, value] or [salt, name, value]")
		}
		if _, ok := arr[0].(string); !ok {
			return nil, refuse(path, "disclosure_digest_mismatch", "a disclosure is [salt, value] or [salt, name, value]")
		}
		if len(arr) == 3 {
			name, ok := arr[1].(string)
			if !ok || name == "_sd" || name == "..." || name == "_sd_alg" {
				return nil, refuse(path, "disclosure_digest_mismatch", "a disclosure's claim name must be a string other than _sd, _sd_alg and ...")
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
		return nil, refuse(path, "disclosure_digest_mismatch", "a digest must be a string")
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
						return nil, refuse(itemPath, "disclosure_digest_mismatch", "an array element digest object has one member")
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
		if _, has := v["..."]; has {
			return nil, refuse(path+"/...", "disclosure_digest_mismatch", "the member ... is allowed only as an array element digest")
		}
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
				return nil, refuse(path+"/_sd", "disclosure_digest_mismatch", "_sd must be an array of digests")
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
		if hop.Typ == kbTyp {
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
	if hop.Typ != kbTyp {
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

// Ap2Vcts are the mandate content types of AP2 v0.2 (`vct` of a `delegate_payload` item).
var Ap2Vcts = []string{"mandate.payment.open.1", "mandate.payment.1", "mandate.checkout.open.1", "mandate.checkout.1"}

// timeClaims: `exp`, `iat`, `nbf` are whole numbers of seconds when present (their values are not judged offline).
func timeClaims(claims map[string]any, path string) []MandateError {
	out := []MandateError{}
	for _, name := range []string{"exp", "iat", "nbf"} {
		if v, present := claims[name]; present && !isSafeInteger(v) {
			out = append(out, MandateError{path + "/" + name, "schema_invalid", "must be a whole number of seconds"})
		}
	}
	return out
}

// mandateContents is core's extractMandates: each `delegate_payload` item is an object of a known `vct` (a chain may
// re-delegate an open mandate: what the mandates allow together is the service's question, not an offline one).
func mandateContents(hops []Ap2Hop) []MandateError {
	out := []MandateError{}
	for _, hop := range hops {
		base := fmt.Sprintf("/presentation/hops/%d", hop.Index)
		out = append(out, timeClaims(hop.Payload, base+"/payload")...)
		if d, present := hop.Payload["delegate_payload"]; present && d != nil {
			if _, ok := d.([]any); !ok {
				out = append(out, MandateError{base + "/payload/delegate_payload", "schema_invalid", "must be an array"})
			}
		}
		for i, item := range hop.Mandates {
			at := fmt.Sprintf("%s/mandates/%d", base, i)
			content, ok := item.(map[string]any)
			if !ok {
				out = append(out, MandateError{at, "schema_invalid", "a mandate content must be a JSON object"})
				continue
			}
			vct, _ := content["vct"].(string)
			if !includesString(Ap2Vcts, vct) {
				out = append(out, MandateError{at + "/vct", "unsupported_vct", "vct must be one of " + strings.Join(Ap2Vcts, ", ")})
				continue
			}
			out = append(out, timeClaims(content, at)...)
		}
	}
	return out
}

// checkoutBindings: a closed checkout's `checkout_hash` is the SHA-256 of its `checkout_jwt`; a closed payment's
// `transaction_id` is that hash when both are in the chain (core's checkBindings, the first mandate of each type).
func checkoutBindings(hops []Ap2Hop) []MandateError {
	first := func(vct string) (string, map[string]any) {
		for _, hop := range hops {
			for i, m := range hop.Mandates {
				if content, ok := m.(map[string]any); ok && content["vct"] == vct {
					return fmt.Sprintf("/presentation/hops/%d/mandates/%d", hop.Index, i), content
				}
			}
		}
		return "", nil
	}
	out := []MandateError{}
	checkoutPath, checkout := first("mandate.checkout.1")
	paymentPath, payment := first("mandate.payment.1")
	if checkout == nil {
		return out
	}
	hash, isText := checkout["checkout_hash"].(string)
	if !isText {
		out = append(out, MandateError{checkoutPath + "/checkout_hash", "schema_invalid", "must be a string"})
	} else if jwt, ok := checkout["checkout_jwt"].(string); ok && MandateDigest(jwt) != hash {
		out = append(out, MandateError{checkoutPath + "/checkout_hash", "sd_hash_mismatch", "is not the SHA-256 of the disclosed checkout_jwt"})
	}
	if payment != nil && !strictEqual(payment["transaction_id"], checkout["checkout_hash"]) {
		out = append(out, MandateError{paymentPath + "/transaction_id", "sd_hash_mismatch",
			fmt.Sprintf("is not the checkout_hash of the closed checkout mandate (%s)", checkoutPath)})
	}
	return out
}
