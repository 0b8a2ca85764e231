package aar

import (
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Webhook profiles (CONTRACT section 9).
const (
	ProfileSharedSecret = "shared_secret"
	ProfileAsymmetric   = "asymmetric"
	ProfileCOSE         = "cose"
)

// WebhookTolerance is the Standard Webhooks freshness window, either way, inclusive.
const WebhookTolerance = 300

// WebhookVerifyOptions is one delivery as a receiver got it, and what the receiver trusts.
type WebhookVerifyOptions struct {
	Profile string
	Headers http.Header
	// Body is the exact bytes received, never a re-serialised body.
	Body []byte
	// Now is the receiver's clock, unix seconds; zero (unset) is the system clock.
	Now int64
	// Tolerance in seconds (default 300).
	Tolerance int64
	// Secrets are the endpoint's `whsec_` secrets (shared_secret; any one matching passes).
	Secrets []string
	// Keys are the service's trusted keys (asymmetric and cose; with shared_secret, the envelope's own signature is
	// then checked too).
	Keys KeySource
	// SeenBefore is the receiver's replay cache, called only for authentic, fresh ids (it may record the id).
	SeenBefore func(webhookID string) bool
}

// WebhookVerification is the verdict, a stable failure code (core's webhook-verification-result.ts), and the facts
// that were authenticated.
type WebhookVerification struct {
	Valid     bool           `json:"valid"`
	Code      string         `json:"code,omitempty"`
	Detail    string         `json:"detail,omitempty"`
	WebhookID string         `json:"webhook_id,omitempty"`
	Timestamp int64          `json:"timestamp,omitempty"`
	KeyID     string         `json:"key_id,omitempty"`
	Envelope  map[string]any `json:"envelope,omitempty"`
}

var (
	webhookIDPattern        = regexp.MustCompile(`^[A-Za-z0-9:_-]{1,256}$`)
	webhookTimestampPattern = regexp.MustCompile(`^(?:0|[1-9][0-9]{0,14})$`)
	signatureEntryPattern   = regexp.MustCompile(`^([a-z0-9]{1,16}),([\x21-\x7e]{1,512})$`)
	serviceKeyIDPattern     = regexp.MustCompile(`^ns:key:[A-Za-z0-9._-]{1,128}$`)
)

type sigEntry struct {
	version string
	sig     []byte
}

// ParseWebhookSecret returns the HMAC key of a `whsec_` secret (strict padded base64 of 24-64 bytes).
func ParseWebhookSecret(secret string) ([]byte, error) {
	if !strings.HasPrefix(secret, "whsec_") {
		return nil, errors.New("aar: a webhook secret must start with `whsec_`")
	}
	key, ok := decodeBase64Strict(strings.TrimPrefix(secret, "whsec_"))
	if !ok || len(key) < 24 || len(key) > 64 {
		return nil, errors.New("aar: a webhook secret must be `whsec_` and the base64 of 24 to 64 bytes")
	}
	return key, nil
}

// WebhookSignedContent is `{id}.{timestamp}.{body}`, what every webhook-signature entry covers.
func WebhookSignedContent(id string, timestamp int64, body []byte) []byte {
	return append([]byte(id+"."+strconv.FormatInt(timestamp, 10)+"."), body...)
}

// SignWebhookV1 is the Standard Webhooks `v1,<base64 HMAC-SHA256>` entry (for tests and for senders).
func SignWebhookV1(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := ParseWebhookSecret(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(WebhookSignedContent(id, timestamp, body))
	return "v1," + encodeBase64(mac.Sum(nil)), nil
}

func parseSignatureHeader(lines []string) ([]sigEntry, bool) {
	var tokens []string
	for _, l := range lines {
		for _, t := range strings.Split(l, " ") {
			if t != "" {
				tokens = append(tokens, t)
			}
		}
	}
	if len(tokens) == 0 || len(tokens) > 8 {
		return nil, false
	}
	var out []sigEntry
	for _, t := range tokens {
		m := signatureEntryPattern.FindStringSubmatch(t)
		if m == nil {
			return nil, false
		}
		want := map[string]int{"v1": 32, "v1a": 64}[m[1]]
		if want == 0 {
			continue // another scheme: ignored, as Standard Webhooks asks
		}
		sig, ok := decodeBase64Strict(m[2])
		if !ok || len(sig) != want {
			return nil, false
		}
		out = append(out, sigEntry{m[1], sig})
	}
	return out, true
}

func single(h http.Header, name string) (string, int) {
	v := h.Values(name)
	if len(v) != 1 {
		return "", len(v)
	}
	return v[0], 1
}

// VerifyWebhook verifies a delivery of any of the three profiles. Order: headers, signatures (and for asymmetric
// and cose the envelope's own signature), envelope, time, then replay; so timestamp_stale, timestamp_in_future and
// replayed always mean "authentic, but refused". Keys come only from opts.Keys, never from the message.
func VerifyWebhook(ctx context.Context, opts WebhookVerifyOptions) WebhookVerification {
	refuse := func(code, detail string) WebhookVerification {
		return WebhookVerification{Code: code, Detail: detail}
	}
	if opts.Profile != ProfileSharedSecret && opts.Profile != ProfileAsymmetric && opts.Profile != ProfileCOSE {
		return refuse("internal", "unknown profile")
	}
	tolerance := opts.Tolerance
	if tolerance == 0 {
		tolerance = WebhookTolerance
	}
	if opts.Now == 0 {
		opts.Now = time.Now().Unix()
	}
	h := opts.Headers
	id, n := single(h, "webhook-id")
	if n == 0 {
		return refuse("missing_header", "webhook-id")
	}
	if n > 1 || !webhookIDPattern.MatchString(id) {
		return refuse("malformed_header", "webhook-id")
	}
	tsText, n := single(h, "webhook-timestamp")
	if n == 0 {
		return refuse("missing_header", "webhook-timestamp")
	}
	if n > 1 || !webhookTimestampPattern.MatchString(tsText) {
		return refuse("malformed_header", "webhook-timestamp")
	}
	ts, _ := strconv.ParseInt(tsText, 10, 64)
	sigLines := h.Values("webhook-signature")
	if len(sigLines) == 0 {
		return refuse("missing_header", "webhook-signature")
	}
	entries, ok := parseSignatureHeader(sigLines)
	if !ok {
		return refuse("malformed_header", "webhook-signature")
	}
	hint, n := single(h, "webhook-key-id")
	if n > 1 || (n == 1 && hint == "") {
		return refuse("malformed_header", "webhook-key-id")
	}
	hasHint := n == 1
	facts := WebhookVerification{WebhookID: id, Timestamp: ts}
	failed := func(code, detail string) WebhookVerification {
		r := facts
		r.Code, r.Detail = code, detail
		return r
	}
	content := WebhookSignedContent(id, ts, opts.Body)
	of := func(version string) [][]byte {
		var out [][]byte
		for _, e := range entries {
			if e.version == version {
				out = append(out, e.sig)
			}
		}
		return out
	}
	trusted := func(keyID string) (JWK, ed25519.PublicKey, string) {
		if hasHint && hint != keyID {
			return JWK{}, nil, "key_id_mismatch"
		}
		if !serviceKeyIDPattern.MatchString(keyID) {
			return JWK{}, nil, "invalid_key_id"
		}
		if opts.Keys == nil {
			return JWK{}, nil, "unknown_key"
		}
		jwk, err := opts.Keys.LookupKey(ctx, keyID)
		if err != nil {
			if errors.Is(err, ErrInvalidKey) {
				return JWK{}, nil, "invalid_key"
			}
			return JWK{}, nil, "unknown_key"
		}
		pub, err := jwk.PublicKey()
		if err != nil || (jwk.Kid != "" && jwk.Kid != keyID) {
			return JWK{}, nil, "invalid_key"
		}
		return jwk, pub, ""
	}
	anyEd25519 := func(pub ed25519.PublicKey, sigs [][]byte) bool {
		for _, s := range sigs {
			if VerifyEd25519(pub, content, s) {
				return true
			}
		}
		return false
	}
	document := func(envelope map[string]any, keyID string, jwk JWK) string {
		if r := VerifyDocument(ctx, envelope, singleKey{keyID, jwk}); !r.Valid {
			return r.Failure
		}
		return ""
	}

	var envelope map[string]any
	var keyID string
	switch opts.Profile {
	case ProfileSharedSecret:
		macs := of("v1")
		if len(macs) == 0 {
			return failed("signature_missing", "no v1 signature")
		}
		if len(opts.Secrets) == 0 || len(opts.Secrets) > 8 {
			return failed("internal", "shared_secret needs one to eight `whsec_` secrets")
		}
		matched := false
		for _, secret := range opts.Secrets {
			key, err := ParseWebhookSecret(secret)
			if err != nil {
				return failed("internal", err.Error())
			}
			m := hmac.New(sha256.New, key)
			m.Write(content)
			sum := m.Sum(nil)
			for _, mac := range macs {
				if hmac.Equal(sum, mac) {
					matched = true
				}
			}
		}
		if !matched {
			return failed("signature_invalid", "no v1 signature matches a configured secret")
		}
		env, detail := parseEnvelope(opts.Body)
		if env == nil {
			return failed("envelope_invalid", detail)
		}
		envelope = env
		if opts.Keys != nil {
			keyID = envelopeKeyID(env)
			if keyID == "" {
				return failed("document_signature_invalid", "missing_signature")
			}
			jwk, _, code := trusted(keyID)
			if code != "" {
				return failed(code, "")
			}
			if f := document(env, keyID, jwk); f != "" {
				return failed("document_signature_invalid", f)
			}
		}
	case ProfileAsymmetric:
		sigs := of("v1a")
		if len(sigs) == 0 {
			return failed("signature_missing", "no v1a signature")
		}
		env, detail := parseEnvelope(opts.Body)
		if env == nil {
			return failed("envelope_invalid", detail)
		}
		keyID = envelopeKeyID(env)
		if keyID == "" {
			return failed("document_signature_invalid", "missing_signature")
		}
		jwk, pub, code := trusted(keyID)
		if code != "" {
			return failed(code, "")
		}
		if !anyEd25519(pub, sigs) {
			return failed("signature_invalid", "no v1a signature verifies with the named key")
		}
		if f := document(env, keyID, jwk); f != "" {
			return failed("document_signature_invalid", f)
		}
		envelope = env
	case ProfileCOSE:
		sigs := of("v1a")
		if len(sigs) == 0 {
			return failed("signature_missing", "no v1a signature")
		}
		msg, err := DecodeCoseSign1(opts.Body)
		if err != nil {
			ce := err.(*CoseError)
			return failed(ce.Code, ce.Detail)
		}
		kid, err := msg.KeyID(true)
		if err != nil {
			ce := err.(*CoseError)
			return failed(ce.Code, ce.Detail)
		}
		keyID = kid
		jwk, pub, code := trusted(keyID)
		if code != "" {
			return failed(code, "")
		}
		if !anyEd25519(pub, sigs) {
			return failed("signature_invalid", "no v1a signature verifies with the kid key")
		}
		// External AAD is always empty in this profile: a message signed over any other AAD fails here.
		if !VerifyEd25519(pub, CoseSigStructure(msg.ProtectedBytes, nil, msg.Payload), msg.Signature) {
			return failed("cose_signature_invalid", "")
		}
		env, detail := parseEnvelope(msg.Payload)
		if env == nil {
			return failed("envelope_invalid", detail)
		}
		if envelopeKeyID(env) != keyID {
			return failed("key_id_mismatch", "the envelope is not signed by the kid key")
		}
		if f := document(env, keyID, jwk); f != "" {
			return failed("document_signature_invalid", f)
		}
		envelope = env
	}
	facts.KeyID = keyID
	if !strictEqual(get(envelope, "schema_version"), "ns.webhook.v1") {
		return failed("envelope_invalid", "schema_version is not ns.webhook.v1")
	}
	if !strictEqual(get(envelope, "event_id"), id) {
		return failed("envelope_id_mismatch", "event_id is not webhook-id")
	}
	if opts.Now-ts > tolerance {
		return failed("timestamp_stale", "")
	}
	if ts-opts.Now > tolerance {
		return failed("timestamp_in_future", "")
	}
	if opts.SeenBefore != nil && opts.SeenBefore(id) {
		return failed("replayed", "")
	}
	facts.Valid = true
	facts.Envelope = envelope
	return facts
}

func parseEnvelope(body []byte) (map[string]any, string) {
	v, err := ParseJSON(body)
	if err != nil {
		return nil, "not strict json"
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, "not a json object"
	}
	return m, ""
}

func envelopeKeyID(envelope map[string]any) string {
	s, _ := get(get(envelope, "signature"), "key_id").(string)
	return s
}

// String is for logs; it never holds a secret.
func (v WebhookVerification) String() string {
	if v.Valid {
		return fmt.Sprintf("valid webhook %s", v.WebhookID)
	}
	return fmt.Sprintf("refused webhook %s: %s %s", v.WebhookID, v.Code, v.Detail)
}
