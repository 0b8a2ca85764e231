"""RFC 8785 (JCS) canonical JSON, the bytes every signature of the service covers (CONTRACT section 4).

Written by hand: the standard library has no JCS, and the contract allows no other dependency. Numbers are written in
ECMAScript's shortest form (Number.prototype.toString), which `repr(float)` gives the digits of; strings are escaped
as JSON.stringify does; object members are sorted by UTF-16 code units. Values JSON cannot hold (NaN, infinities,
lone surrogates, non-string keys, other types) raise `CanonicalJsonError`: no signature can cover them.
"""
from __future__ import annotations

import json
import math
from typing import Any

MAX_SAFE_INTEGER = 2**53 - 1


class CanonicalJsonError(ValueError):
    """The value has no RFC 8785 form."""


class DuplicateKeyError(ValueError):
    pass


def format_number(value: int | float) -> str:
    """ECMAScript Number::toString of `value` (an int beyond 2^53 is first rounded to a double, as JSON.parse does)."""
    if isinstance(value, bool):
        raise CanonicalJsonError("a boolean is not a number")
    if isinstance(value, int):
        if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            return str(value)
        value = float(value)
    if not math.isfinite(value):
        raise CanonicalJsonError("number is not finite")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    text = repr(abs(value))
    mantissa, _, exp = text.partition("e")
    exponent = int(exp) if exp else 0
    whole, _, fraction = mantissa.partition(".")
    if fraction == "0":
        fraction = ""
    digits = (whole + fraction).lstrip("0")
    # value = 0.digits... scaled: position of the decimal point relative to the digit string
    n = len(whole.lstrip("0")) + exponent if whole.lstrip("0") else exponent - (len(fraction) - len(fraction.lstrip("0")))
    digits = digits.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        exp_text = ("+" if e >= 0 else "-") + str(abs(e))
        out = (digits if k == 1 else digits[0] + "." + digits[1:]) + "e" + exp_text
    return sign + out


def _has_lone_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def quote_string(text: str, *, escape_lone_surrogates: bool = False) -> str:
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:
            if not escape_lone_surrogates:
                raise CanonicalJsonError("string holds a lone surrogate")
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def canonical_json(value: Any, *, escape_lone_surrogates: bool = False) -> str:
    """The RFC 8785 text of `value` (dicts, lists, str, int, float, bool, None)."""
    return _write(value, 0, escape_lone_surrogates)


def canonical_bytes(value: Any) -> bytes:
    return canonical_json(value).encode("utf-8")


def _write(value: Any, depth: int, esc: bool) -> str:
    if depth > 1000:
        raise CanonicalJsonError("nesting is too deep")
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return format_number(value)
    if isinstance(value, str):
        return quote_string(value, escape_lone_surrogates=esc)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_write(item, depth + 1, esc) for item in value) + "]"
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise CanonicalJsonError("object keys must be strings")
        keys = sorted(value, key=_utf16_key)
        return "{" + ",".join(quote_string(k, escape_lone_surrogates=esc) + ":" + _write(value[k], depth + 1, esc) for k in keys) + "}"
    raise CanonicalJsonError(f"a value of type `{type(value).__name__}` has no json form")


def _no_constant(name: str) -> Any:
    raise ValueError(f"`{name}` is not json")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, val in pairs:
        if key in out:
            raise DuplicateKeyError(f"duplicate member `{key}`")
        out[key] = val
    return out


def parse_json(text: str | bytes) -> Any:
    """Strict JSON: refuses NaN/Infinity and duplicate member names (an attacker's second `amount` must not hide)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_pairs)
