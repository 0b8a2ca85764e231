"""Memory records and tombstones (`ns.memory_record.v1`, docs/memory.md) and a principal's tombstone chain, offline:
the same checks and failure codes as the TypeScript SDK's verifyMemoryRecord and verifyMemoryChain.

- record form: `shape`, `retention` (`retain_until` = `created_at` + `retention_days` days), `authorship` (an
  `rfc9421` write names the agent key's thumbprint and the signature's instant, a `credential` one neither), and `content` when the
  caller passes the content it was served with its salt (base64url SHA-256 of the RFC 8785 text of
  `{ content, salt }` is `content_digest`; the content's RFC 8785 text is `content_bytes` long);
- tombstone form: `shape`, `tombstone` (no content member, `sequence` 1 exactly when there is no previous digest, not
  before the record), `content` (content handed beside a tombstone fails), and `record` when the caller passes the
  record it ends (`record_digest` is the digest of that record's RFC 8785 text, signature included).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from .._b64 import encode_b64url
from ..jcs import canonical_bytes
from ..jwks import TrustedKeys
from ._frame import (
    CheckFailed,
    PreviewCheck,
    PreviewVerification,
    instant,
    is_count,
    is_ns_id,
    is_text,
    is_timestamp,
    require,
    verify_preview_document,
)

MEMORY_RECORD_SCHEMA = "ns.memory_record.v1"
MAX_MEMORY_CHAIN = 100_000

_CLASSIFICATIONS = {"public", "internal", "confidential", "restricted"}
_TOMBSTONE_REASONS = {"erased", "retention_expired"}
_DIGEST = re.compile(r"[A-Za-z0-9_-]{43}", re.ASCII)
_CONTENT_MEMBERS = ("content", "content_salt", "content_digest", "content_bytes")
_SAME_AS_RECORD = ("memory_record_id", "principal_entity_id", "agent_entity_id", "classification")


def _is_digest(value: Any) -> bool:
    return isinstance(value, str) and _DIGEST.fullmatch(value) is not None


def canonical_digest(value: Any) -> str:
    """base64url SHA-256 of the RFC 8785 bytes of `value`."""
    return encode_b64url(hashlib.sha256(canonical_bytes(value)).digest())


def memory_document_digest(doc: Any) -> str:
    """A signed memory document's digest (`record_digest`, the chain's links): over its text, signature included."""
    return canonical_digest(doc)


def memory_content_digest(content: Any, salt: str) -> str:
    return canonical_digest({"content": content, "salt": salt})


def _in(value: Any, allowed: set[str]) -> bool:
    return isinstance(value, str) and value in allowed


def _shape(d: dict) -> None:
    common = [
        ("/form", d.get("form") in ("record", "tombstone") if isinstance(d.get("form"), str) else False),
        ("/memory_record_id", is_ns_id(d.get("memory_record_id"), "memory_record")),
        ("/issuer", is_text(d.get("issuer"))),
        ("/principal_entity_id", is_ns_id(d.get("principal_entity_id"), "entity")),
        ("/agent_entity_id", is_ns_id(d.get("agent_entity_id"), "entity")),
        ("/classification", _in(d.get("classification"), _CLASSIFICATIONS)),
        ("/created_at", is_timestamp(d.get("created_at"))),
    ]
    if d.get("form") != "tombstone":
        require(common + [
            ("/grant_id", is_ns_id(d.get("grant_id"), "authority:grant")),
            ("/retention_days", is_count(d.get("retention_days")) and d["retention_days"] > 0),
            ("/content_digest", _is_digest(d.get("content_digest"))),
            ("/content_bytes", is_count(d.get("content_bytes"))),
            ("/authorship", isinstance(d.get("authorship"), dict)),
            ("/retain_until", is_timestamp(d.get("retain_until"))),
        ])
        return
    previous = d.get("previous_tombstone_digest", "absent")
    require(common + [
        ("/tombstone_id", is_ns_id(d.get("tombstone_id"), "memory_tombstone")),
        ("/record_digest", _is_digest(d.get("record_digest"))),
        ("/reason", _in(d.get("reason"), _TOMBSTONE_REASONS)),
        ("/sequence", is_count(d.get("sequence")) and d["sequence"] >= 1),
        ("/previous_tombstone_digest", previous is None or _is_digest(previous)),
        ("/record_created_at", is_timestamp(d.get("record_created_at"))),
    ])


def _retention(d: dict) -> None:
    if not (is_timestamp(d.get("created_at")) and is_timestamp(d.get("retain_until")) and is_count(d.get("retention_days"))):
        raise CheckFailed("malformed_document", "/retain_until")
    if instant(d["retain_until"]) - instant(d["created_at"]) != timedelta(days=int(d["retention_days"])):
        raise CheckFailed("retention_mismatch", "/retain_until")


def _authorship(d: dict) -> None:
    a = d.get("authorship")
    a = a if isinstance(a, dict) else {}
    method = a.get("method")
    if method not in ("rfc9421", "credential") or not isinstance(method, str):
        raise CheckFailed("malformed_document", "/authorship/method")
    if not is_ns_id(a.get("token_id"), "token"):
        raise CheckFailed("malformed_document", "/authorship/token_id")
    thumbprint, signed_at = a.get("agent_key_thumbprint", "absent"), a.get("signed_at", "absent")
    signed = _is_digest(thumbprint) and is_timestamp(signed_at)
    unsigned = thumbprint is None and signed_at is None
    if not (signed if method == "rfc9421" else unsigned):
        raise CheckFailed("authorship_inconsistent", "/authorship")


def _tombstone(d: dict) -> None:
    for name in _CONTENT_MEMBERS:
        if name in d:
            raise CheckFailed("tombstone_has_content", f"/{name}")
    if (d.get("sequence") == 1 and not isinstance(d.get("sequence"), bool)) != (d.get("previous_tombstone_digest", "absent") is None):
        raise CheckFailed("chain_broken", "/previous_tombstone_digest")
    if is_timestamp(d.get("record_created_at")) and is_timestamp(d.get("created_at")):
        if instant(d["created_at"]) < instant(d["record_created_at"]):
            raise CheckFailed("tombstone_before_record", "/created_at")


def _content_check(doc: Any, content: Any, salt: Any) -> PreviewCheck | None:
    given = content is not None
    try:
        if not isinstance(doc, dict):
            return PreviewCheck("content", False, "malformed_document") if given else None
        if doc.get("form") == "tombstone":
            return PreviewCheck("content", False, "tombstone_has_content", "content given") if given else None
        if not given:
            return None
        if not is_text(salt):
            return PreviewCheck("content", False, "content_digest_mismatch", "no salt")
        if memory_content_digest(content, salt) != doc.get("content_digest"):
            return PreviewCheck("content", False, "content_digest_mismatch", "/content_digest")
        if len(canonical_bytes(content)) != doc.get("content_bytes"):
            return PreviewCheck("content", False, "content_digest_mismatch", "/content_bytes")
        return PreviewCheck("content", True)
    except Exception:  # noqa: BLE001 - content without a canonical form binds nothing
        return PreviewCheck("content", False, "malformed_document")


def _record_check(doc: Any, record: Any) -> PreviewCheck:
    try:
        if not isinstance(doc, dict) or doc.get("form") != "tombstone":
            return PreviewCheck("record", False, "malformed_document", "not a tombstone")
        if not isinstance(record, dict) or record.get("form") != "record":
            return PreviewCheck("record", False, "record_mismatch", "not a record")
        if memory_document_digest(record) != doc.get("record_digest"):
            return PreviewCheck("record", False, "record_mismatch", "/record_digest")
        for name in _SAME_AS_RECORD:
            if record.get(name) != doc.get(name):
                return PreviewCheck("record", False, "record_mismatch", f"/{name}")
        if record.get("created_at") != doc.get("record_created_at"):
            return PreviewCheck("record", False, "record_mismatch", "/record_created_at")
        return PreviewCheck("record", True)
    except Exception:  # noqa: BLE001
        return PreviewCheck("record", False, "malformed_document")


def verify_memory_record(
    doc: Any, trusted: TrustedKeys, *, content: Any = None, content_salt: Any = None, record: Any = None
) -> PreviewVerification:
    """A memory record or tombstone. `content`/`content_salt`: what the record was served with; `record`: for a
    tombstone, the signed record it ends (compared only: verify it on its own when its signature matters)."""
    tombstone = isinstance(doc, dict) and doc.get("form") == "tombstone"
    checks = [("shape", _shape), ("tombstone", _tombstone)] if tombstone else [
        ("shape", _shape), ("retention", _retention), ("authorship", _authorship)]
    result = verify_preview_document(doc, trusted, MEMORY_RECORD_SCHEMA, checks)
    extra = []
    checked = _content_check(doc, content, content_salt)
    if checked is not None:
        extra.append(checked)
    if record is not None:
        extra.append(_record_check(doc, record))
    if extra:
        result.checks.extend(extra)
        result.valid = all(c.valid for c in result.checks)
    return result


@dataclass
class MemoryChainVerification:
    valid: bool
    length: int
    tip_digest: str | None
    checks: list[PreviewCheck] = field(default_factory=list)
    tombstones: list[PreviewVerification] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.valid

    def first_failure(self) -> PreviewCheck | None:
        return next((c for c in self.checks if not c.valid), None)


def verify_memory_chain(
    tombstones: Any,
    trusted: TrustedKeys,
    *,
    principal_entity_id: str | None = None,
    after: tuple[int, str] | None = None,
) -> MemoryChainVerification:
    """A principal's tombstones in sequence order: each verifies on its own, one principal, sequences without a gap
    from 1 (or from `after`'s `(sequence, digest)` + 1 for a segment), each naming the previous one's digest."""
    if not isinstance(tombstones, list) or len(tombstones) > MAX_MEMORY_CHAIN:
        checks = [PreviewCheck(c, False, "malformed_chain") for c in ("tombstones", "principal", "sequence", "links")]
        return MemoryChainVerification(False, 0, None, checks, [])
    results = [verify_memory_record(t, trusted) for t in tombstones]
    first_bad = next(
        (i for i, (r, t) in enumerate(zip(results, tombstones)) if not r.valid or not (isinstance(t, dict) and t.get("form") == "tombstone")),
        None,
    )
    if first_bad is None:
        tombstone_check = PreviewCheck("tombstones", True)
    else:
        failure = results[first_bad].first_failure()
        tombstone_check = PreviewCheck("tombstones", False, failure.failure if failure else "not_a_tombstone", f"/{first_bad}")
    principal_check = PreviewCheck("principal", True)
    sequence_check = PreviewCheck("sequence", True)
    link_check = PreviewCheck("links", True)
    previous: str | None = after[1] if after else None
    expected = (after[0] if after else 0) + 1
    principal = principal_entity_id
    tip: str | None = None
    for i, t in enumerate(tombstones):
        try:
            if not isinstance(t, dict):
                raise ValueError("not an object")
            if principal is None and isinstance(t.get("principal_entity_id"), str):
                principal = t["principal_entity_id"]
            if principal_check.valid and t.get("principal_entity_id") != principal:
                principal_check = PreviewCheck("principal", False, "other_principal", f"/{i}/principal_entity_id")
            sequence = t.get("sequence")
            if sequence_check.valid and (isinstance(sequence, bool) or sequence != expected):
                sequence_check = PreviewCheck("sequence", False, "sequence_gap", f"/{i}/sequence")
            if link_check.valid and t.get("previous_tombstone_digest") != previous:
                link_check = PreviewCheck("links", False, "chain_broken", f"/{i}/previous_tombstone_digest")
            previous = memory_document_digest(t)
            tip = previous
        except Exception:  # noqa: BLE001
            if link_check.valid:
                link_check = PreviewCheck("links", False, "malformed_chain", f"/{i}")
            previous = None
            tip = None
        expected += 1
    checks = [tombstone_check, principal_check, sequence_check, link_check]
    return MemoryChainVerification(all(c.valid for c in checks), len(tombstones), tip, checks, results)
