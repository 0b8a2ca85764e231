"""JavaScript's value coercions as json-logic-js 2.0.5 meets them: ToNumber, ToString (String()), parseFloat, `+` on
primitives, the abstract relational comparison behind `<`/`>`, truthiness, and String.prototype.indexOf/substr on
UTF-16 code units.

Written by hand: no Python library reproduces ECMAScript's coercions, and the rule language must answer exactly what
json-logic-js answers (CONTRACT section 19). Values are JSON values as Python holds them (dict, list, str, int, float,
bool, None) plus `UNDEFINED`; numbers are computed as IEEE doubles (Python float), as JS does. Every input may be
attacker-written (a rule or a snapshot from an evidence pack): nothing here raises on a JSON value.
"""
from __future__ import annotations

import math
import re
from typing import Any

from ..decide.js import UNDEFINED, is_number, js_string as _primitive_string

# ECMAScript WhiteSpace and LineTerminator (what StringToNumber and parseFloat trim): TAB VT FF SP NBSP ZWNBSP, the
# Unicode Zs category, LF CR LS PS.
JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
                "\u2028\u2029\u202f\u205f\u3000\ufeff"
class JsonLogicError(Exception):
    """Where json-logic-js throws: an unknown operator, or a JavaScript TypeError."""


NAN = math.nan
INF = math.inf

_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)", re.ASCII)
_NON_DECIMAL = re.compile(r"0(?:[xX]([0-9a-fA-F]+)|[oO]([0-7]+)|[bB]([01]+))", re.ASCII)


def _decimal_value(text: str) -> float:
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("+-")
    if body == "Infinity":
        return sign * INF
    return float(text)  # the grammar above is a subset of Python's float syntax; float() rounds correctly


def string_to_number(text: str) -> float:
    """StringToNumber: trimmed, empty is 0, a whole decimal literal (or 0x/0o/0b integer), else NaN."""
    body = text.strip(JS_WHITESPACE)
    if body == "":
        return 0.0
    if _DECIMAL.fullmatch(body):
        return _decimal_value(body)
    m = _NON_DECIMAL.fullmatch(body)
    if m:
        digits, base = next((g, b) for g, b in zip(m.groups(), (16, 8, 2)) if g is not None)
        return float(int(digits, base))
    return NAN


def to_double(value: int | float) -> float:
    """A JSON number as the double JSON.parse makes of it (an integer beyond the double range is an infinity)."""
    try:
        return float(value)
    except OverflowError:
        return INF if value > 0 else -INF


def js_string(value: Any) -> str:
    """String(value). An object's String() is "[object Object]" unless it has an own `toString` member: JSON can only
    give it a non-function there, so ToPrimitive finds no callable method and JS throws a TypeError (so do we). An
    array joins its elements with "," (null and undefined as "")."""
    if isinstance(value, dict):
        if "toString" in value:
            raise JsonLogicError("cannot convert object to primitive value")
        return "[object Object]"
    if isinstance(value, list):
        return ",".join("" if v is None or v is UNDEFINED else js_string(v) for v in value)
    return _primitive_string(value)


def to_primitive(value: Any) -> Any:
    """ToPrimitive for JSON values: arrays and objects become their String() (valueOf answers the object itself)."""
    if isinstance(value, (list, dict)):
        return js_string(value)
    return value


def to_number(value: Any) -> float:
    """ToNumber, always a double."""
    if value is UNDEFINED:
        return NAN
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if is_number(value):
        return to_double(value)
    if isinstance(value, str):
        return string_to_number(value)
    return string_to_number(js_string(value))


def parse_float(value: Any) -> float:
    """parseFloat(String(value)): the longest decimal-literal prefix after leading whitespace, else NaN."""
    text = js_string(value).lstrip(JS_WHITESPACE)
    m = _DECIMAL.match(text)
    if not m:
        return NAN
    literal = m.group(0)
    # `Infinity` is matched whole or not at all; a decimal prefix that ends in an incomplete exponent was not matched
    return _decimal_value(literal)


def strict_eq(a: Any, b: Any) -> bool:
    """`a === b`: same type; numbers as doubles (NaN unequal to itself); arrays and objects by identity."""
    if is_number(a) and is_number(b):
        return to_double(a) == to_double(b)
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return a is b
    if type(a) is not type(b):
        return a is b  # None, UNDEFINED, or two different types (bool is never a number here)
    return a == b


def truthy(value: Any) -> bool:
    """json-logic-js `truthy`: JS `!!value`, except that an empty array is falsy."""
    if isinstance(value, list):
        return len(value) > 0
    if value is None or value is UNDEFINED or value is False:
        return False
    if is_number(value):
        return value == value and value != 0
    if isinstance(value, str):
        return value != ""
    return True


def to_integer_or_infinity(value: Any) -> float:
    number = to_number(value)
    if number != number:
        return 0.0
    if math.isinf(number):
        return number
    return float(math.trunc(number))


def utf16(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def from_utf16(units: bytes) -> str:
    return units.decode("utf-16-be", "surrogatepass")


def utf16_length(text: str) -> int:
    return len(utf16(text)) // 2


def less_than(a: Any, b: Any) -> bool | None:
    """The abstract relational comparison `a < b`: None where JS answers undefined (a NaN operand)."""
    pa, pb = to_primitive(a), to_primitive(b)
    if isinstance(pa, str) and isinstance(pb, str):
        # String comparison is by UTF-16 code unit; big-endian bytes order the same way
        return utf16(pa) < utf16(pb)
    na, nb = to_number(pa), to_number(pb)
    if na != na or nb != nb:
        return None
    return na < nb


def js_lt(a: Any, b: Any) -> bool:
    return less_than(a, b) is True


def js_gt(a: Any, b: Any) -> bool:
    return less_than(b, a) is True


def js_le(a: Any, b: Any) -> bool:
    r = less_than(b, a)
    return r is False


def js_ge(a: Any, b: Any) -> bool:
    r = less_than(a, b)
    return r is False


def js_add(a: Any, b: Any) -> Any:
    """The `+` operator: string concatenation when either primitive is a string, else numeric addition."""
    pa, pb = to_primitive(a), to_primitive(b)
    if isinstance(pa, str) or isinstance(pb, str):
        return js_string(pa) + js_string(pb)
    return to_number(pa) + to_number(pb)


def js_remainder(a: Any, b: Any) -> float:
    """The `%` operator: truncating remainder with the dividend's sign (C fmod)."""
    x, y = to_number(a), to_number(b)
    if x != x or y != y or math.isinf(x) or y == 0:
        return NAN
    if math.isinf(y) or x == 0:
        return x
    return math.fmod(x, y)


def js_negate(a: Any) -> float:
    return -to_number(a)


def string_index_of(haystack: str, needle: str) -> int:
    """String.prototype.indexOf on UTF-16 code units (a lone surrogate may match half of a pair, as in JS)."""
    h, n = utf16(haystack), utf16(needle)
    start = h.find(n)
    while start != -1 and start % 2:
        start = h.find(n, start + 1)
    return -1 if start == -1 else start // 2


def substr(text: str, start: Any, length: Any = UNDEFINED) -> str:
    """String.prototype.substr (ECMAScript Annex B.2.2.1), on UTF-16 code units."""
    units = utf16(text)
    size = len(units) // 2
    int_start = to_integer_or_infinity(start)
    if int_start == -INF:
        int_start = 0.0
    elif int_start < 0:
        int_start = max(size + int_start, 0.0)
    else:
        int_start = min(int_start, float(size))
    int_length = float(size) if length is UNDEFINED else to_integer_or_infinity(length)
    int_length = min(max(int_length, 0.0), float(size))
    int_end = min(int_start + int_length, float(size))
    if int_start >= int_end:
        return ""
    return from_utf16(units[int(int_start) * 2:int(int_end) * 2])


def js_length(value: Any) -> Any:
    """`value.length` for the values json-logic-js reads it on: a string's code units, an array's length; undefined on
    other values. Raises TypeError on null and undefined, as JS does."""
    if value is None or value is UNDEFINED:
        raise JsonLogicError("cannot read properties of null or undefined (reading 'length')")
    if isinstance(value, str):
        return utf16_length(value)
    if isinstance(value, list):
        return len(value)
    return UNDEFINED
