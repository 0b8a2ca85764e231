"""The common frame of the v1.1 preview documents' offline verifiers (CONTRACT sections 4 and 22), the same checks
and failure codes as the TypeScript SDK's verifyPreviewDocument: the Ed25519 signature with a key of the JWKS the
CALLER passed (the document's `key_id` is only looked up there), `schema_version`, then the document's own checks,
each reported in order; `valid` only when all passed.

Attacker assumption: the document is any JSON value. Nothing here raises: a check that cannot read what it needs
fails `malformed_document`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Sequence

from ..jwks import TrustedKeys
from ..signed_document import verify_document


@dataclass
class PreviewCheck:
    check: str
    valid: bool
    failure: str | None = None
    detail: str | None = None


@dataclass
class PreviewVerification:
    valid: bool
    key_id: str | None
    schema_version: str
    checks: list[PreviewCheck] = field(default_factory=list)
    algorithm: str = "ed25519"

    def __bool__(self) -> bool:
        return self.valid

    def check(self, name: str) -> PreviewCheck | None:
        return next((c for c in self.checks if c.check == name), None)

    def first_failure(self) -> PreviewCheck | None:
        return next((c for c in self.checks if not c.valid), None)


class CheckFailed(Exception):
    """Raised inside a document check to fail it with a code (and where)."""

    def __init__(self, failure: str, detail: str | None = None) -> None:
        super().__init__(failure)
        self.failure = failure
        self.detail = detail


DocumentCheck = Callable[[dict], None]

_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z", re.ASCII)


def is_timestamp(value: Any) -> bool:
    """ISO 8601 UTC with milliseconds, the form of every document timestamp."""
    if not isinstance(value, str) or not _TIMESTAMP.fullmatch(value):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def instant(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def is_ns_id(value: Any, kind: str) -> bool:
    prefix = f"ns:{kind}:"
    return isinstance(value, str) and value.startswith(prefix) and len(value) > len(prefix)


def is_count(value: Any) -> bool:
    """A JSON integer >= 0 (bool is not one; 3.0 is, as JSON cannot tell them apart)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0 <= value <= 2**53 - 1
    return isinstance(value, float) and value.is_integer() and 0 <= value <= 2**53 - 1


def is_text(value: Any) -> bool:
    return isinstance(value, str) and len(value) > 0


def require(pairs: Sequence[tuple[str, bool]]) -> None:
    """The first `(pointer, ok)` that is not ok fails the check `malformed_document` naming it."""
    for pointer, ok in pairs:
        if not ok:
            raise CheckFailed("malformed_document", pointer)


def _run(name: str, doc: Any, fn: DocumentCheck) -> PreviewCheck:
    if not isinstance(doc, dict):
        return PreviewCheck(name, False, "malformed_document", "not a json object")
    try:
        fn(doc)
    except CheckFailed as failed:
        return PreviewCheck(name, False, failed.failure, failed.detail)
    except Exception:  # noqa: BLE001 - hostile shapes: what a check cannot read it cannot vouch for
        return PreviewCheck(name, False, "malformed_document")
    return PreviewCheck(name, True)


def _schema_version(expected: str) -> DocumentCheck:
    def check(doc: dict) -> None:
        if doc.get("schema_version") != expected:
            raise CheckFailed("schema_version_mismatch", "/schema_version")

    return check


def verify_preview_document(
    doc: Any, trusted: TrustedKeys, schema_version: str, checks: Sequence[tuple[str, DocumentCheck]]
) -> PreviewVerification:
    """`doc` as a `schema_version` document: signature, schema version, then `checks` in order (each run even when
    an earlier one failed, so the caller sees every problem)."""
    signature = verify_document(doc, trusted)
    results = [
        PreviewCheck("signature", True)
        if signature.valid
        else PreviewCheck("signature", False, signature.failure or "signature_mismatch"),
        _run("schema_version", doc, _schema_version(schema_version)),
    ]
    results.extend(_run(name, doc, fn) for name, fn in checks)
    return PreviewVerification(all(c.valid for c in results), signature.key_id, schema_version, results)
