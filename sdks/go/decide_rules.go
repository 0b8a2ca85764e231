// Rule packs in decide (aar-decide/1.3.0, CONTRACT section 19, DESIGN-27 section 4): the snapshot's `policy_set`
// carries every active pack's signed document in activation order; after checks 1-7, every `enforce` pack of domain
// `purchase` is evaluated (rules in order) on the rule context `{request, facts, dict}`, and every `shadow` pack on
// its own, as if it were the only pack. Rules only narrow: a deny of checks 1-7 stands and rules are not evaluated.
// `generic` packs are never evaluated by purchase decide.
//
// Attacker assumption: the snapshot may be an edited evidence pack's (the evidence verifier checks each pack's
// signature and digest before trusting a replay); every member is read defensively and nothing here panics out.

package aar

import "regexp"

// RuleDiagnostic is a matched rule of an enforce pack, in `diagnostics.rules`.
type RuleDiagnostic struct {
	PackID  any  `json:"pack_id"`
	Version any  `json:"version"`
	RuleID  any  `json:"rule_id"`
	Effect  any  `json:"effect"`
	Matched bool `json:"matched"`
	Error   bool `json:"error,omitempty"`
}

// ShadowOutcome is a shadow pack's would-be outcome, in `result.shadow`.
type ShadowOutcome struct {
	PackID  any    `json:"pack_id"`
	Version any    `json:"version"`
	Effect  string `json:"effect"`
	Reason  string `json:"reason,omitempty"`
}

// policyPack is one `policy_set.packs` entry purchase decide evaluates.
type policyPack struct {
	document any
	shadow   bool
}

// readPolicySet lists the purchase-domain packs of `snapshot.policy_set`; ok is false without a policy set (the
// snapshot then decides exactly as aar-decide/1.2.0).
func readPolicySet(snapshot any) (packs []policyPack, ok bool) {
	set := get(snapshot, "policy_set")
	if !isRecord(set) {
		return nil, false
	}
	list, _ := get(set, "packs").([]any)
	for _, entry := range list {
		doc := get(entry, "document")
		if !isRecord(doc) || !strictEqual(get(doc, "domain"), "purchase") {
			continue
		}
		switch mode := get(entry, "mode"); {
		case strictEqual(mode, "enforce"):
			packs = append(packs, policyPack{document: doc})
		case strictEqual(mode, "shadow"):
			packs = append(packs, policyPack{document: doc, shadow: true})
		}
	}
	return packs, true
}

// ruleMatch is one matched rule: the rule, its pack, whether its evaluation threw (counted as matched).
type ruleMatch struct {
	pack, rule any
	err        bool
}

func (m ruleMatch) effect() any { return get(m.rule, "effect") }

func (m ruleMatch) reason() string { s, _ := get(m.rule, "reason").(string); return s }

// ruleVerdict is what the enforce packs matched, in order, and each shadow pack's would-be outcome.
type ruleVerdict struct {
	matched []ruleMatch
	shadow  []ShadowOutcome
}

func firstWithEffect(matched []ruleMatch, effect string) *ruleMatch {
	for i := range matched {
		if strictEqual(matched[i].effect(), effect) {
			return &matched[i]
		}
	}
	return nil
}

// ruleFactsOf is the context's `facts`: principal, actor, instrument, merchant (four members), counters, local time;
// a missing member reads as null.
func ruleFactsOf(snapshot any) map[string]any {
	orNull := func(v any) any {
		if isUndefined(v) {
			return nil
		}
		return v
	}
	var merchant any
	if m := get(snapshot, "merchant"); isRecord(m) {
		merchant = map[string]any{
			"merchant_id": orNull(get(m, "merchant_id")), "category": orNull(get(m, "category")),
			"jurisdiction": orNull(get(m, "jurisdiction")), "state": orNull(get(m, "state")),
		}
	}
	facts := get(snapshot, "facts")
	return map[string]any{
		"principal": orNull(get(snapshot, "principal")), "actor": orNull(get(snapshot, "actor")),
		"instrument": orNull(get(snapshot, "instrument")), "merchant": merchant,
		"counters": orNull(get(facts, "counters")), "local_time": orNull(get(facts, "local_time")),
	}
}

var (
	policyNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_-]{1,62}$`)
	semverPattern     = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$`)
)

// parsePolicyReference reads `<prefix><name>@<semver>`.
func parsePolicyReference(ref any, prefix string) (name, version string, ok bool) {
	s, isString := ref.(string)
	if !isString {
		return "", "", false
	}
	at := -1
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '@' {
			at = i
			break
		}
	}
	if at < 0 || len(s[:at]) < len(prefix) || s[:len(prefix)] != prefix {
		return "", "", false
	}
	name, version = s[len(prefix):at], s[at+1:]
	if !policyNamePattern.MatchString(name) || !semverPattern.MatchString(version) {
		return "", "", false
	}
	return name, version, true
}

// ruleDictOf is the context's `dict` for a pack: each dictionary it declares that `dictionaries` holds under its
// name at the declared version, as `{codes, terms}`. One the snapshot lacks is absent (a rule reading it reads null).
func ruleDictOf(refs, dictionaries any) map[string]any {
	dict := map[string]any{}
	list, ok := refs.([]any)
	if !ok || !isRecord(dictionaries) {
		return dict
	}
	for _, ref := range list {
		name, version, ok := parsePolicyReference(ref, "ns:dictionary:")
		if !ok {
			continue
		}
		snap := get(dictionaries, name)
		if !isRecord(snap) || !strictEqual(get(snap, "version"), version) {
			continue
		}
		dict[name] = map[string]any{"codes": get(snap, "codes"), "terms": get(snap, "terms")}
	}
	return dict
}

// ruleEvaluator evaluates packs on one decision's context: request and facts are converted to the evaluator's
// values once, `dict` per pack.
type ruleEvaluator struct {
	request, facts any
	dictionaries   any
}

func newRuleEvaluator(request, snapshot any) *ruleEvaluator {
	return &ruleEvaluator{
		request:      toJSValue(request),
		facts:        toJSValue(ruleFactsOf(snapshot)),
		dictionaries: get(get(snapshot, "policy_set"), "dictionaries"),
	}
}

func (e *ruleEvaluator) context(pack any) any {
	return &jsObject{map[string]any{
		"request": e.request, "facts": e.facts,
		"dict": toJSValue(ruleDictOf(get(pack, "dictionaries"), e.dictionaries)),
	}}
}

// evaluateRuleOn is core's evaluateRule: matched when the rule's answer is truthy, or when evaluating it throws
// (fail closed: a deny rule that cannot be evaluated denies).
func evaluateRuleOn(when, context any) (matched, threw bool) {
	defer func() {
		if recover() != nil {
			matched, threw = true, true
		}
	}()
	return jsTruthy(applyLogic(toJSValue(when), context)), false
}

// EvaluateRule evaluates one rule expression on a rule context (generic JSON values): core's evaluateRule.
func EvaluateRule(when, context any) (matched, threw bool) {
	return evaluateRuleOn(when, toJSValue(context))
}

// matchPack evaluates every rule of a pack, in order, on the context.
func matchPack(pack, context any) []ruleMatch {
	var out []ruleMatch
	rules, _ := get(pack, "rules").([]any)
	for _, rule := range rules {
		if matched, threw := evaluateRuleOn(get(rule, "when"), context); matched {
			out = append(out, ruleMatch{pack: pack, rule: rule, err: threw})
		}
	}
	return out
}

// packOutcome is a pack's outcome alone: the first deny, else the first require_approval, else obligate when any
// rule matched, else none.
func packOutcome(matched []ruleMatch) (effect, reason string) {
	if m := firstWithEffect(matched, "deny"); m != nil {
		return "deny", m.reason()
	}
	if m := firstWithEffect(matched, "require_approval"); m != nil {
		return "require_approval", m.reason()
	}
	if len(matched) > 0 {
		return "obligate", ""
	}
	return "none", ""
}

func (e *ruleEvaluator) evaluate(packs []policyPack) ruleVerdict {
	var v ruleVerdict
	for _, p := range packs {
		matched := matchPack(p.document, e.context(p.document))
		if !p.shadow {
			v.matched = append(v.matched, matched...)
			continue
		}
		effect, reason := packOutcome(matched)
		v.shadow = append(v.shadow, ShadowOutcome{
			PackID: get(p.document, "pack_id"), Version: get(p.document, "version"), Effect: effect, Reason: reason,
		})
	}
	return v
}

func (v ruleVerdict) diagnostics() []RuleDiagnostic {
	out := make([]RuleDiagnostic, 0, len(v.matched))
	for _, m := range v.matched {
		out = append(out, RuleDiagnostic{
			PackID: get(m.pack, "pack_id"), Version: get(m.pack, "version"), RuleID: get(m.rule, "rule_id"),
			Effect: m.effect(), Matched: true, Error: m.err,
		})
	}
	return out
}

// obligations are every matched rule's obligations in rule order, skipping any already listed (canonical JSON).
func (v ruleVerdict) obligations(listed []Obligation) []Obligation {
	seen := map[string]bool{}
	for _, o := range listed {
		if b, err := Canonicalize(o.jsonValue()); err == nil {
			seen[string(b)] = true
		}
	}
	out := listed
	for _, m := range v.matched {
		items, _ := get(m.rule, "obligations").([]any)
		for _, item := range items {
			b, err := Canonicalize(item)
			if err != nil || seen[string(b)] {
				continue
			}
			seen[string(b)] = true
			out = append(out, ruleObligation(item))
		}
	}
	return out
}

// stopConditions appends every matched rule's stop conditions not yet listed.
func (v ruleVerdict) stopConditions(listed []string) []string {
	out := listed
	for _, m := range v.matched {
		items, _ := get(m.rule, "stop_conditions").([]any)
		for _, item := range items {
			if s, ok := item.(string); ok && !includesString(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// policySetRun evaluates a decision's rule packs at most once, the first time a chain reaches them (every chain
// reads the same context). Each rule's evaluation recovers on its own (evaluateRuleOn: a throw is a match).
type policySetRun struct {
	request, snapshot any
	packs             []policyPack
	done              bool
	result            ruleVerdict
}

func (r *policySetRun) verdict() *ruleVerdict {
	if !r.done {
		r.done = true
		r.result = newRuleEvaluator(r.request, r.snapshot).evaluate(r.packs)
	}
	return &r.result
}
