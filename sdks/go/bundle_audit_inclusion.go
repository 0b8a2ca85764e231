// audit_inclusion (core's bundles/audit-inclusion-check.ts): the decision's audit entry (the exact text the evidence
// pack carries) is leaf `leaf_index` of the tree the bundle's checkpoint signs, by the bundle's own inclusion proof
// (RFC 9162), and that entry is the decision's. The checkpoint's signature is checkpoint_signature's question; here
// its root is what is proved against.

package aar

import (
	"context"
	"fmt"
)

func checkAuditInclusion(_ context.Context, b *bundleContext, _ VerifyBundleOptions) bundleOutcome {
	proof, err := ParseInclusionProof(b.part("inclusion_proof"))
	if err != nil {
		return bundleFail("the inclusion proof is missing or malformed")
	}
	cp, err := ParseCheckpoint(b.part("checkpoint"))
	if err != nil {
		return bundleFail("there is no checkpoint to prove the entry against")
	}
	raw := get(b.pack, "audit_entry")
	entry, ok := parseAuditEntryText(raw)
	text, isText := raw.(string)
	if !ok || !isText {
		return bundleFail("the evidence pack carries no audit entry")
	}
	if !strictEqual(get(b.pack, "policy_decision_id"), entry.SubjectRef) {
		return bundleFail("the audit entry is not the decision's")
	}
	if proof.TreeSize != cp.Size {
		return bundleFail(fmt.Sprintf("the proof is for a tree of %d entries, the checkpoint signs %d", proof.TreeSize, cp.Size))
	}
	if float64(proof.LeafIndex) != entry.Index {
		return bundleFail(fmt.Sprintf("the proof is for leaf %d, the entry is %d", proof.LeafIndex, int64(entry.Index)))
	}
	if proof.LeafHash != encodeBase64(LeafHash([]byte(text))) {
		return bundleFail("the proof's leaf hash is not the entry's")
	}
	if err := proof.Verify(cp.RootHash); err != nil {
		return bundleFail("the inclusion proof does not reach the checkpoint root (" + err.Error() + ")")
	}
	return bundlePass(fmt.Sprintf("entry %d is in the tree of %d the checkpoint signs", int64(entry.Index), cp.Size))
}
