package aar

import (
	"context"
	"crypto/sha256"
	"regexp"
	"strconv"
	"unicode/utf16"
)

// EvidenceChecks are the checks of VerifyEvidencePack, in the order they run (core's verification-result.ts);
// `policy_set` runs only when the snapshot or the decision map's policy node holds a policy set (a decision made
// under rule packs, aar-decide/1.3.0): each rule pack document verifies against the trusted keys and is the one the
// map names (failures `malformed_policy_set`, `policy_signature_invalid`, `policy_digest_mismatch`). A further check,
// `mandates`, runs between `policy_set` and `replay` only when the snapshot's grants carry a `mandate` binding or the
// pack a `mandates` member (issue 29; failures `malformed_mandates`, `mandate_missing`, `mandate_digest_mismatch`,
// `mandate_signature_invalid`: mandate_evidence.go). The list names every check, as core's EVIDENCE_CHECKS does;
// a pack records the conditional ones only when they apply. `agent_metadata` (issue 30) runs after `mandates` when the
// snapshot, the pack or the map's actor node carries agent metadata (agent_metadata.go).
var EvidenceChecks = []string{
	"pack_signature", "decision_map_signature", "bindings", "audit_entry", "record_digest", "inclusion_proof",
	"checkpoint", "policy_set", "mandates", "agent_metadata", "replay",
}

// EvidenceCheck is one check's outcome with its stable failure code.
type EvidenceCheck struct {
	Check   string `json:"check"`
	Valid   bool   `json:"valid"`
	Failure string `json:"failure,omitempty"`
}

// ReplayDecision is what the Go decide answers on the pack's facts, and whether it equals the recorded answer.
type ReplayDecision struct {
	Decision       string       `json:"decision"`
	Reason         string       `json:"reason"`
	Obligations    []Obligation `json:"obligations"`
	StopConditions []string     `json:"stop_conditions"`
	Matches        bool         `json:"matches"`
}

// EvidenceVerification is the SPEC's evidence verification result; Valid only when every check passed.
type EvidenceVerification struct {
	Valid          bool            `json:"valid"`
	Algorithm      string          `json:"algorithm"`
	KeyID          *string         `json:"key_id"`
	ReplayDecision *ReplayDecision `json:"replay_decision"`
	Checks         []EvidenceCheck `json:"checks"`
}

// VerifyEvidencePackOptions: Origin, when set, is the only log whose checkpoints are accepted.
type VerifyEvidencePackOptions struct {
	Origin string
}

// VerifyEvidencePack verifies an evidence pack offline (CONTRACT sections 4 and 8) and replays its decision through
// the Go decide. Attacker assumption: the pack is anything at all; every check runs and reports its own failure;
// keys come only from keys (never from the pack, whose `issuer` is a hint).
func VerifyEvidencePack(ctx context.Context, pack any, keys KeySource, opts VerifyEvidencePackOptions) EvidenceVerification {
	out := EvidenceVerification{Algorithm: "ed25519"}
	value, err := documentValue(pack)
	if err != nil {
		out.Checks = []EvidenceCheck{{Check: "pack_signature", Failure: "malformed_pack"}}
		return out
	}
	record := func(check, failure string) {
		out.Checks = append(out.Checks, EvidenceCheck{Check: check, Valid: failure == "", Failure: failure})
	}
	field := func(name string) any { return get(value, name) }

	packSig := VerifyDocument(ctx, value, keys)
	record("pack_signature", sigFailure(packSig))
	if packSig.KeyID != "" {
		id := packSig.KeyID
		out.KeyID = &id
	}
	m := field("decision_map")
	record("decision_map_signature", sigFailure(VerifyDocument(ctx, m, keys)))
	record("bindings", checkPackBindings(value, m))

	entryText := field("audit_entry")
	entry, entryOK := parseAuditEntryText(entryText)
	proof, proofErr := ParseInclusionProof(field("inclusion_proof"))
	record("audit_entry", checkPackEntry(entryText, entry, entryOK, proof, proofErr == nil, m))
	record("record_digest", checkRecordDigest(value, entry, entryOK))

	cp, cpErr := ParseCheckpoint(field("checkpoint"))
	switch {
	case proofErr != nil:
		record("inclusion_proof", "malformed_pack")
	case cpErr != nil:
		record("inclusion_proof", "malformed_checkpoint")
	case proof.TreeSize != cp.Size:
		record("inclusion_proof", "tree_size_mismatch")
	default:
		if err := proof.Verify(cp.RootHash); err != nil {
			record("inclusion_proof", err.Error())
		} else {
			record("inclusion_proof", "")
		}
	}
	switch {
	case cpErr != nil:
		record("checkpoint", "malformed_checkpoint")
	case opts.Origin != "" && cp.Origin != opts.Origin:
		record("checkpoint", "origin_mismatch")
	default:
		record("checkpoint", sigFailure(VerifyDocument(ctx, field("checkpoint"), keys)))
	}

	request, snapshot, now := field("request"), field("snapshot"), field("now")
	// aar-decide/1.3.0: the rule packs replay runs must be the published, signed ones the map names.
	if failure, applies := checkPolicySet(ctx, snapshot, m, keys); applies {
		record("policy_set", failure)
	}
	// issue 29: the mandates the snapshot's grants were made from, and their signatures.
	if failure, applies := CheckMandates(value); applies {
		record("mandates", failure)
	}
	// issue 30: the agent's signed metadata attestation the snapshot names (agent_metadata.go).
	if failure, applies := CheckAgentMetadata(ctx, value); applies {
		record("agent_metadata", failure)
	}
	if nowText, ok := now.(string); ok && isRecord(request) && isRecord(snapshot) {
		replay := ReplayDecisionJSON(request, snapshot, nowText, field("decision"), field("engine_version"))
		out.ReplayDecision = &replay
		if replay.Matches {
			record("replay", "")
		} else {
			record("replay", "replay_mismatch")
		}
	} else {
		record("replay", "malformed_pack")
	}
	out.Valid = true
	for _, c := range out.Checks {
		out.Valid = out.Valid && c.Valid
	}
	return out
}

func sigFailure(r DocumentVerification) string {
	if r.Valid {
		return ""
	}
	if r.Failure == "" {
		return "signature_mismatch"
	}
	return r.Failure
}

func checkPackBindings(pack, m any) string {
	if !strictEqual(get(pack, "schema_version"), "ns.evidence_pack.v1") {
		return "malformed_pack"
	}
	decision := get(pack, "decision")
	if !isRecord(m) || !isRecord(decision) {
		return "malformed_pack"
	}
	pdid := get(pack, "policy_decision_id")
	if _, ok := pdid.(string); !ok || !strictEqual(get(m, "policy_decision_id"), pdid) {
		return "decision_mismatch"
	}
	if !strictEqual(get(m, "decision"), get(decision, "decision")) || !strictEqual(get(m, "reason"), get(decision, "reason")) {
		return "decision_mismatch"
	}
	packID, ok := get(pack, "evidence_pack_id").(string)
	if !ok || !arrayIncludes(get(m, "evidence_refs"), packID) {
		return "evidence_ref_mismatch"
	}
	return ""
}

// auditEntry is the `ns.audit_entry.v1` leaf: its exact bytes are what the tree commits to.
type auditEntry struct {
	AuditID      string
	Index        float64
	RecordDigest string
	SubjectRef   string
}

// parseAuditEntryText reads the entry strictly (duplicate keys refused, where JSON.parse would keep the last).
func parseAuditEntryText(v any) (auditEntry, bool) {
	text, ok := v.(string)
	if !ok || len(utf16.Encode([]rune(text))) > 65536 {
		return auditEntry{}, false
	}
	parsed, err := ParseJSON([]byte(text))
	if err != nil || !strictEqual(get(parsed, "schema_version"), "ns.audit_entry.v1") {
		return auditEntry{}, false
	}
	if !isNonNegativeSafeInteger(get(parsed, "index")) {
		return auditEntry{}, false
	}
	for _, k := range []string{"audit_id", "occurred_at", "kind", "subject_ref", "record_digest", "prev_leaf_hash"} {
		if _, ok := get(parsed, k).(string); !ok {
			return auditEntry{}, false
		}
	}
	return auditEntry{
		AuditID: get(parsed, "audit_id").(string), Index: get(parsed, "index").(float64),
		RecordDigest: get(parsed, "record_digest").(string), SubjectRef: get(parsed, "subject_ref").(string),
	}, true
}

func checkPackEntry(text any, entry auditEntry, entryOK bool, proof InclusionProof, proofOK bool, m any) string {
	s, isText := text.(string)
	if !entryOK || !isText {
		return "malformed_entry"
	}
	if !proofOK {
		return "malformed_pack"
	}
	if entry.Index != float64(proof.LeafIndex) {
		return "index_mismatch"
	}
	if encodeBase64(LeafHash([]byte(s))) != proof.LeafHash {
		return "leaf_hash_mismatch"
	}
	if !isRecord(m) || !strictEqual(get(m, "audit_ref"), entry.AuditID) {
		return "audit_ref_mismatch"
	}
	return ""
}

// checkRecordDigest re-derives the entry's record_digest from the pack's parts (the decision record of core's
// decision-record.ts; absent members are omitted, as JSON.stringify omits undefined).
func checkRecordDigest(pack any, entry auditEntry, entryOK bool) string {
	if !entryOK {
		return "malformed_entry"
	}
	rec := map[string]any{"schema_version": "ns.decision_record.v1"}
	for recName, packName := range map[string]string{
		"policy_decision_id": "policy_decision_id", "request": "request", "snapshot": "snapshot", "now": "now",
		"result": "decision", "engine_version": "engine_version", "decision_map": "decision_map",
	} {
		if v := get(pack, packName); !isUndefined(v) {
			rec[recName] = v
		}
	}
	digest, err := RecordDigest(rec)
	if err != nil || digest != entry.RecordDigest {
		return "digest_mismatch"
	}
	return ""
}

// RecordDigest is `sha-256:` + base64url of SHA-256 over the RFC 8785 bytes of a record.
func RecordDigest(record any) (string, error) {
	b, err := Canonicalize(record)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return "sha-256:" + encodeBase64URL(sum[:]), nil
}

var engineVersionPattern = regexp.MustCompile(`^aar-decide/(\d+)\.(\d+)\.\d+$`)

// ReplayDecisionJSON runs the Go decide on recorded facts and compares decision, reason, obligations and stop
// conditions with the recorded result. Engines before aar-decide/1.2.0 also bound the basket on a deny: such a
// recorded deny is compared without that obligation (as core's replay does).
func ReplayDecisionJSON(request, snapshot any, now string, recorded, engineVersion any) ReplayDecision {
	result := DecideJSON(request, snapshot, now)
	replayed, _ := ToJSONValue(map[string]any{
		"decision": result.Decision, "reason": result.Reason,
		"obligations": result.Obligations, "stop_conditions": result.StopConditions,
	})
	a, errA := Canonicalize(answerOf(replayed))
	b, errB := Canonicalize(answerOf(legacyAnswerOf(recorded, engineVersion)))
	return ReplayDecision{
		Decision: result.Decision, Reason: result.Reason, Obligations: result.Obligations,
		StopConditions: result.StopConditions,
		Matches:        errA == nil && errB == nil && isRecord(recorded) && string(a) == string(b),
	}
}

func answerOf(result any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"decision", "reason", "obligations", "stop_conditions"} {
		if v := get(result, k); !isUndefined(v) {
			out[k] = v
		}
	}
	return out
}

func legacyAnswerOf(recorded, engineVersion any) any {
	s, _ := engineVersion.(string)
	m := engineVersionPattern.FindStringSubmatch(s)
	if m == nil {
		return recorded
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if major > 1 || (major == 1 && minor >= 2) {
		return recorded
	}
	obligations, ok := get(recorded, "obligations").([]any)
	if !strictEqual(get(recorded, "decision"), "deny") || !ok {
		return recorded
	}
	kept := []any{}
	for _, o := range obligations {
		if !strictEqual(get(o, "type"), "basket_hash_binding") {
			kept = append(kept, o)
		}
	}
	copied := map[string]any{}
	for k, v := range recorded.(map[string]any) {
		copied[k] = v
	}
	copied["obligations"] = kept
	return copied
}
