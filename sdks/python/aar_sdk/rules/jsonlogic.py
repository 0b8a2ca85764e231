"""`apply(rule, data)`: json-logic-js 2.0.5's `jsonLogic.apply` (node_modules/json-logic-js/logic.js, the source of
truth) for the operators of the profile `aar-jsonlogic/1`, ported line by line, coercions included (coerce.py).

Written by hand: the Python JsonLogic packages differ from json-logic-js (truthiness, `+` on strings, `===` on arrays,
number formatting) and none is installable here; every runtime of the service must answer exactly what TypeScript
answered when the decision was made. Call `check_rule_profile` first: an operator outside the profile raises
`JsonLogicError` (as json-logic-js throws "Unrecognized operation"), and so does every path where JavaScript would
throw (a TypeError) or would read a prototype member JSON cannot hold. A caller counts a raise as a matched rule
(fail closed, DESIGN section 1).

Attacker assumptions: rule and data are any JSON (from a pack or an evidence pack). Recursion is bounded by the
rule's depth (the profile allows 32 levels); evaluation never loops on data alone.
"""
from __future__ import annotations

import math
from typing import Any, Callable

from ..decide.js import UNDEFINED
from .coerce import (INF, NAN, JsonLogicError, js_add, js_ge, js_gt, js_le, js_length, js_lt, js_negate,
                     js_remainder, js_string, parse_float, strict_eq, string_index_of, substr, to_number, truthy)
from .inherited_names import INHERITED as _PROTOTYPE_NAMES

__all__ = ["apply", "truthy", "JsonLogicError", "UNDEFINED"]


def _is_logic(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1


def _arg(values: list[Any], i: int) -> Any:
    return values[i] if i < len(values) else UNDEFINED


def _array_index(key: str) -> int | None:
    """The integer a canonical array-index property name denotes (`"0"`, `"12"`; not `"01"`, `"-1"`, `"1.0"`)."""
    if key.isascii() and key.isdigit() and (key == "0" or not key.startswith("0")):
        index = int(key)
        return index if index < 2**32 - 1 else None
    return None


def _member(value: Any, key: str) -> Any:
    """`value[key]` for a JSON value: own members only. A name only a prototype answers (`length` aside) would give a
    function or a number JSON cannot carry, and the profile refuses every such name: raise rather than guess."""
    if isinstance(value, dict):
        if key in value:
            return value[key]
        if key in _PROTOTYPE_NAMES:
            raise JsonLogicError(f"reads inherited property `{key}`")
        return UNDEFINED
    if isinstance(value, list):
        if key == "length":
            return len(value)
        index = _array_index(key)
        if index is not None:
            return value[index] if index < len(value) else UNDEFINED
    elif isinstance(value, str):
        if key == "length":
            return js_length(value)
        index = _array_index(key)
        if index is not None:
            return substr(value, index, 1) if index < js_length(value) else UNDEFINED
    if key in _PROTOTYPE_NAMES:
        raise JsonLogicError(f"reads inherited property `{key}`")
    return UNDEFINED


def _var(data: Any, a: Any = UNDEFINED, b: Any = UNDEFINED) -> Any:
    not_found = None if b is UNDEFINED else b
    if a is UNDEFINED or a is None or (isinstance(a, str) and a == ""):
        return data
    for prop in js_string(a).split("."):
        if data is None or data is UNDEFINED:
            return not_found
        data = _member(data, prop)
        if data is UNDEFINED:
            return not_found
    return data


def _missing(data: Any, *args: Any) -> list[Any]:
    keys = args[0] if args and isinstance(args[0], list) else list(args)
    missing = []
    for key in keys:
        value = apply({"var": key}, data)
        if value is None or (isinstance(value, str) and value == ""):
            missing.append(key)
    return missing


def _missing_some(data: Any, need_count: Any = UNDEFINED, options: Any = UNDEFINED) -> list[Any]:
    are_missing = apply({"missing": options}, data)
    present = js_length(options)
    present = NAN if present is UNDEFINED else present - len(are_missing)
    return [] if js_ge(present, need_count) else are_missing


def _strict_ne(a: Any = UNDEFINED, b: Any = UNDEFINED) -> bool:
    return not strict_eq(a, b)


def _chain(compare: Callable[[Any, Any], bool]) -> Callable[..., bool]:
    def op(_data: Any, a: Any = UNDEFINED, b: Any = UNDEFINED, c: Any = UNDEFINED, *_: Any) -> bool:
        if c is UNDEFINED:
            return compare(a, b)
        return compare(a, b) and compare(b, c)
    return op


def _in(_data: Any, a: Any = UNDEFINED, b: Any = UNDEFINED) -> bool:
    # `if (!b || typeof b.indexOf === "undefined") return false`: only strings and arrays have indexOf
    if isinstance(b, str):
        return b != "" and string_index_of(b, js_string(a)) != -1
    if isinstance(b, list):
        # Array.prototype.indexOf compares with ===
        return any(strict_eq(item, a) for item in b)
    if isinstance(b, dict) and "indexOf" in b:
        raise JsonLogicError("b.indexOf is not a function")  # an own `indexOf` member is never a function in JSON
    return False


def _cat(_data: Any, *args: Any) -> str:
    # Array.prototype.join: null and undefined become "", everything else String()
    return "".join("" if v is None or v is UNDEFINED else js_string(v) for v in args)


def _substr(_data: Any, source: Any = UNDEFINED, start: Any = UNDEFINED, end: Any = UNDEFINED) -> str:
    if js_lt(end, 0):
        # "JavaScript doesn't support negative end, this emulates PHP behavior": temp.length + end is JS `+`
        temp = substr(js_string(source), start)
        return substr(temp, 0, js_add(js_length(temp), end))
    return substr(js_string(source), start, end)


def _plus(_data: Any, *args: Any) -> float:
    total: Any = 0.0
    for value in args:
        total = parse_float(total) + parse_float(value)
    return total


def _times(_data: Any, *args: Any) -> Any:
    # Array.prototype.reduce without an initial value: [] throws, a single value is returned untouched
    if not args:
        raise JsonLogicError("reduce of empty array with no initial value")
    product: Any = args[0]
    for value in args[1:]:
        product = parse_float(product) * parse_float(value)
    return product


def _minus(_data: Any, a: Any = UNDEFINED, b: Any = UNDEFINED) -> float:
    if b is UNDEFINED:
        return js_negate(a)
    return to_number(a) - to_number(b)


def _extreme(pick: Callable[[float, float], bool], empty: float) -> Callable[..., float]:
    def op(_data: Any, *args: Any) -> float:
        numbers = [to_number(v) for v in args]
        best = empty
        for n in numbers:
            if n != n:
                return NAN
            if pick(n, best):
                best = n
        return best
    return op


def _merge(_data: Any, *args: Any) -> list[Any]:
    merged: list[Any] = []
    for value in args:
        # Array.prototype.concat spreads an array argument one level, appends anything else
        if isinstance(value, list):
            merged.extend(value)
        else:
            merged.append(value)
    return merged


OPERATIONS: dict[str, Callable[..., Any]] = {
    "===": lambda _d, a=UNDEFINED, b=UNDEFINED, *_: strict_eq(a, b),
    "!==": lambda _d, a=UNDEFINED, b=UNDEFINED, *_: _strict_ne(a, b),
    ">": lambda _d, a=UNDEFINED, b=UNDEFINED, *_: js_gt(a, b),
    ">=": lambda _d, a=UNDEFINED, b=UNDEFINED, *_: js_ge(a, b),
    "<": _chain(js_lt),
    "<=": _chain(js_le),
    "!!": lambda _d, a=UNDEFINED, *_: truthy(a),
    "!": lambda _d, a=UNDEFINED, *_: not truthy(a),
    "%": lambda _d, a=UNDEFINED, b=UNDEFINED, *_: js_remainder(a, b),
    "in": lambda _d, a=UNDEFINED, b=UNDEFINED, *_: _in(_d, a, b),
    "cat": _cat,
    "substr": lambda _d, s=UNDEFINED, a=UNDEFINED, e=UNDEFINED, *_: _substr(_d, s, a, e),
    "+": _plus,
    "*": _times,
    "-": lambda _d, a=UNDEFINED, b=UNDEFINED, *_: _minus(_d, a, b),
    "min": _extreme(lambda n, best: n < best or (n == 0 and best == 0 and math.copysign(1, n) < 0), INF),
    "max": _extreme(lambda n, best: n > best or (n == 0 and best == 0 and math.copysign(1, n) > 0), -INF),
    "merge": _merge,
    "var": lambda d, a=UNDEFINED, b=UNDEFINED, *_: _var(d, a, b),
    "missing": _missing,
    "missing_some": lambda d, n=UNDEFINED, o=UNDEFINED, *_: _missing_some(d, n, o),
}

def apply(logic: Any, data: Any = None) -> Any:
    """jsonLogic.apply(logic, data). Raises JsonLogicError where json-logic-js throws."""
    if isinstance(logic, list):
        return [apply(item, data) for item in logic]
    if not _is_logic(logic):
        return logic
    op = next(iter(logic))
    values = logic[op]
    if not isinstance(values, list):
        values = [values]

    if op == "if":
        i = 0
        while i < len(values) - 1:
            if truthy(apply(values[i], data)):
                return apply(values[i + 1], data)
            i += 2
        if len(values) == i + 1:
            return apply(values[i], data)
        return None
    if op == "and":
        current: Any = UNDEFINED
        for value in values:
            current = apply(value, data)
            if not truthy(current):
                return current
        return current
    if op == "or":
        current = UNDEFINED
        for value in values:
            current = apply(value, data)
            if truthy(current):
                return current
        return current
    if op in ("all", "none", "some"):
        return _quantify(op, values, data)

    operation = OPERATIONS.get(op)
    if operation is None:
        raise JsonLogicError(f"Unrecognized operation {op}")
    args = [apply(value, data) for value in values]
    return operation(data, *args)


def _quantify(op: str, values: list[Any], data: Any) -> bool:
    scoped_data = apply(_arg(values, 0), data)
    scoped_logic = _arg(values, 1)
    if not isinstance(scoped_data, list) or not scoped_data:
        return op == "none"
    for datum in scoped_data:
        hit = truthy(apply(scoped_logic, datum))
        if op == "all" and not hit:
            return False
        if op == "none" and hit:
            return False
        if op == "some" and hit:
            return True
    return op != "some"
