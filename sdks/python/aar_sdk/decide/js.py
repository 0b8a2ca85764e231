"""JavaScript value semantics the decision engine relies on, so the port reads input exactly as core does.

Core is the reference: a snapshot replayed from an evidence pack is plain JSON, and core reads it with JS rules
(`undefined` apart from `null`, `===` that never equates `true` with `1`, every array and object truthy). Python's
`None`, `==` and truthiness differ on each point, so the port goes through these helpers and never relies on them.
"""
from __future__ import annotations

import json
import math
import re
from typing import Any

from ..jcs import format_number


class _Undefined:
    _instance = None

    def __new__(cls) -> "_Undefined":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "undefined"

    def __bool__(self) -> bool:
        return False


UNDEFINED: Any = _Undefined()
MAX_SAFE_INTEGER = 2**53 - 1


def get(value: Any, key: str) -> Any:
    """`value[key]` for an own member of a plain object; `undefined` otherwise (JSON has no prototype members that
    the engine reads: every name it reads is one no Object.prototype member has)."""
    if isinstance(value, dict) and key in value:
        return value[key]
    return UNDEFINED


def is_record(value: Any) -> bool:
    return isinstance(value, dict)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_safe_integer(value: Any) -> bool:
    if not is_number(value):
        return False
    if isinstance(value, float):
        return math.isfinite(value) and value.is_integer() and abs(value) <= MAX_SAFE_INTEGER
    return abs(value) <= MAX_SAFE_INTEGER


def strict_eq(a: Any, b: Any) -> bool:
    """JavaScript `===` on JSON values: objects and arrays by identity, numbers by value, no bool/number mixing."""
    if a is UNDEFINED or b is UNDEFINED:
        return a is b
    if a is None or b is None:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return a is b
    return False


def includes(array: Any, value: Any) -> bool:
    """Array.prototype.includes (SameValueZero) for a JSON array."""
    return isinstance(array, list) and any(strict_eq(item, value) for item in array)


def js_string(value: Any) -> str:
    """String(value) for a JSON value."""
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if is_number(value):
        try:
            return format_number(value)
        except ValueError:
            return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join("" if v is None or v is UNDEFINED else js_string(v) for v in value)
    return "[object Object]"


def json_stringify(value: Any) -> str | None:
    """JSON.stringify for JSON values (insertion order, no spaces); None for undefined."""
    if value is UNDEFINED:
        return None
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_number(value):
        try:
            return format_number(value)
        except ValueError:
            return "null"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(json_stringify(v) or "null" for v in value) + "]"
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            text = json_stringify(v)
            if text is not None:
                parts.append(json.dumps(str(k), ensure_ascii=False) + ":" + text)
        return "{" + ",".join(parts) + "}"
    return None


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_slice(text: str, end: int) -> str:
    return text.encode("utf-16-le", "surrogatepass")[: end * 2].decode("utf-16-le", "surrogatepass")


def fullmatch(pattern: re.Pattern[str], value: Any) -> bool:
    return isinstance(value, str) and pattern.fullmatch(value) is not None
