// The decision engine: a port of core's `decide` (packages/core/src/decide), written by hand because the checks and
// their order are this product's contract (CONTRACT section 3). It must agree with core on every case of
// vectors/decisions and on the differential snapshots of vectors/sdk; only the wording of a detail that quotes a
// hostile object value may differ (member order, see jsonStringify).
//
// decide is a pure, deterministic function of (request, snapshot, now): no clock, no I/O, no randomness. It never
// panics: a malformed input fails the check that reads it, and a check that panics fails closed with its reason.

package aar

import (
	"crypto/sha256"
	"regexp"
)

// MaxAlternatives is how many alternative chains decide reads from `snapshot.alternatives` (aar-decide/1.2.0).
const MaxAlternatives = 32

var basketHashPattern = regexp.MustCompile(`^sha-256:[A-Za-z0-9_-]{43}$`)

var decisionRank = map[string]int{DecisionAllow: 0, DecisionRequireApproval: 1, DecisionDeny: 2}

// Decide runs the engine on typed inputs; snapshot may be a generic JSON value or any struct that marshals to
// core's DecisionSnapshot shape.
func Decide(request DecisionRequest, snapshot any, now string) DecisionResult {
	req, err := ToJSONValue(request)
	if err != nil {
		req = map[string]any{}
	}
	snap, err := ToJSONValue(snapshot)
	if err != nil {
		snap = map[string]any{}
	}
	return DecideJSON(req, snap, now)
}

// DecideJSON runs the engine on generic JSON values (ParseJSON's result), exactly as offline replay reads an
// evidence pack. Several covering chains (`grants`, then `alternatives`) are each evaluated, and the most
// permissive outcome is kept: allow, then require_approval, then deny; the earliest chain among equals.
func DecideJSON(request, snapshot any, now string) DecisionResult {
	if !isRecord(request) {
		request = map[string]any{}
	}
	if !isRecord(snapshot) {
		snapshot = map[string]any{}
	}
	shared := checkContext{request: request, snapshot: snapshot}
	if at, ok := parseInstant(now); ok {
		shared.now = &at
	}
	if a := get(request, "action"); isPurchaseAction(a) {
		shared.action = a.(string)
	}
	shared.basket = bindBasket(request)
	shared.rules = policySetRunOf(request, snapshot)
	first := readGrants(get(snapshot, "grants"))
	alternatives := readAlternatives(get(snapshot, "alternatives"))
	if alternatives == nil {
		return evaluate(shared, first)
	}
	chains := append([][]any{first}, alternatives...)
	results := make([]DecisionResult, len(chains))
	chosen := 0
	for i, chain := range chains {
		results[i] = evaluate(shared, chain)
		if decisionRank[results[i].Decision] < decisionRank[results[chosen].Decision] {
			chosen = i
		}
	}
	kept := results[chosen]
	candidates := make([]CandidateOutcome, len(results))
	for i, r := range results {
		candidates[i] = CandidateOutcome{GrantID: leafIDOf(chains[i]), Decision: r.Decision, Reason: r.Reason}
	}
	kept.Diagnostics.Candidates = candidates
	kept.Diagnostics.ChosenCandidate = &chosen
	return kept
}

// evaluate runs every check under one chain.
func evaluate(shared checkContext, grants []any) DecisionResult {
	c := shared
	c.grants = grants
	c.scopes, c.scopesSet = nil, false
	diags := make([]CheckDiagnostic, 0, len(CheckOrder))
	decisive := ""
	approved := false
	// Checks 1-7; the approval check (8) runs after the rule packs.
	for _, name := range CheckOrder[:len(CheckOrder)-1] {
		if decisive != "" {
			diags = append(diags, CheckDiagnostic{Check: name, Outcome: "skip"})
			continue
		}
		v := runCheck(name, &c)
		diags = append(diags, CheckDiagnostic{Check: name, Outcome: v.outcome, Reason: v.reason, Detail: v.detail})
		if v.outcome == "fail" {
			decisive = v.reason
		}
	}
	// Rule packs (aar-decide/1.3.0) only narrow: after checks 1-7 pass, or when only the elevated-risk check failed,
	// the first matched deny rule decides (the approval check skipped); else elevated risk stands; else a matched
	// require_approval rule asks for approval unless the request is the retry of one (the approval check judges it).
	var rules *policyOutcome
	ruleDecision, ruleReason := "", ""
	if c.rules != nil && (decisive == "" || decisive == "risk_state_elevated") {
		rules = c.rules.outcome()
		if rules.deny != nil {
			ruleDecision, ruleReason = DecisionDeny, rules.deny.reason
		} else if rules.approval != nil && decisive == "" && isUndefined(c.req("policy_decision_id")) {
			ruleDecision, ruleReason = DecisionRequireApproval, rules.approval.reason
		}
	}
	if decisive != "" || ruleDecision != "" {
		diags = append(diags, CheckDiagnostic{Check: "approval", Outcome: "skip"})
	} else {
		v := runCheck("approval", &c)
		diags = append(diags, CheckDiagnostic{Check: "approval", Outcome: v.outcome, Reason: v.reason, Detail: v.detail})
		if v.outcome == "fail" {
			decisive = v.reason
		} else if v.reason == "approved_by_principal" {
			approved = true
		}
	}
	reason := decisive
	if reason == "" {
		reason = "scope_within_attenuated_authority"
		if approved {
			reason = "approved_by_principal"
		}
	}
	decision := ReasonCodes[reason].Decision
	if ruleDecision != "" {
		// A rule reason's decision is its rule's effect, never a built-in reason code's.
		decision, reason = ruleDecision, ruleReason
	}
	obligations := []Obligation{{Type: "audit.emit"}}
	// A deny authorises nothing, so there is no basket to hold the caller to (aar-decide/1.2.0).
	if c.basket.hash != "" && decision != DecisionDeny {
		obligations = append(obligations, Obligation{Type: "basket_hash_binding", BasketHash: c.basket.hash})
	}
	stopConditions := []string{}
	if decision == DecisionAllow {
		stopConditions = append(stopConditions, AllowStopConditions...)
	}
	if rules != nil && decision != DecisionDeny {
		obligations = rules.addRuleObligations(obligations)
	}
	if rules != nil && decision == DecisionAllow {
		for _, stop := range rules.stopConditions {
			if !includesString(stopConditions, stop) {
				stopConditions = append(stopConditions, stop)
			}
		}
	}
	result := DecisionResult{
		Decision:       decision,
		Reason:         reason,
		Obligations:    obligations,
		StopConditions: stopConditions,
		Diagnostics:    DecisionDiagnostics{Checks: diags, GrantID: leafIDOf(grants)},
	}
	if rules != nil {
		matched := append([]RuleDiagnostic{}, rules.diagnostics...)
		result.Diagnostics.Rules = &matched
		result.Shadow = append([]ShadowOutcome(nil), rules.shadow...)
	}
	if decision == DecisionAllow {
		if amount := get(c.request, "amount"); c.action == "execute" && isMinorMoney(amount) {
			ids := make([]string, len(grants))
			for i, g := range grants {
				ids[i], _ = get(g, "grant_id").(string)
			}
			result.Reservation = &Reservation{
				Amount:   MinorMoney{Minor: int64(minorOf(amount)), Currency: currencyOf(amount)},
				GrantIDs: ids,
			}
		}
	}
	if c.scopesSet {
		result.EffectiveScope = computeEffectiveScope(c.scopes)
	}
	return result
}

func runCheck(name string, c *checkContext) (v verdict) {
	defer func() {
		if recover() != nil {
			v = fail(failClosed[name], "malformed input")
		}
	}()
	return checks[name](c)
}

func leafIDOf(grants []any) *string {
	if len(grants) == 0 {
		return nil
	}
	if id, ok := get(grants[len(grants)-1], "grant_id").(string); ok {
		return &id
	}
	return nil
}

// readGrants reads a chain as an array of objects; any other shape is no chain (the authority check then denies).
func readGrants(v any) []any {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	for _, g := range list {
		if !isRecord(g) {
			return nil
		}
	}
	return list
}

// readAlternatives is nil when there are none; a malformed entry reads as an empty chain (it can only deny).
func readAlternatives(v any) [][]any {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil
	}
	if len(list) > MaxAlternatives {
		list = list[:MaxAlternatives]
	}
	out := make([][]any, len(list))
	for i, chain := range list {
		out[i] = readGrants(chain)
	}
	return out
}

func bindBasket(request any) basketBinding {
	given := get(request, "basket_hash")
	if !isUndefined(given) {
		s, ok := given.(string)
		if !ok || !basketHashPattern.MatchString(s) {
			return basketBinding{problem: "basket_hash is not `sha-256:` + base64url"}
		}
	}
	basket := get(request, "basket")
	if isUndefined(basket) {
		if isUndefined(given) {
			return basketBinding{}
		}
		return basketBinding{hash: given.(string)}
	}
	if !isRecord(basket) {
		return basketBinding{problem: "basket is not canonical json"}
	}
	computed, err := BasketHash(basket)
	if err != nil {
		return basketBinding{problem: "basket is not canonical json"}
	}
	if !isUndefined(given) && given.(string) != computed {
		return basketBinding{problem: "basket_hash does not match the basket"}
	}
	return basketBinding{hash: computed}
}

// BasketHash is the basket binding: `sha-256:` + base64url of SHA-256 over the basket's RFC 8785 bytes.
func BasketHash(basket any) (string, error) {
	b, err := Canonicalize(basket)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return "sha-256:" + encodeBase64URL(sum[:]), nil
}
