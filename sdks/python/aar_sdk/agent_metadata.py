"""The evidence pack's `agent_metadata` check (issue 30, aar-decide/1.5.0), ported from core's
evidence/verify-pack-agent-metadata.ts with the same order and failure codes: the snapshot's `agent_metadata` and the
pack's `agent_metadata_attestation` come together (`agent_metadata_missing`); the document's digest (`sha-256:` +
base64url of SHA-256 over the RFC 8785 bytes of the whole signed document) is the snapshot's and the decision map's
actor node `attestation_digest` (`agent_metadata_digest_mismatch`); the document, the snapshot and the node state
the same fields and the document names the snapshot's actor (`agent_metadata_mismatch`); the document's signature
verifies against the snapshot's `public_key_jwk`, never a key the document names (`agent_metadata_signature_invalid`).
None when nothing in the pack carries agent metadata (the check is then not recorded). Never raises.
"""
from __future__ import annotations

import hashlib
from typing import Any

from ._b64 import encode_b64url
from .decide.js import utf16_len
from .jcs import canonical_bytes
from .signed_document import verify_document

ATTESTATION_SCHEMA = "ns.agent_metadata_attestation.v1"
FIELDS = ("model", "software_version", "operator")
_MEMBERS = {"schema_version", "agent_entity_id", *FIELDS, "issued_at", "signature"}


def agent_metadata_digest(doc: Any) -> str:
    return "sha-256:" + encode_b64url(hashlib.sha256(canonical_bytes(doc)).digest())


def _well_formed(doc: Any) -> bool:
    if not isinstance(doc, dict) or set(doc) != _MEMBERS:
        return False
    if doc["schema_version"] != ATTESTATION_SCHEMA:
        return False
    if not isinstance(doc["agent_entity_id"], str) or not isinstance(doc["issued_at"], str):
        return False
    if not isinstance(doc["signature"], dict):
        return False
    return all(isinstance(doc[f], str) and 0 < utf16_len(doc[f]) <= 256 for f in FIELDS)


def verify_attestation(doc: Any, agent_entity_id: str, key: Any) -> bool:
    """The document is a well-formed attestation of `agent_entity_id` signed by `key` (whatever key_id it names)."""
    if not _well_formed(doc) or doc["agent_entity_id"] != agent_entity_id or not isinstance(key, dict):
        return False
    return verify_document(doc, lambda _kid: key).valid


def _actor_node(dmap: Any) -> Any:
    nodes = dmap.get("nodes") if isinstance(dmap, dict) else None
    if not isinstance(nodes, list):
        return None
    return next((n for n in nodes if isinstance(n, dict) and n.get("type") == "actor"), None)


def check_agent_metadata(pack: Any) -> Any:
    if not isinstance(pack, dict):
        return None
    snapshot = pack.get("snapshot") if isinstance(pack.get("snapshot"), dict) else {}
    attested = snapshot.get("agent_metadata")
    has_doc = "agent_metadata_attestation" in pack
    doc = pack.get("agent_metadata_attestation")
    node = _actor_node(pack.get("decision_map"))
    node_binds = isinstance(node, dict) and ("agent_metadata" in node or "attestation_digest" in node)
    if attested is None and not has_doc and not node_binds:
        return None
    if not isinstance(attested, dict) or not isinstance(doc, dict):
        return "agent_metadata_missing"
    try:
        digest = agent_metadata_digest(doc)
    except Exception:  # noqa: BLE001
        return "agent_metadata_digest_mismatch"
    if digest != attested.get("digest"):
        return "agent_metadata_digest_mismatch"
    if not isinstance(node, dict) or node.get("attestation_digest") != digest or not isinstance(node.get("agent_metadata"), dict):
        return "agent_metadata_digest_mismatch"
    shown = node["agent_metadata"]
    for f in FIELDS:
        if not isinstance(attested.get(f), str):
            return "agent_metadata_mismatch"
        if doc.get(f) != attested[f] or shown.get(f) != attested[f]:
            return "agent_metadata_mismatch"
    actor = snapshot.get("actor")
    actor_id = actor.get("entity_id") if isinstance(actor, dict) else None
    if not isinstance(actor_id, str) or doc.get("agent_entity_id") != actor_id:
        return "agent_metadata_mismatch"
    key = attested.get("public_key_jwk")
    return True if verify_attestation(doc, actor_id, key) else "agent_metadata_signature_invalid"
