"""The checks that are signatures over single parts (core's signature-checks.ts): the bundle itself, the decision map
(which must also be the pack's own map), the evidence pack (its bindings, audit entry, proof and checkpoint, but not
its replay: replay_equal judges that), and the bundle's checkpoint. Keys come only from the caller's JWKS."""
from __future__ import annotations

from typing import Any

from ..evidence import verify_evidence_pack
from ..merkle import MalformedDocument, parse_checkpoint
from ..signed_document import verify_document
from .checks import AUTHORITY_PROOF_BUNDLE_SCHEMA, MISSING, Outcome, Passed, own
from .context import BundleContext
from .same_json import same_json


def _signature_of(doc: Any, ctx: BundleContext, what: str) -> Outcome:
    if doc is MISSING or doc is None:
        return f"the bundle has no {what}"
    result = verify_document(doc, ctx.jwks)
    return True if result.valid else f"the {what} signature does not verify ({result.failure or 'signature_mismatch'})"


def check_bundle_signature(ctx: BundleContext, origin: str | None) -> Outcome:
    if not isinstance(ctx.bundle, dict):
        return "the bundle is not a json object"
    if ctx.bundle.get("schema_version") != AUTHORITY_PROOF_BUNDLE_SCHEMA:
        return f"`schema_version` is not `{AUTHORITY_PROOF_BUNDLE_SCHEMA}`"
    return _signature_of(ctx.bundle, ctx, "bundle")


def check_decision_map_signature(ctx: BundleContext, origin: str | None) -> Outcome:
    dmap = ctx.part("decision_map")
    signed = _signature_of(dmap, ctx, "decision map")
    if signed is not True:
        return signed
    # the map the pack signed and the chain committed to, not merely a map this key signed once
    if ctx.pack is None or not same_json(dmap, own(ctx.pack, "decision_map")):
        return "the decision map is not the evidence pack's decision map"
    return True


def check_evidence_pack_signature(ctx: BundleContext, origin: str | None) -> Outcome:
    if ctx.pack is None:
        return "the bundle has no evidence pack"
    result = verify_evidence_pack(ctx.pack, ctx.jwks, origin=origin)
    failed = [c for c in result.checks if c["check"] != "replay" and not c["valid"]]
    if failed:
        listed = ", ".join(f"{c['check']} {c.get('failure') or ''}".strip() for c in failed)
        return f"the evidence pack does not verify: {listed}"
    return Passed(f"signed by `{result.key_id or ''}`; bindings, audit entry and its proof hold")


def check_checkpoint_signature(ctx: BundleContext, origin: str | None) -> Outcome:
    raw = ctx.part("checkpoint")
    try:
        log = parse_checkpoint(raw)["origin"]
    except MalformedDocument:
        return "the checkpoint is missing or malformed"
    # a checkpoint of another log proves nothing about this one, even under the same key
    if origin is not None and log != origin:
        return f"the checkpoint is of log `{log[:255]}`, not `{origin}`"
    return _signature_of(raw, ctx, "checkpoint")
