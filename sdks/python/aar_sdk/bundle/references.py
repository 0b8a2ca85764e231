"""references_digest (core's references-check.ts and bundle-references.ts): `references` lists every part exactly
once, in BUNDLE_PARTS order, with its schema, the path that serves it, and the SHA-256 of its RFC 8785 bytes as the
bundle holds it now. A part edited after signing, or a list that omits, repeats or reorders a part, fails here."""
from __future__ import annotations

import hashlib
from typing import Any

from ..jcs import canonical_bytes
from .checks import BUNDLE_PARTS, MISSING, Outcome, Passed
from .context import BundleContext


def part_digest(part: Any) -> str:
    """Lowercase hex SHA-256 of the RFC 8785 bytes of `part` (an absent part hashes the text `null`)."""
    return hashlib.sha256(canonical_bytes(None if part is MISSING else part)).hexdigest()


def part_href(bundle_id: str, name: str) -> str:
    return f"/v1/bundles/{bundle_id}/parts/{name}"


def check_references_digest(ctx: BundleContext) -> Outcome:
    references = ctx.part("references")
    bundle_id = ctx.part("bundle_id")
    if not isinstance(bundle_id, str):
        return "the bundle has no `bundle_id`"
    if not isinstance(references, list):
        return "the bundle has no `references` list"
    if len(references) != len(BUNDLE_PARTS):
        return f"`references` lists {len(references)} parts, not the {len(BUNDLE_PARTS)} of a bundle"
    for index, (name, schema) in enumerate(BUNDLE_PARTS):
        ref = references[index]
        at = f"/references/{index}"
        if not isinstance(ref, dict) or ref.get("name") != name:
            return f"{at} does not name part `{name}`"
        if ref.get("schema") != schema:
            return f"{at} does not give schema `{schema}`"
        if ref.get("href") != part_href(bundle_id, name):
            return f"{at} href is not this bundle's part path"
        part = ctx.part(name)
        if part is MISSING:
            return f"part `{name}` is missing"
        if ref.get("sha256") != part_digest(part):
            return f"part `{name}` does not hash to its reference's sha256"
    return Passed(f"{len(BUNDLE_PARTS)} parts hash to their references")
