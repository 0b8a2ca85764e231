// The bundle checks that are signatures over single parts (core's bundles/signature-checks.ts): the bundle itself,
// the decision map (which must also be the evidence pack's own map), the evidence pack (its bindings, audit entry,
// proof and checkpoint, but not its replay: replay_equal judges that), and the bundle's checkpoint. Keys come only
// from the caller's key source.

package aar

import (
	"context"
	"strings"
)

func bundleSignatureOf(ctx context.Context, doc any, b *bundleContext, what string) bundleOutcome {
	if isUndefined(doc) || doc == nil {
		return bundleFail("the bundle has no " + what)
	}
	result := VerifyDocument(ctx, doc, b.keys)
	if !result.Valid {
		return bundleFail("the " + what + " signature does not verify (" + sigFailure(result) + ")")
	}
	return bundleOK
}

func checkBundleSignature(ctx context.Context, b *bundleContext, _ VerifyBundleOptions) bundleOutcome {
	if !isRecord(b.bundle) {
		return bundleFail("the bundle is not a json object")
	}
	if !strictEqual(get(b.bundle, "schema_version"), "ns.authority_proof_bundle.v1") {
		return bundleFail("`schema_version` is not `ns.authority_proof_bundle.v1`")
	}
	return bundleSignatureOf(ctx, b.bundle, b, "bundle")
}

func checkDecisionMapSignature(ctx context.Context, b *bundleContext, _ VerifyBundleOptions) bundleOutcome {
	m := b.part("decision_map")
	if signed := bundleSignatureOf(ctx, m, b, "decision map"); signed.failure != "" {
		return signed
	}
	// the map the pack signed and the chain committed to, not merely a map this key signed once
	if b.pack == nil || !sameJSON(m, get(b.pack, "decision_map")) {
		return bundleFail("the decision map is not the evidence pack's decision map")
	}
	return bundleOK
}

func checkEvidencePackSignature(ctx context.Context, b *bundleContext, opts VerifyBundleOptions) bundleOutcome {
	if b.pack == nil {
		return bundleFail("the bundle has no evidence pack")
	}
	result := VerifyEvidencePack(ctx, b.pack, b.keys, VerifyEvidencePackOptions{Origin: opts.Origin})
	var failed []string
	for _, c := range result.Checks {
		if c.Check != "replay" && !c.Valid {
			failed = append(failed, strings.TrimSpace(c.Check+" "+c.Failure))
		}
	}
	if len(failed) > 0 {
		return bundleFail("the evidence pack does not verify: " + strings.Join(failed, ", "))
	}
	keyID := ""
	if result.KeyID != nil {
		keyID = *result.KeyID
	}
	return bundlePass("signed by `" + keyID + "`; bindings, audit entry and its proof hold")
}

func checkCheckpointSignature(ctx context.Context, b *bundleContext, opts VerifyBundleOptions) bundleOutcome {
	raw := b.part("checkpoint")
	cp, err := ParseCheckpoint(raw)
	if err != nil {
		return bundleFail("the checkpoint is missing or malformed")
	}
	// a checkpoint of another log proves nothing about this one, even under the same key
	if opts.Origin != "" && cp.Origin != opts.Origin {
		return bundleFail("the checkpoint is of log `" + cp.Origin + "`, not `" + opts.Origin + "`")
	}
	return bundleSignatureOf(ctx, raw, b, "checkpoint")
}
