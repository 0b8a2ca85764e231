// The `policy_set` check of an evidence pack (aar-decide/1.3.0), a port of core's verify-policy-set.ts: replay re-runs
// decide on the rule packs the snapshot carries, so they must be the very documents the service published. Each pack
// document in `snapshot.policy_set` must verify against the trusted keys, and the decision map's `policy` node must
// list the same packs, in the same order and mode, with the digest of exactly that document.
// Attacker assumption: the pack's creator edited a rule in the snapshot (to make replay say what they like), swapped
// a pack for another signed one, dropped or reordered packs, or changed a mode; each is refused.

package aar

import "context"

// checkPolicySet answers ok=false when neither the snapshot nor the map holds a policy set (the check is then not
// recorded); otherwise "" or the failure: malformed_policy_set, policy_digest_mismatch, policy_signature_invalid.
func checkPolicySet(ctx context.Context, snapshot, decisionMap any, keys KeySource) (failure string, ok bool) {
	set := get(snapshot, "policy_set")
	var node any = undefined
	if nodes, isList := get(decisionMap, "nodes").([]any); isList {
		for _, n := range nodes {
			if isRecord(n) && strictEqual(get(n, "type"), "policy") {
				node = n
				break
			}
		}
	}
	listed := get(node, "packs")
	if isUndefined(set) && isUndefined(listed) {
		return "", false
	}
	packs, packsOK := get(set, "packs").([]any)
	named, namedOK := listed.([]any)
	if !isRecord(set) || !packsOK || !namedOK {
		return "malformed_policy_set", true
	}
	if len(packs) != len(named) {
		return "policy_digest_mismatch", true
	}
	for i, entry := range packs {
		doc, ref := get(entry, "document"), named[i]
		if !isRecord(entry) || !isRecord(doc) || !isRecord(ref) {
			return "malformed_policy_set", true
		}
		if !VerifyDocument(ctx, doc, keys).Valid {
			return "policy_signature_invalid", true
		}
		digest, err := PolicyDocumentDigest(doc)
		if err != nil {
			return "malformed_policy_set", true
		}
		if !strictEqual(get(ref, "digest"), digest) || !strictEqual(get(ref, "pack_id"), get(doc, "pack_id")) ||
			!strictEqual(get(ref, "version"), get(doc, "version")) || !strictEqual(get(ref, "mode"), get(entry, "mode")) {
			return "policy_digest_mismatch", true
		}
	}
	return "", true
}
