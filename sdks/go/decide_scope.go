package aar

import (
	"regexp"
	"strings"
)

// Scope fields grouped by how they narrow (CONTRACT section 5).
var (
	moneyScopeFields   = []string{"max_amount_per_purchase", "max_daily_amount", "requires_approval_above"}
	allowedListFields  = []string{"allowed_merchant_categories", "allowed_jurisdictions", "allowed_actions", "allowed_merchants"}
	knownScopeFieldSet = []string{
		"max_amount_per_purchase", "max_daily_amount", "requires_approval_above", "allowed_merchant_categories",
		"blocked_merchant_categories", "allowed_jurisdictions", "valid_until", "allowed_actions", "may_delegate",
		"max_delegation_depth", "budget", "allowed_merchants",
	}
	// BudgetPeriods are the UTC periods a `budget` counts spend over (aar-decide/1.4.0).
	BudgetPeriods      = []string{"day", "week", "month", "year", "total"}
	purchaseActions    = []string{"search", "compare", "prepare", "request_approval", "execute", "refund_request", "dispute_prepare"}
	moneyMovingActions = []string{"execute", "refund_request"}
	currencyPattern    = regexp.MustCompile(`^[A-Z]{3}$`)
	localIDPattern     = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)
)

const (
	cardPurchaseCapability = "ns:capability:payment_action:card_purchase"
	subCapabilityPrefix    = "ns:capability:purchase:"
)

func isPurchaseAction(v any) bool {
	s, ok := v.(string)
	return ok && includesString(purchaseActions, s)
}

func actionFromSubject(subject any) string {
	s, ok := subject.(string)
	if !ok {
		return ""
	}
	if s == cardPurchaseCapability {
		return "execute"
	}
	if !strings.HasPrefix(s, subCapabilityPrefix) {
		return ""
	}
	if a := strings.TrimPrefix(s, subCapabilityPrefix); isPurchaseAction(a) {
		return a
	}
	return ""
}

func actionsCoveredBy(capability any) []string {
	s, ok := capability.(string)
	if !ok {
		return nil
	}
	if s == cardPurchaseCapability {
		return purchaseActions
	}
	if !strings.HasPrefix(s, subCapabilityPrefix) {
		return nil
	}
	if a := strings.TrimPrefix(s, subCapabilityPrefix); isPurchaseAction(a) {
		return []string{a}
	}
	return nil
}

// parseEntityID gives the canonical `ns:entity:<type>:<id>` of an entity id or one of its aliases.
func parseEntityID(v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	parts := strings.Split(s, ":")
	var typ, local string
	switch {
	case len(parts) == 4 && parts[0] == "ns" && parts[1] == "entity":
		typ, local = parts[2], parts[3]
	case len(parts) == 3 && parts[0] == "ns" && (parts[1] == "human" || parts[1] == "agent"):
		typ, local = "agent", parts[2]
		if parts[1] == "human" {
			typ = "person"
		}
	default:
		return "", false
	}
	if (typ != "person" && typ != "organisation" && typ != "agent") || !localIDPattern.MatchString(local) {
		return "", false
	}
	return "ns:entity:" + typ + ":" + local, true
}

// parseCardTokenRef gives the local id of `ns:card_token:<id>` or `ns:credential:card-token:<id>`.
func parseCardTokenRef(v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	for _, prefix := range []string{"ns:card_token:", "ns:credential:card-token:"} {
		if strings.HasPrefix(s, prefix) {
			local := strings.TrimPrefix(s, prefix)
			return local, localIDPattern.MatchString(local)
		}
	}
	return "", false
}

func sameEntity(a, b any) bool {
	sa, ok1 := a.(string)
	sb, ok2 := b.(string)
	if !ok1 || !ok2 {
		return false
	}
	if id, ok := parseEntityID(sa); ok {
		sa = id
	}
	if id, ok := parseEntityID(sb); ok {
		sb = id
	}
	return sa == sb
}

func sameInstrument(a, b any) bool {
	la, ok1 := parseCardTokenRef(a)
	lb, ok2 := parseCardTokenRef(b)
	return ok1 && ok2 && la == lb
}

func isMinorMoney(v any) bool {
	c, ok := get(v, "currency").(string)
	return isRecord(v) && ok && currencyPattern.MatchString(c) && isNonNegativeSafeInteger(get(v, "minor"))
}

// isBudget: `{ minor, currency, period }` (aar-decide/1.4.0), well-formed money with a known period.
func isBudget(v any) bool {
	p, ok := get(v, "period").(string)
	return isMinorMoney(v) && ok && includesString(BudgetPeriods, p)
}

func minorOf(v any) float64 { f, _ := get(v, "minor").(float64); return f }

func currencyOf(v any) string { s, _ := get(v, "currency").(string); return s }

// findMalformedScopeFields names the malformed known fields of a scope; unknown fields are ignored.
func findMalformedScopeFields(scope any) []string {
	if !isRecord(scope) {
		return []string{"scope"}
	}
	var bad []string
	present := func(k string) bool { return !isUndefined(get(scope, k)) }
	for _, k := range moneyScopeFields {
		if present(k) && !isMinorMoney(get(scope, k)) {
			bad = append(bad, k)
		}
	}
	for _, k := range []string{"allowed_merchant_categories", "blocked_merchant_categories", "allowed_jurisdictions"} {
		if present(k) && !isStringArray(get(scope, k)) {
			bad = append(bad, k)
		}
	}
	if actions := get(scope, "allowed_actions"); !isUndefined(actions) {
		list, ok := actions.([]any)
		valid := ok
		for _, a := range list {
			if !isPurchaseAction(a) {
				valid = false
			}
		}
		if !valid {
			bad = append(bad, "allowed_actions")
		}
	}
	if present("valid_until") {
		if _, ok := parseInstant(get(scope, "valid_until")); !ok {
			bad = append(bad, "valid_until")
		}
	}
	if present("may_delegate") {
		if _, ok := get(scope, "may_delegate").(bool); !ok {
			bad = append(bad, "may_delegate")
		}
	}
	if present("max_delegation_depth") && !isNonNegativeSafeInteger(get(scope, "max_delegation_depth")) {
		bad = append(bad, "max_delegation_depth")
	}
	if present("budget") && !isBudget(get(scope, "budget")) {
		bad = append(bad, "budget")
	}
	if present("allowed_merchants") && !isStringArray(get(scope, "allowed_merchants")) {
		bad = append(bad, "allowed_merchants")
	}
	return bad
}

// knownScopeFields copies the known, set fields of a well-formed scope.
func knownScopeFields(scope any) map[string]any {
	out := map[string]any{}
	for _, k := range knownScopeFieldSet {
		if v := get(scope, k); !isUndefined(v) {
			out[k] = v
		}
	}
	return out
}

// computeEffectiveScope is the intersection of well-formed, nested scopes (core's effective-scope.ts).
func computeEffectiveScope(scopes []map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range moneyScopeFields {
		var lowest any
		for _, s := range scopes {
			if v, ok := s[k]; ok && (lowest == nil || minorOf(v) < minorOf(lowest)) {
				lowest = v
			}
		}
		if lowest != nil {
			out[k] = map[string]any{"minor": minorOf(lowest), "currency": currencyOf(lowest)}
		}
	}
	var earliest *instant
	for _, s := range scopes {
		if at, ok := parseInstant(s["valid_until"]); ok && (earliest == nil || compareInstants(at, *earliest) < 0) {
			a := at
			earliest = &a
			out["valid_until"] = s["valid_until"]
		}
	}
	for _, k := range allowedListFields {
		var kept []string
		have := false
		for _, s := range scopes {
			v, ok := s[k]
			if !ok {
				continue
			}
			list := stringsOf(v)
			if !have {
				kept = unique(list)
				have = true
				continue
			}
			var next []string
			for _, item := range kept {
				if includesString(list, item) {
					next = append(next, item)
				}
			}
			kept = unique(next)
		}
		if have {
			out[k] = toAnyList(kept)
		}
	}
	var blocked []string
	anyBlocked := false
	for _, s := range scopes {
		if v, ok := s["blocked_merchant_categories"]; ok {
			anyBlocked = true
			blocked = append(blocked, stringsOf(v)...)
		}
	}
	if anyBlocked {
		out["blocked_merchant_categories"] = toAnyList(unique(blocked))
	}
	// aar-decide/1.4.0: the lowest budget, its own period kept; the first among equals
	var lowestBudget any
	for _, s := range scopes {
		if v, ok := s["budget"]; ok && (lowestBudget == nil || minorOf(v) < minorOf(lowestBudget)) {
			lowestBudget = v
		}
	}
	if lowestBudget != nil {
		period, _ := get(lowestBudget, "period").(string)
		out["budget"] = map[string]any{"minor": minorOf(lowestBudget), "currency": currencyOf(lowestBudget), "period": period}
	}
	delegable, all := 0, true
	for _, s := range scopes {
		if v, ok := s["may_delegate"]; ok {
			delegable++
			if v != true {
				all = false
			}
		}
	}
	if delegable > 0 {
		out["may_delegate"] = all
	}
	leaf := len(scopes) - 1
	remaining := -1.0
	for i, s := range scopes {
		d, ok := s["max_delegation_depth"].(float64)
		if !ok {
			continue
		}
		left := d - float64(leaf-i)
		if left < 0 {
			left = 0
		}
		if remaining < 0 || left < remaining {
			remaining = left
		}
	}
	if remaining >= 0 {
		out["max_delegation_depth"] = remaining
	}
	return out
}

func unique(items []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, s := range items {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func toAnyList(items []string) []any {
	out := make([]any, len(items))
	for i, s := range items {
		out[i] = s
	}
	return out
}

// findWiderFields lists every field in which child is wider than the parent's effective scope.
func findWiderFields(child, parent map[string]any) []string {
	var wider []string
	for _, k := range moneyScopeFields {
		c, okc := child[k]
		p, okp := parent[k]
		if okc && okp && (currencyOf(c) != currencyOf(p) || minorOf(c) > minorOf(p)) {
			wider = append(wider, k)
		}
	}
	// aar-decide/1.4.0: a budget is no larger than the parent's (same currency), whatever the two periods
	if cb, okc := child["budget"]; okc {
		if pb, okp := parent["budget"]; okp && (currencyOf(cb) != currencyOf(pb) || minorOf(cb) > minorOf(pb)) {
			wider = append(wider, "budget")
		}
	}
	if cv, ok := child["valid_until"]; ok {
		if pv, ok := parent["valid_until"]; ok {
			c, _ := parseInstant(cv)
			p, _ := parseInstant(pv)
			if compareInstants(c, p) > 0 {
				wider = append(wider, "valid_until")
			}
		}
	}
	for _, k := range allowedListFields {
		c, okc := child[k]
		p, okp := parent[k]
		if okc && okp {
			pl := stringsOf(p)
			for _, item := range stringsOf(c) {
				if !includesString(pl, item) {
					wider = append(wider, k)
					break
				}
			}
		}
	}
	if cb, ok := child["blocked_merchant_categories"]; ok {
		if pb, ok := parent["blocked_merchant_categories"]; ok {
			cl := stringsOf(cb)
			for _, item := range stringsOf(pb) {
				if !includesString(cl, item) {
					wider = append(wider, "blocked_merchant_categories")
					break
				}
			}
		}
	}
	if child["may_delegate"] == true && parent["may_delegate"] == false {
		wider = append(wider, "may_delegate")
	}
	cd, okc := child["max_delegation_depth"].(float64)
	pd, okp := parent["max_delegation_depth"].(float64)
	if okc && okp && cd > pd-1 {
		wider = append(wider, "max_delegation_depth")
	}
	return wider
}

func inheritScope(parent, own map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range parent {
		out[k] = v
	}
	for k, v := range own {
		out[k] = v
	}
	return out
}
