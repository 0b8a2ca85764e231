// Offline verification of a delegation chain (`ns.delegation_chain.v1`, CONTRACT section 5), a port of core's
// delegation/verify-delegation-chain.ts: per link, root first, the service signature (trusted keys only; the chain's
// own `keys.service` is informative), shape, order, attenuation (child ⊆ parent, field by field), delegation limits,
// entity cycles, the delegator's statement and signature when present, and expiry at `now`; with a valid document
// signature, the link states it attests. Attacker assumption: the chain is hostile JSON (reordered, cut, spliced,
// widened, 10,000 links long); nothing panics, every problem names the link and the field.

package aar

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
)

// MaxChainLinks: longer chains are refused before any signature is checked.
const MaxChainLinks = 64

// ChainProblem is one problem, with the link's index and grant id (nil for the document) and a JSON pointer.
type ChainProblem struct {
	Code    string  `json:"code"`
	Index   *int    `json:"index"`
	GrantID *string `json:"grant_id"`
	Field   *string `json:"field"`
	Message string  `json:"message"`
}

// ChainLinkReport says what was found of one link.
type ChainLinkReport struct {
	Index           int     `json:"index"`
	GrantID         *string `json:"grant_id"`
	ActorEntityID   *string `json:"actor_entity_id"`
	DelegatorSigned bool    `json:"delegator_signed"`
	State           *string `json:"state"`
	// RevokedAt is when the link was revoked, as the signed document attests (`states[i].revoked_at`); nil otherwise.
	RevokedAt *string `json:"revoked_at"`
}

// DelegationChainVerification is the result: Valid when no problem was found.
type DelegationChainVerification struct {
	Valid          bool              `json:"valid"`
	Links          []ChainLinkReport `json:"links"`
	Problems       []ChainProblem    `json:"problems"`
	DocumentSigned bool              `json:"document_signed"`
	// EffectiveScope is the intersection of every link's scope (minor units), when every scope was read.
	EffectiveScope map[string]any `json:"effective_scope,omitempty"`
}

type readLink struct {
	grantID  *string
	link     any
	scope    map[string]any
	termsOK  bool
	issuedAt *instant
}

func strPtr(s string) *string { return &s }

// VerifyDelegationChain verifies chain (a generic JSON value, raw JSON or a marshalable value) against the trusted
// keys at time now (ISO 8601); an empty now is the system clock (now optional, as in the TypeScript and Python SDKs).
func VerifyDelegationChain(ctx context.Context, chain any, keys KeySource, now string) DelegationChainVerification {
	if now == "" {
		now = clockNowISO()
	}
	out := DelegationChainVerification{Links: []ChainLinkReport{}, Problems: []ChainProblem{}}
	add := func(code string, index *int, grantID *string, field *string, msg string) {
		out.Problems = append(out.Problems, ChainProblem{Code: code, Index: index, GrantID: grantID, Field: field, Message: msg})
	}
	finish := func() DelegationChainVerification { out.Valid = len(out.Problems) == 0; return out }
	value, err := documentValue(chain)
	if err != nil || !strictEqual(get(value, "schema_version"), "ns.delegation_chain.v1") {
		add("malformed_chain", nil, nil, strPtr("/schema_version"), "is not `ns.delegation_chain.v1`")
		return finish()
	}
	links, ok := get(value, "links").([]any)
	if !ok || len(links) == 0 {
		add("malformed_chain", nil, nil, strPtr("/links"), "must be a non-empty array")
		return finish()
	}
	if len(links) > MaxChainLinks {
		add("too_many_links", nil, nil, strPtr("/links"), fmt.Sprintf("has %d links, at most %d", len(links), MaxChainLinks))
		return finish()
	}
	at, nowOK := parseInstant(now)
	if !nowOK {
		add("malformed_chain", nil, nil, nil, "`now` is not an iso 8601 timestamp")
	}
	hasSig := !isUndefined(get(value, "signature"))
	out.DocumentSigned = hasSig && VerifyDocument(ctx, value, keys).Valid
	if hasSig && !out.DocumentSigned {
		add("document_signature_invalid", nil, nil, strPtr("/signature"), "does not verify")
	}
	var states any = undefined
	if out.DocumentSigned {
		states = get(value, "states")
	}
	listedDelegators := get(get(value, "keys"), "delegators")

	read := make([]readLink, 0, len(links))
	seen := map[string]bool{}
	for index, link := range links {
		i := index
		current := readChainLink(link)
		read = append(read, current)
		addL := func(code, field, msg string) {
			var f *string
			if field != "-" {
				f = strPtr(field)
			}
			add(code, &i, current.grantID, f, msg)
		}
		report := ChainLinkReport{Index: i, GrantID: current.grantID}
		if s, ok := get(link, "actor_entity_id").(string); ok {
			report.ActorEntityID = strPtr(s)
		}
		if !isRecord(link) {
			addL("malformed_link", "", "is not an object")
			out.Links = append(out.Links, report)
			continue
		}
		sig := VerifyDocument(ctx, link, keys)
		if !sig.Valid {
			addL("link_signature_invalid", "/signature", "does not verify ("+sig.Failure+")")
		} else if retired := retiredBefore(ctx, keys, sig.KeyID, current.issuedAt); retired != "" {
			addL("link_signature_invalid", "/signature/key_id", "the key was retired at `"+retired+"`")
		}
		for _, f := range malformedLinkFields(link) {
			addL("malformed_link", f, "is missing or malformed")
		}
		if current.grantID != nil {
			if seen[*current.grantID] {
				addL("repeated_link", "/grant_id", "the grant appears twice in the chain")
			}
			seen[*current.grantID] = true
		}
		if d, ok := get(link, "depth").(float64); !ok || d != float64(i) {
			addL("wrong_depth", "/depth", fmt.Sprintf("is not the link's position %d", i))
		}
		if i == 0 {
			if get(link, "parent_grant_id") != nil {
				addL("not_a_root", "/parent_grant_id", "the first link must be a root grant")
			}
			if !isUndefined(get(link, "delegator_entity_id")) || !isUndefined(get(link, "delegation")) {
				addL("malformed_link", "/delegation", "a root grant has no delegator")
			}
		} else {
			parent := read[i-1]
			checkAgainstParent(link, current, parent, read[:i], addL)
			if d := get(link, "delegator_entity_id"); !isUndefined(d) && !sameEntity(d, get(parent.link, "actor_entity_id")) {
				addL("delegator_mismatch", "/delegator_entity_id", "is not the parent's actor")
			}
			if delegation := get(link, "delegation"); !isUndefined(delegation) {
				found := verifyLinkDelegation(ctx, delegation, link, parent.link, listedDelegators)
				for _, p := range found {
					addL(p.code, p.field, p.message)
				}
				report.DelegatorSigned = len(found) == 0
			}
		}
		if cycle := findEntityCycle(read); cycle != "" {
			addL("entity_cycle", "/actor_entity_id", "`"+cycle+"` already holds authority in this chain")
		}
		if vu, ok := current.scope["valid_until"]; ok && current.termsOK && nowOK {
			if until, ok := parseInstant(vu); ok && compareInstants(until, at) <= 0 {
				addL("expired", "/scope/valid_until", "expired at `"+vu.(string)+"`")
			}
		}
		if out.DocumentSigned {
			var state any = undefined
			if list, ok := states.([]any); ok && i < len(list) {
				state = list[i]
			}
			st, stOK := get(state, "state").(string)
			gid, gidOK := get(state, "grant_id").(string)
			if !isRecord(state) || !stOK || !gidOK || current.grantID == nil || gid != *current.grantID {
				add("malformed_chain", nil, nil, strPtr(fmt.Sprintf("/states/%d", i)), "does not give the state of this link")
			} else {
				report.State = strPtr(st)
				if at, ok := get(state, "revoked_at").(string); ok {
					report.RevokedAt = strPtr(at)
				}
				if st != "active" {
					addL("revoked", "-", "was `"+st+"` at `"+jsString(get(value, "as_of"))+"`")
				}
			}
		}
		out.Links = append(out.Links, report)
	}
	checkChainEnds(value, read, add)
	all := true
	scopes := make([]map[string]any, len(read))
	for i, r := range read {
		if r.scope == nil || !r.termsOK {
			all = false
		}
		scopes[i] = r.scope
	}
	if all {
		out.EffectiveScope = computeEffectiveScope(scopes)
	}
	return finish()
}

func readChainLink(link any) readLink {
	r := readLink{link: link}
	if s, ok := get(link, "grant_id").(string); ok && s != "" {
		r.grantID = strPtr(s)
	}
	scope, malformed := readWireScope(get(link, "scope"))
	_, p := parseEntityID(get(link, "principal_entity_id"))
	_, a := parseEntityID(get(link, "actor_entity_id"))
	_, res := parseCardTokenRef(get(link, "resource_id"))
	_, capOK := get(link, "capability_id").(string)
	r.termsOK = p && a && res && capOK && len(malformed) == 0
	if r.termsOK {
		r.scope = scope
	}
	if at, ok := parseInstant(get(link, "issued_at")); ok {
		r.issuedAt = &at
	}
	return r
}

var wireScopeKnown = []string{
	"max_amount_per_purchase", "max_daily_amount", "requires_approval_above", "allowed_merchant_categories",
	"blocked_merchant_categories", "allowed_jurisdictions", "valid_until", "allowed_actions", "may_delegate",
	"max_delegation_depth", "budget", "allowed_merchants",
}

// readWireScope reads a link's scope (major units, `purchase.` actions) into decide's form; unknown members are
// malformed (a restriction this verifier does not understand must not pass as absent).
func readWireScope(v any) (map[string]any, []string) {
	m, ok := v.(map[string]any)
	if !ok {
		return map[string]any{}, []string{"scope"}
	}
	scope := map[string]any{}
	var malformed []string
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !includesString(wireScopeKnown, k) {
			malformed = append(malformed, k)
		}
	}
	for _, k := range moneyScopeFields {
		money, present := m[k]
		if !present {
			continue
		}
		mm, isObj := money.(map[string]any)
		okMembers := isObj
		for mk := range mm {
			if mk != "amount" && mk != "currency" {
				okMembers = false
			}
		}
		minor, cur, ok := parseWireAmount(get(mm, "amount"), get(mm, "currency"))
		if !okMembers || !ok {
			malformed = append(malformed, k)
			continue
		}
		scope[k] = map[string]any{"minor": minor, "currency": cur}
	}
	// aar-decide/1.4.0: `{ amount, currency, period }`, money like the limits above plus its period
	if budget, present := m["budget"]; present {
		bm, isObj := budget.(map[string]any)
		okMembers := isObj
		for bk := range bm {
			if bk != "amount" && bk != "currency" && bk != "period" {
				okMembers = false
			}
		}
		period, okPeriod := get(bm, "period").(string)
		minor, cur, ok := parseWireAmount(get(bm, "amount"), get(bm, "currency"))
		if okMembers && okPeriod && includesString(BudgetPeriods, period) && ok {
			scope["budget"] = map[string]any{"minor": minor, "currency": cur, "period": period}
		} else {
			malformed = append(malformed, "budget")
		}
	}
	for _, k := range []string{"allowed_merchant_categories", "blocked_merchant_categories", "allowed_jurisdictions", "allowed_merchants"} {
		if list, present := m[k]; present {
			if isStringArray(list) {
				scope[k] = toAnyList(stringsOf(list))
			} else {
				malformed = append(malformed, k)
			}
		}
	}
	if actions, present := m["allowed_actions"]; present {
		okList := isStringArray(actions)
		var bare []any
		for _, a := range stringsOf(actions) {
			b := ""
			if strings.HasPrefix(a, "purchase.") {
				b = strings.TrimPrefix(a, "purchase.")
			}
			if !isPurchaseAction(b) {
				okList = false
			}
			bare = append(bare, b)
		}
		if okList {
			if bare == nil {
				bare = []any{}
			}
			scope["allowed_actions"] = bare
		} else {
			malformed = append(malformed, "allowed_actions")
		}
	}
	if vu, present := m["valid_until"]; present {
		if _, ok := parseInstant(vu); ok {
			scope["valid_until"] = vu
		} else {
			malformed = append(malformed, "valid_until")
		}
	}
	if md, present := m["may_delegate"]; present {
		if _, ok := md.(bool); ok {
			scope["may_delegate"] = md
		} else {
			malformed = append(malformed, "may_delegate")
		}
	}
	if d, present := m["max_delegation_depth"]; present {
		if isNonNegativeSafeInteger(d) {
			scope["max_delegation_depth"] = d
		} else {
			malformed = append(malformed, "max_delegation_depth")
		}
	}
	return scope, malformed
}

func malformedLinkFields(link any) []string {
	var out []string
	if !strictEqual(get(link, "schema_version"), "ns.authority_grant.v1") {
		out = append(out, "/schema_version")
	}
	if g, ok := get(link, "grant_id").(string); !ok || !strings.HasPrefix(g, "ns:authority:grant:") {
		out = append(out, "/grant_id")
	}
	if p := get(link, "parent_grant_id"); p != nil && !isNonEmptyString(p) {
		out = append(out, "/parent_grant_id")
	}
	if _, ok := parseEntityID(get(link, "principal_entity_id")); !ok {
		out = append(out, "/principal_entity_id")
	}
	if _, ok := parseEntityID(get(link, "actor_entity_id")); !ok {
		out = append(out, "/actor_entity_id")
	}
	if len(actionsCoveredBy(get(link, "capability_id"))) == 0 {
		out = append(out, "/capability_id")
	}
	if _, ok := parseCardTokenRef(get(link, "resource_id")); !ok {
		out = append(out, "/resource_id")
	}
	if !isNonNegativeSafeInteger(get(link, "depth")) {
		out = append(out, "/depth")
	}
	if _, ok := parseInstant(get(link, "issued_at")); !ok {
		out = append(out, "/issued_at")
	}
	_, malformed := readWireScope(get(link, "scope"))
	for _, name := range malformed {
		if name == "scope" {
			out = append(out, "/scope")
		} else {
			out = append(out, "/scope/"+name)
		}
	}
	return out
}

func checkAgainstParent(link any, current, parent readLink, ancestors []readLink, add func(code, field, msg string)) {
	if !strictEqual(get(link, "parent_grant_id"), ptrValue(parent.grantID)) {
		add("wrong_parent", "/parent_grant_id", "is not the link before it (`"+jsString(ptrValue(parent.grantID))+"`)")
	}
	if current.issuedAt != nil && parent.issuedAt != nil && compareInstants(*current.issuedAt, *parent.issuedAt) < 0 {
		add("issued_before_parent", "/issued_at", "is earlier than the parent link")
	}
	if !current.termsOK {
		return
	}
	scopes := make([]map[string]any, len(ancestors))
	for i, a := range ancestors {
		if !a.termsOK {
			return // malformed links are reported already
		}
		scopes[i] = a.scope
	}
	effective := map[string]any{}
	for _, s := range scopes {
		effective = inheritScope(effective, s)
	}
	if effective["may_delegate"] != true {
		add("not_delegable", "/parent_grant_id", "the parent may not be delegated")
	} else {
		for idx, s := range scopes {
			if limit, ok := s["max_delegation_depth"].(float64); ok && float64(len(scopes)-idx) > limit {
				add("too_deep", "/depth", fmt.Sprintf("link %d allows %s level(s) of delegation below it", idx, esNumber(limit)))
				break
			}
		}
	}
	p := parent.link
	if !sameEntity(get(link, "principal_entity_id"), get(p, "principal_entity_id")) {
		add("principal_mismatch", "/principal_entity_id", "must be the parent's principal")
	}
	if !sameInstrument(get(link, "resource_id"), get(p, "resource_id")) {
		add("instrument_mismatch", "/resource_id", "must be the parent's card token")
	}
	parentActions := actionsCoveredBy(get(p, "capability_id"))
	childActions := actionsCoveredBy(get(link, "capability_id"))
	wider := len(childActions) == 0
	for _, a := range childActions {
		if !includesString(parentActions, a) {
			wider = true
		}
	}
	if wider {
		add("capability_wider", "/capability_id", "must be the parent's capability or one of its sub-capabilities")
	}
	for _, v := range findScopeViolations(current.scope, effective, computeEffectiveScope(scopes)) {
		add("scope_wider", v, "is wider than the parent's")
	}
}

func ptrValue(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// findScopeViolations names every scope field of own wider than the parent's effective scope.
func findScopeViolations(own, parent, intersection map[string]any) []string {
	var out []string
	currency := ""
	for _, k := range moneyScopeFields {
		if v, ok := parent[k]; ok {
			currency = currencyOf(v)
			break
		}
	}
	if pb, ok := parent["budget"]; ok && currency == "" {
		currency = currencyOf(pb)
	}
	for _, k := range moneyScopeFields {
		c, ok := own[k]
		if !ok {
			continue
		}
		p, pok := parent[k]
		if currency != "" && currencyOf(c) != currency {
			out = append(out, "/scope/"+k+"/currency")
		} else if pok && minorOf(c) > minorOf(p) {
			out = append(out, "/scope/"+k)
		}
	}
	if c, ok := own["budget"]; ok {
		p, pok := parent["budget"]
		if currency != "" && currencyOf(c) != currency {
			out = append(out, "/scope/budget/currency")
		} else if pok && minorOf(c) > minorOf(p) {
			out = append(out, "/scope/budget")
		}
	}
	if cv, ok := own["valid_until"]; ok {
		if pv, ok := parent["valid_until"]; ok {
			c, ok1 := parseInstant(cv)
			p, ok2 := parseInstant(pv)
			if ok1 && ok2 && compareInstants(c, p) > 0 {
				out = append(out, "/scope/valid_until")
			}
		}
	}
	for _, k := range allowedListFields {
		c, okc := own[k]
		p, okp := parent[k]
		if okc && okp {
			pl := stringsOf(p)
			for _, item := range stringsOf(c) {
				if !includesString(pl, item) {
					out = append(out, "/scope/"+k)
					break
				}
			}
		}
	}
	if cb, ok := own["blocked_merchant_categories"]; ok {
		if pb, ok := parent["blocked_merchant_categories"]; ok {
			cl := stringsOf(cb)
			for _, item := range stringsOf(pb) {
				if !includesString(cl, item) {
					out = append(out, "/scope/blocked_merchant_categories")
					break
				}
			}
		}
	}
	if own["may_delegate"] == true && parent["may_delegate"] == false {
		out = append(out, "/scope/may_delegate")
	}
	remaining, rok := intersection["max_delegation_depth"].(float64)
	depth, dok := own["max_delegation_depth"].(float64)
	if rok && dok && depth > math.Max(0, remaining-1) {
		out = append(out, "/scope/max_delegation_depth")
	}
	return out
}

func findEntityCycle(links []readLink) string {
	if len(links) == 0 {
		return ""
	}
	actor := get(links[len(links)-1].link, "actor_entity_id")
	earlier := []any{get(links[0].link, "principal_entity_id")}
	for _, l := range links[:len(links)-1] {
		earlier = append(earlier, get(l.link, "actor_entity_id"))
	}
	for _, e := range earlier {
		if sameEntity(e, actor) {
			return jsString(actor)
		}
	}
	return ""
}

func checkChainEnds(chain any, read []readLink, add func(string, *int, *string, *string, string)) {
	var root, leaf any = undefined, undefined
	if len(read) > 0 {
		root, leaf = ptrValue(read[0].grantID), ptrValue(read[len(read)-1].grantID)
	}
	expect := func(field string, want any) {
		got := get(chain, field)
		if !isUndefined(got) && !strictEqual(got, want) {
			add("leaf_mismatch", nil, nil, strPtr("/"+field), "does not name the chain's end")
		}
	}
	expect("root_grant_id", root)
	expect("leaf_grant_id", leaf)
	var delegationID any = undefined
	if s, ok := leaf.(string); ok && strings.HasPrefix(s, "ns:authority:grant:") {
		delegationID = "ns:delegation:" + strings.TrimPrefix(s, "ns:authority:grant:")
	}
	expect("delegation_id", delegationID)
}

func retiredBefore(ctx context.Context, keys KeySource, keyID string, issuedAt *instant) string {
	if keys == nil || keyID == "" || issuedAt == nil {
		return ""
	}
	// an unknown or ambiguous key has already failed the link's signature check
	k, err := keys.LookupKey(ctx, keyID)
	if err != nil {
		return ""
	}
	if until, ok := parseInstant(k.ValidUntil); ok && compareInstants(*issuedAt, until) > 0 {
		return k.ValidUntil
	}
	return ""
}

type linkProblem struct{ code, field, message string }

type singleKey struct {
	kid string
	jwk JWK
}

func (s singleKey) LookupKey(_ context.Context, id string) (JWK, error) {
	if id == s.kid {
		return s.jwk, nil
	}
	return JWK{}, ErrUnknownKey
}

// verifyLinkDelegation checks the delegator's statement with the key the link carries under the service signature.
func verifyLinkDelegation(ctx context.Context, delegation, link, parent, listed any) []linkProblem {
	if !isRecord(delegation) {
		return []linkProblem{{"delegator_signature_invalid", "/delegation", "is not an object"}}
	}
	var key JWK
	raw, err := Canonicalize(get(delegation, "delegator_key"))
	if err == nil {
		err = jsonUnmarshalStrict(raw, &key)
	}
	if _, kerr := key.PublicKey(); err != nil || kerr != nil || hasPrivateMember(get(delegation, "delegator_key")) {
		return []linkProblem{{"delegator_signature_invalid", "/delegation/delegator_key", "is not an ed25519 public jwk"}}
	}
	if key.Kid == "" || !sameEntity(key.Kid, get(parent, "actor_entity_id")) {
		return []linkProblem{{"delegator_mismatch", "/delegation/delegator_key/kid", "is not the parent's actor"}}
	}
	var problems []linkProblem
	if tp, _ := key.Thumbprint(); !strictEqual(tp, get(delegation, "delegator_key_thumbprint")) {
		problems = append(problems, linkProblem{"delegator_key_mismatch", "/delegation/delegator_key_thumbprint", "is not the thumbprint of the key"})
	}
	if list, ok := listed.([]any); ok {
		for _, k := range list {
			if isRecord(k) && sameEntity(get(k, "kid"), key.Kid) && !strictEqual(get(k, "x"), key.X) {
				problems = append(problems, linkProblem{"delegator_key_mismatch", "/delegation/delegator_key", "differs from the key the chain lists for it"})
				break
			}
		}
	}
	statement := get(delegation, "statement")
	if v := VerifyDocument(ctx, statement, singleKey{key.Kid, key}); !v.Valid {
		problems = append(problems, linkProblem{"delegator_signature_invalid", "/delegation/statement/signature", "does not verify (" + v.Failure + ")"})
	}
	for _, ptr := range findStatementMismatches(statement, link, parent) {
		problems = append(problems, linkProblem{"statement_mismatch", "/delegation/statement" + ptr, "does not match the link"})
	}
	return problems
}

func hasPrivateMember(jwk any) bool { return !isUndefined(get(jwk, "d")) }

var delegationNoncePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{16,128}$`)

var statementRequestMembers = []string{"parent_grant_id", "principal_entity_id", "actor_entity_id", "capability_id", "resource_id", "scope"}

func findStatementMismatches(statement, link, parent any) []string {
	if !isRecord(statement) {
		return []string{""}
	}
	var out []string
	if !strictEqual(get(statement, "schema_version"), "ns.delegation_statement.v1") {
		out = append(out, "/schema_version")
	}
	delegator := get(statement, "delegator_entity_id")
	if !sameEntity(delegator, get(link, "delegator_entity_id")) || !sameEntity(delegator, get(parent, "actor_entity_id")) {
		out = append(out, "/delegator_entity_id")
	}
	created, ok1 := parseInstant(get(statement, "created"))
	issued, ok2 := parseInstant(get(link, "issued_at"))
	if !ok1 || !ok2 || math.Abs(float64(issued.seconds-created.seconds)) > 3600 {
		out = append(out, "/created")
	}
	if n, ok := get(statement, "nonce").(string); !ok || !delegationNoncePattern.MatchString(n) {
		out = append(out, "/nonce")
	}
	request, ok := get(statement, "request").(map[string]any)
	if !ok {
		return append(out, "/request")
	}
	keys := make([]string, 0, len(request))
	for k := range request {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !includesString(statementRequestMembers, k) {
			out = append(out, "/request/"+k)
		}
	}
	if !strictEqual(get(request, "parent_grant_id"), get(link, "parent_grant_id")) {
		out = append(out, "/request/parent_grant_id")
	}
	if !sameEntity(get(request, "actor_entity_id"), get(link, "actor_entity_id")) {
		out = append(out, "/request/actor_entity_id")
	}
	if p := get(request, "principal_entity_id"); !isUndefined(p) && !sameEntity(p, get(link, "principal_entity_id")) {
		out = append(out, "/request/principal_entity_id")
	}
	capability := get(request, "capability_id")
	if isUndefined(capability) || capability == nil {
		capability = get(parent, "capability_id")
	}
	if !strictEqual(capability, get(link, "capability_id")) {
		out = append(out, "/request/capability_id")
	}
	if r := get(request, "resource_id"); !isUndefined(r) && !sameInstrument(r, get(link, "resource_id")) {
		out = append(out, "/request/resource_id")
	}
	signedScope := get(request, "scope")
	if isUndefined(signedScope) || signedScope == nil {
		signedScope = map[string]any{}
	}
	return append(out, scopeMismatches(signedScope, get(link, "scope"))...)
}

func scopeMismatches(signed, linked any) []string {
	a, ma := readWireScope(signed)
	b, mb := readWireScope(linked)
	if len(ma) > 0 || len(mb) > 0 {
		return []string{"/request/scope"}
	}
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		x, okx := a[k]
		y, oky := b[k]
		same := false
		if k == "valid_until" {
			ix, ok1 := parseInstant(x)
			iy, ok2 := parseInstant(y)
			same = ok1 && ok2 && compareInstants(ix, iy) == 0
		} else if okx && oky {
			cx, e1 := Canonicalize(x)
			cy, e2 := Canonicalize(y)
			same = e1 == nil && e2 == nil && string(cx) == string(cy)
		}
		if !same {
			out = append(out, "/request/scope/"+k)
		}
	}
	sort.Strings(out)
	return out
}
