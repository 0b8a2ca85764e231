// Offline verification of an authority proof bundle (`ns.authority_proof_bundle.v1`, CONTRACT section 12), a port of
// core's bundles/verify-bundle.ts: the ten checks, in their order, on the bundle alone with the caller's keys. No
// clock: every time judged is one the bundle states, so POST /v1/bundles/verify, `aar verify-bundle` and every SDK
// answer the same. Attacker assumption: the bundle is anything at all; every check runs, none panics (a panic inside
// one is recovered as that check's refusal), each reports its own failure. Keys come only from keys, never from the
// bundle (whose delegation chain lists keys only as hints).

package aar

import (
	"context"
	"fmt"
)

// BundleChecks are the ten checks of VerifyBundle, in the order every verifier answers them.
var BundleChecks = []string{
	"bundle_signature", "references_digest", "decision_map_signature", "evidence_pack_signature",
	"delegation_chain_signatures", "delegation_attenuation", "checkpoint_signature", "audit_inclusion",
	"replay_equal", "temporal_validity",
}

// BundlePart is one part of a bundle with the schema it follows.
type BundlePart struct {
	Name   string
	Schema string
}

// BundleParts are the twelve parts in the order `references` lists them.
var BundleParts = []BundlePart{
	{"purpose_manifest", "ns.purpose_manifest.v1"},
	{"scope_snapshot", "ns.scope_snapshot.v1"},
	{"state_snapshot", "ns.state_snapshot.v1"},
	{"runtime_decision", "ns.runtime_decision.v1"},
	{"decision_map", "ns.decision_map.v1"},
	{"evidence_pack", "ns.evidence_pack.v1"},
	{"delegation_chain", "ns.delegation_chain.v1"},
	{"replay_proof", "ns.replay_proof.v1"},
	{"checkpoint", "ns.checkpoint.v1"},
	{"inclusion_proof", "ns.inclusion_proof.v1"},
	{"rule_pack_refs", "ns.rule_pack_refs.v1"},
	{"conformance_profiles", "ns.conformance_profiles.v1"},
}

// BundleCheck is one check's outcome: Detail says why it failed, or what a passing check saw.
type BundleCheck struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// BundleVerification is VerifyBundle's answer: Valid only when all ten checks passed.
type BundleVerification struct {
	Valid  bool          `json:"valid"`
	Checks []BundleCheck `json:"checks"`
}

// Failing names the checks that failed, in order.
func (v BundleVerification) Failing() []string {
	out := []string{}
	for _, c := range v.Checks {
		if !c.OK {
			out = append(out, c.Name)
		}
	}
	return out
}

// VerifyBundleOptions: Origin, when set, is the only audit log whose checkpoints are accepted.
type VerifyBundleOptions struct {
	Origin string
}

// bundleOutcome is a check's result: failure "" means it passed; detail says what a passing check saw.
type bundleOutcome struct {
	failure string
	detail  string
}

func bundlePass(detail string) bundleOutcome { return bundleOutcome{detail: detail} }
func bundleFail(why string) bundleOutcome    { return bundleOutcome{failure: why} }

var bundleOK = bundleOutcome{}

type bundleCheckFunc func(ctx context.Context, b *bundleContext, opts VerifyBundleOptions) bundleOutcome

var bundleCheckFuncs = map[string]bundleCheckFunc{
	"bundle_signature":            checkBundleSignature,
	"references_digest":           checkReferencesDigest,
	"decision_map_signature":      checkDecisionMapSignature,
	"evidence_pack_signature":     checkEvidencePackSignature,
	"delegation_chain_signatures": checkDelegationChainSignatures,
	"delegation_attenuation":      checkDelegationAttenuation,
	"checkpoint_signature":        checkCheckpointSignature,
	"audit_inclusion":             checkAuditInclusion,
	"replay_equal":                checkReplayEqual,
	"temporal_validity":           checkTemporalValidity,
}

// VerifyBundle verifies a proof bundle (a generic JSON value, raw JSON bytes or a marshalable value) offline.
func VerifyBundle(ctx context.Context, bundle any, keys KeySource, opts VerifyBundleOptions) BundleVerification {
	b := readBundleContext(ctx, bundle, keys)
	out := BundleVerification{Valid: true, Checks: make([]BundleCheck, 0, len(BundleChecks))}
	for _, name := range BundleChecks {
		outcome := runBundleCheck(ctx, bundleCheckFuncs[name], b, opts)
		check := BundleCheck{Name: name, OK: outcome.failure == "", Detail: outcome.failure}
		if check.OK {
			check.Detail = outcome.detail
		}
		out.Valid = out.Valid && check.OK
		out.Checks = append(out.Checks, check)
	}
	return out
}

func runBundleCheck(ctx context.Context, check bundleCheckFunc, b *bundleContext, opts VerifyBundleOptions) (outcome bundleOutcome) {
	defer func() {
		if r := recover(); r != nil {
			// only hostile shapes get here: a refusal either way
			outcome = bundleFail("the bundle cannot be read")
		}
	}()
	return check(ctx, b, opts)
}

// describeProblems lists up to five chain problems as core's delegation-checks.ts does.
func describeProblems(problems []ChainProblem) string {
	out := ""
	for i, p := range problems {
		if i == 5 {
			break
		}
		if i > 0 {
			out += ", "
		}
		out += p.Code
		if p.Index != nil {
			out += fmt.Sprintf(" at link %d", *p.Index)
		}
		if p.Field != nil && *p.Field != "" {
			out += " " + *p.Field
		}
	}
	return out
}
