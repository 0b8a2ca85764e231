"""Equality of two JSON values by their RFC 8785 text; an absent value or one that has no JSON text equals nothing
(core's tryCanonicalJson comparisons)."""
from __future__ import annotations

from typing import Any

from ..jcs import canonical_json
from .checks import MISSING


def canonical_or_none(value: Any) -> str | None:
    if value is MISSING:
        return None
    try:
        return canonical_json(_drop_missing(value))
    except Exception:  # noqa: BLE001 - a value without JSON text (nan, a non-JSON type) equals nothing
        return None


def _drop_missing(value: Any) -> Any:
    # JSON.stringify drops undefined members of objects: so does this
    if isinstance(value, dict):
        return {k: _drop_missing(v) for k, v in value.items() if v is not MISSING}
    return value


def same_json(a: Any, b: Any) -> bool:
    left = canonical_or_none(a)
    return left is not None and left == canonical_or_none(b)
