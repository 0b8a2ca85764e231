// What the ten bundle checks read, taken out of the bundle once (core's bundles/bundle-context.ts). Attacker
// assumption: the bundle is arbitrary JSON (parts missing, swapped, of another decision). A member that is not what
// it should be reads as undefined and the checks that need it fail naming it. The decision's facts come from the
// evidence pack (its signature and audit entry bind them to the write-once chain); the other parts are checked
// against them.

package aar

import "context"

type bundleContext struct {
	bundle any
	keys   KeySource
	// pack is the evidence pack when it is an object, else nil
	pack map[string]any
	// decidedAt is the pack's `now`: the instant the decision was made ("" when absent)
	decidedAt string
	// decidingChain holds the grant ids of the chain that decided, root first; empty when the decision read no
	// grant; decidingOK false when the pack does not say
	decidingChain []string
	decidingOK    bool
	// chain is VerifyDelegationChain at decision time, when the bundle carries a chain
	chain *DelegationChainVerification
}

func (b *bundleContext) part(name string) any { return get(b.bundle, name) }

func readBundleContext(ctx context.Context, bundle any, keys KeySource) *bundleContext {
	value, err := documentValue(bundle)
	if err != nil {
		value = undefined
	}
	b := &bundleContext{bundle: value, keys: keys}
	b.pack, _ = get(value, "evidence_pack").(map[string]any)
	b.decidedAt, _ = get(b.pack, "now").(string)
	if doc := get(value, "delegation_chain"); isRecord(doc) && b.decidedAt != "" {
		chain := VerifyDelegationChain(ctx, doc, keys, b.decidedAt)
		b.chain = &chain
	}
	b.decidingChain, b.decidingOK = decidingChainOf(b.pack)
	return b
}

// decidingChainOf reads the grant ids (root first) of the chain that decided: the one among the snapshot's `grants`
// and `alternatives` whose leaf the decision names (`diagnostics.grant_id`); empty when no grant was read.
func decidingChainOf(pack map[string]any) ([]string, bool) {
	snapshot := get(pack, "snapshot")
	grants, ok := get(snapshot, "grants").([]any)
	if !ok {
		return nil, false
	}
	chains := [][]any{grants}
	if alternatives, ok := get(snapshot, "alternatives").([]any); ok {
		for _, a := range alternatives {
			list, _ := a.([]any)
			chains = append(chains, list)
		}
	}
	ids := func(chain []any) ([]string, bool) {
		out := make([]string, 0, len(chain))
		all := true
		for _, g := range chain {
			id, ok := get(g, "grant_id").(string)
			all = all && ok
			out = append(out, id)
		}
		return out, all
	}
	leaf := get(get(get(pack, "decision"), "diagnostics"), "grant_id")
	if isUndefined(leaf) {
		if len(grants) == 0 {
			return []string{}, true
		}
		return ids(grants)
	}
	for _, chain := range chains {
		if len(chain) > 0 && strictEqual(get(chain[len(chain)-1], "grant_id"), leaf) {
			return ids(chain)
		}
	}
	return nil, false
}

// sameJSON is equality of two JSON values by their RFC 8785 bytes; an absent value equals nothing.
func sameJSON(a, b any) bool {
	left, ok := canonicalOrEmpty(a)
	if !ok {
		return false
	}
	right, ok := canonicalOrEmpty(b)
	return ok && left == right
}

func canonicalOrEmpty(v any) (string, bool) {
	if isUndefined(v) {
		return "", false
	}
	value, err := ToJSONValue(v)
	if err != nil {
		return "", false
	}
	out, err := Canonicalize(value)
	if err != nil {
		return "", false
	}
	return string(out), true
}
