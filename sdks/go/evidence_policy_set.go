// The `policy_set` check of an evidence pack (aar-decide/1.3.0): a decision made under rule packs carries each
// pack's signed document in `snapshot.policy_set`, and replay trusts those rules only once each document verifies
// against the trusted keys and is the one the signed decision map names (its `policy` node's `packs`, same order,
// same pack id, version, digest and mode). Attacker assumption: the pack's author edited a rule, swapped a pack for
// another signed one, dropped or reordered packs, or changed a mode; each is refused with its own failure code.

package aar

import "context"

func checkPolicySet(ctx context.Context, policySet, decisionMap any, keys KeySource) string {
	packs, ok := get(policySet, "packs").([]any)
	if !ok {
		return "malformed_pack"
	}
	var node any = undefined
	if nodes, ok := get(decisionMap, "nodes").([]any); ok {
		for _, n := range nodes {
			if strictEqual(get(n, "type"), "policy") {
				node = n
				break
			}
		}
	}
	named, ok := get(node, "packs").([]any)
	if !ok {
		return "malformed_pack"
	}
	if len(packs) != len(named) {
		return "policy_set_mismatch"
	}
	for i, entry := range packs {
		doc, ref := get(entry, "document"), named[i]
		if !isRecord(doc) || !isRecord(ref) {
			return "malformed_pack"
		}
		if sig := VerifyDocument(ctx, doc, keys); !sig.Valid {
			return "rule_pack_" + sigFailure(sig)
		}
		digest, err := PolicyDocumentDigest(doc)
		if err != nil || !strictEqual(get(ref, "digest"), digest) ||
			!strictEqual(get(ref, "pack_id"), get(doc, "pack_id")) ||
			!strictEqual(get(ref, "version"), get(doc, "version")) ||
			!strictEqual(get(ref, "mode"), get(entry, "mode")) {
			return "policy_set_mismatch"
		}
	}
	return ""
}
