"""The strict JsonLogic profile `aar-jsonlogic/1` (CONTRACT section 19), ported from core's rules/profile.ts
(`checkRuleProfile`): the same closed operator list, integer literals only, literal `var`/`missing` paths that can
never reach an inherited JS property, at most 32 levels and 2,000 nodes per rule, and the same RFC 6901 pointers.

Attacker assumption: a rule is written by a careless or hostile operator and must evaluate identically in four
runtimes; a rule this check admits is safe for `apply`. Never raises on a JSON value; stops descending past the
depth limit (one problem is enough there).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..decide.js import is_number, is_safe_integer, js_string, json_stringify
from .inherited_names import INHERITED, INHERITED_PROPERTY_NAMES

RULE_PROFILE = "aar-jsonlogic/1"
OPERATORS: tuple[str, ...] = ("var", "missing", "missing_some", "if", "===", "!==", "!", "!!", "or", "and", "<", "<=",
                              ">", ">=", "in", "cat", "substr", "some", "all", "none", "merge", "min", "max", "+", "-",
                              "*", "%")
MAX_RULE_DEPTH = 32
MAX_RULE_NODES = 2000
MAX_PACK_BYTES = 256 * 1024
RULE_PATH_SEGMENT = re.compile(r"[A-Za-z0-9_]+", re.ASCII)
_OPERATOR_SET = frozenset(OPERATORS)
_SCOPED = frozenset(("some", "all", "none"))

__all__ = ["check_rule_profile", "path_problem", "append_pointer", "collect_rule_paths", "OPERATORS",
           "INHERITED_PROPERTY_NAMES", "MAX_RULE_DEPTH", "MAX_RULE_NODES", "MAX_PACK_BYTES", "RULE_PROFILE"]


def append_pointer(pointer: str, token: str | int) -> str:
    """RFC 6901: `~` as `~0`, `/` as `~1`."""
    if isinstance(token, int):
        return f"{pointer}/{token}"
    return f"{pointer}/{token.replace('~', '~0').replace('/', '~1')}"


def path_problem(path: str) -> str | None:
    """Why a `var`/`missing` path is refused, or None. `""` (the whole data) is inside the profile."""
    if path == "":
        return None
    for segment in path.split("."):
        if not RULE_PATH_SEGMENT.fullmatch(segment):
            return f"path {json_stringify(path)}: segment {json_stringify(segment)} must match ^[A-Za-z0-9_]+$"
        if segment in INHERITED:
            return f"path {json_stringify(path)}: segment {json_stringify(segment)} is an inherited property name"
    return None


@dataclass
class _State:
    problems: list[dict[str, str]] = field(default_factory=list)
    nodes: int = 0


def check_rule_profile(expr: Any, pointer: str = "") -> list[dict[str, str]]:
    """Every refusal of `expr` as `{pointer, message}` (pointer under `pointer`, where `expr` sits in its document).
    Empty: the rule is inside the profile."""
    state = _State()
    _check_node(expr, pointer, 1, state)
    if state.nodes > MAX_RULE_NODES:
        state.problems.append({"pointer": pointer,
                               "message": f"rule has {state.nodes} nodes, at most {MAX_RULE_NODES} allowed"})
    return state.problems


def _enter(pointer: str, depth: int, state: _State) -> bool:
    state.nodes += 1
    if depth <= MAX_RULE_DEPTH:
        return True
    state.problems.append({"pointer": pointer, "message": f"rule nests deeper than {MAX_RULE_DEPTH} levels"})
    return False


def _check_node(value: Any, pointer: str, depth: int, state: _State) -> None:
    if not _enter(pointer, depth, state):
        return
    if value is None or isinstance(value, (str, bool)):
        return
    if is_number(value):
        if not is_safe_integer(value):
            state.problems.append({"pointer": pointer,
                                   "message": f"number {js_string(value)} is not a safe integer (integers only)"})
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_node(item, append_pointer(pointer, i), depth + 1, state)
        return
    if not isinstance(value, dict):
        state.problems.append({"pointer": pointer, "message": f"{type(value).__name__} is not a JSON value"})
        return
    if len(value) != 1:
        state.problems.append({"pointer": pointer, "message": "an object in a rule must be an operation with exactly "
                               f"one operator (found {len(value)} members)"})
        return
    op, args = next(iter(value.items()))
    at = append_pointer(pointer, op)
    if op not in _OPERATOR_SET:
        state.problems.append({"pointer": at, "message": f"operator {json_stringify(op)} is not in the profile"})
        return
    if op == "var":
        return _check_var(args, at, depth + 1, state)
    if op == "missing":
        return _check_missing(args, at, depth + 1, state)
    if op == "missing_some":
        return _check_missing_some(args, at, depth + 1, state)
    if op in _SCOPED and (not isinstance(args, list) or len(args) != 2):
        state.problems.append({"pointer": at, "message": f"{op} takes exactly two arguments: [array, rule]"})
        return
    _check_node(args, at, depth + 1, state)


def _check_var(args: Any, pointer: str, depth: int, state: _State) -> None:
    """`"path"`, `integer`, `["path"]` or `["path", default]`; the default may be any rule."""
    if not isinstance(args, list):
        return _check_literal_path(args, pointer, depth, state)
    if not _enter(pointer, depth, state):
        return
    if len(args) < 1 or len(args) > 2:
        state.problems.append({"pointer": pointer, "message": "var takes [path] or [path, default]"})
        return
    _check_literal_path(args[0], append_pointer(pointer, 0), depth + 1, state)
    if len(args) == 2:
        _check_node(args[1], append_pointer(pointer, 1), depth + 1, state)


def _check_missing(args: Any, pointer: str, depth: int, state: _State) -> None:
    """`"path"`, `["p1", "p2"...]` or `[["p1", "p2"...]]`: literal paths only."""
    if not isinstance(args, list):
        return _check_literal_path(args, pointer, depth, state)
    if not _enter(pointer, depth, state):
        return
    if len(args) == 1 and isinstance(args[0], list):
        return _check_path_list(args[0], append_pointer(pointer, 0), depth + 1, state)
    for i, item in enumerate(args):
        _check_literal_path(item, append_pointer(pointer, i), depth + 1, state)


def _check_missing_some(args: Any, pointer: str, depth: int, state: _State) -> None:
    """`[need_count, ["p1", ...]]`: the count is any rule, the paths literal."""
    if not _enter(pointer, depth, state):
        return
    if not isinstance(args, list) or len(args) != 2:
        state.problems.append({"pointer": pointer, "message": "missing_some takes [need_count, [paths]]"})
        return
    _check_node(args[0], append_pointer(pointer, 0), depth + 1, state)
    _check_path_list(args[1], append_pointer(pointer, 1), depth + 1, state)


def _check_path_list(items: Any, pointer: str, depth: int, state: _State) -> None:
    if not _enter(pointer, depth, state):
        return
    if not isinstance(items, list):
        state.problems.append({"pointer": pointer, "message": "expected a literal array of paths"})
        return
    for i, item in enumerate(items):
        _check_literal_path(item, append_pointer(pointer, i), depth + 1, state)


def _check_literal_path(path: Any, pointer: str, depth: int, state: _State) -> None:
    if not _enter(pointer, depth, state):
        return
    if isinstance(path, str):
        text = path
    elif is_number(path) and is_safe_integer(path):
        text = js_string(path)
    else:
        state.problems.append({"pointer": pointer,
                               "message": "a path must be a literal string or integer (computed paths are refused)"})
        return
    problem = path_problem(text)
    if problem:
        state.problems.append({"pointer": pointer, "message": problem})


def collect_rule_paths(expr: Any, into: list[str]) -> None:
    """The data paths a profile-checked rule reads at the top scope (core's collectRulePaths)."""
    if isinstance(expr, list):
        for item in expr:
            collect_rule_paths(item, into)
        return
    if not isinstance(expr, dict) or len(expr) != 1:
        return
    op, args = next(iter(expr.items()))

    def literal(path: Any) -> bool:
        return isinstance(path, str) or is_number(path)

    if op == "var":
        items = args if isinstance(args, list) else [args]
        if items and literal(items[0]):
            into.append(js_string(items[0]))
        if len(items) == 2:
            collect_rule_paths(items[1], into)
        return
    if op == "missing":
        items = (args[0] if len(args) == 1 and isinstance(args[0], list) else args) if isinstance(args, list) else [args]
        into.extend(js_string(p) for p in items if literal(p))
        return
    if op == "missing_some" and isinstance(args, list):
        collect_rule_paths(args[0] if args else None, into)
        if len(args) > 1 and isinstance(args[1], list):
            into.extend(js_string(p) for p in args[1] if literal(p))
        return
    if op in _SCOPED and isinstance(args, list):
        collect_rule_paths(args[0] if args else None, into)
        return
    collect_rule_paths(args, into)
