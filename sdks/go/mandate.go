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
//   - each later hop has `typ` `kb+sd-jwt` (`kb+sd-jwt+kb` for an intermediate one), is signed by the `cnf.jwk`
//     of the previous hop's disclosed mandate (or the previous hop's top-level `cnf`), carries a string `nonce`, a numeric `iat`, a string `aud`, and its
//     `sd_hash` is base64url(SHA-256(previous hop text with its '~'));
//   - a closed checkout mandate's `checkout_hash` is the SHA-256 of its disclosed `checkout_jwt`, and a closed
//     payment mandate's `transaction_id` that same hash when both are in the chain (`sd_hash_mismatch`);
//   - ES256, ES384 (raw r||s) and EdDSA (Ed25519) only; `alg: none` and every other alg are refused; at most 8 hops.
//
// Attacker assumption: the presentation is anything at all; nothing panics, every failure is a MandateError with the
// DESIGN's codes. Same rules, paths and codes as the Python SDK's mandates.py. The parts: mandate_disclosures.go
// (SD-JWT disclosures), mandate_keys.go (keys, signatures, key-binding claims), mandate_contents.go (mandate
// contents, checkout/payment bindings), mandate_evidence.go (the evidence pack's `mandates` check).

import (
	"crypto/sha256"
	"fmt"
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
	// kbTypIntermediate is an intermediate key-binding hop as the AP2 reference SDK types it.
	kbTypIntermediate = "kb+sd-jwt+kb"
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
	if index > 0 && !isKeyBindingTyp(typ) {
		return Ap2Hop{}, refuse(base+"/header/typ", "key_binding_invalid", "a hop after the first has typ %s (or %s)", kbTyp, kbTypIntermediate)
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
