// Memory records and tombstones (`ns.memory_record.v1`, docs/memory.md) and a principal's tombstone chain, offline:
// the same checks and failure codes as the TypeScript SDK's verifyMemoryRecord and verifyMemoryChain.
// - record form: shape, retention (retain_until = created_at + retention_days days), authorship (an rfc9421 write
//   names the agent key's thumbprint and the signature's instant, a credential one neither), and content when the caller
//   passes the content it was served with its salt (base64url SHA-256 of the RFC 8785 text of { content, salt } is
//   content_digest; the content's RFC 8785 text is content_bytes long);
// - tombstone form: shape, tombstone (no content member, sequence 1 exactly when there is no previous digest, not
//   before the record), content (content handed beside a tombstone fails), and record when the caller passes the
//   record it ends (record_digest is the digest of that record's RFC 8785 text, signature included).

package aar

import (
	"context"
	"crypto/sha256"
	"fmt"
	"time"
)

// MemoryRecordSchema is the schema_version of memory records and tombstones.
const MemoryRecordSchema = "ns.memory_record.v1"

// MaxMemoryChain bounds the work of one VerifyMemoryChain call; longer chains are verified in segments (After).
const MaxMemoryChain = 100000

var (
	memoryClassifications = map[string]bool{"public": true, "internal": true, "confidential": true, "restricted": true}
	tombstoneReasons      = map[string]bool{"erased": true, "retention_expired": true}
	memoryContentMembers  = []string{"content", "content_salt", "content_digest", "content_bytes"}
	memorySameAsRecord    = []string{"memory_record_id", "principal_entity_id", "agent_entity_id", "classification"}
)

// CanonicalDigest is base64url SHA-256 of the RFC 8785 bytes of a JSON value.
func CanonicalDigest(v any) (string, error) {
	b, err := Canonicalize(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return encodeBase64URL(sum[:]), nil
}

// MemoryContentDigest is a record's content_digest: CanonicalDigest of { content, salt }.
func MemoryContentDigest(content any, salt string) (string, error) {
	return CanonicalDigest(map[string]any{"content": content, "salt": salt})
}

func memoryShape(d map[string]any) *checkFailure {
	common := []any{
		"/form", strictEqual(get(d, "form"), "record") || strictEqual(get(d, "form"), "tombstone"),
		"/memory_record_id", isNsID(d["memory_record_id"], "memory_record"),
		"/issuer", isNonEmptyString(d["issuer"]),
		"/principal_entity_id", isNsID(d["principal_entity_id"], "entity"),
		"/agent_entity_id", isNsID(d["agent_entity_id"], "entity"),
		"/classification", inSet(d["classification"], memoryClassifications),
		"/created_at", isPreviewTimestamp(d["created_at"]),
	}
	if !strictEqual(get(d, "form"), "tombstone") {
		days, _ := d["retention_days"].(float64)
		return requireFields(append(common,
			"/grant_id", isNsID(d["grant_id"], "authority:grant"),
			"/retention_days", isCount(d["retention_days"]) && days > 0,
			"/content_digest", isPreviewDigest(d["content_digest"]),
			"/content_bytes", isCount(d["content_bytes"]),
			"/authorship", isRecord(d["authorship"]),
			"/retain_until", isPreviewTimestamp(d["retain_until"]),
		)...)
	}
	sequence, _ := d["sequence"].(float64)
	return requireFields(append(common,
		"/tombstone_id", isNsID(d["tombstone_id"], "memory_tombstone"),
		"/record_digest", isPreviewDigest(d["record_digest"]),
		"/reason", inSet(d["reason"], tombstoneReasons),
		"/sequence", isCount(d["sequence"]) && sequence >= 1,
		"/previous_tombstone_digest", has(d, "previous_tombstone_digest") && (d["previous_tombstone_digest"] == nil || isPreviewDigest(d["previous_tombstone_digest"])),
		"/record_created_at", isPreviewTimestamp(d["record_created_at"]),
	)...)
}

func memoryRetention(d map[string]any) *checkFailure {
	created, ok1 := previewInstant(d["created_at"])
	until, ok2 := previewInstant(d["retain_until"])
	if !ok1 || !ok2 || !isCount(d["retention_days"]) {
		return failCheck("malformed_document", "/retain_until")
	}
	days := d["retention_days"].(float64)
	if until.Sub(created) != time.Duration(days)*24*time.Hour {
		return failCheck("retention_mismatch", "/retain_until")
	}
	return nil
}

// memoryAuthorship: an rfc9421 write names the agent key's thumbprint and the signature's instant, a credential one
// neither.
func memoryAuthorship(d map[string]any) *checkFailure {
	a := d["authorship"]
	method := get(a, "method")
	if !strictEqual(method, "rfc9421") && !strictEqual(method, "credential") {
		return failCheck("malformed_document", "/authorship/method")
	}
	if !isNsID(get(a, "token_id"), "token") {
		return failCheck("malformed_document", "/authorship/token_id")
	}
	thumbprint, signedAt := get(a, "agent_key_thumbprint"), get(a, "signed_at")
	signed := isPreviewDigest(thumbprint) && isPreviewTimestamp(signedAt)
	unsigned := thumbprint == nil && signedAt == nil
	if (strictEqual(method, "rfc9421") && !signed) || (strictEqual(method, "credential") && !unsigned) {
		return failCheck("authorship_inconsistent", "/authorship")
	}
	return nil
}

func memoryTombstone(d map[string]any) *checkFailure {
	for _, name := range memoryContentMembers {
		if has(d, name) {
			return failCheck("tombstone_has_content", "/"+name)
		}
	}
	first := strictEqual(get(d, "sequence"), float64(1))
	if first != (has(d, "previous_tombstone_digest") && d["previous_tombstone_digest"] == nil) {
		return failCheck("chain_broken", "/previous_tombstone_digest")
	}
	recordCreated, ok1 := previewInstant(d["record_created_at"])
	created, ok2 := previewInstant(d["created_at"])
	if ok1 && ok2 && created.Before(recordCreated) {
		return failCheck("tombstone_before_record", "/created_at")
	}
	return nil
}

// MemoryRecordOptions are the optional checks of VerifyMemoryRecord.
type MemoryRecordOptions struct {
	// Content and ContentSalt: what the record was served with (check `content`). A nil Content is no content.
	Content     any
	ContentSalt string
	// Record: for a tombstone, the signed record it ends (check `record`); compared only, verify it on its own.
	Record any
}

func memoryContentCheck(doc any, o MemoryRecordOptions) *PreviewCheck {
	given := o.Content != nil
	fail := func(failure, detail string) *PreviewCheck {
		return &PreviewCheck{Check: "content", Failure: failure, Detail: detail}
	}
	m, ok := doc.(map[string]any)
	if !ok {
		if given {
			return fail("malformed_document", "")
		}
		return nil
	}
	if strictEqual(get(m, "form"), "tombstone") {
		if given {
			return fail("tombstone_has_content", "content given")
		}
		return nil
	}
	if !given {
		return nil
	}
	content, err := documentValue(o.Content)
	if err != nil {
		return fail("malformed_document", "")
	}
	if o.ContentSalt == "" {
		return fail("content_digest_mismatch", "no salt")
	}
	digest, err := MemoryContentDigest(content, o.ContentSalt)
	if err != nil {
		return fail("malformed_document", "")
	}
	if !strictEqual(get(m, "content_digest"), digest) {
		return fail("content_digest_mismatch", "/content_digest")
	}
	text, err := Canonicalize(content)
	if err != nil || !strictEqual(get(m, "content_bytes"), float64(len(text))) {
		return fail("content_digest_mismatch", "/content_bytes")
	}
	return &PreviewCheck{Check: "content", Valid: true}
}

func memoryRecordCheck(doc any, record any) PreviewCheck {
	fail := func(failure, detail string) PreviewCheck {
		return PreviewCheck{Check: "record", Failure: failure, Detail: detail}
	}
	if !strictEqual(get(doc, "form"), "tombstone") {
		return fail("malformed_document", "not a tombstone")
	}
	rec, err := documentValue(record)
	if err != nil || !strictEqual(get(rec, "form"), "record") {
		return fail("record_mismatch", "not a record")
	}
	digest, err := CanonicalDigest(rec)
	if err != nil || !strictEqual(get(doc, "record_digest"), digest) {
		return fail("record_mismatch", "/record_digest")
	}
	for _, name := range memorySameAsRecord {
		if !strictEqual(get(rec, name), get(doc, name)) {
			return fail("record_mismatch", "/"+name)
		}
	}
	if !strictEqual(get(rec, "created_at"), get(doc, "record_created_at")) {
		return fail("record_mismatch", "/record_created_at")
	}
	return PreviewCheck{Check: "record", Valid: true}
}

// VerifyMemoryRecord verifies a signed memory record or tombstone against the caller's keys and its own consistency.
func VerifyMemoryRecord(ctx context.Context, doc any, keys KeySource, opts ...MemoryRecordOptions) PreviewVerification {
	value, err := documentValue(doc)
	if err != nil {
		value = nil
	}
	checks := []documentCheck{{"shape", memoryShape}, {"retention", memoryRetention}, {"authorship", memoryAuthorship}}
	if strictEqual(get(value, "form"), "tombstone") {
		checks = []documentCheck{{"shape", memoryShape}, {"tombstone", memoryTombstone}}
	}
	result := verifyPreviewDocument(ctx, value, keys, MemoryRecordSchema, checks)
	for _, o := range opts {
		if c := memoryContentCheck(value, o); c != nil {
			result.Checks = append(result.Checks, *c)
		}
		if o.Record != nil {
			result.Checks = append(result.Checks, memoryRecordCheck(value, o.Record))
		}
	}
	result.Valid = true
	for _, c := range result.Checks {
		result.Valid = result.Valid && c.Valid
	}
	return result
}

// MemoryChainVerification is the result of VerifyMemoryChain.
type MemoryChainVerification struct {
	Valid  bool `json:"valid"`
	Length int  `json:"length"`
	// TipDigest is the last tombstone's digest ("" for an empty chain): pin it, and a later chain that does not pass
	// through it was rewritten.
	TipDigest string `json:"tip_digest,omitempty"`
	// Checks: tombstones, principal, sequence, links, in that order.
	Checks     []PreviewCheck        `json:"checks"`
	Tombstones []PreviewVerification `json:"tombstones"`
}

// MemoryChainOptions narrow VerifyMemoryChain.
type MemoryChainOptions struct {
	// PrincipalEntityID the chain must belong to; default the first tombstone's.
	PrincipalEntityID string
	// AfterSequence and AfterDigest: verify a segment following that tombstone (e.g. a pinned tip).
	AfterSequence int
	AfterDigest   string
}

// VerifyMemoryChain verifies a principal's tombstones in sequence order: each on its own, one principal, sequences
// without a gap from 1 (or AfterSequence+1), each naming the previous one's digest (null for the first).
func VerifyMemoryChain(ctx context.Context, tombstones any, keys KeySource, opts ...MemoryChainOptions) MemoryChainVerification {
	var o MemoryChainOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	value, err := documentValue(tombstones)
	list, ok := value.([]any)
	if err != nil || !ok || len(list) > MaxMemoryChain {
		checks := []PreviewCheck{}
		for _, c := range []string{"tombstones", "principal", "sequence", "links"} {
			checks = append(checks, PreviewCheck{Check: c, Failure: "malformed_chain"})
		}
		return MemoryChainVerification{Checks: checks, Tombstones: []PreviewVerification{}}
	}
	results := make([]PreviewVerification, 0, len(list))
	tombstoneCheck := PreviewCheck{Check: "tombstones", Valid: true}
	for i, t := range list {
		r := VerifyMemoryRecord(ctx, t, keys)
		results = append(results, r)
		if tombstoneCheck.Valid && (!r.Valid || !strictEqual(get(t, "form"), "tombstone")) {
			failure := "not_a_tombstone"
			if f := r.FirstFailure(); f != nil {
				failure = f.Failure
			}
			tombstoneCheck = PreviewCheck{Check: "tombstones", Failure: failure, Detail: fmt.Sprintf("/%d", i)}
		}
	}
	principalCheck := PreviewCheck{Check: "principal", Valid: true}
	sequenceCheck := PreviewCheck{Check: "sequence", Valid: true}
	linkCheck := PreviewCheck{Check: "links", Valid: true}
	var previous any
	if o.AfterDigest != "" {
		previous = o.AfterDigest
	}
	expected := float64(o.AfterSequence + 1)
	principal := o.PrincipalEntityID
	tip := ""
	for i, t := range list {
		m, ok := t.(map[string]any)
		if !ok {
			if linkCheck.Valid {
				linkCheck = PreviewCheck{Check: "links", Failure: "malformed_chain", Detail: fmt.Sprintf("/%d", i)}
			}
			previous, tip = nil, ""
			expected++
			continue
		}
		if p, ok := m["principal_entity_id"].(string); ok && principal == "" {
			principal = p
		}
		if principalCheck.Valid && !strictEqual(get(m, "principal_entity_id"), principal) {
			principalCheck = PreviewCheck{Check: "principal", Failure: "other_principal", Detail: fmt.Sprintf("/%d/principal_entity_id", i)}
		}
		if sequenceCheck.Valid && !strictEqual(get(m, "sequence"), expected) {
			sequenceCheck = PreviewCheck{Check: "sequence", Failure: "sequence_gap", Detail: fmt.Sprintf("/%d/sequence", i)}
		}
		link := get(m, "previous_tombstone_digest")
		if isUndefined(link) {
			link = nil
		}
		if linkCheck.Valid && !strictEqual(link, previous) {
			linkCheck = PreviewCheck{Check: "links", Failure: "chain_broken", Detail: fmt.Sprintf("/%d/previous_tombstone_digest", i)}
		}
		digest, err := CanonicalDigest(m)
		if err != nil {
			if linkCheck.Valid {
				linkCheck = PreviewCheck{Check: "links", Failure: "malformed_chain", Detail: fmt.Sprintf("/%d", i)}
			}
			previous, tip = nil, ""
		} else {
			previous, tip = digest, digest
		}
		expected++
	}
	checks := []PreviewCheck{tombstoneCheck, principalCheck, sequenceCheck, linkCheck}
	valid := true
	for _, c := range checks {
		valid = valid && c.Valid
	}
	return MemoryChainVerification{Valid: valid, Length: len(list), TipDigest: tip, Checks: checks, Tombstones: results}
}
