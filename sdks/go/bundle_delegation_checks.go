// The two delegation checks of a bundle (core's bundles/delegation-checks.ts), from one run of VerifyDelegationChain
// at decision time, its problems split by kind: signatures and shape (delegation_chain_signatures), the
// child ⊆ parent rules and order (delegation_attenuation). Expiry, revocation and retired keys are
// temporal_validity's. Both also bind the chain to the decision: it must be the chain the decision read, and the
// scope snapshot must state the same links' own scopes and their intersection.

package aar

import (
	"context"
	"fmt"
)

var bundleSignatureProblems = map[string]bool{
	"malformed_chain": true, "too_many_links": true, "document_signature_invalid": true, "leaf_mismatch": true,
	"malformed_link": true, "link_signature_invalid": true, "delegator_signature_invalid": true,
	"delegator_key_mismatch": true, "statement_mismatch": true,
}

var bundleAttenuationProblems = map[string]bool{
	"not_a_root": true, "wrong_parent": true, "repeated_link": true, "wrong_depth": true,
	"issued_before_parent": true, "entity_cycle": true, "principal_mismatch": true, "instrument_mismatch": true,
	"capability_wider": true, "scope_wider": true, "not_delegable": true, "too_deep": true,
	"delegator_mismatch": true,
}

// isRetiredKeyProblem: a link signed by a key retired before the link was issued is a question of time, not bytes.
func isRetiredKeyProblem(p ChainProblem) bool {
	return p.Code == "link_signature_invalid" && p.Field != nil && *p.Field == "/signature/key_id"
}

func chainLinkIDs(chain any) []any {
	links, _ := get(chain, "links").([]any)
	out := make([]any, 0, len(links))
	for _, l := range links {
		id := get(l, "grant_id")
		if isUndefined(id) {
			id = nil
		}
		out = append(out, id)
	}
	return out
}

func checkDelegationChainSignatures(_ context.Context, b *bundleContext, _ VerifyBundleOptions) bundleOutcome {
	doc := b.part("delegation_chain")
	if !b.decidingOK {
		return bundleFail("the evidence pack does not say which grant chain decided")
	}
	if len(b.decidingChain) == 0 {
		if doc == nil {
			return bundlePass("the decision read no grant: no chain")
		}
		return bundleFail("the decision read no grant, yet the bundle carries a chain")
	}
	if !isRecord(doc) || b.chain == nil {
		return bundleFail("the bundle has no delegation chain")
	}
	var problems []ChainProblem
	for _, p := range b.chain.Problems {
		if bundleSignatureProblems[p.Code] && !isRetiredKeyProblem(p) {
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		return bundleFail("the chain does not verify: " + describeProblems(problems))
	}
	if !b.chain.DocumentSigned {
		return bundleFail("the chain carries no service signature over its states")
	}
	if !sameJSON(chainLinkIDs(doc), b.decidingChain) {
		return bundleFail("the chain is not the one the decision read")
	}
	delegated := 0
	for _, l := range b.chain.Links {
		if l.DelegatorSigned {
			delegated++
		}
	}
	return bundlePass(fmt.Sprintf("%d link(s) signed; %d delegator statement(s) verified", len(b.chain.Links), delegated))
}

func checkDelegationAttenuation(_ context.Context, b *bundleContext, _ VerifyBundleOptions) bundleOutcome {
	doc := b.part("delegation_chain")
	scope := b.part("scope_snapshot")
	if !b.decidingOK {
		return bundleFail("the evidence pack does not say which grant chain decided")
	}
	if len(b.decidingChain) == 0 {
		if get(scope, "effective_scope") == nil && sameJSON(get(scope, "links"), []any{}) {
			return bundlePass("no chain, an empty scope snapshot")
		}
		return bundleFail("the scope snapshot is not empty, yet the decision read no grant")
	}
	if !isRecord(doc) || b.chain == nil {
		return bundleFail("the bundle has no delegation chain")
	}
	var problems []ChainProblem
	for _, p := range b.chain.Problems {
		if bundleAttenuationProblems[p.Code] {
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		return bundleFail("a link is not within its parent: " + describeProblems(problems))
	}
	// the scope snapshot states the chain's links, each with the link's own signed scope, and their intersection
	links, ok := get(scope, "links").([]any)
	chainLinks, chainOK := get(doc, "links").([]any)
	if !ok || !chainOK || len(links) != len(chainLinks) {
		return bundleFail("the scope snapshot does not list the chain links")
	}
	for i, link := range links {
		id := get(link, "grant_id")
		if !strictEqual(id, get(chainLinks[i], "grant_id")) {
			return bundleFail(fmt.Sprintf("scope snapshot link %d is another grant", i))
		}
		if !sameJSON(get(link, "scope"), get(chainLinks[i], "scope")) {
			return bundleFail(fmt.Sprintf("scope snapshot link %d differs from the signed link's scope", i))
		}
	}
	effective, malformed := readWireScope(get(scope, "effective_scope"))
	if len(malformed) > 0 || b.chain.EffectiveScope == nil || !sameJSON(effective, b.chain.EffectiveScope) {
		return bundleFail("the scope snapshot's effective scope is not the intersection of the chain's links")
	}
	return bundlePass("every link within its parent; the effective scope is the links' intersection")
}
