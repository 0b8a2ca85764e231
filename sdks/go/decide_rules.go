// Rule packs in decide (aar-decide/1.3.0, CONTRACT section 19, DESIGN-27 section 4): the snapshot's `policy_set`
// carries every active pack's signed document in activation order; after checks 1-7, every `enforce` pack of domain
// `purchase` is evaluated (rules in order) on the rule context `{request, facts, dict}`, and every `shadow` pack on
// its own, as if it were the only pack. Rules only narrow: a deny of checks 1-7 stands and rules are not evaluated.
// `generic` packs are never evaluated by purchase decide.
//
// Attacker assumption: the snapshot may be an edited evidence pack's (the evidence verifier checks each pack's
// signature and digest before trusting a replay); every member is read defensively and nothing here panics out.

package aar

import (
	"regexp"
	"strings"
)

// RuleDiagnostic is a matched rule of an enforce pack, in `diagnostics.rules`.
type RuleDiagnostic struct {
	PackID  string `json:"pack_id"`
	Version string `json:"version"`
	RuleID  string `json:"rule_id"`
	Effect  string `json:"effect"`
	Matched bool   `json:"matched"`
	Error   bool   `json:"error,omitempty"`
}

// ShadowOutcome is a shadow pack's would-be outcome, in `result.shadow`.
type ShadowOutcome struct {
	PackID  string `json:"pack_id"`
	Version string `json:"version"`
	Effect  string `json:"effect"`
	Reason  string `json:"reason,omitempty"`
}

// preparedRule is a rule that can act (core's PreparedRule): a string rule_id, an effect its pack's domain allows,
// and for deny and require_approval a `<name>.<code>` reason. Any other rule is ignored.
type preparedRule struct {
	ruleID, effect, reason string
	when                   any
	inProfile              bool
	obligations            []any // records with a string type
	stopConditions         []string
}

// preparedPack is a pack read for evaluation (core's preparePack); a non-object document has no domain and no rules.
type preparedPack struct {
	packID, version, domain string
	dictionaries            any
	rules                   []preparedRule
}

var domainEffects = map[string][]string{
	"purchase": {"deny", "require_approval", "obligate"},
	"generic":  {"permit", "deny"},
}

func preparePack(doc any) preparedPack {
	var p preparedPack
	if !isRecord(doc) {
		return p
	}
	p.packID, _ = get(doc, "pack_id").(string)
	p.version, _ = get(doc, "version").(string)
	p.dictionaries = get(doc, "dictionaries")
	if d, _ := get(doc, "domain").(string); domainEffects[d] != nil {
		p.domain = d
	}
	rules, _ := get(doc, "rules").([]any)
	if p.domain == "" {
		rules = nil
	}
	for _, rule := range rules {
		if r, ok := prepareRule(rule, p.domain); ok {
			p.rules = append(p.rules, r)
		}
	}
	return p
}

func prepareRule(rule any, domain string) (preparedRule, bool) {
	var r preparedRule
	id, ok := get(rule, "rule_id").(string)
	if !isRecord(rule) || !ok {
		return r, false
	}
	effect, _ := get(rule, "effect").(string)
	if !includesString(domainEffects[domain], effect) {
		return r, false
	}
	r.ruleID, r.effect, r.when = id, effect, get(rule, "when")
	r.inProfile = !isUndefined(r.when) && len(CheckRuleProfile(r.when, "")) == 0
	if list, ok := get(rule, "obligations").([]any); ok {
		for _, o := range list {
			if _, typed := get(o, "type").(string); isRecord(o) && typed {
				r.obligations = append(r.obligations, o)
			}
		}
	}
	if list, ok := get(rule, "stop_conditions").([]any); ok {
		for _, s := range list {
			if text, ok := s.(string); ok {
				r.stopConditions = append(r.stopConditions, text)
			}
		}
	}
	if effect == "deny" || effect == "require_approval" {
		reason, ok := get(rule, "reason").(string)
		if !ok || strings.Index(reason, ".") <= 0 {
			return r, false
		}
		r.reason = reason
	}
	return r, true
}

// ruleMatch is one matched rule of a pack; err when its evaluation threw or it is outside the profile (fail closed:
// matched for the narrowing effects, never for permit).
type ruleMatch struct {
	pack *preparedPack
	rule *preparedRule
	err  bool
}

func (m ruleMatch) diagnostic() RuleDiagnostic {
	return RuleDiagnostic{
		PackID: m.pack.packID, Version: m.pack.version, RuleID: m.rule.ruleID, Effect: m.rule.effect, Matched: true,
		Error: m.err,
	}
}

// matchPack evaluates every rule of the pack, in order, on the context (core's matchPack).
func matchPack(p *preparedPack, context any) []ruleMatch {
	var out []ruleMatch
	for i := range p.rules {
		rule := &p.rules[i]
		matched, threw := true, true
		if rule.inProfile {
			matched, threw = evaluateRuleOn(rule.when, context)
		}
		if threw {
			if rule.effect != "permit" {
				out = append(out, ruleMatch{pack: p, rule: rule, err: true})
			}
		} else if matched {
			out = append(out, ruleMatch{pack: p, rule: rule})
		}
	}
	return out
}

func firstWithEffect(matched []ruleMatch, effect string) *ruleMatch {
	for i := range matched {
		if matched[i].rule.effect == effect {
			return &matched[i]
		}
	}
	return nil
}

// purchaseOutcome is a purchase pack alone: the first deny, else the first require_approval, else obligate when an
// obligate rule matched, else none.
func purchaseOutcome(matched []ruleMatch) PackOutcome {
	if m := firstWithEffect(matched, "deny"); m != nil {
		return PackOutcome{Effect: "deny", Reason: m.rule.reason}
	}
	if m := firstWithEffect(matched, "require_approval"); m != nil {
		return PackOutcome{Effect: "require_approval", Reason: m.rule.reason}
	}
	if firstWithEffect(matched, "obligate") != nil {
		return PackOutcome{Effect: "obligate"}
	}
	return PackOutcome{Effect: "none"}
}

// genericOutcome is a generic pack alone: any deny (its first reason), else permit when one matched, else none.
func genericOutcome(matched []ruleMatch) PackOutcome {
	if m := firstWithEffect(matched, "deny"); m != nil {
		return PackOutcome{Effect: "deny", Reason: m.rule.reason}
	}
	if firstWithEffect(matched, "permit") != nil {
		return PackOutcome{Effect: "permit"}
	}
	return PackOutcome{Effect: "none"}
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

// evaluateRuleOn is core's evaluateRule: matched when the rule's answer is truthy; a rule whose evaluation throws
// counts as matched, with threw (fail closed: a deny rule that cannot be evaluated denies).
func evaluateRuleOn(when, context any) (matched, threw bool) {
	defer func() {
		if recover() != nil {
			matched, threw = true, true
		}
	}()
	return jsTruthy(applyLogic(toJSValue(when), context)), false
}

// EvaluateRule evaluates one rule expression on a rule context (generic JSON values): core's evaluateRule. The
// caller checks the rule against the profile first (CheckRuleProfile).
func EvaluateRule(when, context any) (matched, threw bool) {
	return evaluateRuleOn(when, toJSValue(context))
}

// policyOutcome is what a decision's rule packs say (core's PolicyOutcome): every matched enforce rule, the first
// matched deny and require_approval, the matched rules' obligations and stop conditions (rule order, deduplicated),
// and each shadow pack's outcome alone (nil when the set holds no shadow pack).
type policyOutcome struct {
	diagnostics    []RuleDiagnostic
	deny, approval *preparedRule
	obligations    []any
	stopConditions []string
	shadow         []ShadowOutcome
}

// policySetRun evaluates a decision's rule packs at most once, the first time a chain needs them (the context
// `{request, facts, dict}` does not depend on the chain). A snapshot without `policy_set` has none: decide then runs
// exactly as aar-decide/1.2.0.
type policySetRun struct {
	request, snapshot any
	done              bool
	result            policyOutcome
}

func policySetRunOf(request, snapshot any) *policySetRun {
	if isUndefined(get(snapshot, "policy_set")) {
		return nil
	}
	return &policySetRun{request: request, snapshot: snapshot}
}

func (r *policySetRun) outcome() *policyOutcome {
	if !r.done {
		r.done = true
		r.result = evaluatePolicySet(r.request, r.snapshot)
	}
	return &r.result
}

// evaluatePolicySet runs the enforce and shadow packs of the purchase domain, in snapshot (activation) order.
func evaluatePolicySet(request, snapshot any) policyOutcome {
	set := get(snapshot, "policy_set")
	entries, _ := get(set, "packs").([]any)
	var dictionaries any = undefined
	if d := get(set, "dictionaries"); isRecord(d) {
		dictionaries = d
	}
	req, facts := toJSValue(request), toJSValue(ruleFactsOf(snapshot))
	out := policyOutcome{diagnostics: []RuleDiagnostic{}}
	seen := map[string]bool{}
	for _, entry := range entries {
		mode := get(entry, "mode")
		if !isRecord(entry) || (!strictEqual(mode, "enforce") && !strictEqual(mode, "shadow")) {
			continue
		}
		pack := preparePack(get(entry, "document"))
		if pack.domain != "purchase" {
			continue
		}
		context := &jsObject{map[string]any{
			"request": req, "facts": facts, "dict": toJSValue(ruleDictOf(pack.dictionaries, dictionaries)),
		}}
		matches := matchPack(&pack, context)
		if strictEqual(mode, "shadow") {
			alone := purchaseOutcome(matches)
			out.shadow = append(out.shadow, ShadowOutcome{
				PackID: pack.packID, Version: pack.version, Effect: alone.Effect, Reason: alone.Reason,
			})
			continue
		}
		for _, m := range matches {
			out.diagnostics = append(out.diagnostics, m.diagnostic())
			switch {
			case m.rule.effect == "deny" && out.deny == nil:
				out.deny = m.rule
			case m.rule.effect == "require_approval" && out.approval == nil:
				out.approval = m.rule
			}
			for _, o := range m.rule.obligations {
				b, err := Canonicalize(o)
				if err != nil || seen[string(b)] {
					continue
				}
				seen[string(b)] = true
				out.obligations = append(out.obligations, o)
			}
			for _, stop := range m.rule.stopConditions {
				if !includesString(out.stopConditions, stop) {
					out.stopConditions = append(out.stopConditions, stop)
				}
			}
		}
	}
	return out
}

// addRuleObligations appends the matched rules' obligations after the built-in ones, skipping any already listed.
func (o *policyOutcome) addRuleObligations(listed []Obligation) []Obligation {
	seen := map[string]bool{}
	for _, ob := range listed {
		if b, err := Canonicalize(ob.jsonValue()); err == nil {
			seen[string(b)] = true
		}
	}
	for _, item := range o.obligations {
		if b, err := Canonicalize(item); err == nil && !seen[string(b)] {
			listed = append(listed, ruleObligation(item))
		}
	}
	return listed
}
