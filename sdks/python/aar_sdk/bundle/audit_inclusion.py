"""audit_inclusion (core's audit-inclusion-check.ts): the decision's audit entry (the exact text the evidence pack
carries) is leaf `leaf_index` of the tree the bundle's checkpoint signs, by the bundle's own inclusion proof
(RFC 9162), and that entry is the decision's. The checkpoint's signature is checkpoint_signature's question; here its
root is what is proved against."""
from __future__ import annotations

from .._b64 import encode_b64
from ..evidence import parse_audit_entry
from ..merkle import MalformedDocument, leaf_hash, parse_checkpoint, parse_inclusion_proof, verify_inclusion_proof_json
from .checks import Outcome, Passed, own
from .context import BundleContext


def check_audit_inclusion(ctx: BundleContext, origin: str | None) -> Outcome:
    raw = ctx.part("inclusion_proof")
    try:
        proof = parse_inclusion_proof(raw)
    except MalformedDocument:
        return "the inclusion proof is missing or malformed"
    try:
        checkpoint = parse_checkpoint(ctx.part("checkpoint"))
    except MalformedDocument:
        return "there is no checkpoint to prove the entry against"
    text = own(ctx.pack, "audit_entry")
    entry = parse_audit_entry(text)
    if entry is None or not isinstance(text, str):
        return "the evidence pack carries no audit entry"
    if entry["subject_ref"] != own(ctx.pack, "policy_decision_id"):
        return "the audit entry is not the decision's"
    if proof["tree_size"] != checkpoint["size"]:
        return f"the proof is for a tree of {proof['tree_size']} entries, the checkpoint signs {checkpoint['size']}"
    if proof["leaf_index"] != entry["index"]:
        return f"the proof is for leaf {proof['leaf_index']}, the entry is {entry['index']}"
    if proof["leaf_hash"] != encode_b64(leaf_hash(text.encode("utf-8"))):
        return "the proof's leaf hash is not the entry's"
    result = verify_inclusion_proof_json(raw, checkpoint["root_hash"])
    if not result.valid:
        return f"the inclusion proof does not reach the checkpoint root ({result.failure})"
    return Passed(f"entry {entry['index']} is in the tree of {checkpoint['size']} the checkpoint signs")
