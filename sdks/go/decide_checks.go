package aar

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
)

// checkContext is what every check reads (core's checks/check-context.ts).
type checkContext struct {
	request  any
	snapshot any
	now      *instant
	action   string // "" when request.action is not one of the seven
	grants   []any  // records, root first
	basket   basketBinding
	// rules evaluates the snapshot's rule packs once per decision (every chain reads the same context).
	rules *policySetRun
	// scopes is set by the chain check when it passes: every link's own well-formed scope, root first.
	scopes    []map[string]any
	scopesSet bool
}

type basketBinding struct {
	hash    string
	problem string
}

type verdict struct {
	outcome string
	reason  string
	detail  string
}

func fail(reason, detail string) verdict {
	return verdict{outcome: "fail", reason: reason, detail: detail}
}
func pass(detail string) verdict { return verdict{outcome: "pass", detail: detail} }

func (c *checkContext) req(key string) any  { return get(c.request, key) }
func (c *checkContext) snap(key string) any { return get(c.snapshot, key) }

func (c *checkContext) idOf(i int) string {
	if i < 0 || i >= len(c.grants) {
		return quote(undefined)
	}
	return quote(get(c.grants[i], "grant_id"))
}

func (c *checkContext) moneyMoving() bool {
	return c.action == "" || includesString(moneyMovingActions, c.action)
}

var checks = map[string]func(*checkContext) verdict{
	"payload":   checkPayload,
	"entities":  checkEntities,
	"authority": checkAuthority,
	"chain":     checkChain,
	"merchant":  checkMerchant,
	"amount":    checkAmount,
	"risk":      checkRisk,
	"approval":  checkApproval,
}

// failClosed is the reason a check fails with if it panics on malformed input.
var failClosed = map[string]string{
	"payload":   "payload_signature_invalid",
	"entities":  "principal_inactive",
	"authority": "authority_not_found",
	"chain":     "delegation_invalid",
	"merchant":  "merchant_unknown",
	"amount":    "amount_above_agent_threshold",
	"risk":      "risk_state_blocked",
	"approval":  "approval_mismatch",
}

// Step 1: the agent's signature facts and the basket binding.
func checkPayload(c *checkContext) verdict {
	payload := c.snap("payload")
	if !isRecord(payload) {
		return fail("payload_signature_missing", "snapshot has no payload facts")
	}
	required := get(payload, "required")
	if !strictEqual(required, false) {
		if !strictEqual(get(payload, "present"), true) {
			return fail("payload_signature_missing", "request is not signed")
		}
		if !strictEqual(get(payload, "signature_valid"), true) {
			return fail("payload_signature_invalid", invalidSignatureDetail(payload))
		}
		if stale := c.findStaleness(get(payload, "created"), get(payload, "window_seconds")); stale != "" {
			return fail("payload_stale", stale)
		}
		if !strictEqual(get(payload, "nonce_fresh"), true) {
			return fail("payload_replayed", "nonce was already used within the window")
		}
	}
	if c.basket.problem != "" {
		return fail("payload_signature_invalid", c.basket.problem)
	}
	if strictEqual(required, false) {
		if c.basket.hash != "" {
			return pass("signature not required; basket hash bound")
		}
		return verdict{outcome: "skip", detail: "signature not required"}
	}
	return pass("")
}

func (c *checkContext) findStaleness(created, window any) string {
	if c.now == nil {
		return "`now` is not a valid timestamp"
	}
	if !isSafeInteger(created) {
		return "signature has no integer `created` time"
	}
	if !isNonNegativeSafeInteger(window) {
		return "freshness window is not a non-negative integer"
	}
	ahead := float64(c.now.seconds) - created.(float64)
	w := window.(float64)
	// Whole seconds (CONTRACT section 7): the clock's fraction is ignored, so now ± window are both fresh.
	if ahead > w {
		return fmt.Sprintf("created %ss before now, window %ss", esNumber(ahead), esNumber(w))
	}
	if -ahead > w {
		return fmt.Sprintf("created %ss after now, window %ss", esNumber(-ahead), esNumber(w))
	}
	return ""
}

var failureCodePattern = regexp.MustCompile(`^[a-z_]{1,40}$`)

// invalidSignatureDetail names the verifier's failure code and the @target-uri values the server tried, bounded.
func invalidSignatureDetail(payload any) string {
	detail := "signature does not verify"
	if f, ok := get(payload, "signature_failure").(string); ok && failureCodePattern.MatchString(f) {
		detail += " (" + f + ")"
	}
	var named []string
	if list, ok := get(payload, "target_uris").([]any); ok {
		for _, u := range list {
			s, ok := u.(string)
			if !ok || len(named) >= 16 {
				continue
			}
			if units := utf16.Encode([]rune(s)); len(units) > 256 {
				s = string(utf16.Decode(units[:253])) + "..."
			}
			named = append(named, "`"+s+"`")
		}
	}
	if len(named) > 0 {
		detail += " for @target-uri " + strings.Join(named, " or ")
	}
	return detail
}

// Step 2: principal, actor and card token exist, are the request's, are active; the token is the principal's.
func checkEntities(c *checkContext) verdict {
	principal := c.snap("principal")
	if !isRecord(principal) {
		return fail("principal_inactive", "principal not found")
	}
	if !sameEntity(get(principal, "entity_id"), c.req("principal_entity_id")) {
		return fail("principal_inactive", "snapshot principal is not the request principal")
	}
	if t := get(principal, "type"); !strictEqual(t, "person") && !strictEqual(t, "organisation") {
		return fail("principal_inactive", "principal type "+quote(t)+" cannot be a principal")
	}
	if s := get(principal, "state"); !strictEqual(s, "active") {
		return fail("principal_inactive", "principal is "+quote(s))
	}
	actor := c.snap("actor")
	if !isRecord(actor) {
		return fail("actor_inactive", "actor not found")
	}
	if !sameEntity(get(actor, "entity_id"), c.req("actor_entity_id")) {
		return fail("actor_inactive", "snapshot actor is not the request actor")
	}
	if t := get(actor, "type"); !strictEqual(t, "agent") {
		return fail("actor_inactive", "actor type "+quote(t)+" is not an agent")
	}
	if s := get(actor, "state"); !strictEqual(s, "active") {
		return fail("actor_inactive", "actor is "+quote(s))
	}
	// aar-decide/1.5.0: the agent metadata the request presents against the attested one (agent_metadata.go)
	if v := checkAgentMetadata(c); v != nil {
		return *v
	}
	if isUndefined(c.req("instrument_id")) {
		if c.moneyMoving() {
			return fail("instrument_inactive", "instrument required for "+quote(c.req("action")))
		}
		return pass("principal and actor active; no instrument named")
	}
	instrument := c.snap("instrument")
	if !isRecord(instrument) {
		return fail("instrument_inactive", "card token not found")
	}
	if !sameInstrument(get(instrument, "card_token_id"), c.req("instrument_id")) {
		return fail("instrument_inactive", "snapshot card token is not the request instrument")
	}
	if s := get(instrument, "state"); !strictEqual(s, "active") {
		return fail("instrument_inactive", "card token is "+quote(s))
	}
	if !sameEntity(get(instrument, "principal_entity_id"), c.req("principal_entity_id")) {
		return fail("instrument_not_bound", "card token belongs to another principal")
	}
	return pass("principal, actor and card token active")
}

// Step 3: the chain covers actor + principal + capability + instrument.
func checkAuthority(c *checkContext) verdict {
	lookup := c.snap("grant_lookup")
	if strictEqual(lookup, "authority_not_found") {
		return fail("authority_not_found", "no grant for this actor and principal")
	}
	if strictEqual(lookup, "capability_not_granted") {
		return fail("capability_not_granted", "no grant of "+quote(c.req("subject"))+" for this actor and principal")
	}
	if !strictEqual(lookup, "found") {
		return fail("authority_not_found", "grant lookup "+quote(lookup)+" is not known")
	}
	if len(c.grants) == 0 {
		return fail("authority_not_found", "grant lookup found no chain")
	}
	leaf := c.grants[len(c.grants)-1]
	leafID := quote(get(leaf, "grant_id"))
	if !sameEntity(get(leaf, "actor_entity_id"), c.req("actor_entity_id")) {
		return fail("authority_not_found", "grant "+leafID+" is for another actor")
	}
	if !sameEntity(get(leaf, "principal_entity_id"), c.req("principal_entity_id")) {
		return fail("authority_not_found", "grant "+leafID+" is for another principal")
	}
	if inst := c.req("instrument_id"); !isUndefined(inst) && !sameInstrument(get(leaf, "resource_id"), inst) {
		return fail("authority_not_found", "grant "+leafID+" is for another instrument")
	}
	subjectAction := actionFromSubject(c.req("subject"))
	if subjectAction == "" {
		return fail("capability_not_granted", "subject "+quote(c.req("subject"))+" is not a purchase capability")
	}
	if c.action != subjectAction {
		return fail("capability_not_granted", "action "+quote(c.req("action"))+" does not match subject")
	}
	for _, g := range c.grants {
		if !includesString(actionsCoveredBy(get(g, "capability_id")), c.action) {
			return fail("capability_not_granted", "grant "+quote(get(g, "grant_id"))+" capability does not cover "+c.action)
		}
		allowed := get(get(g, "scope"), "allowed_actions")
		if !isUndefined(allowed) && !arrayIncludes(allowed, c.action) {
			return fail("capability_not_granted", "grant "+quote(get(g, "grant_id"))+" allowed_actions excludes "+c.action)
		}
	}
	return pass("leaf grant " + leafID)
}

// Step 4: every link active, unexpired, validly delegated; every intermediary active.
func checkChain(c *checkContext) verdict {
	for _, g := range c.grants {
		if s := get(g, "state"); !strictEqual(s, "active") {
			// aar-decide/1.4.0: a link made from a mandate names its own reason
			if m := get(g, "mandate"); !isUndefined(m) {
				return fail("mandate_revoked", mandateOf(m)+" of grant "+quote(get(g, "grant_id"))+" is "+quote(s))
			}
			return fail("authority_revoked", "grant "+quote(get(g, "grant_id"))+" is "+quote(s))
		}
	}
	for i := 0; i < len(c.grants)-1; i++ {
		g := c.grants[i]
		if s := get(g, "actor_state"); !isUndefined(s) && !strictEqual(s, "active") {
			return fail("authority_revoked", "intermediary "+quote(get(g, "actor_entity_id"))+" of grant "+
				quote(get(g, "grant_id"))+" is "+quote(s))
		}
	}
	for _, g := range c.grants {
		validUntil := get(get(g, "scope"), "valid_until")
		if isUndefined(validUntil) {
			continue
		}
		until, ok := parseInstant(validUntil)
		if !ok {
			return fail("authority_expired", "grant "+quote(get(g, "grant_id"))+" valid_until is not a timestamp")
		}
		if c.now == nil {
			return fail("authority_expired", "`now` is not a valid timestamp")
		}
		if compareInstants(until, *c.now) <= 0 {
			if m := get(g, "mandate"); !isUndefined(m) {
				return fail("mandate_expired", mandateOf(m)+" of grant "+quote(get(g, "grant_id"))+" expired at "+
					quote(validUntil))
			}
			return fail("authority_expired", "grant "+quote(get(g, "grant_id"))+" expired at "+quote(validUntil))
		}
	}
	if c.now == nil {
		return fail("authority_expired", "`now` is not a valid timestamp")
	}
	for _, g := range c.grants {
		m := get(g, "mandate")
		if strictEqual(get(m, "single_use"), true) && strictEqual(get(m, "used"), true) {
			return fail("allowance_used", mandateOf(m)+" of grant "+quote(get(g, "grant_id"))+" was used")
		}
	}
	if problem := findDelegationProblem(c.grants); problem != "" {
		return fail("delegation_invalid", problem)
	}
	c.scopes = make([]map[string]any, len(c.grants))
	for i, g := range c.grants {
		c.scopes[i] = knownScopeFields(get(g, "scope"))
	}
	c.scopesSet = true
	if len(c.grants) == 1 {
		return pass("direct grant")
	}
	return pass(strconv.Itoa(len(c.grants)) + "-link chain")
}

func findDelegationProblem(grants []any) string {
	seen := map[string]bool{}
	var parentEffective map[string]any
	last := len(grants) - 1
	for i, g := range grants {
		rawID := get(g, "grant_id")
		id := quote(rawID)
		if !isNonEmptyString(rawID) {
			return "link " + strconv.Itoa(i) + " has no grant id"
		}
		gid := rawID.(string)
		if seen[gid] {
			return "grant " + id + " appears twice in the chain"
		}
		seen[gid] = true
		if bad := findMalformedScopeFields(get(g, "scope")); len(bad) > 0 {
			return "grant " + id + " has malformed " + strings.Join(bad, ", ")
		}
		if !strictEqual(get(g, "signature_valid"), true) {
			return "grant " + id + " signature does not verify"
		}
		if m := get(g, "mandate"); !isUndefined(m) && !isGrantMandate(m) {
			return "grant " + id + " has malformed mandate"
		}
		if i < last && isUndefined(get(g, "actor_state")) {
			return "grant " + id + " does not say whether its actor (an intermediary) is active"
		}
		own := knownScopeFields(get(g, "scope"))
		if i == 0 {
			if p := get(g, "parent_grant_id"); p != nil && !isUndefined(p) {
				return "chain does not start at a root grant: " + id + " has a parent"
			}
		} else {
			parent := grants[i-1]
			if !strictEqual(get(g, "parent_grant_id"), get(parent, "grant_id")) {
				return "grant " + id + " is not a child of " + quote(get(parent, "grant_id"))
			}
			if !sameEntity(get(g, "principal_entity_id"), get(parent, "principal_entity_id")) {
				return "grant " + id + " is for another principal than its parent"
			}
			if !sameInstrument(get(g, "resource_id"), get(parent, "resource_id")) {
				return "grant " + id + " is for another instrument than its parent"
			}
			parentActions := actionsCoveredBy(get(parent, "capability_id"))
			for _, a := range actionsCoveredBy(get(g, "capability_id")) {
				if !includesString(parentActions, a) {
					return "grant " + id + " capability is wider than its parent's"
				}
			}
			if parentEffective == nil {
				parentEffective = map[string]any{}
			}
			if wider := findWiderFields(own, parentEffective); len(wider) > 0 {
				return "grant " + id + " is wider than its parent: " + strings.Join(wider, ", ")
			}
		}
		if d, ok := get(g, "depth").(float64); !ok || d != float64(i) {
			return "grant " + id + " depth " + quote(get(g, "depth")) + " is not its position " + strconv.Itoa(i)
		}
		parentEffective = inheritScope(parentEffective, own)
		if i < last && parentEffective["may_delegate"] != true {
			return "grant " + id + " may not be delegated"
		}
		if depth, ok := own["max_delegation_depth"].(float64); ok && float64(last-i) > depth {
			return fmt.Sprintf("grant %s allows %s delegation level(s) below it, the chain has %d", id, esNumber(depth), last-i)
		}
	}
	return ""
}

// mandateOf is "mandate `<id>`", or "mandate" alone when the binding has no readable id (aar-decide/1.4.0).
func mandateOf(m any) string {
	if id, ok := get(m, "mandate_id").(string); ok {
		return "mandate " + quote(id)
	}
	return "mandate"
}

// isGrantMandate: `{ mandate_id, format: "ap2" | "acp", digest, single_use, used }`, each of its type.
func isGrantMandate(m any) bool {
	if !isRecord(m) {
		return false
	}
	format := get(m, "format")
	_, singleUse := get(m, "single_use").(bool)
	_, used := get(m, "used").(bool)
	return isNonEmptyString(get(m, "mandate_id")) && (strictEqual(format, "ap2") || strictEqual(format, "acp")) &&
		isNonEmptyString(get(m, "digest")) && singleUse && used
}

// Step 5: merchant registered, active, allowed by every link.
func checkMerchant(c *checkContext) verdict {
	merchantID := c.req("merchant_id")
	if isUndefined(merchantID) {
		if c.moneyMoving() {
			return fail("merchant_unknown", "merchant required for "+quote(c.req("action")))
		}
		return verdict{outcome: "skip", detail: "no merchant named"}
	}
	merchant := c.snap("merchant")
	if !isRecord(merchant) {
		return fail("merchant_unknown", "merchant "+quote(merchantID)+" is not registered")
	}
	if !strictEqual(get(merchant, "merchant_id"), merchantID) {
		return fail("merchant_unknown", "snapshot merchant is not the request merchant")
	}
	if s := get(merchant, "state"); !strictEqual(s, "active") {
		return fail("merchant_unknown", "merchant is "+quote(s))
	}
	category, jurisdiction := get(merchant, "category"), get(merchant, "jurisdiction")
	if !isNonEmptyString(category) || !isNonEmptyString(jurisdiction) {
		return fail("merchant_unknown", "merchant has no category or jurisdiction")
	}
	cat, jur := category.(string), jurisdiction.(string)
	// aar-decide/1.4.0: the merchant id must be in every link's allowed_merchants, checked first
	mid, midIsString := get(merchant, "merchant_id").(string)
	for i, s := range c.scopes {
		if v, ok := s["allowed_merchants"]; ok && (!midIsString || !includesString(stringsOf(v), mid)) {
			return fail("merchant_not_allowed", "merchant "+quote(get(merchant, "merchant_id"))+" not allowed by grant "+c.idOf(i))
		}
	}
	for i, s := range c.scopes {
		if v, ok := s["blocked_merchant_categories"]; ok && includesString(stringsOf(v), cat) {
			return fail("merchant_category_blocked", "category "+quote(cat)+" blocked by grant "+c.idOf(i))
		}
	}
	for i, s := range c.scopes {
		if v, ok := s["allowed_merchant_categories"]; ok && !includesString(stringsOf(v), cat) {
			return fail("merchant_category_not_allowed", "category "+quote(cat)+" not allowed by grant "+c.idOf(i))
		}
	}
	for i, s := range c.scopes {
		if v, ok := s["allowed_jurisdictions"]; ok && !includesString(stringsOf(v), jur) {
			return fail("jurisdiction_not_allowed", "jurisdiction "+quote(jur)+" not allowed by grant "+c.idOf(i))
		}
	}
	return pass("category " + quote(cat) + ", jurisdiction " + quote(jur))
}

var currencyCodePattern = regexp.MustCompile(`^[A-Z]{3}$`)

// Step 6: currency, per-purchase and daily limits, in integer minor units.
func checkAmount(c *checkContext) verdict {
	amount := c.req("amount")
	if isUndefined(amount) {
		if c.moneyMoving() {
			return fail("amount_above_agent_threshold", "amount required for "+quote(c.req("action")))
		}
		return verdict{outcome: "skip", detail: "no amount"}
	}
	if !isMinorMoney(amount) {
		currency := get(amount, "currency")
		if s, ok := currency.(string); !ok || !currencyCodePattern.MatchString(s) {
			return fail("currency_mismatch", "currency "+quote(currency)+" is not a currency code")
		}
		return fail("amount_above_agent_threshold", "amount is not a safe integer of minor units")
	}
	minor, currency := minorOf(amount), currencyOf(amount)
	if minor == 0 {
		return fail("amount_above_agent_threshold", "amount must be greater than zero")
	}
	for i, s := range c.scopes {
		for _, field := range moneyScopeFields {
			if limit, ok := s[field]; ok && currencyOf(limit) != currency {
				return fail("currency_mismatch", fmt.Sprintf("request in %s, grant %s %s in %s",
					quote(currency), c.idOf(i), field, quote(currencyOf(limit))))
			}
		}
		if budget, ok := s["budget"]; ok && currencyOf(budget) != currency {
			return fail("currency_mismatch", fmt.Sprintf("request in %s, grant %s budget in %s",
				quote(currency), c.idOf(i), quote(currencyOf(budget))))
		}
	}
	for i, s := range c.scopes {
		if limit, ok := s["max_amount_per_purchase"]; ok && minor > minorOf(limit) {
			return fail("amount_above_agent_threshold", "over grant "+c.idOf(i)+" max_amount_per_purchase")
		}
	}
	if c.action != "execute" {
		return pass("within max_amount_per_purchase")
	}
	for i, s := range c.scopes {
		limit, ok := s["max_daily_amount"]
		if !ok {
			continue
		}
		var spent any = undefined
		if i < len(c.grants) {
			spent = get(c.grants[i], "spent_today")
		}
		if !isMinorMoney(spent) || (currencyOf(spent) != currencyOf(limit) && minorOf(spent) != 0) {
			return fail("daily_limit_exceeded", "grant "+c.idOf(i)+" spent_today is malformed")
		}
		total := minorOf(spent) + minor
		if !isSafeInteger(total) || total > minorOf(limit) || math.IsInf(total, 0) {
			return fail("daily_limit_exceeded", "over grant "+c.idOf(i)+" max_daily_amount")
		}
	}
	// aar-decide/1.4.0: each link's own budget against that link's spend in the budget's current period
	budgeted := false
	for i, s := range c.scopes {
		budget, ok := s["budget"]
		if !ok {
			continue
		}
		budgeted = true
		var spent any = undefined
		if i < len(c.grants) {
			spent = get(c.grants[i], "budget_spent")
		}
		if !isMinorMoney(spent) || (currencyOf(spent) != currencyOf(budget) && minorOf(spent) != 0) {
			return fail("budget_exceeded", "grant "+c.idOf(i)+" budget_spent is missing or malformed")
		}
		total := minorOf(spent) + minor
		if !isSafeInteger(total) || total > minorOf(budget) || math.IsInf(total, 0) {
			period, _ := get(budget, "period").(string)
			return fail("budget_exceeded", "over grant "+c.idOf(i)+" budget ("+period+")")
		}
	}
	if budgeted {
		return pass("within max_amount_per_purchase, max_daily_amount and budget")
	}
	return pass("within max_amount_per_purchase and max_daily_amount")
}

// Step 7: risk on actor, principal, card token; missing or unknown counts as blocked.
func checkRisk(c *checkContext) verdict {
	risk := c.snap("risk")
	subjects := []string{"actor", "principal", "instrument"}
	state := func(who string) string {
		v := get(risk, who)
		if strictEqual(v, "normal") || strictEqual(v, "elevated") {
			return v.(string)
		}
		return "blocked"
	}
	var blocked, elevated []string
	for _, who := range subjects {
		switch state(who) {
		case "blocked":
			blocked = append(blocked, who)
		case "elevated":
			elevated = append(elevated, who)
		}
	}
	if len(blocked) > 0 {
		return fail("risk_state_blocked", "risk blocked: "+strings.Join(blocked, ", "))
	}
	if len(elevated) == 0 {
		return pass("risk normal")
	}
	if isUndefined(c.req("policy_decision_id")) {
		return fail("risk_state_elevated", "risk elevated: "+strings.Join(elevated, ", "))
	}
	return pass("risk elevated: " + strings.Join(elevated, ", ") + "; the named approval decides")
}

// Step 8: the principal's approval.
func checkApproval(c *checkContext) verdict {
	pdid := c.req("policy_decision_id")
	if isUndefined(pdid) {
		if over := c.findThresholdExceeded(); over != "" {
			return fail("amount_above_approval_threshold", over)
		}
		return pass("no approval required")
	}
	approval := c.snap("approval")
	if !isRecord(approval) || !strictEqual(get(approval, "policy_decision_id"), pdid) {
		return fail("approval_mismatch", "no approval for decision "+quote(pdid))
	}
	id := quote(get(approval, "approval_id"))
	if differs := c.findBindingDifferences(get(approval, "bound")); len(differs) > 0 {
		return fail("approval_mismatch", "retry differs from approval "+id+": "+strings.Join(differs, ", "))
	}
	status := get(approval, "status")
	if strictEqual(status, "rejected") {
		return fail("approval_rejected", "approval "+id+" rejected")
	}
	expiresAt, ok := parseInstant(get(approval, "expires_at"))
	if strictEqual(status, "expired") || !ok || c.now == nil || compareInstants(expiresAt, *c.now) <= 0 {
		return fail("approval_expired", "approval "+id+" expired")
	}
	if strictEqual(status, "consumed") {
		return fail("approval_expired", "approval "+id+" already used")
	}
	if strictEqual(status, "pending") {
		return fail("approval_pending", "approval "+id+" pending")
	}
	if !strictEqual(status, "approved") {
		return fail("approval_rejected", "approval "+id+" status "+quote(status))
	}
	return verdict{outcome: "pass", reason: "approved_by_principal", detail: "approval " + id}
}

func (c *checkContext) findThresholdExceeded() string {
	amount := c.req("amount")
	if !isRecord(amount) || c.action == "" || !includesString(moneyMovingActions, c.action) {
		return ""
	}
	for i, s := range c.scopes {
		if t, ok := s["requires_approval_above"]; ok && minorOf(amount) > minorOf(t) {
			return "over grant " + c.idOf(i) + " requires_approval_above"
		}
	}
	return ""
}

func (c *checkContext) findBindingDifferences(bound any) []string {
	if !isRecord(bound) {
		return []string{"bound"}
	}
	var differs []string
	if !sameEntity(c.req("actor_entity_id"), get(bound, "actor_entity_id")) {
		differs = append(differs, "actor_entity_id")
	}
	if !sameEntity(c.req("principal_entity_id"), get(bound, "principal_entity_id")) {
		differs = append(differs, "principal_entity_id")
	}
	if !strictEqual(c.req("subject"), get(bound, "subject")) {
		differs = append(differs, "subject")
	}
	if !strictEqual(c.req("merchant_id"), get(bound, "merchant_id")) {
		differs = append(differs, "merchant_id")
	}
	if a, b := c.req("amount"), get(bound, "amount"); !sameOptional(a, b, sameMoney) {
		differs = append(differs, "amount")
	}
	if a, b := c.req("instrument_id"), get(bound, "instrument_id"); !sameOptional(a, b, sameInstrument) {
		differs = append(differs, "instrument_id")
	}
	var hash any = undefined
	if c.basket.hash != "" {
		hash = c.basket.hash
	}
	if !strictEqual(hash, get(bound, "basket_hash")) {
		differs = append(differs, "basket_hash")
	}
	return differs
}

func sameOptional(a, b any, same func(a, b any) bool) bool {
	if isUndefined(a) {
		return isUndefined(b)
	}
	return same(a, b)
}

func sameMoney(a, b any) bool {
	return isRecord(a) && isRecord(b) && strictEqual(get(a, "minor"), get(b, "minor")) &&
		strictEqual(get(a, "currency"), get(b, "currency"))
}
