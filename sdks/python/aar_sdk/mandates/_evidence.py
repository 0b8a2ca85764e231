"""The evidence pack's `mandates` check (DESIGN-29 section 8, as core's evidence/verify-pack-mandates.ts): every
`mandate` binding of the snapshot's chains has its entry (same id, format, digest); every entry's digest is the hash
of its document; an AP2 document, and the `presented` closed presentation that must extend it, verify against the
entry's `issuer_jwks` (time and audience not checked). Attacker assumption: the pack is anything at all; its
`issuer_jwks` are what the service trusted, bound to the document by the pack's signature."""
from __future__ import annotations

from typing import Any, Iterable

from ._ap2 import verify_ap2_presentation
from ._common import mandate_digest

def snapshot_bindings(snapshot: Any) -> list[dict[str, Any]]:
    """Every `mandate` binding of the snapshot's chains (`grants` and each `alternatives` chain)."""
    if not isinstance(snapshot, dict):
        return []
    chains: list[Any] = [snapshot.get("grants")]
    alternatives = snapshot.get("alternatives")
    if isinstance(alternatives, list):
        chains.extend(alternatives)
    out = []
    for chain in chains:
        for grant in chain if isinstance(chain, list) else []:
            if isinstance(grant, dict) and "mandate" in grant:
                out.append(grant["mandate"])
    return out


def _entries(value: Any) -> list[dict[str, Any]] | None:
    if not isinstance(value, list):
        return None
    for entry in value:
        if not isinstance(entry, dict):
            return None
        if not all(isinstance(entry.get(k), str) for k in ("mandate_id", "format", "digest", "document")):
            return None
        if entry["format"] not in ("ap2", "acp") or ("presented" in entry and not isinstance(entry["presented"], str)):
            return None
    return value


def check_mandates(pack: Any) -> Any:
    """The evidence pack's `mandates` check: None when neither the snapshot nor the pack carries a mandate (the check
    is not recorded), else True or a failure code. Every snapshot binding needs its entry (same id, format, digest);
    every entry's digest is the hash of its document; AP2 documents (and `presented`, which extends the document)
    verify against the entry's `issuer_jwks`."""
    snapshot = pack.get("snapshot") if isinstance(pack, dict) else None
    bindings = snapshot_bindings(snapshot)
    has_member = isinstance(pack, dict) and "mandates" in pack
    if not bindings and not has_member:
        return None
    entries = _entries(pack.get("mandates", []) if isinstance(pack, dict) else None)
    if entries is None:
        return "malformed_mandates"
    for binding in bindings:
        if not isinstance(binding, dict) or not isinstance(binding.get("mandate_id"), str):
            return "malformed_mandates"
        if not any(e["mandate_id"] == binding["mandate_id"] and e["format"] == binding.get("format")
                   and e["digest"] == binding.get("digest") for e in entries):
            return "mandate_missing"
    for entry in entries:
        failure = _check_entry(entry)
        if failure is not True:
            return failure
    return True


def _check_entry(entry: dict[str, Any]) -> Any:
    document = entry["document"]
    if mandate_digest(document) != entry["digest"]:
        return "mandate_digest_mismatch"
    if entry["format"] == "acp":
        return True
    presentations: Iterable[str] = [document]
    presented = entry.get("presented")
    if presented is not None:
        if not presented.startswith(document + "~"):
            return "mandate_signature_invalid"
        presentations = [document, presented]
    for text in presentations:
        # as core: the entry names its issuer; without one, a hop 0 that names its `iss` has no trusted key
        issuer = entry.get("issuer") if isinstance(entry.get("issuer"), str) else ""
        if not verify_ap2_presentation(text, entry.get("issuer_jwks"), issuer=issuer).ok:
            return "mandate_signature_invalid"
    return True
