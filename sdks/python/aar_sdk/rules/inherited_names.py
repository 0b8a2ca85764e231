"""Every own property name of Object.prototype, Array.prototype, String.prototype, Number.prototype and
Boolean.prototype (Node 20): copied literally from core's `INHERITED_PROPERTY_NAMES` (packages/core/src/rules/profile.ts),
which recomputes it from the prototypes in its test. A rule path segment with one of these names is refused by the
profile: json-logic-js would find the inherited member (a function, a string's `length`) where JSON data has none.
"""
from __future__ import annotations

INHERITED_PROPERTY_NAMES: tuple[str, ...] = (
    "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__", "__proto__", "anchor", "at",
    "big", "blink", "bold", "charAt", "charCodeAt", "codePointAt", "concat", "constructor", "copyWithin", "endsWith",
    "entries", "every", "fill", "filter", "find", "findIndex", "findLast", "findLastIndex", "fixed", "flat",
    "flatMap", "fontcolor", "fontsize", "forEach", "hasOwnProperty", "includes", "indexOf", "isPrototypeOf",
    "isWellFormed", "italics", "join", "keys", "lastIndexOf", "length", "link", "localeCompare", "map", "match",
    "matchAll", "normalize", "padEnd", "padStart", "pop", "propertyIsEnumerable", "push", "reduce", "reduceRight",
    "repeat", "replace", "replaceAll", "reverse", "search", "shift", "slice", "small", "some", "sort", "splice",
    "split", "startsWith", "strike", "sub", "substr", "substring", "sup", "toExponential", "toFixed",
    "toLocaleLowerCase", "toLocaleString", "toLocaleUpperCase", "toLowerCase", "toPrecision", "toReversed",
    "toSorted", "toSpliced", "toString", "toUpperCase", "toWellFormed", "trim", "trimEnd", "trimLeft", "trimRight",
    "trimStart", "unshift", "valueOf", "values", "with",
)

INHERITED: frozenset[str] = frozenset(INHERITED_PROPERTY_NAMES)
