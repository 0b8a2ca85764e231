"""Offline verification and replay of an evidence pack (`ns.evidence_pack.v1`, CONTRACT sections 4 and 8), ported
from core's evidence/verify-evidence-pack.ts with the same checks in the same order and the same failure codes:
pack_signature, decision_map_signature, bindings, audit_entry, record_digest, inclusion_proof, checkpoint, replay; a
snapshot or decision map with a policy set (aar-decide/1.3.0) adds `policy_set` before replay (`malformed_policy_set`,
`policy_signature_invalid`, `policy_digest_mismatch`): each rule pack verifies against the trusted keys and is the one
the signed decision map names. A snapshot whose grants carry a `mandate` binding, or a pack with a `mandates` member
(issue 29), adds `mandates` before replay (`malformed_mandates`, `mandate_missing`, `mandate_digest_mismatch`,
`mandate_signature_invalid`): see mandates.py. A snapshot, pack or actor node carrying agent metadata (issue 30,
aar-decide/1.5.0) adds `agent_metadata` after it (see agent_metadata.py).

Inputs are only the pack and the trusted keys (never a key the pack names). Replay runs this SDK's own port of
`decide` on the recorded request, snapshot and now, and compares decision, reason, obligations and stop conditions.
Never raises.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from ._b64 import encode_b64, encode_b64url
from .decide import decide
from .decide.js import get, strict_eq
from .jcs import canonical_bytes, canonical_json, parse_json
from .jwks import TrustedKeys
from .agent_metadata import check_agent_metadata
from .mandates import check_mandates
from .merkle import MalformedDocument, leaf_hash, parse_checkpoint, parse_inclusion_proof, verify_inclusion_proof_json
from .rules.digest import policy_document_digest
from .signed_document import verify_document

EVIDENCE_PACK_SCHEMA = "ns.evidence_pack.v1"
DECISION_RECORD_SCHEMA = "ns.decision_record.v1"
AUDIT_ENTRY_SCHEMA = "ns.audit_entry.v1"
_ENGINE = re.compile(r"aar-decide/(\d+)\.(\d+)\.\d+", re.ASCII)


@dataclass
class EvidenceResult:
    valid: bool
    key_id: str | None
    replay_decision: dict[str, Any] | None
    checks: list[dict[str, Any]] = field(default_factory=list)
    algorithm: str = "ed25519"

    def __bool__(self) -> bool:
        return self.valid

    def failure(self) -> str | None:
        """The first failing check's code, or None."""
        return next((c["failure"] for c in self.checks if not c["valid"]), None)


def _answer(result: Any) -> str | None:
    if not isinstance(result, dict):
        return None
    try:
        return canonical_json({k: result[k] for k in ("decision", "reason", "obligations", "stop_conditions") if k in result})
    except Exception:  # noqa: BLE001
        return None


def _legacy(recorded: Any, engine_version: Any) -> Any:
    """Engines before aar-decide/1.2.0 also bound the basket on a deny: compare old packs without it."""
    m = _ENGINE.fullmatch(engine_version) if isinstance(engine_version, str) else None
    if not m or int(m.group(1)) > 1 or (int(m.group(1)) == 1 and int(m.group(2)) >= 2):
        return recorded
    if not isinstance(recorded, dict) or recorded.get("decision") != "deny" or not isinstance(recorded.get("obligations"), list):
        return recorded
    kept = [o for o in recorded["obligations"] if not (isinstance(o, dict) and o.get("type") == "basket_hash_binding")]
    return {**recorded, "obligations": kept}


def replay_decision(request: Any, snapshot: Any, now: str, recorded: Any, engine_version: Any = None) -> dict[str, Any]:
    result = decide(request, snapshot, now)
    replayed, expected = _answer(result), _answer(_legacy(recorded, engine_version))
    return {"decision": result["decision"], "reason": result["reason"], "obligations": result["obligations"],
            "stop_conditions": result["stop_conditions"], "matches": replayed is not None and replayed == expected}


def record_digest(pack: dict[str, Any]) -> str:
    """`sha-256:` + base64url over the RFC 8785 decision record the pack's audit entry commits to."""
    sources = {"policy_decision_id": "policy_decision_id", "request": "request", "snapshot": "snapshot", "now": "now",
               "result": "decision", "engine_version": "engine_version", "decision_map": "decision_map"}
    record: dict[str, Any] = {"schema_version": DECISION_RECORD_SCHEMA}
    # JSON.stringify drops undefined members: a member the pack lacks is not in the record
    record.update({name: pack[source] for name, source in sources.items() if source in pack})
    return "sha-256:" + encode_b64url(hashlib.sha256(canonical_bytes(record)).digest())


def parse_audit_entry(text: Any) -> dict[str, Any] | None:
    if not isinstance(text, str) or len(text) > 65536:
        return None
    try:
        value = parse_json(text)
    except Exception:  # noqa: BLE001
        return None
    if not isinstance(value, dict) or value.get("schema_version") != AUDIT_ENTRY_SCHEMA:
        return None
    index = value.get("index")
    if type(index) is not int or index < 0:
        return None
    for name in ("audit_id", "occurred_at", "kind", "subject_ref", "record_digest", "prev_leaf_hash"):
        if not isinstance(value.get(name), str):
            return None
    return value


def verify_evidence_pack(pack: Any, trusted: TrustedKeys, *, origin: str | None = None) -> EvidenceResult:
    try:
        return _verify(pack, trusted, origin)
    except Exception:  # noqa: BLE001
        return EvidenceResult(False, None, None, [{"check": "pack_signature", "valid": False, "failure": "malformed_pack"}])


def _verify(pack: Any, trusted: TrustedKeys, origin: str | None) -> EvidenceResult:
    checks: list[dict[str, Any]] = []

    def record(check: str, outcome: Any) -> None:
        checks.append({"check": check, "valid": True} if outcome is True else {"check": check, "valid": False, "failure": outcome})

    def guarded(fn: Any) -> Any:
        try:
            return fn()
        except Exception:  # noqa: BLE001
            return "malformed_pack"

    fld = (lambda name: pack.get(name)) if isinstance(pack, dict) else (lambda name: None)
    pack_sig = verify_document(pack, trusted)
    record("pack_signature", True if pack_sig.valid else (pack_sig.failure or "signature_mismatch"))
    dmap = fld("decision_map")
    map_sig = verify_document(dmap, trusted)
    record("decision_map_signature", True if map_sig.valid else (map_sig.failure or "signature_mismatch"))
    record("bindings", guarded(lambda: _bindings(pack, dmap)))
    entry_text = fld("audit_entry")
    entry = parse_audit_entry(entry_text)
    try:
        proof = parse_inclusion_proof(fld("inclusion_proof"))
    except MalformedDocument:
        proof = None
    record("audit_entry", guarded(lambda: _entry(entry_text, entry, proof, dmap)))
    record("record_digest", guarded(lambda: "malformed_entry" if entry is None else
                                    (True if record_digest(pack) == entry["record_digest"] else "digest_mismatch")))
    try:
        checkpoint = parse_checkpoint(fld("checkpoint"))
    except MalformedDocument:
        checkpoint = None

    def inclusion() -> Any:
        if proof is None:
            return "malformed_pack"
        if checkpoint is None:
            return "malformed_checkpoint"
        if proof["tree_size"] != checkpoint["size"]:
            return "tree_size_mismatch"
        result = verify_inclusion_proof_json(fld("inclusion_proof"), checkpoint["root_hash"])
        return True if result.valid else result.failure

    record("inclusion_proof", guarded(inclusion))

    def checkpoint_check() -> Any:
        if checkpoint is None:
            return "malformed_checkpoint"
        if origin is not None and checkpoint["origin"] != origin:
            return "origin_mismatch"
        sig = verify_document(fld("checkpoint"), trusted)
        return True if sig.valid else (sig.failure or "signature_mismatch")

    record("checkpoint", guarded(checkpoint_check))
    # aar-decide/1.3.0: the rule packs replay runs must be the published, signed ones the map names
    policy_set = guarded(lambda: _policy_set(fld("snapshot"), dmap, trusted))
    if policy_set is not None:
        record("policy_set", policy_set)
    # issue 29: the mandates the snapshot's grants were made from, and their signatures (mandates.py)
    mandates = guarded(lambda: check_mandates(pack))
    if mandates is not None:
        record("mandates", mandates)
    # issue 30: the agent's signed metadata attestation the snapshot names (agent_metadata.py)
    metadata = guarded(lambda: check_agent_metadata(pack))
    if metadata is not None:
        record("agent_metadata", metadata)
    replay = None
    request, snapshot, now = fld("request"), fld("snapshot"), fld("now")
    if isinstance(request, dict) and isinstance(snapshot, dict) and isinstance(now, str):
        replay = replay_decision(request, snapshot, now, fld("decision"), fld("engine_version"))
        record("replay", True if replay["matches"] else "replay_mismatch")
    else:
        record("replay", "malformed_pack")
    return EvidenceResult(all(c["valid"] for c in checks), pack_sig.key_id, replay, checks)


def _bindings(pack: Any, dmap: Any) -> Any:
    if not isinstance(pack, dict) or pack.get("schema_version") != EVIDENCE_PACK_SCHEMA:
        return "malformed_pack"
    decision = pack.get("decision")
    if not isinstance(dmap, dict) or not isinstance(decision, dict):
        return "malformed_pack"
    if not isinstance(pack.get("policy_decision_id"), str) or dmap.get("policy_decision_id") != pack["policy_decision_id"]:
        return "decision_mismatch"
    if dmap.get("decision") != decision.get("decision") or dmap.get("reason") != decision.get("reason"):
        return "decision_mismatch"
    refs = dmap.get("evidence_refs")
    if not isinstance(pack.get("evidence_pack_id"), str) or not isinstance(refs, list) or pack["evidence_pack_id"] not in refs:
        return "evidence_ref_mismatch"
    return True


def _policy_set(snapshot: Any, dmap: Any, trusted: TrustedKeys) -> Any:
    """Core's checkPolicySet (evidence/verify-policy-set.ts). The rule packs replay runs must be the very documents the
    service published: each pack document of `snapshot.policy_set` verifies against the trusted keys, and the decision
    map's `policy` node lists the same packs in the same order and mode with the digest of exactly that document.
    Attacker assumption: the pack's creator edited a rule (to make replay say what they like) or swapped a pack for
    another signed one. None when neither the snapshot nor the map holds a policy set (the check is not recorded)."""
    policy_set = snapshot.get("policy_set", _ABSENT) if isinstance(snapshot, dict) else _ABSENT
    nodes = dmap.get("nodes") if isinstance(dmap, dict) else None
    node = next((n for n in nodes if isinstance(n, dict) and n.get("type") == "policy"), None) \
        if isinstance(nodes, list) else None
    listed = node.get("packs", _ABSENT) if isinstance(node, dict) else _ABSENT
    if policy_set is _ABSENT and listed is _ABSENT:
        return None
    packs = policy_set.get("packs") if isinstance(policy_set, dict) else None
    if not isinstance(packs, list) or not isinstance(listed, list):
        return "malformed_policy_set"
    if len(packs) != len(listed):
        return "policy_digest_mismatch"
    for entry, named in zip(packs, listed):
        doc = entry.get("document") if isinstance(entry, dict) else None
        if not isinstance(doc, dict) or not isinstance(named, dict):
            return "malformed_policy_set"
        if not verify_document(doc, trusted).valid:
            return "policy_signature_invalid"
        try:
            digest = policy_document_digest(doc)
        except Exception:  # noqa: BLE001 - no RFC 8785 form
            return "malformed_policy_set"
        if not (strict_eq(get(named, "digest"), digest) and strict_eq(get(named, "pack_id"), get(doc, "pack_id"))
                and strict_eq(get(named, "version"), get(doc, "version"))
                and strict_eq(get(named, "mode"), get(entry, "mode"))):
            return "policy_digest_mismatch"
    return True


_ABSENT = object()


def _entry(text: Any, entry: dict[str, Any] | None, proof: dict[str, Any] | None, dmap: Any) -> Any:
    if entry is None or not isinstance(text, str):
        return "malformed_entry"
    if proof is None:
        return "malformed_pack"
    if entry["index"] != proof["leaf_index"]:
        return "index_mismatch"
    if encode_b64(leaf_hash(text.encode("utf-8"))) != proof["leaf_hash"]:
        return "leaf_hash_mismatch"
    if not isinstance(dmap, dict) or dmap.get("audit_ref") != entry["audit_id"]:
        return "audit_ref_mismatch"
    return True
