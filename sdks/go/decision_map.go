package aar

import (
	"context"
	"fmt"
	"regexp"
)

// ruleReasonPattern is a rule's reason, `<pack name>.<code>` (core's RULE_REASON_PATTERN).
var ruleReasonPattern = regexp.MustCompile(`^[a-z][a-z0-9_-]{1,62}\.[a-z][a-z0-9_]{0,62}$`)

// DecisionMapNodeTypes are the seven nodes of a decision map, in the spec's order (CONTRACT section 11).
var DecisionMapNodeTypes = []string{"principal", "delegation", "actor", "capability", "scope", "state", "policy"}

// DecisionMapVerification is the result of VerifyDecisionMap.
type DecisionMapVerification struct {
	Valid bool   `json:"valid"`
	KeyID string `json:"key_id,omitempty"`
	// Failure: a signed-document failure, or malformed_map (Detail says what).
	Failure string `json:"failure,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// VerifyDecisionMap verifies a signed `ns.decision_map.v1` against the trusted keys, and its shape: exactly seven
// nodes in the spec's order, each with a string ref and label, and a decision that is the one its reason carries.
func VerifyDecisionMap(ctx context.Context, decisionMap any, keys KeySource) DecisionMapVerification {
	value, err := documentValue(decisionMap)
	if err != nil {
		return DecisionMapVerification{Failure: "malformed_map", Detail: err.Error()}
	}
	sig := VerifyDocument(ctx, value, keys)
	if !sig.Valid {
		return DecisionMapVerification{KeyID: sig.KeyID, Failure: sig.Failure}
	}
	if detail := decisionMapProblem(value); detail != "" {
		return DecisionMapVerification{KeyID: sig.KeyID, Failure: "malformed_map", Detail: detail}
	}
	return DecisionMapVerification{Valid: true, KeyID: sig.KeyID}
}

func decisionMapProblem(m any) string {
	if !strictEqual(get(m, "schema_version"), "ns.decision_map.v1") {
		return "/schema_version is not `ns.decision_map.v1`"
	}
	for _, k := range []string{"decision_map_id", "policy_decision_id", "decision", "reason", "audit_ref", "issued_at"} {
		if _, ok := get(m, k).(string); !ok {
			return "/" + k + " must be a string"
		}
	}
	reason := get(m, "reason").(string)
	if info, ok := ReasonCodes[reason]; ok {
		if info.Decision != get(m, "decision") {
			return fmt.Sprintf("/decision is not %s, the decision of reason %s", info.Decision, reason)
		}
	} else if !ruleReasonPattern.MatchString(reason) {
		return "/reason is not a reason code"
	} else if d := get(m, "decision"); d != DecisionDeny && d != DecisionRequireApproval {
		// A rule reason (aar-decide/1.3.0) carries its rule's effect: rules only deny or ask for approval.
		return "/decision of rule reason " + reason + " is neither deny nor require_approval"
	}
	if !isStringArray(get(m, "evidence_refs")) {
		return "/evidence_refs must be an array of strings"
	}
	nodes, ok := get(m, "nodes").([]any)
	if !ok || len(nodes) != len(DecisionMapNodeTypes) {
		return "/nodes must hold exactly seven nodes"
	}
	for i, n := range nodes {
		if !strictEqual(get(n, "type"), DecisionMapNodeTypes[i]) {
			return fmt.Sprintf("/nodes/%d/type must be %s", i, DecisionMapNodeTypes[i])
		}
		if _, ok := get(n, "ref").(string); !ok {
			return fmt.Sprintf("/nodes/%d/ref must be a string", i)
		}
		if _, ok := get(n, "short").(string); !ok {
			return fmt.Sprintf("/nodes/%d/short must be a string", i)
		}
	}
	return ""
}
