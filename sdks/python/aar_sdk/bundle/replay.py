"""replay_equal (core's replay-check.ts): the runtime decision and the state snapshot are the pack's request,
snapshot, instant and answer (the facts the audit chain committed to), this SDK's own decide run again on them gives
the recorded answer, and the bundle's replay proof says the same."""
from __future__ import annotations

from typing import Any

from ..evidence import replay_decision
from .checks import MISSING, RUNTIME_DECISION_SCHEMA, STATE_SNAPSHOT_SCHEMA, Outcome, Passed, own
from .context import BundleContext
from .same_json import same_json

_ANSWER = ("decision", "reason", "obligations", "stop_conditions")


def _answer(doc: Any) -> dict[str, Any]:
    return {name: own(doc, name) for name in _ANSWER if own(doc, name) is not MISSING}


def check_replay_equal(ctx: BundleContext, origin: str | None) -> Outcome:
    runtime, state, proof, pack = (ctx.part("runtime_decision"), ctx.part("state_snapshot"), ctx.part("replay_proof"),
                                   ctx.pack)
    if pack is None:
        return "the bundle has no evidence pack to bind the decision to"
    if own(runtime, "schema_version") != RUNTIME_DECISION_SCHEMA:
        return "the runtime decision is missing or malformed"
    if own(state, "schema_version") != STATE_SNAPSHOT_SCHEMA:
        return "the state snapshot is missing or malformed"
    decision_id = own(pack, "policy_decision_id")
    if own(runtime, "policy_decision_id") != decision_id or own(state, "policy_decision_id") != decision_id:
        return "the runtime decision or state snapshot is of another decision"
    if not same_json(own(runtime, "request"), own(pack, "request")):
        return "the runtime decision's request is not the pack's"
    if not same_json(_answer(runtime), _answer(own(pack, "decision"))):
        return "the runtime decision's answer is not the pack's"
    if own(runtime, "engine_version") != own(pack, "engine_version"):
        return "the engine version is not the pack’s"
    if own(runtime, "decided_at") != own(pack, "now") or own(state, "as_of") != own(pack, "now"):
        return "the decision instant is not the pack’s"
    if not same_json(own(state, "snapshot"), own(pack, "snapshot")):
        return "the state snapshot is not the pack's snapshot"
    engine = own(runtime, "engine_version")
    replay = replay_decision(own(runtime, "request"), own(state, "snapshot"), own(state, "as_of"), _answer(runtime),
                             None if engine is MISSING else engine)
    if not replay["matches"]:
        return f"decide replays `{replay['decision']}` / `{replay['reason']}`, not the recorded answer"
    replayed = own(proof, "replayed")
    if (own(proof, "equal") is not True or own(proof, "engine_version") != engine
            or own(replayed, "decision") != replay["decision"] or own(replayed, "reason") != replay["reason"]):
        return "the replay proof does not state what decide replays"
    return Passed(f"decide replays `{replay['decision']}` / `{replay['reason']}`")
