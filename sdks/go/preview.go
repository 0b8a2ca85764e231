// The common frame of the v1.1 preview documents' offline verifiers (CONTRACT sections 4 and 22), the same checks and
// failure codes as the TypeScript SDK's verifyPreviewDocument: the Ed25519 signature with a key of the key source the
// CALLER passed (the document's key_id is only looked up there), schema_version, then the document's own checks,
// each reported in order; Valid only when all passed.
// Attacker assumption: the document is any JSON value. Nothing here panics: a check that cannot read what it needs
// fails malformed_document.

package aar

import (
	"context"
	"regexp"
	"strings"
	"time"
)

// PreviewCheck is one named check of a preview document's verification.
type PreviewCheck struct {
	Check string `json:"check"`
	Valid bool   `json:"valid"`
	// Failure: a signed-document failure (unknown_key, signature_mismatch...), schema_version_mismatch,
	// malformed_document, or the document check's own code.
	Failure string `json:"failure,omitempty"`
	// Detail says where (an RFC 6901 pointer or a short phrase).
	Detail string `json:"detail,omitempty"`
}

// PreviewVerification is the result of the preview verifiers (VerifyPayloadArtefact, VerifyMemoryRecord,
// VerifyComplianceReport...).
type PreviewVerification struct {
	Valid         bool           `json:"valid"`
	Algorithm     string         `json:"algorithm"`
	KeyID         string         `json:"key_id,omitempty"`
	SchemaVersion string         `json:"schema_version"`
	Checks        []PreviewCheck `json:"checks"`
}

// FirstFailure is the first check that failed, or nil.
func (v PreviewVerification) FirstFailure() *PreviewCheck {
	for i := range v.Checks {
		if !v.Checks[i].Valid {
			return &v.Checks[i]
		}
	}
	return nil
}

// CheckNamed is the check of that name, or nil.
func (v PreviewVerification) CheckNamed(name string) *PreviewCheck {
	for i := range v.Checks {
		if v.Checks[i].Check == name {
			return &v.Checks[i]
		}
	}
	return nil
}

// checkFailure is what a document check answers when it does not hold.
type checkFailure struct{ failure, detail string }

func failCheck(failure, detail string) *checkFailure { return &checkFailure{failure, detail} }

// documentCheck answers nil when the check holds.
type documentCheck struct {
	name string
	run  func(doc map[string]any) *checkFailure
}

func runDocumentCheck(c documentCheck, doc any) (out PreviewCheck) {
	m, ok := doc.(map[string]any)
	if !ok {
		return PreviewCheck{Check: c.name, Failure: "malformed_document", Detail: "not a json object"}
	}
	defer func() {
		if recover() != nil {
			out = PreviewCheck{Check: c.name, Failure: "malformed_document"}
		}
	}()
	if f := c.run(m); f != nil {
		return PreviewCheck{Check: c.name, Failure: f.failure, Detail: f.detail}
	}
	return PreviewCheck{Check: c.name, Valid: true}
}

// verifyPreviewDocument: signature, schema version, then checks in order (each run even when an earlier one failed).
func verifyPreviewDocument(ctx context.Context, doc any, keys KeySource, schemaVersion string, checks []documentCheck) PreviewVerification {
	value, err := documentValue(doc)
	if err != nil {
		value = nil
	}
	sig := VerifyDocument(ctx, value, keys)
	signature := PreviewCheck{Check: "signature", Valid: sig.Valid, Failure: sig.Failure}
	if !sig.Valid && signature.Failure == "" {
		signature.Failure = "signature_mismatch"
	}
	results := []PreviewCheck{signature, runDocumentCheck(documentCheck{"schema_version", func(m map[string]any) *checkFailure {
		if !strictEqual(get(m, "schema_version"), schemaVersion) {
			return failCheck("schema_version_mismatch", "/schema_version")
		}
		return nil
	}}, value)}
	for _, c := range checks {
		results = append(results, runDocumentCheck(c, value))
	}
	valid := true
	for _, r := range results {
		valid = valid && r.Valid
	}
	return PreviewVerification{Valid: valid, Algorithm: "ed25519", KeyID: sig.KeyID, SchemaVersion: schemaVersion, Checks: results}
}

var previewTimestamp = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// previewInstant parses an ISO 8601 UTC timestamp with milliseconds, the form of every document timestamp.
func previewInstant(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok || !previewTimestamp.MatchString(s) {
		return time.Time{}, false
	}
	t, err := time.Parse("2006-01-02T15:04:05.000Z", s)
	return t, err == nil
}

func isPreviewTimestamp(v any) bool { _, ok := previewInstant(v); return ok }

func isNsID(v any, kind string) bool {
	s, ok := v.(string)
	prefix := "ns:" + kind + ":"
	return ok && strings.HasPrefix(s, prefix) && len(s) > len(prefix)
}

func isCount(v any) bool {
	f, ok := v.(float64)
	return ok && f >= 0 && isSafeInteger(v)
}

// requireFields fails malformed_document naming the first pointer whose condition is false.
func requireFields(pairs ...any) *checkFailure {
	for i := 0; i+1 < len(pairs); i += 2 {
		if ok, _ := pairs[i+1].(bool); !ok {
			p, _ := pairs[i].(string)
			return failCheck("malformed_document", p)
		}
	}
	return nil
}
