// replay_equal (core's bundles/replay-check.ts): the runtime decision and the state snapshot are the pack's request,
// snapshot, instant and answer (the facts the audit chain committed to), this SDK's own decide run again on them
// gives the recorded answer, and the bundle's replay proof says the same.

package aar

import "context"

func checkReplayEqual(_ context.Context, b *bundleContext, _ VerifyBundleOptions) bundleOutcome {
	runtime, state, proof := b.part("runtime_decision"), b.part("state_snapshot"), b.part("replay_proof")
	if b.pack == nil {
		return bundleFail("the bundle has no evidence pack to bind the decision to")
	}
	pack := any(b.pack)
	if !strictEqual(get(runtime, "schema_version"), "ns.runtime_decision.v1") {
		return bundleFail("the runtime decision is missing or malformed")
	}
	if !strictEqual(get(state, "schema_version"), "ns.state_snapshot.v1") {
		return bundleFail("the state snapshot is missing or malformed")
	}
	id := get(pack, "policy_decision_id")
	if !strictEqual(get(runtime, "policy_decision_id"), id) || !strictEqual(get(state, "policy_decision_id"), id) {
		return bundleFail("the runtime decision or state snapshot is of another decision")
	}
	if !sameJSON(get(runtime, "request"), get(pack, "request")) {
		return bundleFail("the runtime decision's request is not the pack's")
	}
	if !sameJSON(answerOf(runtime), answerOf(get(pack, "decision"))) {
		return bundleFail("the runtime decision's answer is not the pack's")
	}
	if !strictEqual(get(runtime, "engine_version"), get(pack, "engine_version")) {
		return bundleFail("the engine version is not the pack’s")
	}
	now := get(pack, "now")
	if !strictEqual(get(runtime, "decided_at"), now) || !strictEqual(get(state, "as_of"), now) {
		return bundleFail("the decision instant is not the pack’s")
	}
	if !sameJSON(get(state, "snapshot"), get(pack, "snapshot")) {
		return bundleFail("the state snapshot is not the pack's snapshot")
	}
	asOf, _ := get(state, "as_of").(string)
	engine := get(runtime, "engine_version")
	replay := ReplayDecisionJSON(get(runtime, "request"), get(state, "snapshot"), asOf, answerOf(runtime), engine)
	said := "`" + replay.Decision + "` / `" + replay.Reason + "`"
	if !replay.Matches {
		return bundleFail("decide replays " + said + ", not the recorded answer")
	}
	replayed := get(proof, "replayed")
	if !strictEqual(get(proof, "equal"), true) || !strictEqual(get(proof, "engine_version"), engine) ||
		!strictEqual(get(replayed, "decision"), replay.Decision) || !strictEqual(get(replayed, "reason"), replay.Reason) {
		return bundleFail("the replay proof does not state what decide replays")
	}
	return bundlePass("decide replays " + said)
}
