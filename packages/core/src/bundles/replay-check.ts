/**
 * replay_equal: the runtime decision and the state snapshot are the pack's request, snapshot, instant and answer
 * (the facts the audit chain committed to), decide run again on them gives the recorded answer, and the bundle's
 * replay proof says the same. Replay uses the one decide of core, as the server, the SDKs and the browser do.
 */
import { ownValue } from '../decide/guards.ts';
import { replayDecision } from '../evidence/replay-decision.ts';
import { tryCanonicalJson } from '../json/write-canonical-json.ts';
import type { BundleContext } from './bundle-context.ts';
import { RUNTIME_DECISION_SCHEMA, STATE_SNAPSHOT_SCHEMA } from './bundle-document.ts';
import type { BundleCheckOutcome } from './bundle-verification.ts';

const same = (a: unknown, b: unknown) => {
  const left = tryCanonicalJson(a);
  return left !== undefined && left === tryCanonicalJson(b);
};

export function checkReplayEqual(ctx: BundleContext): BundleCheckOutcome {
  const runtime = ctx.part('runtime_decision');
  const state = ctx.part('state_snapshot');
  const proof = ctx.part('replay_proof');
  const pack = ctx.pack;
  const at = (doc: unknown, name: string) => ownValue(doc, name);
  if (pack === undefined) return 'the bundle has no evidence pack to bind the decision to';
  if (at(runtime, 'schema_version') !== RUNTIME_DECISION_SCHEMA) return 'the runtime decision is missing or malformed';
  if (at(state, 'schema_version') !== STATE_SNAPSHOT_SCHEMA) return 'the state snapshot is missing or malformed';
  const recorded = at(pack, 'decision');
  const answer = (doc: unknown) => ({
    decision: at(doc, 'decision'),
    reason: at(doc, 'reason'),
    obligations: at(doc, 'obligations'),
    stop_conditions: at(doc, 'stop_conditions'),
  });
  const id = at(pack, 'policy_decision_id');
  if (at(runtime, 'policy_decision_id') !== id || at(state, 'policy_decision_id') !== id) {
    return 'the runtime decision or state snapshot is of another decision';
  }
  if (!same(at(runtime, 'request'), at(pack, 'request'))) return "the runtime decision's request is not the pack's";
  if (!same(answer(runtime), answer(recorded))) return "the runtime decision's answer is not the pack's";
  if (at(runtime, 'engine_version') !== at(pack, 'engine_version')) return 'the engine version is not the pack’s';
  if (at(runtime, 'decided_at') !== at(pack, 'now') || at(state, 'as_of') !== at(pack, 'now')) {
    return 'the decision instant is not the pack’s';
  }
  if (!same(at(state, 'snapshot'), at(pack, 'snapshot'))) return "the state snapshot is not the pack's snapshot";

  const now = at(state, 'as_of') as string;
  const replay = replayDecision(
    at(runtime, 'request'),
    at(state, 'snapshot'),
    now,
    answer(runtime),
    at(runtime, 'engine_version'),
  );
  if (!replay.matches) return `decide replays \`${replay.decision}\` / \`${replay.reason}\`, not the recorded answer`;
  const replayed = at(proof, 'replayed');
  if (
    at(proof, 'equal') !== true ||
    at(proof, 'engine_version') !== at(runtime, 'engine_version') ||
    at(replayed, 'decision') !== replay.decision ||
    at(replayed, 'reason') !== replay.reason
  ) {
    return 'the replay proof does not state what decide replays';
  }
  return { ok: true, detail: `decide replays \`${replay.decision}\` / \`${replay.reason}\`` };
}
