// A payload artefact (`ns.payload_artefact.v1`, docs/artefacts.md "Offline verification"), offline: the same checks
// and failure codes as the TypeScript SDK's verifyPayloadArtefact (shape, state, basket, transitions, and payload and
// agent_signature when the caller passes the bytes it holds and the agent key it trusts).

package aar

import (
	"context"
	"crypto/sha256"
	"fmt"
	"regexp"
)

// PayloadArtefactSchema is the schema_version of a payload artefact.
const PayloadArtefactSchema = "ns.payload_artefact.v1"

var (
	artefactKinds   = map[string]bool{"checkout": true, "basket": true, "payment_instruction": true}
	artefactStates  = map[string]bool{"verified": true, "rejected": true, "executed": true}
	artefactReasons = map[string]bool{
		"decision_unknown": true, "decision_not_allowed": true, "decision_not_execute": true, "decision_expired": true,
		"decision_settled": true, "signature_missing": true, "signature_key_unknown": true, "signature_invalid": true,
		"mandate_mismatch": true, "basket_not_bound": true, "basket_mismatch": true, "decision_has_artefact": true,
	}
	previewDigest = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)
)

func isPreviewDigest(v any) bool { s, ok := v.(string); return ok && previewDigest.MatchString(s) }

func inSet(v any, set map[string]bool) bool { s, ok := v.(string); return ok && set[s] }

func has(m map[string]any, key string) bool { _, ok := m[key]; return ok }

func artefactShape(d map[string]any) *checkFailure {
	_, sigObj := d["agent_signature"].(map[string]any)
	_, transitions := d["transitions"].([]any)
	return requireFields(
		"/payload_artefact_id", isNsID(d["payload_artefact_id"], "payload_artefact"),
		"/issuer", isNonEmptyString(d["issuer"]),
		"/kind", inSet(d["kind"], artefactKinds),
		"/digest", isPreviewDigest(d["digest"]),
		"/policy_decision_id", isNsID(d["policy_decision_id"], "decision"),
		"/state", inSet(d["state"], artefactStates),
		"/received_at", isPreviewTimestamp(d["received_at"]),
		"/decided_at", isPreviewTimestamp(d["decided_at"]),
		"/executed_at", has(d, "executed_at") && (d["executed_at"] == nil || isPreviewTimestamp(d["executed_at"])),
		"/agent_signature", has(d, "agent_signature") && (d["agent_signature"] == nil || sigObj),
		"/transitions", transitions,
	)
}

func artefactState(d map[string]any) *checkFailure {
	rejected := strictEqual(get(d, "state"), "rejected")
	executed := strictEqual(get(d, "state"), "executed")
	reason, outcome := get(d, "reason"), get(d, "outcome")
	if rejected != inSet(reason, artefactReasons) {
		return failCheck("state_inconsistent", "/reason")
	}
	if !rejected && reason != nil {
		return failCheck("state_inconsistent", "/reason")
	}
	if executed != (strictEqual(outcome, "executed") || strictEqual(outcome, "failed")) {
		return failCheck("state_inconsistent", "/outcome")
	}
	if !executed && outcome != nil {
		return failCheck("state_inconsistent", "/outcome")
	}
	if executed != (get(d, "executed_at") != nil) {
		return failCheck("state_inconsistent", "/executed_at")
	}
	if !rejected {
		if !isNsID(d["actor_entity_id"], "entity") {
			return failCheck("state_inconsistent", "/actor_entity_id")
		}
		if !isNsID(d["principal_entity_id"], "entity") {
			return failCheck("state_inconsistent", "/principal_entity_id")
		}
	}
	if !has(d, "agent_key_thumbprint") {
		return failCheck("malformed_document", "/agent_key_thumbprint")
	}
	thumbprint := d["agent_key_thumbprint"]
	if thumbprint != nil && !isPreviewDigest(thumbprint) {
		return failCheck("malformed_document", "/agent_key_thumbprint")
	}
	signed := get(d, "agent_signature") != nil
	// a thumbprint names the key that verified the agent's signature: none without one or on a rejection
	if (thumbprint != nil) != (signed && !rejected) {
		return failCheck("state_inconsistent", "/agent_key_thumbprint")
	}
	return nil
}

func artefactBasket(d map[string]any) *checkFailure {
	if !strictEqual(get(d, "kind"), "basket") || strictEqual(get(d, "state"), "rejected") {
		return nil
	}
	digest, _ := d["digest"].(string)
	if !strictEqual(get(d, "basket_hash"), "sha-256:"+digest) {
		return failCheck("basket_mismatch", "/basket_hash")
	}
	return nil
}

func artefactTransitions(d map[string]any) *checkFailure {
	steps, ok := d["transitions"].([]any)
	if !ok {
		return failCheck("malformed_document", "/transitions")
	}
	expected := []string{"received", "verified"}
	if strictEqual(get(d, "state"), "rejected") {
		expected[1] = "rejected"
	}
	if strictEqual(get(d, "state"), "executed") {
		expected = append(expected, "executed")
	}
	if len(steps) != len(expected) {
		return failCheck("transitions_invalid", "/transitions")
	}
	var previous *int64
	for i, step := range steps {
		at := fmt.Sprintf("/transitions/%d", i)
		if !isRecord(step) {
			return failCheck("malformed_document", at)
		}
		if !strictEqual(get(step, "state"), expected[i]) {
			return failCheck("transitions_invalid", at+"/state")
		}
		t, ok := previewInstant(get(step, "at"))
		if !ok {
			return failCheck("malformed_document", at+"/at")
		}
		if !isNsID(get(step, "event_id"), "event") {
			return failCheck("malformed_document", at+"/event_id")
		}
		if !isNsID(get(step, "audit_ref"), "audit") {
			return failCheck("malformed_document", at+"/audit_ref")
		}
		ms := t.UnixMilli()
		if previous != nil && ms < *previous {
			return failCheck("transitions_invalid", at+"/at")
		}
		previous = &ms
	}
	received, _ := previewInstant(d["received_at"])
	decided, _ := previewInstant(d["decided_at"])
	if decided.Before(received) {
		return failCheck("transitions_invalid", "/decided_at")
	}
	if executedAt, ok := previewInstant(d["executed_at"]); ok && executedAt.Before(decided) {
		return failCheck("transitions_invalid", "/executed_at")
	}
	return nil
}

// PayloadArtefactStatementSchema is the schema_version of the statement an agent signs for its artefact.
const PayloadArtefactStatementSchema = "ns.payload_artefact_statement.v1"

// PayloadArtefactOptions are the optional checks of VerifyPayloadArtefact.
type PayloadArtefactOptions struct {
	// Payload: the bytes the caller holds; their SHA-256 must be the artefact's digest (check `payload`).
	Payload []byte
	// AgentKey: the agent's public key the caller trusts; agent_signature must verify with it (check
	// `agent_signature`), never with a key the artefact names.
	AgentKey *JWK
}

// agentSignatureCheck verifies the agent's signature over { schema_version, kind, digest, policy_decision_id } with
// the caller's agent key (under the kid the signature names only so that the lookup finds it), and the thumbprint the
// service recorded.
func agentSignatureCheck(ctx context.Context, artefact any, key JWK) PreviewCheck {
	fail := func(failure, detail string) PreviewCheck {
		return PreviewCheck{Check: "agent_signature", Failure: failure, Detail: detail}
	}
	signature, ok := get(artefact, "agent_signature").(map[string]any)
	if !ok {
		return fail("agent_signature_missing", "/agent_signature")
	}
	statement := map[string]any{
		"schema_version": PayloadArtefactStatementSchema, "kind": get(artefact, "kind"), "digest": get(artefact, "digest"),
		"policy_decision_id": get(artefact, "policy_decision_id"), "signature": signature,
	}
	for k, v := range statement {
		if isUndefined(v) {
			delete(statement, k)
		}
	}
	key.Kid, _ = signature["key_id"].(string)
	if r := VerifyDocument(ctx, statement, JWKS{Keys: []JWK{key}}); !r.Valid {
		return fail("agent_signature_invalid", "/agent_signature ("+r.Failure+")")
	}
	thumbprint, err := key.Thumbprint()
	recorded := get(artefact, "agent_key_thumbprint") // none on a rejected artefact
	if err != nil || (recorded != nil && !strictEqual(recorded, thumbprint)) {
		return fail("agent_signature_invalid", "/agent_key_thumbprint")
	}
	return PreviewCheck{Check: "agent_signature", Valid: true}
}

// VerifyPayloadArtefact verifies a signed ns.payload_artefact.v1 against the caller's keys and its own consistency.
func VerifyPayloadArtefact(ctx context.Context, artefact any, keys KeySource, opts ...PayloadArtefactOptions) PreviewVerification {
	value, err := documentValue(artefact)
	if err != nil {
		value = nil
	}
	result := verifyPreviewDocument(ctx, value, keys, PayloadArtefactSchema, []documentCheck{
		{"shape", artefactShape}, {"state", artefactState}, {"basket", artefactBasket}, {"transitions", artefactTransitions},
	})
	for _, o := range opts {
		if o.Payload == nil {
			continue
		}
		sum := sha256.Sum256(o.Payload)
		check := PreviewCheck{Check: "payload", Valid: true}
		if !strictEqual(get(value, "digest"), encodeBase64URL(sum[:])) {
			check = PreviewCheck{Check: "payload", Failure: "payload_digest_mismatch", Detail: "/digest"}
		}
		result.Checks = append(result.Checks, check)
		result.Valid = result.Valid && check.Valid
	}
	for _, o := range opts {
		if o.AgentKey == nil {
			continue
		}
		check := agentSignatureCheck(ctx, value, *o.AgentKey)
		result.Checks = append(result.Checks, check)
		result.Valid = result.Valid && check.Valid
	}
	return result
}
